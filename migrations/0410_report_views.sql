-- Fleet reports (summary, eco driving, fuel, CO2, environmental) read other modules' data through these
-- published views; each is owned and published by the module whose tables it reads (see its views.ts).

-- trips publishes what a report reads of a trip.
CREATE VIEW trip_report_rows AS
  SELECT t.id AS trip_id, t.unit_id, t.account_id, t.start_time, t.stop_time, t.distance_m, t.max_speed_kmh,
         t.avg_speed_kmh, t.driver_user_id, t.harsh_acceleration, t.harsh_braking, t.harsh_cornering, t.type
  FROM trips t;

-- units publishes a unit's fuel, emission and eco-driving settings (its feature profile's sensitivity and threshold).
CREATE VIEW unit_report_settings AS
  SELECT u.id AS unit_id, u.account_id, u.fuel_type, u.fuel_consumption_per_10km::float8 AS consumption_per_10km,
         u.co2_g_per_km::float8 AS co2_g_per_km, u.vehicle_type, u.department_id,
         COALESCE(p.green_driving, 'normal') AS green_driving, p.overspeed_kmh
  FROM units u LEFT JOIN feature_profiles p ON p.id = u.feature_profile_id;

-- tracking publishes the motion of stored positions (fix flags 0): speed, ignition and a reported fuel level
-- (OsmAnd/Traccar `fuel`, or `fuelLevel`, in litres or kWh as the tracker is configured).
CREATE VIEW position_report_rows AS
  SELECT p.unit_id, p.time, p.speed_kmh, p.ignition, ST_Y(p.geom) AS lat, ST_X(p.geom) AS lon,
         CASE WHEN jsonb_typeof(p.io -> 'fuel') = 'number' THEN (p.io ->> 'fuel')::float8
              WHEN jsonb_typeof(p.io -> 'fuelLevel') = 'number' THEN (p.io ->> 'fuelLevel')::float8 END AS fuel_level
  FROM positions p
  WHERE p.flags = 0;
