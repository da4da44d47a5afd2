-- Units, trips and the unit history tables carry the account in their keys, so they can be distributed by account
-- with the account's other rows (src/lib/db/distribution.ts). The account comes last in each key, so the look-ups by
-- id, by unit or by user keep their index. A unit never changes account, and every row naming a unit is written with
-- the unit's account, so the foreign keys into units carry it too. The per-unit state written with each position
-- (distributed by unit, with the positions) loses its key to units: it sits in the other co-location group, and units
-- are never deleted (no cascade to stand in for).

-- The foreign keys into units go first: they hold on to units_pkey.
ALTER TABLE alarm_receiver_units DROP CONSTRAINT alarm_receiver_units_unit_id_fkey;
ALTER TABLE benefit_cars DROP CONSTRAINT benefit_cars_unit_id_fkey;
ALTER TABLE ble_devices DROP CONSTRAINT ble_devices_paired_unit_id_fkey;
ALTER TABLE bookings DROP CONSTRAINT bookings_unit_id_fkey;
ALTER TABLE device_commands DROP CONSTRAINT device_commands_unit_id_fkey;
ALTER TABLE geofence_events DROP CONSTRAINT geofence_events_unit_id_fkey;
ALTER TABLE geofence_state DROP CONSTRAINT geofence_state_unit_id_fkey;
ALTER TABLE geofence_unit_marks DROP CONSTRAINT geofence_unit_marks_unit_id_fkey;
ALTER TABLE geofence_units DROP CONSTRAINT geofence_units_unit_id_fkey;
ALTER TABLE place_units DROP CONSTRAINT place_units_unit_id_fkey;
ALTER TABLE trip_detector_state DROP CONSTRAINT trip_detector_state_unit_id_fkey;
ALTER TABLE trip_driver_checkins DROP CONSTRAINT trip_driver_checkins_unit_id_fkey;
ALTER TABLE trip_merge_parts DROP CONSTRAINT trip_merge_parts_unit_id_fkey;
ALTER TABLE trip_unit_settings DROP CONSTRAINT trip_unit_settings_unit_id_fkey;
ALTER TABLE trips DROP CONSTRAINT trips_unit_id_fkey;
ALTER TABLE unit_access DROP CONSTRAINT unit_access_unit_id_fkey;
ALTER TABLE unit_engine_hours DROP CONSTRAINT unit_engine_hours_unit_id_fkey;
ALTER TABLE unit_images DROP CONSTRAINT unit_images_unit_id_fkey;
ALTER TABLE unit_lock_log DROP CONSTRAINT unit_lock_log_unit_id_fkey;
ALTER TABLE unit_meter_calibrations DROP CONSTRAINT unit_meter_calibrations_unit_id_fkey;
ALTER TABLE unit_name_history DROP CONSTRAINT unit_name_history_unit_id_fkey;
ALTER TABLE unit_object_descriptions DROP CONSTRAINT unit_object_descriptions_unit_id_fkey;
ALTER TABLE unit_onboarding DROP CONSTRAINT unit_onboarding_unit_id_fkey;
ALTER TABLE unit_registration_changes DROP CONSTRAINT unit_registration_changes_unit_id_fkey;
ALTER TABLE unit_setting_requests DROP CONSTRAINT unit_setting_requests_unit_id_fkey;
ALTER TABLE unit_state DROP CONSTRAINT unit_state_unit_id_fkey;
ALTER TABLE unit_tags DROP CONSTRAINT unit_tags_unit_id_fkey;
ALTER TABLE unit_theft_mode DROP CONSTRAINT unit_theft_mode_unit_id_fkey;
ALTER TABLE unit_theft_reports DROP CONSTRAINT unit_theft_reports_unit_id_fkey;
ALTER TABLE unit_tracker_history DROP CONSTRAINT unit_tracker_history_unit_id_fkey;

-- The keys. An IMEI stays unique across accounts where it is registered: registration and tracker replacement lock
-- the tracker's stock row and look for the IMEI among every account's units (src/modules/units/stock.ts).
ALTER TABLE units DROP CONSTRAINT units_pkey;
ALTER TABLE units ADD PRIMARY KEY (id, account_id);
DROP INDEX units_imei;
CREATE UNIQUE INDEX units_imei ON units (imei, account_id);

