-- Read views a module publishes for the others (README, "Where things go"). A module never reads another
-- module's tables; where a join in SQL is the right tool (the map's unit list, trip detection over positions),
-- it reads the owner's view instead. Each view is a plain projection, so PostgreSQL inlines it: the same plan,
-- indexes and partition pruning as on the table. The owner keeps a view's columns stable when its tables change.

-- accounts: who a user is, and an account's brand and country.
CREATE VIEW user_directory AS
  SELECT id, account_id, email, first_name, last_name, role, language, timezone FROM users;
CREATE VIEW account_directory AS
  SELECT id, parent_id, subsite_id, company_name, org_number, country, is_private FROM accounts;

-- the account catalogues units are sorted by.
CREATE VIEW department_directory AS
  SELECT id, account_id, name FROM departments;
CREATE VIEW tag_directory AS
  SELECT id, account_id, name FROM tags;

-- units: what a unit is called, whose it is, how it is drawn and which tracker reports for it.
CREATE VIEW unit_directory AS
  SELECT id, account_id, imei, model, protocol, timezone_minutes, name, registration_number, vehicle_type, marker_icon, color,
         operating_mode, department_id
  FROM units;
CREATE VIEW unit_tag_links AS
  SELECT unit_id, tag_id FROM unit_tags;

-- tracking: the stored track of each unit, and where each unit was last seen.
CREATE VIEW position_history AS
  SELECT unit_id, time, geom, speed_kmh, course, valid, flags, ignition, odometer_m, normalized FROM positions;
CREATE VIEW unit_latest_fix AS
  SELECT unit_id, time, geom, valid FROM unit_state;
