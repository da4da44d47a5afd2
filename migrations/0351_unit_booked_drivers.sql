-- bookings publishes who has booked a vehicle when, so that trips started during a booking get its driver
-- (the exclusion constraint's GiST index on (unit_id, tstzrange(starts_at, ends_at)) answers "booked at t").
CREATE VIEW unit_booked_drivers AS
  SELECT unit_id, driver_id AS user_id, starts_at, ends_at FROM bookings;
