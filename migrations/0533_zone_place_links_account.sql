-- The units a geofence or a place applies to, a geofence's deactivation windows and a place's trip rules carry their
-- account, so each can be distributed with the account's other rows (src/lib/db/distribution.ts). Backfilled from
-- the geofence or the place (neither changes account); the account joins each key, after the columns the rows are
-- looked up by.

ALTER TABLE geofence_units ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE geofence_units l SET account_id = g.account_id FROM geofences g WHERE g.id = l.geofence_id;
ALTER TABLE geofence_units ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE geofence_units DROP CONSTRAINT geofence_units_pkey;
ALTER TABLE geofence_units ADD PRIMARY KEY (geofence_id, unit_id, account_id);

ALTER TABLE geofence_deactivations ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE geofence_deactivations d SET account_id = g.account_id FROM geofences g WHERE g.id = d.geofence_id;
ALTER TABLE geofence_deactivations ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE geofence_deactivations DROP CONSTRAINT geofence_deactivations_pkey;
ALTER TABLE geofence_deactivations ADD PRIMARY KEY (id, account_id);

ALTER TABLE place_units ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE place_units l SET account_id = p.account_id FROM places p WHERE p.id = l.place_id;
ALTER TABLE place_units ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE place_units DROP CONSTRAINT place_units_pkey;
ALTER TABLE place_units ADD PRIMARY KEY (place_id, unit_id, account_id);

ALTER TABLE place_rules ADD COLUMN account_id integer REFERENCES accounts(id) ON DELETE CASCADE;
UPDATE place_rules r SET account_id = p.account_id FROM places p WHERE p.id = r.place_id;
ALTER TABLE place_rules ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE place_rules DROP CONSTRAINT place_rules_pkey;
ALTER TABLE place_rules ADD PRIMARY KEY (id, account_id);
