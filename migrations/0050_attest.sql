-- Trip attest (spec §3 Attest record: user, period, note at most 100, attested by, history; §4 attest; §6 administrators attest for others).

-- One record per user and month (period 'YYYY-MM', the days taken in the user's time zone; from_time/to_time are those instants).
-- status: attested (the user's trips of the period are read-only), unlocked (an administrator made them editable again,
-- the record stays), unattested (an administrator withdrew the attest). Removing an attest deletes the row; the log keeps it.
CREATE TABLE trip_attests (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  period text NOT NULL CHECK (period ~ '^\d{4}-\d{2}$'),
  from_time timestamptz NOT NULL,
  to_time timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('attested', 'unlocked', 'unattested')),
  note text CHECK (char_length(note) <= 100),
  attested_by integer REFERENCES users(id) ON DELETE SET NULL,
  attested_at timestamptz NOT NULL,
  changed_by integer REFERENCES users(id) ON DELETE SET NULL,
  changed_at timestamptz NOT NULL,
  CHECK (to_time > from_time),
  UNIQUE (user_id, period)
);
CREATE INDEX trip_attests_account ON trip_attests (account_id, user_id);

-- Spec §3: the history of every attest (attested, unlocked, unattested, removed), kept when the record is removed.
CREATE TABLE trip_attest_log (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  period text NOT NULL,
  action text NOT NULL CHECK (action IN ('attested', 'unlocked', 'unattested', 'removed')),
  note text,
  by_user_id integer REFERENCES users(id) ON DELETE SET NULL,
  at timestamptz NOT NULL
);
CREATE INDEX trip_attest_log_user ON trip_attest_log (user_id, period, at);

-- Reminders sent (spec §4: reminders exist): one per user and month, so the job is idempotent.
CREATE TABLE trip_attest_reminders (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  period text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, period)
);
