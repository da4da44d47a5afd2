-- Positions from trackers, each unit's latest state, raw frames for support, and device commands.

-- Laid out for (unit, time) range scans: the primary key is that index, and monthly partitions
-- let the planner prune by time. Rows outside every monthly partition land in the default one.
CREATE TABLE positions (
  unit_id integer NOT NULL,
  time timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  geom geometry(Point, 4326) NOT NULL,
  altitude real,
  speed_kmh real NOT NULL DEFAULT 0,
  course real,
  satellites smallint,
  valid boolean NOT NULL,
  -- 1 = no valid fix, 2 = fix time in the future: kept and flagged, never silently dropped.
  flags smallint NOT NULL DEFAULT 0,
  ignition boolean,
  odometer_m double precision,
  priority smallint NOT NULL DEFAULT 0,
  event_id integer,
  io jsonb NOT NULL DEFAULT '{}'::jsonb,
  normalized jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (unit_id, time)
) PARTITION BY RANGE (time);
CREATE TABLE positions_default PARTITION OF positions DEFAULT;

CREATE FUNCTION ensure_position_partition(month_start date) RETURNS void AS $$
DECLARE
  partition_name text := 'positions_' || to_char(month_start, 'YYYYMM');
BEGIN
  IF to_regclass(partition_name) IS NULL THEN
    EXECUTE format('CREATE TABLE %I PARTITION OF positions FOR VALUES FROM (%L) TO (%L)',
      partition_name, date_trunc('month', month_start)::date, (date_trunc('month', month_start) + interval '1 month')::date);
  END IF;
END
$$ LANGUAGE plpgsql;

CREATE TABLE unit_state (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  time timestamptz NOT NULL,
  geom geometry(Point, 4326) NOT NULL,
  speed_kmh real NOT NULL DEFAULT 0,
  course real,
  altitude real,
  satellites smallint,
  valid boolean NOT NULL,
  ignition boolean,
  odometer_m double precision,
  normalized jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Last contact of any kind (a heartbeat counts), independent of the fix time.
  last_seen timestamptz NOT NULL
);

CREATE TABLE raw_frames (
  id bigserial PRIMARY KEY,
  received_at timestamptz NOT NULL,
  protocol text NOT NULL,
  device_id text NOT NULL,
  remote text NOT NULL DEFAULT '',
  payload bytea NOT NULL
);
CREATE INDEX raw_frames_received ON raw_frames (received_at);
CREATE INDEX raw_frames_device ON raw_frames (device_id, received_at);

CREATE TABLE device_commands (
  id serial PRIMARY KEY,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('setdigout', 'getinfo', 'setparam', 'text', 'relay')),
  payload text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'answered', 'no_response', 'expired')),
  response text,
  requested_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  sent_at timestamptz,
  answered_at timestamptz
);
CREATE INDEX device_commands_pending ON device_commands (unit_id, id) WHERE status IN ('queued', 'sent');

-- Scheduled jobs: one row per job; instances claim due rows with SKIP LOCKED so a job never runs twice at once.
CREATE TABLE scheduled_jobs (
  name text PRIMARY KEY,
  interval_seconds integer NOT NULL,
  next_run_at timestamptz NOT NULL,
  locked_until timestamptz,
  last_started_at timestamptz,
  last_finished_at timestamptz,
  last_error text
);
