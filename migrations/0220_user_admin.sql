-- User administration (issue 19): a user's department and user group, invitations to set a password, soft deletion
-- (a deleted user's trips keep the driver's name through user_directory), sessions opened by support or a reseller
-- inside a customer's account (read-only), and the audit log.

ALTER TABLE users
  ADD COLUMN department_id integer REFERENCES departments(id) ON DELETE SET NULL,
  ADD COLUMN user_group text NOT NULL DEFAULT '',
  ADD COLUMN invited_at timestamptz,
  ADD COLUMN deleted_at timestamptz;

-- Invitation links: single use, valid 7 days; found by the hash of the code only the e-mail holds.
CREATE TABLE user_invitations (
  code_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX user_invitations_user ON user_invitations (user_id);

-- A session of a support or reseller user opened inside a customer's account (null: their own account).
ALTER TABLE sessions ADD COLUMN acting_account_id integer REFERENCES accounts(id) ON DELETE CASCADE;

-- The audit log: one row per `audit.entry` event, stored once by its outbox subscriber (event_id is unique).
CREATE TABLE audit_entries (
  id bigserial PRIMARY KEY,
  event_id bigint NOT NULL UNIQUE,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  actor_user_id integer,
  support_user_id integer,
  action text NOT NULL,
  target_kind text NOT NULL,
  target_id integer,
  target_label text NOT NULL DEFAULT '',
  changes jsonb,
  at timestamptz NOT NULL
);
CREATE INDEX audit_entries_account_at ON audit_entries (account_id, at DESC, id DESC);
