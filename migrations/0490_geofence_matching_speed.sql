-- Geofence matching at 20,000 positions/s (src/modules/geofences/matching.ts): what the exact tests need, kept with the
-- zone so that a fix inside a zone's box costs a few floating-point operations instead of a geography function.
-- - A circle's centre as plain numbers: "inside" and "in the margin" are the haversine distance on the same sphere
--   as geography's ST_DWithin(..., use_spheroid => false).
-- - A polygon as a planar geometry densified every kilometre along its great-circle edges: "inside" is a planar
--   point-in-polygon test, within centimetres of geography's ST_Covers at zone sizes (a 1 km chord bows a few cm).
--   Only a fix outside the polygon but inside its box still asks geography for its distance to the border.
CREATE FUNCTION geofence_match_geom(geom geography, radius_m integer) RETURNS geometry
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN radius_m IS NULL THEN ST_Segmentize(geom, 1000)::geometry END
$$;

ALTER TABLE geofences
  ADD COLUMN centre_lon float8 GENERATED ALWAYS AS (CASE WHEN radius_m IS NOT NULL THEN ST_X(geom::geometry) END) STORED,
  ADD COLUMN centre_lat float8 GENERATED ALWAYS AS (CASE WHEN radius_m IS NOT NULL THEN ST_Y(geom::geometry) END) STORED,
  ADD COLUMN match_geom geometry GENERATED ALWAYS AS (geofence_match_geom(geom, radius_m)) STORED;

-- Metres between two points on the sphere of geography's use_spheroid => false (radius (2a + b) / 3 of WGS 84), by the
-- haversine formula; a SQL function the planner inlines.
CREATE FUNCTION geofence_sphere_m(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 2 * 6371008.771415059 * asin(least(1, sqrt(
    power(sin(radians(lat2 - lat1) / 2), 2) + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lon2 - lon1) / 2), 2))))
$$;
