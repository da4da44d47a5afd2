-- The device command queue and the setting requests that point into it carry their account, so both can be
-- distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from the unit (a unit never
-- changes account). Their keys become (id, account_id), and the foreign keys into them (a setting request's command,
-- theft mode's setting request) carry the account too; deleting the target clears only the reference, not the account.

ALTER TABLE device_commands ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE device_commands c SET account_id = u.account_id FROM units u WHERE u.id = c.unit_id;
ALTER TABLE device_commands ALTER COLUMN account_id SET NOT NULL;

ALTER TABLE unit_setting_requests ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE unit_setting_requests r SET account_id = u.account_id FROM units u WHERE u.id = r.unit_id;
ALTER TABLE unit_setting_requests ALTER COLUMN account_id SET NOT NULL;

ALTER TABLE unit_theft_mode DROP CONSTRAINT unit_theft_mode_request_id_fkey;
ALTER TABLE unit_setting_requests DROP CONSTRAINT unit_setting_requests_command_id_fkey;

ALTER TABLE device_commands DROP CONSTRAINT device_commands_pkey;
ALTER TABLE device_commands ADD PRIMARY KEY (id, account_id);
ALTER TABLE unit_setting_requests DROP CONSTRAINT unit_setting_requests_pkey;
ALTER TABLE unit_setting_requests ADD PRIMARY KEY (id, account_id);

ALTER TABLE unit_setting_requests ADD CONSTRAINT unit_setting_requests_command_id_fkey
  FOREIGN KEY (command_id, account_id) REFERENCES device_commands (id, account_id) ON DELETE SET NULL (command_id);
ALTER TABLE unit_theft_mode ADD CONSTRAINT unit_theft_mode_request_id_fkey
  FOREIGN KEY (request_id, account_id) REFERENCES unit_setting_requests (id, account_id) ON DELETE SET NULL (request_id);
