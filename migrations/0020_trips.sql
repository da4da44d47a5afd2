-- Trip log: trips detected from stored positions, per-unit detection settings, each unit's detector
-- state (also the per-unit lock that serialises detection), and the reverse-geocoding cache.

-- Per-unit overrides of the detection parameters; a NULL column means "use the default".
CREATE TABLE trip_unit_settings (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  -- auto: by ignition once the unit has reported ignition, by motion otherwise.
  detection text CHECK (detection IN ('auto', 'ignition', 'motion')),
  min_distance_m integer CHECK (min_distance_m BETWEEN 0 AND 100000),
  min_duration_s integer CHECK (min_duration_s BETWEEN 0 AND 86400),
  time_till_parked_s integer CHECK (time_till_parked_s BETWEEN 30 AND 86400),
  max_gap_s integer CHECK (max_gap_s BETWEEN 60 AND 604800),
  moving_speed_kmh real CHECK (moving_speed_kmh > 0 AND moving_speed_kmh <= 100),
  default_trip_type text CHECK (default_trip_type IN ('business', 'private', 'other')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per unit that has been through detection. Detection locks it (FOR UPDATE), so two batches of
-- one unit, in this process or another, are detected one after the other.
CREATE TABLE trip_detector_state (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  -- Newest position time fed to the detector; later positions continue from `machine`.
  last_position_time timestamptz,
  -- The detector's state after last_position_time (a trip in progress, or parked).
  machine jsonb,
  -- Start of the trip in progress; trips stored from here on are provisional and replaced on the next run.
  open_since timestamptz,
  -- When a trip in progress may be closed by the clock alone (a tracker that fell silent).
  recheck_at timestamptz,
  -- Sticky: the unit has reported ignition at least once (auto detection then goes by ignition).
  reports_ignition boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trip_detector_state_recheck ON trip_detector_state (recheck_at) WHERE recheck_at IS NOT NULL;

CREATE TABLE trips (
  id bigserial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  start_time timestamptz NOT NULL,
  stop_time timestamptz NOT NULL,
  start_geom geometry(Point, 4326) NOT NULL,
  stop_geom geometry(Point, 4326) NOT NULL,
  start_address text,
  stop_address text,
  -- Device odometer when the tracker reports one at start and stop, else GPS distance accumulated from
  -- trip to trip (each trip starts where the previous one stopped).
  odometer_start_m double precision NOT NULL,
  odometer_stop_m double precision NOT NULL,
  odometer_source text NOT NULL CHECK (odometer_source IN ('device', 'gps')),
  distance_m double precision NOT NULL CHECK (distance_m >= 0),
  max_speed_kmh real NOT NULL DEFAULT 0,
  avg_speed_kmh real NOT NULL DEFAULT 0,
  -- Driver as the tracker identified it (iButton or beacon id).
  driver_key text,
  -- Driver as a user of the account (check-in, manual choice).
  driver_user_id integer REFERENCES users(id) ON DELETE SET NULL,
  harsh_braking integer NOT NULL DEFAULT 0,
  harsh_acceleration integer NOT NULL DEFAULT 0,
  harsh_cornering integer NOT NULL DEFAULT 0,
  type text NOT NULL CHECK (type IN ('business', 'private', 'other')),
  -- Where the type came from: the unit's default, a place rule, or a person (kept across re-detection).
  type_source text NOT NULL DEFAULT 'default' CHECK (type_source IN ('default', 'rule', 'user')),
  purpose text CHECK (char_length(purpose) <= 100),
  note text CHECK (char_length(note) <= 500),
  passengers text CHECK (char_length(passengers) <= 200),
  detection text NOT NULL CHECK (detection IN ('ignition', 'motion')),
  point_count integer NOT NULL DEFAULT 0,
  detected_at timestamptz NOT NULL DEFAULT now(),
  CHECK (stop_time > start_time),
  CHECK (odometer_stop_m >= odometer_start_m)
);
CREATE INDEX trips_unit_start ON trips (unit_id, start_time);
CREATE INDEX trips_account_start ON trips (account_id, start_time);

-- Trips of one unit never overlap. Detection serialises per unit, so this is a safety net that turns a
-- bug into a failed (rolled back) detection instead of a corrupt trip log.
CREATE FUNCTION trips_no_overlap() RETURNS trigger AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM trips
    WHERE unit_id = NEW.unit_id AND id <> NEW.id AND start_time < NEW.stop_time AND stop_time > NEW.start_time
  ) THEN
    RAISE EXCEPTION 'trip % - % of unit % overlaps another trip', NEW.start_time, NEW.stop_time, NEW.unit_id
      USING ERRCODE = '23P01';
  END IF;
  RETURN NEW;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER trips_no_overlap BEFORE INSERT OR UPDATE OF unit_id, start_time, stop_time ON trips
  FOR EACH ROW EXECUTE FUNCTION trips_no_overlap();

-- Reverse-geocoding results by provider and coordinates rounded to 4 decimals (about 11 m).
-- An empty address records that the provider found nothing there.
CREATE TABLE geocode_cache (
  provider text NOT NULL,
  lat_e4 integer NOT NULL,
  lon_e4 integer NOT NULL,
  address text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, lat_e4, lon_e4)
);
