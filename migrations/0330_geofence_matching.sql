-- Geofence matching at ingest speed (src/modules/geofences/matching.ts) and the 5-zones-per-unit rule for every way a
-- unit gains zones (spec §5, §9).

-- 1. Each zone's box in degrees, widened by its radius and a band beyond its border far wider than the matching margin
--    (25 m): a fix outside the box is outside the zone and its margin, told by four comparisons without a distance on
--    the sphere. A polygon's box is taken over its edges densified every kilometre (a great-circle edge bows beyond its
--    corners); a box that would pass the antimeridian or come near a pole spans every longitude.
CREATE FUNCTION geofence_box(geom geography, radius_m integer) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  g geometry := CASE WHEN radius_m IS NULL THEN ST_Segmentize(geom, 1000)::geometry ELSE geom::geometry END;
  band float8 := coalesce(radius_m, 0) + 100.0;
  x0 float8 := ST_XMin(g);
  x1 float8 := ST_XMax(g);
  y0 float8 := ST_YMin(g);
  y1 float8 := ST_YMax(g);
  -- A degree of latitude is at least 110.5 km; of longitude at least 111 km times the cosine of the box's farthest latitude.
  dlat float8 := band / 110000.0;
  reach float8 := greatest(abs(y0), abs(y1)) + band / 110000.0;
  dlon float8 := band / (111000.0 * greatest(cos(radians(least(reach, 89))), 0.01));
BEGIN
  IF reach >= 89 OR x0 - dlon < -180 OR x1 + dlon > 180 THEN
    RETURN ARRAY[-180, greatest(y0 - dlat, -90), 180, least(y1 + dlat, 90)];
  END IF;
  RETURN ARRAY[x0 - dlon, y0 - dlat, x1 + dlon, y1 + dlat];
END
$$;

ALTER TABLE geofences
  ADD COLUMN box_west float8 GENERATED ALWAYS AS ((geofence_box(geom, radius_m))[1]) STORED,
  ADD COLUMN box_south float8 GENERATED ALWAYS AS ((geofence_box(geom, radius_m))[2]) STORED,
  ADD COLUMN box_east float8 GENERATED ALWAYS AS ((geofence_box(geom, radius_m))[3]) STORED,
  ADD COLUMN box_north float8 GENERATED ALWAYS AS ((geofence_box(geom, radius_m))[4]) STORED;

-- 2. The newest fix matched per unit with zones, one row a unit: a fix not newer is history (late or resent) and
--    changes nothing. The (unit, zone) state rows are written only when they change, no longer with every fix.
--    previous_fix is the mark before the latest batch moved it (the batch reads it back as it locks the row).
CREATE TABLE geofence_unit_marks (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  last_fix timestamptz NOT NULL,
  previous_fix timestamptz
) WITH (fillfactor = 70);
-- Units already matched start from their newest state.
INSERT INTO geofence_unit_marks (unit_id, last_fix)
SELECT unit_id, max(last_fix) FROM geofence_state WHERE last_fix IS NOT NULL GROUP BY unit_id;
ALTER TABLE geofence_state DROP COLUMN last_fix;

-- 3. At most 5 zones per unit (direct links and its feature profile's zones, spec §5, §9), whichever way it gains
--    them: a zone saved with its units, a feature profile given zones, a unit given a feature profile. Each check
--    first takes a transaction lock per unit (in unit order, so two savers never deadlock), then counts what is
--    committed: two saves at once cannot together pass the limit. The refusal names the message key and the field
--    (the API answers it as a 422 field error).
CREATE FUNCTION geofence_lock_units(unit_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  unit integer;
BEGIN
  FOR unit IN SELECT DISTINCT u FROM unnest(unit_ids) AS u WHERE u IS NOT NULL ORDER BY u LOOP
    PERFORM pg_advisory_xact_lock(727330, unit);
  END LOOP;
END
$$;

CREATE FUNCTION geofence_check_units(unit_ids integer[], field text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_lock_units(unit_ids);
  IF EXISTS (
    SELECT 1 FROM (
      SELECT unit_id, geofence_id FROM geofence_units WHERE unit_id = ANY(unit_ids)
      UNION SELECT unit_id, geofence_id FROM unit_profile_geozones WHERE unit_id = ANY(unit_ids)
    ) AS k JOIN geofences z ON z.id = k.geofence_id
    GROUP BY k.unit_id HAVING count(*) > 5
  ) THEN
    RAISE EXCEPTION 'a unit holds at most 5 zones' USING ERRCODE = 'check_violation', CONSTRAINT = 'geofences.units.tooMany', COLUMN = field;
  END IF;
END
$$;

CREATE FUNCTION geofence_units_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_check_units(ARRAY(SELECT DISTINCT unit_id FROM added), 'units');
  RETURN NULL;
END
$$;
CREATE TRIGGER geofence_units_limit AFTER INSERT ON geofence_units REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION geofence_units_added();

CREATE FUNCTION geofence_profile_zones_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_check_units(ARRAY(SELECT unit_id FROM unit_catalog_links WHERE feature_profile_id = NEW.id), 'geozoneIds');
  RETURN NULL;
END
$$;
CREATE TRIGGER feature_profile_geozones_limit AFTER UPDATE OF geozone_ids ON feature_profiles
  FOR EACH ROW WHEN (NEW.geozone_ids IS DISTINCT FROM OLD.geozone_ids) EXECUTE FUNCTION geofence_profile_zones_changed();

CREATE FUNCTION geofence_unit_profile_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_check_units(ARRAY[NEW.id], 'featureProfileId');
  RETURN NULL;
END
$$;
CREATE TRIGGER unit_profile_geozones_limit AFTER UPDATE OF feature_profile_id ON units
  FOR EACH ROW WHEN (NEW.feature_profile_id IS NOT NULL AND NEW.feature_profile_id IS DISTINCT FROM OLD.feature_profile_id)
  EXECUTE FUNCTION geofence_unit_profile_changed();
CREATE TRIGGER unit_profile_geozones_limit_insert AFTER INSERT ON units
  FOR EACH ROW WHEN (NEW.feature_profile_id IS NOT NULL) EXECUTE FUNCTION geofence_unit_profile_changed();
