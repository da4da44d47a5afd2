-- The geofences module publishes which zones each account has, so the account catalogue's feature profiles can check
-- the geozones they name without a late-bound call into a module built after them.
CREATE VIEW account_geofences AS SELECT id AS geofence_id, account_id FROM geofences;
