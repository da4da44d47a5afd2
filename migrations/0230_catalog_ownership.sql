-- The account catalogues (departments, projects, tags, feature profiles) belong to the accounts module. It counts the
-- units filed under each through this view that units publishes, instead of reading the units table.
CREATE VIEW unit_catalog_links AS
  SELECT id AS unit_id, account_id, department_id, project_id, feature_profile_id FROM units;
