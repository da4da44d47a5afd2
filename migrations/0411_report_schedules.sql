-- Scheduled reports: a fleet report e-mailed as an attachment weekly or monthly, run as the user who made it.
CREATE TABLE report_schedules (
  id serial PRIMARY KEY,
  account_id integer NOT NULL,
  created_by integer NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('summary', 'eco', 'fuel', 'co2', 'environment')),
  scope jsonb NOT NULL,
  frequency text NOT NULL CHECK (frequency IN ('weekly', 'monthly')),
  format text NOT NULL CHECK (format IN ('pdf', 'xlsx', 'csv')),
  recipient_user_ids integer[] NOT NULL DEFAULT '{}',
  recipient_emails text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  -- The next due time (null while inactive); claimed with FOR UPDATE SKIP LOCKED and moved on in the same transaction
  -- that queues its run, so each due run is queued once across instances.
  next_run_at timestamptz,
  last_run_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX report_schedules_account ON report_schedules (account_id, id);
CREATE INDEX report_schedules_due ON report_schedules (next_run_at) WHERE active;
