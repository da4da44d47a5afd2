-- What the benefit report reads of units and the trip log (published read views; README "Where things go"): a unit's
-- benefit-car fields, and each trip's start, distance, type and driver. A fleet report reads them in one query each
-- instead of every unit's detail and trip list.

-- units: car usage, fuel, consumption, CO2, fuel payer and reimbursement of each unit.
CREATE VIEW unit_benefit_settings AS
  SELECT id AS unit_id, account_id, car_usage, fuel_type, fuel_consumption_per_10km, co2_g_per_km, fuel_payer, reimbursement_per_10km
  FROM units;

-- trips: the distances of the trip log (trips_unit_start serves unit and period).
CREATE VIEW trip_distances AS
  SELECT id AS trip_id, unit_id, account_id, start_time, distance_m, type, driver_user_id
  FROM trips;
