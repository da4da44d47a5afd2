-- Geofences (security zones, spec §1, §2 /user/geofences, §3 Geofence, §4, §5, §8, §9): a circle or a polygon, the
-- units it applies to (directly or through a feature profile), deactivation windows, the state of each (unit, zone)
-- and the log of crossings.

-- The brand's smallest zone radius (spec: "above 300 m", another text 50 m): 300 unless the operator lowers it.
ALTER TABLE brands ADD COLUMN geofence_radius_min_m integer NOT NULL DEFAULT 300 CHECK (geofence_radius_min_m BETWEEN 50 AND 9999);

CREATE TABLE geofences (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
  shape text NOT NULL CHECK (shape IN ('circle', 'polygon')),
  -- A circle: its centre (a point) with radius_m; a polygon: the polygon itself. Geography, so distances are metres on
  -- the spheroid and "inside" is ST_DWithin (circle) or ST_Covers (polygon).
  geom geography NOT NULL,
  radius_m integer CHECK (radius_m BETWEEN 1 AND 9999),
  theft_mode boolean NOT NULL DEFAULT false,
  real_time boolean NOT NULL DEFAULT true,
  active boolean NOT NULL DEFAULT true,
  -- The zone deactivation windows are read in: the account's country's.
  time_zone text NOT NULL DEFAULT 'Europe/Stockholm',
  created_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((shape = 'circle') = (radius_m IS NOT NULL))
);
CREATE INDEX geofences_account ON geofences (account_id);
CREATE INDEX geofences_geom ON geofences USING gist (geom);

-- The units a zone is assigned to directly (spec §5: at most 5 zones per unit, profile zones included: the service checks).
CREATE TABLE geofence_units (
  geofence_id integer NOT NULL REFERENCES geofences(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  PRIMARY KEY (geofence_id, unit_id)
);
CREATE INDEX geofence_units_unit ON geofence_units (unit_id, geofence_id);

-- A window in which the zone raises nothing: on the days (0 Sunday-6 Saturday) from from_minute; a to_minute not after
-- from_minute runs past midnight into the next day.
CREATE TABLE geofence_deactivations (
  id serial PRIMARY KEY,
  geofence_id integer NOT NULL REFERENCES geofences(id) ON DELETE CASCADE,
  position smallint NOT NULL DEFAULT 0,
  days smallint[] NOT NULL CHECK (cardinality(days) BETWEEN 1 AND 7 AND days <@ ARRAY[0, 1, 2, 3, 4, 5, 6]::smallint[]),
  from_minute smallint NOT NULL CHECK (from_minute BETWEEN 0 AND 1440),
  to_minute smallint NOT NULL CHECK (to_minute BETWEEN 0 AND 1440)
);
CREATE INDEX geofence_deactivations_zone ON geofence_deactivations (geofence_id, position);

-- Where each unit stands with each of its zones, as matching left it: the confirmed side (null until two fixes agree),
-- the side fixes lean to and how many in a row (hysteresis), and the newest fix considered (older ones are history).
CREATE TABLE geofence_state (
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  geofence_id integer NOT NULL REFERENCES geofences(id) ON DELETE CASCADE,
  inside boolean,
  leaning boolean,
  leaning_count smallint NOT NULL DEFAULT 0,
  last_fix timestamptz,
  PRIMARY KEY (unit_id, geofence_id)
);
CREATE INDEX geofence_state_zone ON geofence_state (geofence_id) WHERE inside;

-- Every confirmed crossing outside a deactivation window (the zone event log).
CREATE TABLE geofence_events (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  geofence_id integer NOT NULL REFERENCES geofences(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  transition text NOT NULL CHECK (transition IN ('entered', 'exited')),
  at timestamptz NOT NULL,
  lat double precision NOT NULL,
  lon double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (unit_id, geofence_id, at, transition)
);
CREATE INDEX geofence_events_account ON geofence_events (account_id, at DESC);
CREATE INDEX geofence_events_zone ON geofence_events (geofence_id, at DESC);
CREATE INDEX geofence_events_unit ON geofence_events (unit_id, at DESC);

-- units publishes the geozones its feature profiles name (spec §3: up to 5), and through them each unit's.
CREATE VIEW feature_profile_geozones AS
  SELECT p.id AS profile_id, p.account_id, g.geofence_id
  FROM feature_profiles p CROSS JOIN LATERAL unnest(p.geozone_ids) AS g(geofence_id);
CREATE VIEW unit_profile_geozones AS
  SELECT u.id AS unit_id, g.geofence_id
  FROM units u JOIN feature_profiles p ON p.id = u.feature_profile_id CROSS JOIN LATERAL unnest(p.geozone_ids) AS g(geofence_id);
