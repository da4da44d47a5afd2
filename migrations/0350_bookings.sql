-- Car booking schedule (spec §2 car schedule, §3 Booking, §5, §6). A booking reserves one unit for one driver (a user
-- of the account) over a time range. No two bookings of a unit overlap: the exclusion constraint refuses the second
-- of two overlapping bookings however many are written at once (ranges are half-open, so one booking may start when
-- the previous ends). btree_gist gives the GiST index its equality on unit_id.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE bookings (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  driver_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  purpose text NOT NULL CHECK (char_length(purpose) BETWEEN 1 AND 100),
  created_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_by integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT bookings_end_after_start CHECK (ends_at > starts_at),
  CONSTRAINT bookings_no_overlap EXCLUDE USING gist (unit_id WITH =, tstzrange(starts_at, ends_at) WITH &&)
);

-- The week and month views: an account's bookings overlapping a range (and the account's oldest booking).
CREATE INDEX bookings_account_start ON bookings (account_id, starts_at, ends_at);
-- A driver's own bookings (My Booking).
CREATE INDEX bookings_driver_start ON bookings (driver_id, starts_at);
