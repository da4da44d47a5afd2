-- A unit's tags and who may see it, and the users denied changing report frequency, carry their account, so each can
-- be distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from the unit or the user
-- (neither changes account); the account joins each key, after the columns the rows are looked up by.

ALTER TABLE unit_tags ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_tags t SET account_id = u.account_id FROM units u WHERE u.id = t.unit_id;
ALTER TABLE unit_tags ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_tags DROP CONSTRAINT unit_tags_pkey;
ALTER TABLE unit_tags ADD PRIMARY KEY (unit_id, tag_id, account_id);

ALTER TABLE unit_access ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_access a SET account_id = u.account_id FROM units u WHERE u.id = a.unit_id;
ALTER TABLE unit_access ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_access DROP CONSTRAINT unit_access_pkey;
ALTER TABLE unit_access ADD PRIMARY KEY (unit_id, user_id, account_id);

ALTER TABLE report_frequency_denials ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE report_frequency_denials d SET account_id = u.account_id FROM users u WHERE u.id = d.user_id;
ALTER TABLE report_frequency_denials ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE report_frequency_denials DROP CONSTRAINT report_frequency_denials_pkey;
ALTER TABLE report_frequency_denials ADD PRIMARY KEY (user_id, account_id);
