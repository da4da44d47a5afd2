-- Rate limits and lockouts: one fixed-window counter per key, counted in one statement (INSERT … ON CONFLICT
-- DO UPDATE … RETURNING), so parallel requests on any number of instances never lose a count.
CREATE TABLE rate_limits (
  key text PRIMARY KEY,
  count integer NOT NULL,
  reset_at timestamptz NOT NULL
);
CREATE INDEX rate_limits_reset ON rate_limits (reset_at);

-- A two-factor challenge belongs to the login that passed the password (a random token only that client holds),
-- not to the user id; attempts are counted per code and per challenge, codes sent per challenge.
DROP TABLE two_factor_challenges;
CREATE TABLE two_factor_challenges (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash text,
  code_expires_at timestamptz,
  code_attempts integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  codes_sent integer NOT NULL DEFAULT 0,
  last_sent_at timestamptz,
  remember boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX two_factor_challenges_user ON two_factor_challenges (user_id);

-- "Trust this browser" is a random device secret, kept hashed; entries keyed by a copyable fingerprint alone end.
DELETE FROM trusted_browsers;
ALTER TABLE trusted_browsers ADD COLUMN secret_hash text NOT NULL;
CREATE UNIQUE INDEX trusted_browsers_secret ON trusted_browsers (secret_hash);
CREATE INDEX trusted_browsers_user ON trusted_browsers (user_id);
