-- BLE alarms (alarms module): a beacon or sensor paired with a GPS unit that the unit has stopped hearing while it keeps
-- reporting is out of range, a security alarm (a tool or tag taken from the vehicle) delivered to the receivers who
-- selected that BLE unit. The alarm row names the BLE device; each device has its own episodes.
ALTER TABLE alarms DROP CONSTRAINT alarms_type_check;
ALTER TABLE alarms ADD CONSTRAINT alarms_type_check CHECK (type IN ('theft_movement', 'theft_zone_exit', 'power_cut', 'tamper', 'towing', 'sos',
  'ble_out_of_range', 'zone_enter', 'zone_exit', 'low_battery', 'din2', 'din3', 'overspeed', 'service_due', 'not_home'));
ALTER TABLE alarms ADD COLUMN ble_device_id integer;
CREATE INDEX alarms_ble_device ON alarms (ble_device_id, type, last_seen_at DESC) WHERE ble_device_id IS NOT NULL;

-- When each paired BLE device was last heard by its GPS unit (from the stored positions' BLE readings), and whether its
-- current absence has raised its alarm (cleared when it is heard again).
CREATE TABLE alarm_ble_sightings (
  ble_device_id integer PRIMARY KEY,
  unit_id integer NOT NULL,
  last_seen timestamptz NOT NULL,
  alarmed_at timestamptz
);
CREATE INDEX alarm_ble_sightings_open ON alarm_ble_sightings (last_seen) WHERE alarmed_at IS NULL;

-- io publishes its BLE devices: who owns each, its MAC and name, and the GPS unit it is paired with.
CREATE VIEW ble_device_directory AS
  SELECT id, account_id, mac, name, serial_number, kind, paired_unit_id FROM ble_devices;
