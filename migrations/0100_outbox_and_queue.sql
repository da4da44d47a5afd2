-- Durable events (transactional outbox) and the job queue. Both are claimed with FOR UPDATE SKIP LOCKED,
-- so any number of processes share the work; times come from the application's clock (tests move it).

-- Which subscribers listen to which event type. Every process registers its subscribers at start; a
-- published event gets one delivery row per subscriber of its type, written in the publisher's transaction.
CREATE TABLE outbox_subscriptions (
  event_type text NOT NULL,
  subscriber text NOT NULL,
  registered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_type, subscriber)
);

CREATE TABLE outbox_events (
  id bigserial PRIMARY KEY,
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per (event, subscriber): the idempotency record. A delivery is marked done in the same transaction
-- as the subscriber's effect, so the effect happens once however often the dispatcher is interrupted.
CREATE TABLE outbox_deliveries (
  event_id bigint NOT NULL REFERENCES outbox_events(id) ON DELETE CASCADE,
  subscriber text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  -- NULL: due at once (the publisher's transaction has no clock); else the time of the next retry.
  next_attempt_at timestamptz,
  last_error text,
  finished_at timestamptz,
  PRIMARY KEY (event_id, subscriber)
);
CREATE INDEX outbox_deliveries_due ON outbox_deliveries (next_attempt_at NULLS FIRST, event_id) WHERE status = 'pending';
CREATE INDEX outbox_deliveries_dead ON outbox_deliveries (event_id) WHERE status = 'dead';

-- Queued jobs: run now or at a time, at most once per (name, unique key), retried with backoff, then dead.
CREATE TABLE job_queue (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  unique_key text,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'dead')),
  run_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  -- A running job whose lease has run out (its process died) is claimed again.
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX job_queue_unique_key ON job_queue (name, unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX job_queue_due ON job_queue (run_at) WHERE status = 'queued';
CREATE INDEX job_queue_leased ON job_queue (locked_until) WHERE status = 'running';
CREATE INDEX job_queue_dead ON job_queue (id) WHERE status = 'dead';
