-- A user's sessions, password resets, trusted browsers, two-factor challenges and invitations carry the user's own
-- account, so each can be distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from
-- the user (a user never changes account); the account joins each key, after the columns the rows are looked up by.
-- A session opened by a reseller inside a customer's account keeps the reseller's own account here: the customer is
-- its acting_account_id.

ALTER TABLE sessions ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE sessions s SET account_id = u.account_id FROM users u WHERE u.id = s.user_id;
ALTER TABLE sessions ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey;
ALTER TABLE sessions ADD PRIMARY KEY (id, account_id);

ALTER TABLE password_resets ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE password_resets r SET account_id = u.account_id FROM users u WHERE u.id = r.user_id;
ALTER TABLE password_resets ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE password_resets DROP CONSTRAINT password_resets_pkey;
ALTER TABLE password_resets ADD PRIMARY KEY (code_hash, account_id);

ALTER TABLE trusted_browsers ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE trusted_browsers b SET account_id = u.account_id FROM users u WHERE u.id = b.user_id;
ALTER TABLE trusted_browsers ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE trusted_browsers DROP CONSTRAINT trusted_browsers_pkey;
ALTER TABLE trusted_browsers ADD PRIMARY KEY (id, account_id);
ALTER TABLE trusted_browsers DROP CONSTRAINT trusted_browsers_user_id_fingerprint_hash_key;
ALTER TABLE trusted_browsers ADD CONSTRAINT trusted_browsers_user_id_fingerprint_hash_key UNIQUE (user_id, fingerprint_hash, account_id);
DROP INDEX trusted_browsers_secret;
CREATE UNIQUE INDEX trusted_browsers_secret ON trusted_browsers (secret_hash, account_id);

ALTER TABLE two_factor_challenges ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE two_factor_challenges c SET account_id = u.account_id FROM users u WHERE u.id = c.user_id;
ALTER TABLE two_factor_challenges ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE two_factor_challenges DROP CONSTRAINT two_factor_challenges_pkey;
ALTER TABLE two_factor_challenges ADD PRIMARY KEY (token_hash, account_id);

ALTER TABLE user_invitations ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE user_invitations i SET account_id = u.account_id FROM users u WHERE u.id = i.user_id;
ALTER TABLE user_invitations ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE user_invitations DROP CONSTRAINT user_invitations_pkey;
ALTER TABLE user_invitations ADD PRIMARY KEY (code_hash, account_id);
