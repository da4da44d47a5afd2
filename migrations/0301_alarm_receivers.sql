-- Alarm receivers (spec §1, §2 /administration/configure-alarm-receiver and /administration/configure-alert-numbers,
-- §3 Alarm receiver and Alarm language/time-zone setting, §5): who gets an account's security and function alarms,
-- for which GPS and BLE units, and the account's alarm language, time zone and SMS credits.

CREATE TABLE alarm_receivers (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- A user of the account chosen as receiver (name and e-mail are then the user's), or null for an outside person.
  member_id integer REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  email text CHECK (email = lower(email)),
  -- The dial code's digits (46) and the national number without its leading zeros (701234567): E.164 is +4670123456.
  country_code text CHECK (country_code ~ '^[0-9]{1,4}$'),
  phone text CHECK (phone ~ '^[1-9][0-9]{7,14}$'),
  push_notification boolean NOT NULL DEFAULT false,
  security_alarm boolean NOT NULL DEFAULT true,
  function_alarm boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((phone IS NULL) = (country_code IS NULL))
);
CREATE INDEX alarm_receivers_account ON alarm_receivers (account_id);
-- Spec §5: an e-mail or phone number is one receiver's; a user is at most one receiver.
CREATE UNIQUE INDEX alarm_receivers_email ON alarm_receivers (account_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX alarm_receivers_phone ON alarm_receivers (account_id, country_code, phone) WHERE phone IS NOT NULL;
CREATE UNIQUE INDEX alarm_receivers_member ON alarm_receivers (member_id) WHERE member_id IS NOT NULL;

CREATE TABLE alarm_receiver_units (
  receiver_id integer NOT NULL REFERENCES alarm_receivers(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  PRIMARY KEY (receiver_id, unit_id)
);
CREATE INDEX alarm_receiver_units_unit ON alarm_receiver_units (unit_id, receiver_id);

CREATE TABLE alarm_receiver_ble_units (
  receiver_id integer NOT NULL REFERENCES alarm_receivers(id) ON DELETE CASCADE,
  ble_device_id integer NOT NULL REFERENCES ble_devices(id) ON DELETE CASCADE,
  PRIMARY KEY (receiver_id, ble_device_id)
);
CREATE INDEX alarm_receiver_ble_units_device ON alarm_receiver_ble_units (ble_device_id, receiver_id);

-- Per account: the language and time zone alarms are written in, and the SMS credits left (one per message segment).
CREATE TABLE alarm_account_settings (
  account_id integer PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  language text NOT NULL DEFAULT 'sv' CHECK (language IN ('sv', 'en', 'no')),
  time_zone text NOT NULL DEFAULT 'Europe/Stockholm',
  sms_credits integer NOT NULL DEFAULT 0 CHECK (sms_credits >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- /administration/configure-alert-numbers: numbers that get SMS alarms for every unit of the account.
CREATE TABLE alert_numbers (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  country_code text NOT NULL CHECK (country_code ~ '^[0-9]{1,4}$'),
  phone text NOT NULL CHECK (phone ~ '^[1-9][0-9]{7,14}$'),
  label text CHECK (char_length(label) <= 50),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alert_numbers_phone ON alert_numbers (account_id, country_code, phone);

-- The accounts module publishes who opted out of alerts and push (spec §6, /user/alerts) and who was deleted, so the
-- alarm receivers leave them out. Columns are appended; the view's earlier columns stay as they were.
CREATE OR REPLACE VIEW user_directory AS
  SELECT id, account_id, email, first_name, last_name, role, language, timezone, alerts_opt_out, push_opt_out, deleted_at FROM users;
