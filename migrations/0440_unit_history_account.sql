-- The unit history tables carry their account, as every per-account table does, so that a distributed PostgreSQL
-- (README, "Growing past one machine") can place each row with its account's other rows. A unit never changes account,
-- so the backfill from the unit is final.
ALTER TABLE unit_name_history ADD COLUMN account_id integer;
UPDATE unit_name_history h SET account_id = u.account_id FROM units u WHERE u.id = h.unit_id;
ALTER TABLE unit_name_history ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX unit_name_history_account ON unit_name_history (account_id);

ALTER TABLE unit_registration_changes ADD COLUMN account_id integer;
UPDATE unit_registration_changes h SET account_id = u.account_id FROM units u WHERE u.id = h.unit_id;
ALTER TABLE unit_registration_changes ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX unit_registration_changes_account ON unit_registration_changes (account_id);

ALTER TABLE unit_meter_calibrations ADD COLUMN account_id integer;
UPDATE unit_meter_calibrations h SET account_id = u.account_id FROM units u WHERE u.id = h.unit_id;
ALTER TABLE unit_meter_calibrations ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX unit_meter_calibrations_account ON unit_meter_calibrations (account_id);

ALTER TABLE unit_lock_log ADD COLUMN account_id integer;
UPDATE unit_lock_log h SET account_id = u.account_id FROM units u WHERE u.id = h.unit_id;
ALTER TABLE unit_lock_log ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX unit_lock_log_account ON unit_lock_log (account_id);

ALTER TABLE unit_tracker_history ADD COLUMN account_id integer;
UPDATE unit_tracker_history h SET account_id = u.account_id FROM units u WHERE u.id = h.unit_id;
ALTER TABLE unit_tracker_history ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX unit_tracker_history_account ON unit_tracker_history (account_id);
