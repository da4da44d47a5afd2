-- Users, the account's catalogues (departments, feature profiles, projects, purposes, tags), the audit log, bulk jobs
-- and push subscriptions carry the account in every key, so each can be distributed by account
-- (src/lib/db/distribution.ts); the account comes last, so the lookups by id keep their index.
--
-- The login e-mail stays unique over every account, which a key of the distributed users table cannot check: each
-- e-mail is claimed in login_emails (a reference table, keyed by the e-mail), written in the transaction that creates
-- a user or changes their e-mail (src/modules/accounts/login-emails.ts).
--
-- The references to a user split in two. A row that belongs to a user of its own account (a session, a booking's
-- driver, a check-in, an attest, a unit's access…) keeps a key with the account: (user_id, account_id). A column that
-- names who did something (created_by, changed_by, locker_id…) may name a reseller's or support user acting inside a
-- customer's account, and so may a push subscription or a saved view made there: those lose their key (users are
-- never deleted, only marked, so nothing was cleared by it). A department, profile, project or tag is always the
-- account's own, and the references to them keep their key with the account.

-- 1. The foreign keys that point at the keys about to change.
ALTER TABLE benefit_cars DROP CONSTRAINT benefit_cars_updated_by_fkey;
ALTER TABLE bookings DROP CONSTRAINT bookings_created_by_fkey;
ALTER TABLE bookings DROP CONSTRAINT bookings_updated_by_fkey;
ALTER TABLE bulk_jobs DROP CONSTRAINT bulk_jobs_created_by_fkey;
ALTER TABLE device_commands DROP CONSTRAINT device_commands_requested_by_fkey;
ALTER TABLE geofences DROP CONSTRAINT geofences_created_by_fkey;
ALTER TABLE places DROP CONSTRAINT places_created_by_fkey;
ALTER TABLE purpose_settings DROP CONSTRAINT purpose_settings_changed_by_fkey;
ALTER TABLE purposes DROP CONSTRAINT purposes_created_by_fkey;
ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_user_id_fkey;
ALTER TABLE report_frequency_denials DROP CONSTRAINT report_frequency_denials_denied_by_fkey;
ALTER TABLE tracker_stock DROP CONSTRAINT tracker_stock_added_by_fkey;
ALTER TABLE trip_attest_log DROP CONSTRAINT trip_attest_log_by_user_id_fkey;
ALTER TABLE trip_attests DROP CONSTRAINT trip_attests_attested_by_fkey;
ALTER TABLE trip_attests DROP CONSTRAINT trip_attests_changed_by_fkey;
ALTER TABLE trip_driver_checkins DROP CONSTRAINT trip_driver_checkins_checked_in_by_fkey;
ALTER TABLE trip_driver_checkins DROP CONSTRAINT trip_driver_checkins_checked_out_by_fkey;
ALTER TABLE trip_merge_parts DROP CONSTRAINT trip_merge_parts_merged_by_fkey;
ALTER TABLE unit_access DROP CONSTRAINT unit_access_granted_by_fkey;
ALTER TABLE unit_images DROP CONSTRAINT unit_images_uploaded_by_fkey;
ALTER TABLE unit_lock_log DROP CONSTRAINT unit_lock_log_locker_id_fkey;
ALTER TABLE unit_lock_log DROP CONSTRAINT unit_lock_log_user_id_fkey;
ALTER TABLE unit_meter_calibrations DROP CONSTRAINT unit_meter_calibrations_set_by_fkey;
ALTER TABLE unit_name_history DROP CONSTRAINT unit_name_history_changed_by_fkey;
ALTER TABLE unit_object_descriptions DROP CONSTRAINT unit_object_descriptions_updated_by_fkey;
ALTER TABLE unit_registration_changes DROP CONSTRAINT unit_registration_changes_changed_by_fkey;
ALTER TABLE unit_setting_requests DROP CONSTRAINT unit_setting_requests_requested_by_fkey;
ALTER TABLE unit_theft_mode DROP CONSTRAINT unit_theft_mode_switched_by_fkey;
ALTER TABLE unit_theft_reports DROP CONSTRAINT unit_theft_reports_updated_by_fkey;
ALTER TABLE unit_tracker_history DROP CONSTRAINT unit_tracker_history_replaced_by_fkey;
ALTER TABLE units DROP CONSTRAINT units_locked_by_fkey;
ALTER TABLE user_preferences DROP CONSTRAINT user_preferences_user_id_fkey;
ALTER TABLE alarm_receivers DROP CONSTRAINT alarm_receivers_member_id_fkey;
ALTER TABLE bookings DROP CONSTRAINT bookings_driver_id_fkey;
ALTER TABLE password_resets DROP CONSTRAINT password_resets_user_id_fkey;
ALTER TABLE report_frequency_denials DROP CONSTRAINT report_frequency_denials_user_id_fkey;
ALTER TABLE sessions DROP CONSTRAINT sessions_user_id_fkey;
ALTER TABLE trip_attest_log DROP CONSTRAINT trip_attest_log_user_id_fkey;
ALTER TABLE trip_attest_reminders DROP CONSTRAINT trip_attest_reminders_user_id_fkey;
ALTER TABLE trip_attests DROP CONSTRAINT trip_attests_user_id_fkey;
ALTER TABLE trip_driver_checkins DROP CONSTRAINT trip_driver_checkins_user_id_fkey;
ALTER TABLE trusted_browsers DROP CONSTRAINT trusted_browsers_user_id_fkey;
ALTER TABLE two_factor_challenges DROP CONSTRAINT two_factor_challenges_user_id_fkey;
ALTER TABLE unit_access DROP CONSTRAINT unit_access_user_id_fkey;
ALTER TABLE user_invitations DROP CONSTRAINT user_invitations_user_id_fkey;
ALTER TABLE benefit_cars DROP CONSTRAINT benefit_cars_holder_user_id_fkey;
ALTER TABLE trips DROP CONSTRAINT trips_driver_user_id_fkey;
ALTER TABLE units DROP CONSTRAINT units_department_id_fkey;
ALTER TABLE users DROP CONSTRAINT users_department_id_fkey;
ALTER TABLE units DROP CONSTRAINT units_feature_profile_id_fkey;
ALTER TABLE units DROP CONSTRAINT units_project_id_fkey;
ALTER TABLE unit_tags DROP CONSTRAINT unit_tags_tag_id_fkey;

