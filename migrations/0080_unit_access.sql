-- Unit access (spec §3 User "visible units", §6): which ordinary users of an account see which units, and who
-- has access to a locked benefit or private car besides its locker. Administrators see every unit of their
-- account; for them a row matters only when the unit is locked (access to its trips and positions).
CREATE TABLE unit_access (
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  granted_by integer REFERENCES users(id) ON DELETE SET NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (unit_id, user_id)
);
CREATE INDEX unit_access_user ON unit_access (user_id, unit_id);

-- Operating hours counted from the tracker (spec §3 Unit operating hours): ignition-on time summed from the
-- stored records, and the tracker's own engine-hours counter where its model reports one (Teltonika IO 449).
-- The shown value is the newest calibration (unit_meter_calibrations, kind 'hours') plus what was counted since.
CREATE TABLE unit_engine_hours (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  -- Seconds of ignition-on time counted from the records since the unit first reported.
  counted_s double precision NOT NULL DEFAULT 0 CHECK (counted_s >= 0),
  -- The newest record taken into account, and its ignition state (older records arriving late are not counted).
  last_time timestamptz,
  last_ignition boolean,
  -- The tracker's engine-hours counter in seconds, as last reported (null when the model has none).
  tracker_s double precision CHECK (tracker_s >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