ALTER TABLE trips DROP CONSTRAINT trips_pkey;
ALTER TABLE trips ADD PRIMARY KEY (id, account_id);
ALTER TABLE trip_merge_parts DROP CONSTRAINT trip_merge_parts_pkey;
ALTER TABLE trip_merge_parts ADD PRIMARY KEY (merged_into, id, account_id);
ALTER TABLE trip_attests DROP CONSTRAINT trip_attests_pkey;
ALTER TABLE trip_attests ADD PRIMARY KEY (id, account_id);
ALTER TABLE trip_attests DROP CONSTRAINT trip_attests_user_id_period_key;
ALTER TABLE trip_attests ADD CONSTRAINT trip_attests_user_id_period_account_id_key UNIQUE (user_id, period, account_id);
ALTER TABLE trip_attest_log DROP CONSTRAINT trip_attest_log_pkey;
ALTER TABLE trip_attest_log ADD PRIMARY KEY (id, account_id);

ALTER TABLE unit_theft_mode DROP CONSTRAINT unit_theft_mode_pkey;
ALTER TABLE unit_theft_mode ADD PRIMARY KEY (unit_id, account_id);
ALTER TABLE unit_tracker_history DROP CONSTRAINT unit_tracker_history_pkey;
ALTER TABLE unit_tracker_history ADD PRIMARY KEY (id, account_id);
ALTER TABLE unit_lock_log DROP CONSTRAINT unit_lock_log_pkey;
ALTER TABLE unit_lock_log ADD PRIMARY KEY (id, account_id);
ALTER TABLE unit_meter_calibrations DROP CONSTRAINT unit_meter_calibrations_pkey;
ALTER TABLE unit_meter_calibrations ADD PRIMARY KEY (id, account_id);
ALTER TABLE unit_registration_changes DROP CONSTRAINT unit_registration_changes_pkey;
ALTER TABLE unit_registration_changes ADD PRIMARY KEY (id, account_id);
ALTER TABLE unit_name_history DROP CONSTRAINT unit_name_history_pkey;
ALTER TABLE unit_name_history ADD PRIMARY KEY (id, account_id);

ALTER TABLE benefit_cars DROP CONSTRAINT benefit_cars_pkey;
ALTER TABLE benefit_cars ADD PRIMARY KEY (unit_id, account_id);

ALTER TABLE bookings DROP CONSTRAINT bookings_pkey;
ALTER TABLE bookings ADD PRIMARY KEY (id, account_id);
-- Citus checks an exclusion constraint only when it holds the distribution column too; a unit has one account.
ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;
ALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap
  EXCLUDE USING gist (unit_id WITH =, account_id WITH =, tstzrange(starts_at, ends_at) WITH &&);

-- The rows a unit owns, in the unit's account.
ALTER TABLE alarm_receiver_units ADD CONSTRAINT alarm_receiver_units_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE benefit_cars ADD CONSTRAINT benefit_cars_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE ble_devices ADD CONSTRAINT ble_devices_paired_unit_id_fkey
  FOREIGN KEY (paired_unit_id, account_id) REFERENCES units (id, account_id) ON DELETE SET NULL (paired_unit_id);
ALTER TABLE bookings ADD CONSTRAINT bookings_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE device_commands ADD CONSTRAINT device_commands_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE geofence_events ADD CONSTRAINT geofence_events_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE geofence_units ADD CONSTRAINT geofence_units_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE place_units ADD CONSTRAINT place_units_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_driver_checkins ADD CONSTRAINT trip_driver_checkins_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_merge_parts ADD CONSTRAINT trip_merge_parts_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_unit_settings ADD CONSTRAINT trip_unit_settings_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE trips ADD CONSTRAINT trips_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_access ADD CONSTRAINT unit_access_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_images ADD CONSTRAINT unit_images_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_lock_log ADD CONSTRAINT unit_lock_log_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_meter_calibrations ADD CONSTRAINT unit_meter_calibrations_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_name_history ADD CONSTRAINT unit_name_history_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_object_descriptions ADD CONSTRAINT unit_object_descriptions_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_onboarding ADD CONSTRAINT unit_onboarding_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_registration_changes ADD CONSTRAINT unit_registration_changes_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_setting_requests ADD CONSTRAINT unit_setting_requests_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_tags ADD CONSTRAINT unit_tags_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_theft_mode ADD CONSTRAINT unit_theft_mode_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_theft_reports ADD CONSTRAINT unit_theft_reports_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_tracker_history ADD CONSTRAINT unit_tracker_history_unit_id_fkey
  FOREIGN KEY (unit_id, account_id) REFERENCES units (id, account_id) ON DELETE CASCADE;
