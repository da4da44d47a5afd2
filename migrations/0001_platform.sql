-- Platform foundation: settings, brands, accounts, users, sessions, auth flows, mail, tracker stock, units.

CREATE TABLE app_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Brands (white-label sub-sites 0-7) are data, never code.
CREATE TABLE brands (
  subsite_id smallint PRIMARY KEY CHECK (subsite_id BETWEEN 0 AND 7),
  name text NOT NULL,
  logo_path text NOT NULL,
  logo_variant text NOT NULL DEFAULT 'light' CHECK (logo_variant IN ('light', 'black')),
  colors jsonb NOT NULL,
  login_design text NOT NULL CHECK (login_design IN ('new', 'old')),
  terms_visible boolean NOT NULL,
  terms_url text,
  support_email text,
  contact_email text NOT NULL,
  contact_phone text NOT NULL,
  contact_address text NOT NULL,
  notice_url text,
  features jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE announcements (
  id serial PRIMARY KEY,
  subsite_id smallint NOT NULL REFERENCES brands(subsite_id),
  language text NOT NULL CHECK (language IN ('sv', 'en', 'no')),
  text text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX announcements_lookup ON announcements (subsite_id, language) WHERE active;

CREATE TABLE accounts (
  id serial PRIMARY KEY,
  parent_id integer REFERENCES accounts(id),
  subsite_id smallint NOT NULL REFERENCES brands(subsite_id),
  is_private boolean NOT NULL DEFAULT false,
  company_name text NOT NULL DEFAULT '',
  contact_person text NOT NULL DEFAULT '',
  address text NOT NULL DEFAULT '',
  postal_code text NOT NULL DEFAULT '',
  city text NOT NULL DEFAULT '',
  country text NOT NULL DEFAULT '',
  org_number text NOT NULL DEFAULT '',
  phone text NOT NULL DEFAULT '',
  invoice_type text NOT NULL DEFAULT '',
  reseller text NOT NULL DEFAULT '',
  comment text NOT NULL DEFAULT '',
  payment_type smallint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_parent ON accounts (parent_id);

CREATE TABLE users (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email text NOT NULL,
  password_hash text NOT NULL,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  phone text NOT NULL DEFAULT '',
  personal_number text NOT NULL DEFAULT '',
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user', 'support', 'reseller')),
  language text NOT NULL DEFAULT 'sv' CHECK (language IN ('sv', 'en', 'no')),
  timezone text NOT NULL DEFAULT 'Europe/Stockholm',
  two_factor boolean NOT NULL DEFAULT false,
  realtime_map boolean NOT NULL DEFAULT true,
  basic_only boolean NOT NULL DEFAULT false,
  failed_logins integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  alerts_opt_out boolean NOT NULL DEFAULT false,
  push_opt_out boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_email_lower CHECK (email = lower(email))
);
CREATE UNIQUE INDEX users_email ON users (email);
CREATE INDEX users_account ON users (account_id);

-- A session backs each bearer token so that logout revokes it server-side.
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  remember boolean NOT NULL DEFAULT false,
  user_agent text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id);

-- A login that passed the password but still owes an e-mailed code.
CREATE TABLE two_factor_challenges (
  user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  code_hash text,
  code_expires_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  remember boolean NOT NULL DEFAULT false,
  challenge_expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE trusted_browsers (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  fingerprint_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (user_id, fingerprint_hash)
);

CREATE TABLE password_resets (
  code_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);

CREATE TABLE mail_outbox (
  id serial PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text,
  transport text NOT NULL CHECK (transport IN ('smtp', 'outbox')),
  status text NOT NULL CHECK (status IN ('sent', 'stored', 'failed')),
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- IMEIs that support has registered as sold trackers; registration draws from here.
CREATE TABLE tracker_stock (
  imei varchar(15) PRIMARY KEY CHECK (imei ~ '^[0-9]{15}$'),
  model text NOT NULL DEFAULT 'FMB920',
  protocol text NOT NULL DEFAULT 'teltonika' CHECK (protocol IN ('teltonika', 'gt06', 'osmand')),
  subsite_id smallint REFERENCES brands(subsite_id),
  payment_types text[] NOT NULL DEFAULT ARRAY['payment.card', 'payment.directDebit', 'payment.invoice'],
  added_by integer REFERENCES users(id) ON DELETE SET NULL,
  added_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE units (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  imei varchar(15) NOT NULL,
  name text NOT NULL,
  registration_number text NOT NULL DEFAULT '',
  model text NOT NULL DEFAULT '',
  protocol text NOT NULL DEFAULT 'teltonika' CHECK (protocol IN ('teltonika', 'gt06', 'osmand')),
  subscription_type text NOT NULL DEFAULT 'standard',
  vehicle_type text NOT NULL DEFAULT 'passenger_car',
  timezone_minutes integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX units_imei ON units (imei);
CREATE INDEX units_account ON units (account_id);
