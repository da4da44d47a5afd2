-- Notifications: users' browser push subscriptions, every attempt to deliver a message, and the VAPID keys
-- this installation signs its pushes with (generated on first start, like the token secret).

CREATE TABLE push_subscriptions (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  endpoint text NOT NULL,
  p256dh text NOT NULL,
  auth text NOT NULL,
  user_agent text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
-- A browser's endpoint is its subscription: subscribing again (or as another user) takes it over.
CREATE UNIQUE INDEX push_subscriptions_endpoint ON push_subscriptions (endpoint);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

CREATE TABLE notification_attempts (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  job_id bigint NOT NULL,
  attempt integer NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  provider text NOT NULL,
  recipient text NOT NULL,
  -- sent: handed to the provider; recorded: kept by the embedded default; retrying: failed, tried again later;
  -- failed: refused, or out of attempts.
  status text NOT NULL CHECK (status IN ('sent', 'recorded', 'retrying', 'failed')),
  provider_id text,
  error text,
  created_at timestamptz NOT NULL
);
CREATE INDEX notification_attempts_account ON notification_attempts (account_id, id DESC);
CREATE INDEX notification_attempts_job ON notification_attempts (job_id);

CREATE TABLE push_vapid_keys (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  public_key text NOT NULL,
  private_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