-- 2. The keys.
ALTER TABLE users DROP CONSTRAINT users_pkey;
ALTER TABLE users ADD PRIMARY KEY (id, account_id);
ALTER TABLE departments DROP CONSTRAINT departments_pkey;
ALTER TABLE departments ADD PRIMARY KEY (id, account_id);
ALTER TABLE feature_profiles DROP CONSTRAINT feature_profiles_pkey;
ALTER TABLE feature_profiles ADD PRIMARY KEY (id, account_id);
ALTER TABLE projects DROP CONSTRAINT projects_pkey;
ALTER TABLE projects ADD PRIMARY KEY (id, account_id);
ALTER TABLE purposes DROP CONSTRAINT purposes_pkey;
ALTER TABLE purposes ADD PRIMARY KEY (id, account_id);
ALTER TABLE tags DROP CONSTRAINT tags_pkey;
ALTER TABLE tags ADD PRIMARY KEY (id, account_id);
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_pkey;
ALTER TABLE audit_entries ADD PRIMARY KEY (id, account_id);
ALTER TABLE bulk_jobs DROP CONSTRAINT bulk_jobs_pkey;
ALTER TABLE bulk_jobs ADD PRIMARY KEY (id, account_id);
ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_pkey;
ALTER TABLE push_subscriptions ADD PRIMARY KEY (id, account_id);
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_event_id_key;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_event_id_key UNIQUE (event_id, account_id);
DROP INDEX push_subscriptions_endpoint;
CREATE UNIQUE INDEX push_subscriptions_endpoint ON push_subscriptions (endpoint, account_id);

-- 3. The login directory: one row per e-mail, soft-deleted users included (their e-mail was already replaced by a
-- placeholder of their own).
CREATE TABLE login_emails (
  email text PRIMARY KEY CHECK (email = lower(email)),
  user_id integer NOT NULL,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE
);
INSERT INTO login_emails (email, user_id, account_id) SELECT email, id, account_id FROM users;
DROP INDEX users_email;
CREATE INDEX users_email ON users (email);

-- 4. The references that keep a key, now with the account.
ALTER TABLE alarm_receivers ADD CONSTRAINT alarm_receivers_member_id_fkey FOREIGN KEY (member_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE bookings ADD CONSTRAINT bookings_driver_id_fkey FOREIGN KEY (driver_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE password_resets ADD CONSTRAINT password_resets_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE report_frequency_denials ADD CONSTRAINT report_frequency_denials_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE sessions ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_attest_log ADD CONSTRAINT trip_attest_log_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_attest_reminders ADD CONSTRAINT trip_attest_reminders_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_attests ADD CONSTRAINT trip_attests_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE trip_driver_checkins ADD CONSTRAINT trip_driver_checkins_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE trusted_browsers ADD CONSTRAINT trusted_browsers_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE two_factor_challenges ADD CONSTRAINT two_factor_challenges_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE unit_access ADD CONSTRAINT unit_access_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE user_invitations ADD CONSTRAINT user_invitations_user_id_fkey FOREIGN KEY (user_id, account_id) REFERENCES users (id, account_id) ON DELETE CASCADE;
ALTER TABLE benefit_cars ADD CONSTRAINT benefit_cars_holder_user_id_fkey FOREIGN KEY (holder_user_id, account_id) REFERENCES users (id, account_id) ON DELETE SET NULL (holder_user_id);
ALTER TABLE trips ADD CONSTRAINT trips_driver_user_id_fkey FOREIGN KEY (driver_user_id, account_id) REFERENCES users (id, account_id) ON DELETE SET NULL (driver_user_id);
ALTER TABLE units ADD CONSTRAINT units_department_id_fkey FOREIGN KEY (department_id, account_id) REFERENCES departments (id, account_id) ON DELETE SET NULL (department_id);
ALTER TABLE users ADD CONSTRAINT users_department_id_fkey FOREIGN KEY (department_id, account_id) REFERENCES departments (id, account_id) ON DELETE SET NULL (department_id);
ALTER TABLE units ADD CONSTRAINT units_feature_profile_id_fkey FOREIGN KEY (feature_profile_id, account_id) REFERENCES feature_profiles (id, account_id) ON DELETE SET NULL (feature_profile_id);
ALTER TABLE units ADD CONSTRAINT units_project_id_fkey FOREIGN KEY (project_id, account_id) REFERENCES projects (id, account_id) ON DELETE SET NULL (project_id);
ALTER TABLE unit_tags ADD CONSTRAINT unit_tags_tag_id_fkey FOREIGN KEY (tag_id, account_id) REFERENCES tags (id, account_id) ON DELETE CASCADE;
