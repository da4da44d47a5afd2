-- Alarms (alarms module): each alarm is one episode of a unit and type, raised once and continued (occurrences,
-- last_seen_at) by events within the cool-down; acknowledged by a user. Deliveries: one row per alarm, recipient and
-- channel, kept up to date from the notification jobs' attempts.
CREATE TABLE alarms (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  unit_id integer NOT NULL,
  type text NOT NULL CHECK (type IN ('theft_movement', 'theft_zone_exit', 'power_cut', 'tamper', 'towing', 'sos',
                                     'zone_enter', 'zone_exit', 'low_battery', 'din2', 'din3', 'overspeed', 'service_due')),
  class text NOT NULL CHECK (class IN ('security', 'function')),
  raised_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  occurrences integer NOT NULL DEFAULT 1,
  lat double precision,
  lon double precision,
  address text,
  details jsonb NOT NULL DEFAULT '{}',
  acknowledged_at timestamptz,
  acknowledged_by integer,
  acknowledged_by_name text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alarms_account ON alarms (account_id, id DESC);
CREATE INDEX alarms_unit_type ON alarms (unit_id, type, last_seen_at DESC);
CREATE INDEX alarms_open ON alarms (account_id, unit_id) WHERE acknowledged_at IS NULL;

-- What the engine remembers of a unit's inputs between stored batches: digital inputs and external power (to raise on
-- a change, not on every position), the last service step of the odometer, and the newest fix it has judged (a resent
-- record is history).
CREATE TABLE alarm_unit_inputs (
  unit_id integer PRIMARY KEY,
  din2 boolean,
  din3 boolean,
  external_power boolean,
  service_step integer,
  last_fix timestamptz
);

CREATE TABLE alarm_deliveries (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  alarm_id bigint NOT NULL REFERENCES alarms(id) ON DELETE CASCADE,
  receiver_id integer,
  receiver_name text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  recipient text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'sent', 'retrying', 'failed', 'refused')),
  attempts integer NOT NULL DEFAULT 0,
  provider_id text,
  error text,
  job_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alarm_deliveries_account ON alarm_deliveries (account_id, id DESC);
CREATE INDEX alarm_deliveries_alarm ON alarm_deliveries (alarm_id);
CREATE INDEX alarm_deliveries_job ON alarm_deliveries (job_id) WHERE job_id IS NOT NULL;

-- units publishes what the alarm engine reads of a unit: its name, registration, the overspeed threshold of its
-- feature profile and its service settings.
CREATE VIEW unit_alarm_settings AS
  SELECT u.id AS unit_id, u.account_id, u.name, u.registration_number, p.overspeed_kmh, u.service_interval_km,
         u.next_inspection, u.last_service
  FROM units u LEFT JOIN feature_profiles p ON p.id = u.feature_profile_id;
