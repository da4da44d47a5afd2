-- A user's saved table views, a unit's trip-detection overrides and the attest reminders sent carry their account, so
-- each can be distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from the user or the
-- unit (neither changes account); the account joins each key, after the columns the rows are looked up by.

ALTER TABLE user_preferences ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE user_preferences p SET account_id = u.account_id FROM users u WHERE u.id = p.user_id;
ALTER TABLE user_preferences ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE user_preferences DROP CONSTRAINT user_preferences_pkey;
ALTER TABLE user_preferences ADD PRIMARY KEY (user_id, key, account_id);

ALTER TABLE trip_unit_settings ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE trip_unit_settings s SET account_id = u.account_id FROM units u WHERE u.id = s.unit_id;
ALTER TABLE trip_unit_settings ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE trip_unit_settings DROP CONSTRAINT trip_unit_settings_pkey;
ALTER TABLE trip_unit_settings ADD PRIMARY KEY (unit_id, account_id);

ALTER TABLE trip_attest_reminders ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE trip_attest_reminders r SET account_id = u.account_id FROM users u WHERE u.id = r.user_id;
ALTER TABLE trip_attest_reminders ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE trip_attest_reminders DROP CONSTRAINT trip_attest_reminders_pkey;
ALTER TABLE trip_attest_reminders ADD PRIMARY KEY (user_id, period, account_id);
