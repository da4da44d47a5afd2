-- Safe return home (safe-home module): per vehicle a home circle and a weekly alert schedule (spec §3 Safe home
-- record). `schedule` is the JSON text the calls answer (per week of the cycle a list of day and time); the times are
-- wall-clock times of `time_zone`, weeks counted from `start_date`'s week every `frequency` weeks. `next_due_at` is the
-- check the queue holds for the vehicle (a queued job keyed by vehicle and due time); a job whose due time is no longer
-- the record's next one is stale and does nothing.
CREATE TABLE safe_homes (
  unit_id integer PRIMARY KEY,
  account_id integer NOT NULL,
  status smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 1)),
  schedule text NOT NULL DEFAULT '[]',
  frequency smallint NOT NULL DEFAULT 1 CHECK (frequency IN (1, 2, 3)),
  start_date date,
  time_zone text,
  address text,
  radius integer NOT NULL DEFAULT 300 CHECK (radius >= 300),
  center_lat double precision,
  center_lng double precision,
  enabled_at timestamptz,
  last_check_at timestamptz,
  next_due_at timestamptz,
  updated_by integer,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX safe_homes_account ON safe_homes (account_id);

-- One row per check run, keyed by vehicle and due time: a check that ran is never run again (restarts, a second
-- process, a job retried after its transaction committed).
CREATE TABLE safe_home_checks (
  unit_id integer NOT NULL,
  due_at timestamptz NOT NULL,
  account_id integer NOT NULL,
  ran_at timestamptz NOT NULL,
  late boolean NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('home', 'away', 'no_position')),
  distance_m integer,
  alarm_id bigint,
  PRIMARY KEY (unit_id, due_at)
);
CREATE INDEX safe_home_checks_account ON safe_home_checks (account_id, due_at DESC);

-- The alarm a check raises: a function alarm "not back home".
ALTER TABLE alarms DROP CONSTRAINT alarms_type_check;
ALTER TABLE alarms ADD CONSTRAINT alarms_type_check CHECK (type IN ('theft_movement', 'theft_zone_exit', 'power_cut', 'tamper', 'towing', 'sos',
  'zone_enter', 'zone_exit', 'low_battery', 'din2', 'din3', 'overspeed', 'service_due', 'not_home'));
