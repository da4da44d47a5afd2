-- BLE units (spec §2 unit picker's BLE tab, §3 BLE unit items): beacons and sensors an account owns, each known by its
-- MAC address, optionally paired with one of the account's GPS units (which relays what it hears).
CREATE TABLE ble_devices (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- 12 upper-case hex digits, no separators.
  mac text NOT NULL CHECK (mac ~ '^[0-9A-F]{12}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  serial_number text NOT NULL DEFAULT '',
  kind text NOT NULL CHECK (kind IN ('sensor', 'beacon')),
  paired_unit_id integer REFERENCES units(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX ble_devices_mac ON ble_devices (mac);
CREATE INDEX ble_devices_account ON ble_devices (account_id);
