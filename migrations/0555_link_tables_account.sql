-- The trip log's driver check-ins and an alarm receiver's unit and BLE-tag links carry their account, so each can be
-- distributed with the account's other rows (src/lib/db/distribution.ts), and the keys that reshape units, users,
-- receivers and tags next can point at them with it. Backfilled from the unit or the receiver (neither changes
-- account); the account joins each key, after the columns the rows are looked up by.

ALTER TABLE trip_driver_checkins ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE trip_driver_checkins c SET account_id = u.account_id FROM units u WHERE u.id = c.unit_id;
ALTER TABLE trip_driver_checkins ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE trip_driver_checkins DROP CONSTRAINT trip_driver_checkins_pkey;
ALTER TABLE trip_driver_checkins ADD PRIMARY KEY (id, account_id);
DROP INDEX trip_driver_checkins_open;
CREATE UNIQUE INDEX trip_driver_checkins_open ON trip_driver_checkins (unit_id, account_id) WHERE checked_out_at IS NULL;

ALTER TABLE alarm_receiver_units ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE alarm_receiver_units l SET account_id = r.account_id FROM alarm_receivers r WHERE r.id = l.receiver_id;
ALTER TABLE alarm_receiver_units ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE alarm_receiver_units DROP CONSTRAINT alarm_receiver_units_pkey;
ALTER TABLE alarm_receiver_units ADD PRIMARY KEY (receiver_id, unit_id, account_id);

ALTER TABLE alarm_receiver_ble_units ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE alarm_receiver_ble_units l SET account_id = r.account_id FROM alarm_receivers r WHERE r.id = l.receiver_id;
ALTER TABLE alarm_receiver_ble_units ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE alarm_receiver_ble_units DROP CONSTRAINT alarm_receiver_ble_units_pkey;
ALTER TABLE alarm_receiver_ble_units ADD PRIMARY KEY (receiver_id, ble_device_id, account_id);
