-- Spec §4 theft mode of a unit (units module). One row per unit that has ever been in theft mode: the switch the
-- user or a theft zone's exit made, the operating mode to restore when it is switched off, and the setting request
-- (unit_setting_requests) that carries the switch to the tracker; the state is pending until the tracker confirms.
CREATE TABLE unit_theft_mode (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  account_id integer NOT NULL,
  state text NOT NULL CHECK (state IN ('off', 'pending-on', 'on', 'pending-off')),
  -- The confirmed operating mode before theft mode went on (null: the unit had none), restored when switched off.
  previous_mode text CHECK (previous_mode IN ('24h', '8h', '1h', 'realtime')),
  cause text CHECK (cause IN ('manual', 'geofence')),
  geofence_id integer,
  geofence_name text,
  since timestamptz,
  -- The setting request of the current switch (on or off).
  request_id integer REFERENCES unit_setting_requests(id) ON DELETE SET NULL,
  -- The last switch failed at the tracker (no answer, expired or refused).
  failed boolean NOT NULL DEFAULT false,
  -- Security events: positions up to this fix time have been published as unit.theft_movement.
  watched_until timestamptz,
  switched_by integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The units being watched (few): each stored batch of theirs is a security event.
CREATE INDEX unit_theft_mode_watched ON unit_theft_mode (unit_id) WHERE state IN ('pending-on', 'on');
