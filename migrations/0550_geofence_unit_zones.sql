-- Geofence matching from one row a unit (src/modules/geofences/matching.ts): the unit's mark row also holds its active
-- zones (ids and shape revisions, in zone order) and its state with each of them (arrays in the same order), kept by
-- triggers whenever zones, their units, a feature profile's zones, a unit's profile or the states change. A batch
-- then locks and reads one row a unit instead of looking up each unit's links, zones and states; the zones' shapes are
-- cached by the matcher under (zone, shape revision), so every instance knows from the row when its copy is stale.

-- A zone's shape revision: moves with every change of its geometry or radius.
ALTER TABLE geofences ADD COLUMN shape_revision integer NOT NULL DEFAULT 0;
CREATE FUNCTION geofence_shape_revised() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.geom IS DISTINCT FROM OLD.geom OR NEW.radius_m IS DISTINCT FROM OLD.radius_m OR NEW.shape IS DISTINCT FROM OLD.shape THEN
    NEW.shape_revision := OLD.shape_revision + 1;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER geofence_shape_revision BEFORE UPDATE ON geofences FOR EACH ROW EXECUTE FUNCTION geofence_shape_revised();

-- A unit with zones has its row before its first fix.
ALTER TABLE geofence_unit_marks
  ALTER COLUMN last_fix DROP NOT NULL,
  -- Any zone linked (directly or by profile), active or not: the mark moves for such a unit, as it always did.
  ADD COLUMN has_zones boolean NOT NULL DEFAULT false,
  ADD COLUMN zone_ids integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN zone_revisions integer[] NOT NULL DEFAULT '{}',
  ADD COLUMN inside boolean[] NOT NULL DEFAULT '{}',
  ADD COLUMN leaning boolean[] NOT NULL DEFAULT '{}',
  ADD COLUMN leaning_count smallint[] NOT NULL DEFAULT '{}';

-- Rebuilds the units' rows from the links, the zones and geofence_state. The rows are locked first (in unit order, as
-- matching locks them), so the states read afterwards include whatever a batch holding them committed.
CREATE FUNCTION geofence_refresh_units(unit_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM geofence_unit_marks WHERE unit_id = ANY(unit_ids) ORDER BY unit_id FOR UPDATE;
  INSERT INTO geofence_unit_marks AS m (unit_id, has_zones, zone_ids, zone_revisions, inside, leaning, leaning_count)
  SELECT x.id, EXISTS (SELECT 1 FROM geofence_units l WHERE l.unit_id = x.id) OR EXISTS (SELECT 1 FROM unit_profile_geozones v WHERE v.unit_id = x.id),
         coalesce(z.ids, '{}'), coalesce(z.revisions, '{}'), coalesce(z.inside, '{}'), coalesce(z.leaning, '{}'), coalesce(z.leaning_count, '{}')
  FROM (SELECT DISTINCT u AS id FROM unnest(unit_ids) AS u WHERE u IS NOT NULL) AS x
  CROSS JOIN LATERAL (
    SELECT array_agg(z.id ORDER BY z.id) AS ids, array_agg(z.shape_revision ORDER BY z.id) AS revisions,
           array_agg(s.inside ORDER BY z.id) AS inside, array_agg(s.leaning ORDER BY z.id) AS leaning,
           array_agg(coalesce(s.leaning_count, 0)::smallint ORDER BY z.id) AS leaning_count
    FROM (SELECT geofence_id FROM geofence_units WHERE unit_id = x.id UNION SELECT geofence_id FROM unit_profile_geozones WHERE unit_id = x.id) AS k
    JOIN geofences z ON z.id = k.geofence_id AND z.active
    LEFT JOIN geofence_state s ON s.unit_id = x.id AND s.geofence_id = z.id
  ) AS z
  -- A unit being deleted (its links go by cascade) needs no row.
  WHERE EXISTS (SELECT 1 FROM units u WHERE u.id = x.id)
  ORDER BY x.id
  ON CONFLICT (unit_id) DO UPDATE SET has_zones = EXCLUDED.has_zones, zone_ids = EXCLUDED.zone_ids, zone_revisions = EXCLUDED.zone_revisions,
    inside = EXCLUDED.inside, leaning = EXCLUDED.leaning, leaning_count = EXCLUDED.leaning_count;
END
$$;

CREATE FUNCTION geofence_units_refresh_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_refresh_units(ARRAY(SELECT unit_id FROM changed));
  RETURN NULL;
END
$$;
CREATE TRIGGER geofence_units_refresh_insert AFTER INSERT ON geofence_units REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION geofence_units_refresh_added();
CREATE TRIGGER geofence_units_refresh_delete AFTER DELETE ON geofence_units REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION geofence_units_refresh_added();
-- The service forgets states (a zone reshaped, switched off and on, a unit no longer assigned).
CREATE TRIGGER geofence_state_refresh_delete AFTER DELETE ON geofence_state REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION geofence_units_refresh_added();

CREATE FUNCTION geofence_zone_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_refresh_units(ARRAY(
    SELECT unit_id FROM geofence_units WHERE geofence_id = NEW.id UNION SELECT unit_id FROM unit_profile_geozones WHERE geofence_id = NEW.id));
  RETURN NULL;
END
$$;
CREATE TRIGGER geofence_zone_refresh AFTER UPDATE ON geofences FOR EACH ROW
  WHEN (NEW.active IS DISTINCT FROM OLD.active OR NEW.shape_revision IS DISTINCT FROM OLD.shape_revision)
  EXECUTE FUNCTION geofence_zone_refresh();

CREATE FUNCTION geofence_profile_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_refresh_units(ARRAY(SELECT unit_id FROM unit_catalog_links WHERE feature_profile_id = NEW.id));
  RETURN NULL;
END
$$;
CREATE TRIGGER feature_profile_geozones_refresh AFTER UPDATE OF geozone_ids ON feature_profiles
  FOR EACH ROW WHEN (NEW.geozone_ids IS DISTINCT FROM OLD.geozone_ids) EXECUTE FUNCTION geofence_profile_refresh();

CREATE FUNCTION geofence_unit_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM geofence_refresh_units(ARRAY[NEW.id]);
  RETURN NULL;
END
$$;
CREATE TRIGGER unit_profile_geozones_refresh AFTER UPDATE OF feature_profile_id ON units
  FOR EACH ROW WHEN (NEW.feature_profile_id IS DISTINCT FROM OLD.feature_profile_id) EXECUTE FUNCTION geofence_unit_refresh();
CREATE TRIGGER unit_profile_geozones_refresh_insert AFTER INSERT ON units
  FOR EACH ROW WHEN (NEW.feature_profile_id IS NOT NULL) EXECUTE FUNCTION geofence_unit_refresh();

-- Every unit with zones now.
SELECT geofence_refresh_units(ARRAY(SELECT unit_id FROM geofence_units UNION SELECT unit_id FROM unit_profile_geozones));
