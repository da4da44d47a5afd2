-- The unit's object description, pictures, theft report and car-info onboarding carry their account, so each can be
-- distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from the unit (a unit never
-- changes account); the account joins each key, after the columns the rows are looked up by.

ALTER TABLE unit_object_descriptions ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_object_descriptions d SET account_id = u.account_id FROM units u WHERE u.id = d.unit_id;
ALTER TABLE unit_object_descriptions ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_object_descriptions DROP CONSTRAINT unit_object_descriptions_pkey;
ALTER TABLE unit_object_descriptions ADD PRIMARY KEY (unit_id, account_id);

ALTER TABLE unit_theft_reports ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_theft_reports r SET account_id = u.account_id FROM units u WHERE u.id = r.unit_id;
ALTER TABLE unit_theft_reports ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_theft_reports DROP CONSTRAINT unit_theft_reports_pkey;
ALTER TABLE unit_theft_reports ADD PRIMARY KEY (unit_id, account_id);

ALTER TABLE unit_onboarding ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_onboarding o SET account_id = u.account_id FROM units u WHERE u.id = o.unit_id;
ALTER TABLE unit_onboarding ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_onboarding DROP CONSTRAINT unit_onboarding_pkey;
ALTER TABLE unit_onboarding ADD PRIMARY KEY (unit_id, account_id);

ALTER TABLE unit_images ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_images i SET account_id = u.account_id FROM units u WHERE u.id = i.unit_id;
ALTER TABLE unit_images ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE unit_images DROP CONSTRAINT unit_images_pkey;
ALTER TABLE unit_images ADD PRIMARY KEY (id, account_id);
