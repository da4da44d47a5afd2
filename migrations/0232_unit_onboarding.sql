-- Car info onboarding (spec §2 "car info onboarding"): after registration, and for a unit added later, a short guided form
-- for what the trip log and reports need. A unit without a row has not been through it; 'skipped' stays resumable from
-- the unit list; 'done' is finished.
CREATE TABLE unit_onboarding (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('skipped', 'done')),
  updated_by integer,
  updated_at timestamptz NOT NULL DEFAULT now()
);
