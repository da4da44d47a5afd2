-- Zones, places, alarms and their deliveries, alarm receivers and alert numbers, BLE tags, the notification attempts,
-- report schedules and safe return home carry the account in their keys, so each can be distributed by account with
-- the account's other rows (src/lib/db/distribution.ts). The account comes last in each key, so the look-ups by id or
-- by unit keep their index. Every row naming a zone, a place, an alarm, a receiver or a tag is written with its
-- parent's account, so the foreign keys into them carry it too. The per-unit zone state (distributed by unit, with the
-- positions) loses its key to geofences: it sits in the other co-location group, and deleting a zone clears it.

-- The foreign keys into these tables go first: they hold on to the keys being replaced.
ALTER TABLE alarm_deliveries DROP CONSTRAINT alarm_deliveries_alarm_id_fkey;
ALTER TABLE alarm_receiver_units DROP CONSTRAINT alarm_receiver_units_receiver_id_fkey;
ALTER TABLE alarm_receiver_ble_units DROP CONSTRAINT alarm_receiver_ble_units_receiver_id_fkey;
ALTER TABLE alarm_receiver_ble_units DROP CONSTRAINT alarm_receiver_ble_units_ble_device_id_fkey;
ALTER TABLE geofence_deactivations DROP CONSTRAINT geofence_deactivations_geofence_id_fkey;
ALTER TABLE geofence_events DROP CONSTRAINT geofence_events_geofence_id_fkey;
ALTER TABLE geofence_state DROP CONSTRAINT geofence_state_geofence_id_fkey;
ALTER TABLE geofence_units DROP CONSTRAINT geofence_units_geofence_id_fkey;
ALTER TABLE place_rules DROP CONSTRAINT place_rules_place_id_fkey;
ALTER TABLE place_rules DROP CONSTRAINT place_rules_other_place_id_fkey;
ALTER TABLE place_units DROP CONSTRAINT place_units_place_id_fkey;

-- The keys.
ALTER TABLE alarms DROP CONSTRAINT alarms_pkey;
ALTER TABLE alarms ADD PRIMARY KEY (id, account_id);
ALTER TABLE alarm_deliveries DROP CONSTRAINT alarm_deliveries_pkey;
ALTER TABLE alarm_deliveries ADD PRIMARY KEY (id, account_id);
ALTER TABLE notification_attempts DROP CONSTRAINT notification_attempts_pkey;
ALTER TABLE notification_attempts ADD PRIMARY KEY (id, account_id);

ALTER TABLE alarm_receivers DROP CONSTRAINT alarm_receivers_pkey;
ALTER TABLE alarm_receivers ADD PRIMARY KEY (id, account_id);
DROP INDEX alarm_receivers_member;
CREATE UNIQUE INDEX alarm_receivers_member ON alarm_receivers (member_id, account_id) WHERE member_id IS NOT NULL;
ALTER TABLE alert_numbers DROP CONSTRAINT alert_numbers_pkey;
ALTER TABLE alert_numbers ADD PRIMARY KEY (id, account_id);

-- A tag's MAC stays registered once over every account: adding one takes a lock on the MAC and looks for it among every
-- account's tags (src/modules/io/service.ts), as a unique index without the account cannot be checked when distributed.
ALTER TABLE ble_devices DROP CONSTRAINT ble_devices_pkey;
ALTER TABLE ble_devices ADD PRIMARY KEY (id, account_id);
DROP INDEX ble_devices_mac;
CREATE UNIQUE INDEX ble_devices_mac ON ble_devices (mac, account_id);

-- A tag's last sighting is kept per unit that heard it (distributed by unit): re-pairing the tag starts a new row and
-- the old unit's row goes when the new unit first hears it.
ALTER TABLE alarm_ble_sightings DROP CONSTRAINT alarm_ble_sightings_pkey;
ALTER TABLE alarm_ble_sightings ADD PRIMARY KEY (ble_device_id, unit_id);

ALTER TABLE geofences DROP CONSTRAINT geofences_pkey;
ALTER TABLE geofences ADD PRIMARY KEY (id, account_id);
ALTER TABLE geofence_events DROP CONSTRAINT geofence_events_pkey;
ALTER TABLE geofence_events ADD PRIMARY KEY (id, account_id);
ALTER TABLE geofence_events DROP CONSTRAINT geofence_events_unit_id_geofence_id_at_transition_key;
ALTER TABLE geofence_events ADD CONSTRAINT geofence_events_unit_id_geofence_id_at_transition_key UNIQUE (unit_id, geofence_id, at, transition, account_id);

ALTER TABLE places DROP CONSTRAINT places_pkey;
ALTER TABLE places ADD PRIMARY KEY (id, account_id);

ALTER TABLE report_schedules DROP CONSTRAINT report_schedules_pkey;
ALTER TABLE report_schedules ADD PRIMARY KEY (id, account_id);

ALTER TABLE safe_homes DROP CONSTRAINT safe_homes_pkey;
ALTER TABLE safe_homes ADD PRIMARY KEY (unit_id, account_id);
ALTER TABLE safe_home_checks DROP CONSTRAINT safe_home_checks_pkey;
ALTER TABLE safe_home_checks ADD PRIMARY KEY (unit_id, due_at, account_id);

-- The rows each of them owns, in its account.
ALTER TABLE alarm_deliveries ADD CONSTRAINT alarm_deliveries_alarm_id_fkey
  FOREIGN KEY (alarm_id, account_id) REFERENCES alarms (id, account_id) ON DELETE CASCADE;
ALTER TABLE alarm_receiver_units ADD CONSTRAINT alarm_receiver_units_receiver_id_fkey
  FOREIGN KEY (receiver_id, account_id) REFERENCES alarm_receivers (id, account_id) ON DELETE CASCADE;
ALTER TABLE alarm_receiver_ble_units ADD CONSTRAINT alarm_receiver_ble_units_receiver_id_fkey
  FOREIGN KEY (receiver_id, account_id) REFERENCES alarm_receivers (id, account_id) ON DELETE CASCADE;
ALTER TABLE alarm_receiver_ble_units ADD CONSTRAINT alarm_receiver_ble_units_ble_device_id_fkey
  FOREIGN KEY (ble_device_id, account_id) REFERENCES ble_devices (id, account_id) ON DELETE CASCADE;
ALTER TABLE geofence_deactivations ADD CONSTRAINT geofence_deactivations_geofence_id_fkey
  FOREIGN KEY (geofence_id, account_id) REFERENCES geofences (id, account_id) ON DELETE CASCADE;
ALTER TABLE geofence_events ADD CONSTRAINT geofence_events_geofence_id_fkey
  FOREIGN KEY (geofence_id, account_id) REFERENCES geofences (id, account_id) ON DELETE CASCADE;
ALTER TABLE geofence_units ADD CONSTRAINT geofence_units_geofence_id_fkey
  FOREIGN KEY (geofence_id, account_id) REFERENCES geofences (id, account_id) ON DELETE CASCADE;
ALTER TABLE place_rules ADD CONSTRAINT place_rules_place_id_fkey
  FOREIGN KEY (place_id, account_id) REFERENCES places (id, account_id) ON DELETE CASCADE;
ALTER TABLE place_rules ADD CONSTRAINT place_rules_other_place_id_fkey
  FOREIGN KEY (other_place_id, account_id) REFERENCES places (id, account_id) ON DELETE CASCADE;
ALTER TABLE place_units ADD CONSTRAINT place_units_place_id_fkey
  FOREIGN KEY (place_id, account_id) REFERENCES places (id, account_id) ON DELETE CASCADE;
