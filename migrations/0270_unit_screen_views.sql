-- What the unit screens show of tracking and the trip log (README, "Where things go"): both modules are built on
-- units, so units reads their published views rather than being handed their services after it exists.

-- tracking: each unit's latest state as the unit list and edit page show it. The position is the newest record's
-- fix, or the last valid one when that record had none (as the map shows it); the inputs and outputs are what the
-- newest record reported. One row per unit that has reported.
CREATE VIEW unit_live_state AS
  SELECT s.unit_id, s.time, s.last_seen, s.speed_kmh, s.ignition, s.odometer_m,
         ST_Y(pos.geom) AS lat, ST_X(pos.geom) AS lon,
         (s.normalized -> 'din2') = 'true'::jsonb AS din2,
         (s.normalized -> 'din3') = 'true'::jsonb AS din3,
         (s.normalized -> 'dout1') = 'true'::jsonb AS dout1,
         (s.normalized -> 'dout2') = 'true'::jsonb AS dout2,
         (s.normalized -> 'dout3') = 'true'::jsonb AS dout3
  FROM unit_state s
  CROSS JOIN LATERAL (
    SELECT CASE WHEN s.valid IS NOT FALSE THEN s.geom ELSE (
      SELECT p.geom FROM positions p
      WHERE p.unit_id = s.unit_id AND p.flags = 0 AND p.time <= s.time
      ORDER BY p.time DESC LIMIT 1
    ) END AS geom
  ) pos;

-- trips: the driver checked in on a unit now (at most one per unit), and a unit's own time till parked (null: the
-- trip log's default).
CREATE VIEW unit_checked_in_drivers AS
  SELECT unit_id, user_id FROM trip_driver_checkins WHERE checked_out_at IS NULL;
CREATE VIEW unit_parking_settings AS
  SELECT unit_id, time_till_parked_s FROM trip_unit_settings;
