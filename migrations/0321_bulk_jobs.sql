-- Long bulk tasks (issue 19): a bulk task on users or units runs as a queued job. The row keeps its progress (done,
-- failed, a result per record) so the web app can follow it and a restarted process resumes after the last record.
CREATE TABLE bulk_jobs (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_by integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  target text NOT NULL CHECK (target IN ('users', 'units')),
  task jsonb NOT NULL,
  ids integer[] NOT NULL,
  language text NOT NULL DEFAULT 'sv',
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  done integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  results jsonb NOT NULL DEFAULT '[]'::jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX bulk_jobs_account ON bulk_jobs (account_id, id DESC);
