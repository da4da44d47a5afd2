-- Trip log editing (spec §3 Trip, §4 trip merge and split, driver check-in and check-out).

-- Spec §3: a trip carries a merged flag; a merged trip cannot be merged again (§4).
ALTER TABLE trips ADD COLUMN merged boolean NOT NULL DEFAULT false;

-- The trips a merge replaced, exactly as they were, so a split restores them (spec §4: a split undoes the last merge).
-- No foreign key on merged_into: a split deletes the merged trip before the parts go back.
CREATE TABLE trip_merge_parts (
  merged_into bigint NOT NULL,
  id bigint NOT NULL,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  account_id integer NOT NULL,
  start_time timestamptz NOT NULL,
  stop_time timestamptz NOT NULL,
  start_geom geometry(Point, 4326) NOT NULL,
  stop_geom geometry(Point, 4326) NOT NULL,
  start_address text,
  stop_address text,
  odometer_start_m double precision NOT NULL,
  odometer_stop_m double precision NOT NULL,
  odometer_source text NOT NULL,
  distance_m double precision NOT NULL,
  max_speed_kmh real NOT NULL,
  avg_speed_kmh real NOT NULL,
  driver_key text,
  driver_user_id integer,
  harsh_braking integer NOT NULL,
  harsh_acceleration integer NOT NULL,
  harsh_cornering integer NOT NULL,
  type text NOT NULL,
  type_source text NOT NULL,
  purpose text,
  note text,
  passengers text,
  detection text NOT NULL,
  point_count integer NOT NULL,
  detected_at timestamptz NOT NULL,
  merged_by integer REFERENCES users(id) ON DELETE SET NULL,
  merged_at timestamptz NOT NULL,
  PRIMARY KEY (merged_into, id)
);

-- Drivers checked in on a unit (spec §3 Unit: checked-in driver; §4: check-in from a trip applies to later trips,
-- an existing driver is checked out first). Open while checked_out_at is NULL; at most one open per unit.
CREATE TABLE trip_driver_checkins (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  checked_in_at timestamptz NOT NULL,
  checked_out_at timestamptz,
  checked_in_by integer REFERENCES users(id) ON DELETE SET NULL,
  checked_out_by integer REFERENCES users(id) ON DELETE SET NULL,
  CHECK (checked_out_at IS NULL OR checked_out_at >= checked_in_at)
);
CREATE UNIQUE INDEX trip_driver_checkins_open ON trip_driver_checkins (unit_id) WHERE checked_out_at IS NULL;
CREATE INDEX trip_driver_checkins_unit ON trip_driver_checkins (unit_id, checked_in_at);
