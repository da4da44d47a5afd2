-- Units: every field of the spec's Unit, the account catalogues units are filed under (departments, projects,
-- tags, feature profiles), name history, registration-number changes, meter calibrations, lock state and log,
-- object description with pictures, theft report, settings queued to the tracker, tracker replacements and
-- each user's unit-list preferences.

-- Department, project, tag and feature profile: an account's catalogues (spec §3); names unique per account (§5).
CREATE TABLE departments (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX departments_name ON departments (account_id, lower(name));

CREATE TABLE projects (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX projects_name ON projects (account_id, lower(name));

CREATE TABLE tags (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_name ON tags (account_id, lower(name));

CREATE TABLE feature_profiles (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  green_driving text NOT NULL DEFAULT 'normal' CHECK (green_driving IN ('sensitive', 'normal', 'insensitive')),
  overspeed_kmh integer CHECK (overspeed_kmh BETWEEN 1 AND 300),
  -- Geofence ids, at most 5 (spec §9: geozones per device 5).
  geozone_ids integer[] NOT NULL DEFAULT '{}' CHECK (cardinality(geozone_ids) <= 5),
  -- { "recurrence": 1|2|3 (weeks), "days": [{ "day": 1-7, "start": "HH:mm", "end": "HH:mm" }] } or null.
  working_hours jsonb,
  car_benefit boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX feature_profiles_name ON feature_profiles (account_id, lower(name));

-- Trip-log devices are vehicle-powered and keep a trip log; battery devices are asset trackers with operating modes.
ALTER TABLE tracker_stock ADD COLUMN device_kind text NOT NULL DEFAULT 'triplog' CHECK (device_kind IN ('triplog', 'battery'));

ALTER TABLE units
  ADD COLUMN device_kind text NOT NULL DEFAULT 'triplog' CHECK (device_kind IN ('triplog', 'battery')),
  ADD COLUMN color text NOT NULL DEFAULT '#0b5cad' CHECK (color ~ '^#[0-9a-f]{6}$'),
  ADD COLUMN marker_icon text NOT NULL DEFAULT 'car',
  ADD COLUMN fuel_type text CHECK (fuel_type IN ('petrol', 'diesel', 'electricity', 'gas', 'other')),
  -- Litres (or kWh for electricity) per 10 km.
  ADD COLUMN fuel_consumption_per_10km numeric(6, 2) CHECK (fuel_consumption_per_10km > 0),
  -- Grams of CO2 per km.
  ADD COLUMN co2_g_per_km numeric(7, 1) CHECK (co2_g_per_km >= 0),
  ADD COLUMN horsepower integer CHECK (horsepower BETWEEN 0 AND 10000),
  ADD COLUMN vin text NOT NULL DEFAULT '',
  ADD COLUMN chassis_number text NOT NULL DEFAULT '',
  ADD COLUMN chassis_placement text NOT NULL DEFAULT '',
  ADD COLUMN obd_port_type text NOT NULL DEFAULT '',
  ADD COLUMN obd_placement text NOT NULL DEFAULT '',
  ADD COLUMN inspection_period_months integer CHECK (inspection_period_months BETWEEN 1 AND 120),
  ADD COLUMN next_inspection date,
  ADD COLUMN service_interval_km integer CHECK (service_interval_km BETWEEN 1 AND 1000000),
  ADD COLUMN last_service date,
  ADD COLUMN department_id integer REFERENCES departments(id) ON DELETE SET NULL,
  ADD COLUMN project_id integer REFERENCES projects(id) ON DELETE SET NULL,
  ADD COLUMN feature_profile_id integer REFERENCES feature_profiles(id) ON DELETE SET NULL,
  -- Confirmed by the tracker (a requested change waits in unit_setting_requests until it answers).
  ADD COLUMN operating_mode text CHECK (operating_mode IN ('24h', '8h', '1h', 'realtime', 'theft')),
  ADD COLUMN report_frequency_s integer CHECK (report_frequency_s > 0),
  ADD COLUMN report_frequency_locked boolean NOT NULL DEFAULT false,
  ADD COLUMN bluetooth_enabled boolean NOT NULL DEFAULT false,
  -- { "enabled": bool, "days": [{ "day": 1-7 (Monday 1), "start": "HH:mm", "end": "HH:mm" }] } or null.
  ADD COLUMN working_hours jsonb,
  ADD COLUMN car_usage text NOT NULL DEFAULT 'none' CHECK (car_usage IN ('none', 'benefit', 'private')),
  ADD COLUMN fuel_payer text CHECK (fuel_payer IN ('company', 'private')),
  ADD COLUMN reimbursement_per_10km numeric(8, 2) CHECK (reimbursement_per_10km > 0),
  ADD COLUMN locked_by integer REFERENCES users(id) ON DELETE SET NULL,
  ADD COLUMN locked_at timestamptz,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX units_department ON units (department_id) WHERE department_id IS NOT NULL;
CREATE INDEX units_project ON units (project_id) WHERE project_id IS NOT NULL;

CREATE TABLE unit_tags (
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (unit_id, tag_id)
);
CREATE INDEX unit_tags_tag ON unit_tags (tag_id);

-- Spec §9: the 50 newest names of a unit are kept.
CREATE TABLE unit_name_history (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  previous_name text NOT NULL,
  name text NOT NULL,
  changed_by integer REFERENCES users(id) ON DELETE SET NULL,
  changed_at timestamptz NOT NULL
);
CREATE INDEX unit_name_history_unit ON unit_name_history (unit_id, changed_at DESC, id DESC);

-- Spec §5: a registration number may change at most twice per 24 h; each change is one row.
CREATE TABLE unit_registration_changes (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  previous_number text NOT NULL,
  registration_number text NOT NULL,
  changed_by integer REFERENCES users(id) ON DELETE SET NULL,
  changed_at timestamptz NOT NULL
);
CREATE INDEX unit_registration_changes_unit ON unit_registration_changes (unit_id, changed_at);

-- Odometer (metres) and operating hours (seconds) as someone set them on a day. The value shown later is the
-- newest calibration plus what the tracker has counted since (`source_value`: the tracker's own counter then).
CREATE TABLE unit_meter_calibrations (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('odometer', 'hours')),
  value double precision NOT NULL CHECK (value >= 0),
  source_value double precision,
  set_by integer REFERENCES users(id) ON DELETE SET NULL,
  set_at timestamptz NOT NULL
);
CREATE INDEX unit_meter_calibrations_unit ON unit_meter_calibrations (unit_id, kind, set_at DESC, id DESC);

-- Spec §3 lock log entry: locked and unlocked events and by whom.
CREATE TABLE unit_lock_log (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('locked', 'unlocked')),
  user_id integer REFERENCES users(id) ON DELETE SET NULL,
  -- Who held the lock when it was released (null for a lock event).
  locker_id integer REFERENCES users(id) ON DELETE SET NULL,
  at timestamptz NOT NULL
);
CREATE INDEX unit_lock_log_unit ON unit_lock_log (unit_id, at DESC, id DESC);

-- Spec §3 object description (with the marine extras).
CREATE TABLE unit_object_descriptions (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  object_type text NOT NULL CHECK (object_type IN ('boat', 'waterjet', 'car', 'other')),
  manufacturer text NOT NULL DEFAULT '',
  model text NOT NULL DEFAULT '',
  year integer CHECK (year BETWEEN 1900 AND 2100),
  hull_number text NOT NULL DEFAULT '',
  motor text NOT NULL DEFAULT '',
  motor_number text NOT NULL DEFAULT '',
  horsepower integer CHECK (horsepower BETWEEN 0 AND 10000),
  tracker_location text NOT NULL DEFAULT '',
  dna_marking text NOT NULL DEFAULT '',
  insurance_company text NOT NULL DEFAULT '',
  insurance_number text NOT NULL DEFAULT '',
  police_details text NOT NULL DEFAULT '',
  -- [{ "name": text, "url": text }]
  links jsonb NOT NULL DEFAULT '[]'::jsonb,
  serial_number text NOT NULL DEFAULT '',
  production_date date,
  skirt_type text CHECK (skirt_type IN ('louse_skirt', 'louse_skirt_hd', 'flow_through_skirt')),
  length_m numeric(6, 2) CHECK (length_m > 0),
  depth_m numeric(6, 2) CHECK (depth_m > 0),
  weight_kg numeric(9, 1) CHECK (weight_kg > 0),
  ballast_type text CHECK (ballast_type IN ('lead', 'steel', 'chain')),
  updated_by integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL
);

-- Spec §5/§9: PNG or JPEG, at most 1 MB each, at most 5 per unit (enforced under a lock on the unit row).
CREATE TABLE unit_images (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg')),
  file_name text NOT NULL DEFAULT '',
  data bytea NOT NULL CHECK (octet_length(data) BETWEEN 1 AND 1048576),
  uploaded_by integer REFERENCES users(id) ON DELETE SET NULL,
  uploaded_at timestamptz NOT NULL
);
CREATE INDEX unit_images_unit ON unit_images (unit_id, id);

-- Spec §3 theft info.
CREATE TABLE unit_theft_reports (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  theft_date date,
  stolen_from text NOT NULL DEFAULT '',
  what_stolen text NOT NULL DEFAULT '',
  owner_name text NOT NULL DEFAULT '',
  owner_email text NOT NULL DEFAULT '',
  owner_phone text NOT NULL DEFAULT '',
  police_station text NOT NULL DEFAULT '',
  police_report_number text NOT NULL DEFAULT '',
  insurance_claim_number text NOT NULL DEFAULT '',
  other_information text NOT NULL DEFAULT '',
  recipients text[] NOT NULL DEFAULT '{}',
  updated_by integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL,
  sent_at timestamptz
);

-- A setting sent to the tracker through the command queue: pending until the tracker answers on its next report.
CREATE TABLE unit_setting_requests (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  setting text NOT NULL CHECK (setting IN ('operating_mode', 'report_frequency', 'bluetooth')),
  value text NOT NULL,
  command_id integer REFERENCES device_commands(id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'failed', 'superseded')),
  requested_by integer REFERENCES users(id) ON DELETE SET NULL,
  requested_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE INDEX unit_setting_requests_pending ON unit_setting_requests (unit_id, setting) WHERE status = 'pending';
CREATE INDEX unit_setting_requests_command ON unit_setting_requests (command_id);

-- Spec §4 tracker replacement: the unit (and all its history) moves to a new IMEI; the old tracker returns to stock.
CREATE TABLE unit_tracker_history (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  previous_imei varchar(15) NOT NULL,
  previous_model text NOT NULL,
  imei varchar(15) NOT NULL,
  model text NOT NULL,
  replaced_by integer REFERENCES users(id) ON DELETE SET NULL,
  replaced_at timestamptz NOT NULL
);
CREATE INDEX unit_tracker_history_unit ON unit_tracker_history (unit_id, replaced_at DESC);

-- Spec §6: some users may not change report frequency (set by an administrator).
CREATE TABLE report_frequency_denials (
  user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  denied_by integer REFERENCES users(id) ON DELETE SET NULL,
  denied_at timestamptz NOT NULL
);

-- The unit list's columns and sort order, kept per user.
CREATE TABLE unit_list_preferences (
  user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  columns text[] NOT NULL,
  sort text NOT NULL DEFAULT 'name',
  sort_order text NOT NULL DEFAULT 'asc' CHECK (sort_order IN ('asc', 'desc')),
  updated_at timestamptz NOT NULL
);
