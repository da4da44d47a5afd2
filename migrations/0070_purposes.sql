-- Default purposes (spec §1 unit management, §2 account settings, §3 Default purpose, §5 names unique, §6 permissions):
-- an account's named trip purposes that the trip log offers besides free text (a trip's purpose is at most 100 characters).
CREATE TABLE purposes (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  created_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Spec §5: default purpose names unique per account (case-insensitively).
CREATE UNIQUE INDEX purposes_name ON purposes (account_id, lower(name));

-- Spec §6: ordinary users create default purposes only when an administrator allows it (off unless a row says so).
CREATE TABLE purpose_settings (
  account_id integer PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  users_may_create boolean NOT NULL DEFAULT false,
  changed_by integer REFERENCES users(id) ON DELETE SET NULL,
  changed_at timestamptz NOT NULL
);
