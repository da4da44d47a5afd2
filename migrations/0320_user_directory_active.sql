-- The published user directory lists only users who exist: a deleted (soft-deleted) user is in no picker, no
-- reminder run and no account check of another module. Its columns stay as they were.
-- History that must keep a deleted user's name (the driver of a trip, who locked a unit, who acted in the audit log)
-- reads user_names, which keeps every row and says which were deleted. (deleted_at, added by 0301, stays as a column
-- and is now always null.)
CREATE OR REPLACE VIEW user_directory AS
  SELECT id, account_id, email, first_name, last_name, role, language, timezone, alerts_opt_out, push_opt_out, deleted_at
  FROM users WHERE deleted_at IS NULL;

CREATE VIEW user_names AS
  SELECT id, account_id, email, first_name, last_name, deleted_at IS NOT NULL AS deleted FROM users;
