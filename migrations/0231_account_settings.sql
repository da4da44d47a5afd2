-- Account settings (spec §2 account settings, §6): the account's language and time zone (defaults for new users and
-- alarm texts) and the switches administrators set; market fuel prices per fuel type (SEK or NOK by market) that the
-- reports use. An account without a row has the defaults.
CREATE TABLE account_settings (
  account_id integer PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  language text NOT NULL DEFAULT 'sv' CHECK (language IN ('sv', 'en', 'no')),
  timezone text NOT NULL DEFAULT 'Europe/Stockholm',
  users_may_create_projects boolean NOT NULL DEFAULT false,
  qr_checkin_without_access boolean NOT NULL DEFAULT false,
  updated_by integer,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE account_fuel_prices (
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  market text NOT NULL CHECK (market IN ('SE', 'NO')),
  fuel_type text NOT NULL CHECK (fuel_type IN ('petrol', 'diesel', 'electricity', 'gas', 'other')),
  price numeric(7, 2) NOT NULL CHECK (price >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, market, fuel_type)
);
