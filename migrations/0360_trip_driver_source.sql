-- Where a trip's driver came from: a check-in on the unit, or the booking the trip started in (null: no driver).
ALTER TABLE trips ADD COLUMN driver_source text CHECK (driver_source IN ('checkin', 'booking'));
UPDATE trips SET driver_source = 'checkin' WHERE driver_user_id IS NOT NULL;
ALTER TABLE trip_merge_parts ADD COLUMN driver_source text;
UPDATE trip_merge_parts SET driver_source = 'checkin' WHERE driver_user_id IS NOT NULL;
