-- The unit list keeps its view in the shared per-user preferences (`user_preferences`, key `table.units`) like every
-- other data table. Each saved choice is copied: its sort becomes the view's one sorting column, and the columns it did
-- not show (of the unit list's columns, listed here as they are at this version) become the hidden ones. Then the unit
-- list's own table goes.
INSERT INTO user_preferences (user_id, key, value, updated_at)
SELECT p.user_id, 'table.units',
       jsonb_build_object(
         'sorting', jsonb_build_array(jsonb_build_object('id', p.sort, 'desc', p.sort_order = 'desc')),
         'hidden', COALESCE((
           SELECT jsonb_agg(listed.column_id ORDER BY listed.place)
           FROM unnest(ARRAY[
             'name', 'registrationNumber', 'imei', 'model', 'vehicleType', 'department', 'project', 'tags', 'subscriptionType',
             'status', 'lastSeen', 'odometer', 'operatingHours', 'operatingMode', 'reportFrequency', 'fuelType', 'carUsage',
             'locked', 'driver', 'outputs', 'inputs', 'nextInspection'
           ]::text[]) WITH ORDINALITY AS listed(column_id, place)
           WHERE listed.column_id <> ALL (p.columns)
         ), '[]'::jsonb)),
       p.updated_at
FROM unit_list_preferences p
ON CONFLICT (user_id, key) DO NOTHING;

DROP TABLE unit_list_preferences;
