/**
 * How every table maps onto a distributed PostgreSQL (Citus), and what is still missing before it can.
 *
 * The schema runs unchanged on one PostgreSQL; this map is the plan for sharding it, and
 * `tests/integration/distribution.test.ts` checks it against the catalogue: a new table that is not named here fails,
 * a distributed table must carry its distribution column NOT NULL, and the lists of what is still missing may only
 * shrink. README, "Growing past one machine", explains the choices.
 *
 * - `account`: distributed by `account_id`, all in one co-location group, so an account's units, users, trips,
 *   geofences, alarms… sit on one node and a query scoped to one account is a single-node query.
 * - `unit`: distributed by `unit_id`, co-located with `positions`. The positions table is distributed by `unit_id`, not
 *   by account: the gateway writes it knowing only the unit, every read of it is for one unit (a track, trip detection,
 *   a report row), and one account with tens of thousands of units spreads over every node instead of filling one.
 *   The per-unit state written with each position joins it in this group, so the ingest path stays on one node.
 * - `reference`: small, global, read by every account; copied to every node.
 * - `coordinator`: platform machinery that no account owns (job queue, outbox, leases, caches); stays a local table on
 *   the coordinator, where `FOR UPDATE SKIP LOCKED` and the leases work as they do on one PostgreSQL.
 */
export type Placement =
  | { kind: 'account'; column: 'account_id' }
  | { kind: 'unit'; column: 'unit_id' }
  | { kind: 'reference' }
  | { kind: 'coordinator' };

/** The distribution column of the positions table (and of the per-unit state co-located with it). */
export const POSITIONS_DISTRIBUTION_COLUMN = 'unit_id';

const account = { kind: 'account', column: 'account_id' } as const;
const unit = { kind: 'unit', column: POSITIONS_DISTRIBUTION_COLUMN } as const;
const reference = { kind: 'reference' } as const;
const coordinator = { kind: 'coordinator' } as const;

/**
 * Per-account tables that do not carry `account_id` yet, with the parent it is backfilled from. Each needs a migration
 * (add the column, backfill from the parent, NOT NULL, index) and its owning module writing it; until then a query on
 * them cannot be routed to one node. The test fails if one of them gains the column and is still listed here.
 */
export const ACCOUNT_ID_MISSING: Readonly<Record<string, string>> = {};

/**
 * Distributed tables whose primary key or a unique constraint does not include the distribution column yet. Citus
 * requires it (a uniqueness it cannot check on one shard is refused), and a foreign key between distributed tables
 * must include it too; the change is `PRIMARY KEY (account_id, id)` and the foreign keys that point at it. The test
 * fails if one of them is fixed and still listed here, or if a new table joins them.
 */
export const KEY_WITHOUT_DISTRIBUTION_COLUMN: readonly string[] = [];

/**
 * Foreign keys Citus could not keep as they are: between two distributed tables a foreign key must join rows of one
 * co-location group on their distribution column (`(unit_id, account_id) REFERENCES units (id, account_id)`), and a
 * reference table cannot point into a distributed one. Written `child(columns)->parent`. The test fails if one of them
 * is fixed and still listed here, or if a new one appears; the list may only shrink.
 */
export const FOREIGN_KEYS_TO_REWORK: readonly string[] = [];

/**
 * Columns that name a row of a distributed table without a foreign key, because no key could check them on a
 * distributed PostgreSQL: the row may sit in another account (a reseller's user acting in a customer's account) or in
 * the other co-location group (per-unit state naming its unit or zone). `table.column` and what stands in for the key.
 * The test checks each still exists and has no foreign key.
 */
export const UNCONSTRAINED_REFERENCES: Readonly<Record<string, string>> = {
  // naming a unit
  'geofence_state.unit_id': 'per-unit state, distributed by unit with the positions; written for a unit the gateway knows, and units are never deleted',
  'geofence_unit_marks.unit_id': 'per-unit state, distributed by unit with the positions; written for a unit the gateway knows, and units are never deleted',
  'trip_detector_state.unit_id': 'per-unit state, distributed by unit with the positions; written for a unit the gateway knows, and units are never deleted',
  'unit_engine_hours.unit_id': 'per-unit state, distributed by unit with the positions; written for a unit the gateway knows, and units are never deleted',
  'unit_state.unit_id': 'per-unit state, distributed by unit with the positions; written for a unit the gateway knows, and units are never deleted',

  // naming a user, a department, a profile, a project or a tag
  'benefit_cars.updated_by': 'who saved the benefit car, shown by name; users are never deleted, only marked',
  'bookings.created_by': 'who made the booking, shown by name; users are never deleted, only marked',
  'bookings.updated_by': 'who last changed the booking, shown by name; users are never deleted, only marked',
  'bulk_jobs.created_by': 'who started the job; users are never deleted, only marked',
  'device_commands.requested_by': 'who queued the command; users are never deleted, only marked',
  'geofences.created_by': 'who drew the zone; users are never deleted, only marked',
  'places.created_by': 'who saved the place; users are never deleted, only marked',
  'purpose_settings.changed_by': 'who changed the setting; users are never deleted, only marked',
  'purposes.created_by': 'who added the purpose; users are never deleted, only marked',
  'push_subscriptions.user_id': "the subscriber, who may be a reseller's or support user inside a customer's account; the account's rows go with it",
  'report_frequency_denials.denied_by': 'who denied it; users are never deleted, only marked',
  'tracker_stock.added_by': 'who added the tracker to stock (a reference table naming a user of any account); users are never deleted, only marked',
  'trip_attest_log.by_user_id': 'who acted on the attest, shown by name; users are never deleted, only marked',
  'trip_attests.attested_by': 'who attested, shown by name; users are never deleted, only marked',
  'trip_attests.changed_by': 'who last changed the attest; users are never deleted, only marked',
  'trip_driver_checkins.checked_in_by': 'who checked the driver in; users are never deleted, only marked',
  'trip_driver_checkins.checked_out_by': 'who checked the driver out; users are never deleted, only marked',
  'trip_merge_parts.merged_by': 'who merged the trips; users are never deleted, only marked',
  'unit_access.granted_by': 'who gave the access; users are never deleted, only marked',
  'unit_images.uploaded_by': 'who uploaded the picture; users are never deleted, only marked',
  'unit_lock_log.locker_id': 'who held the lock, shown by name; users are never deleted, only marked',
  'unit_lock_log.user_id': 'who locked or unlocked, shown by name; users are never deleted, only marked',
  'unit_meter_calibrations.set_by': 'who set the meter; users are never deleted, only marked',
  'unit_name_history.changed_by': 'who renamed the unit, shown by name; users are never deleted, only marked',
  'unit_object_descriptions.updated_by': 'who last edited the description; users are never deleted, only marked',
  'unit_registration_changes.changed_by': 'who changed the registration, shown by name; users are never deleted, only marked',
  'unit_setting_requests.requested_by': 'who asked for the setting; users are never deleted, only marked',
  'unit_theft_mode.switched_by': 'who switched theft mode; users are never deleted, only marked',
  'unit_theft_reports.updated_by': 'who last edited the theft report; users are never deleted, only marked',
  'unit_tracker_history.replaced_by': 'who replaced the tracker, shown by name; users are never deleted, only marked',
  'units.locked_by': 'who holds the lock, shown by name; users are never deleted, only marked',
  'user_preferences.user_id': "whose saved view it is: a reseller's or support user keeps views inside a customer's account; the account's rows go with it",

  // naming a zone, a place, an alarm, a receiver or a BLE tag
  'geofence_state.geofence_id': 'per-unit state (distributed by unit): deleting a zone deletes its state rows in the same transaction',
};

/** Every table of the schema (partitions follow their parent) and where it goes. */
export const TABLE_PLACEMENT: Readonly<Record<string, Placement | 'account-pending'>> = {
  // reference tables: brands, tracker models and stock, parameters, the account tree
  accounts: reference, // the account tree (resellers and their customers): small, joined and walked by every account
  brands: reference,
  announcements: reference,
  app_settings: reference,
  benefit_parameters: reference,
  co2_factors: reference, // CO2 per litre by fuel, country and year, corrected by the operator
  tracker_stock: reference,
  login_emails: reference, // each login e-mail, unique over every account, and the user it names
  spatial_ref_sys: reference, // PostGIS's own

  // platform machinery on the coordinator
  schema_migrations: coordinator,
  job_queue: coordinator,
  scheduled_jobs: coordinator,
  outbox_events: coordinator,
  outbox_deliveries: coordinator,
  outbox_subscriptions: coordinator,
  mail_outbox: coordinator,
  rate_limits: coordinator,
  push_vapid_keys: coordinator,
  geocode_cache: coordinator,
  raw_frames: coordinator, // frames as received, before a unit is known; kept days, not months

  // positions and the per-unit state written with each one
  positions: unit,
  unit_state: unit,
  trip_detector_state: unit,
  geofence_state: unit,
  geofence_unit_marks: unit,
  unit_engine_hours: unit,
  alarm_unit_inputs: unit,
  alarm_ble_sightings: unit, // where each paired BLE tag was last heard, by the unit that heard it

  // per-account tables, distributed by account_id
  account_fuel_prices: account,
  account_settings: account,
  alarm_account_settings: account,
  alarm_deliveries: account,
  alarm_receiver_ble_units: account,
  alarm_receiver_units: account,
  alarm_receivers: account,
  alarms: account,
  alert_numbers: account,
  audit_entries: account,
  benefit_cars: account,
  ble_devices: account,
  bookings: account,
  bulk_jobs: account,
  departments: account,
  device_commands: account,
  feature_profiles: account,
  geofence_deactivations: account,
  geofence_events: account,
  geofence_units: account,
  geofences: account,
  notification_attempts: account,
  place_rules: account,
  place_units: account,
  places: account,
  password_resets: account,
  projects: account,
  purpose_settings: account,
  purposes: account,
  push_subscriptions: account,
  report_frequency_denials: account,
  report_schedules: account,
  safe_home_checks: account,
  safe_homes: account,
  sessions: account,
  tags: account,
  trip_attest_log: account,
  trip_attest_reminders: account,
  trip_attests: account,
  trip_driver_checkins: account,
  trip_merge_parts: account,
  trip_unit_settings: account,
  trips: account,
  trusted_browsers: account,
  two_factor_challenges: account,
  unit_images: account,
  unit_object_descriptions: account,
  unit_onboarding: account,
  unit_theft_mode: account,
  unit_theft_reports: account,
  unit_access: account,
  unit_tags: account,
  unit_tracker_history: account,
  unit_lock_log: account,
  unit_meter_calibrations: account,
  unit_registration_changes: account,
  unit_setting_requests: account,
  unit_name_history: account,
  units: account,
  user_invitations: account,
  user_preferences: account,
  users: account,

  // per-account tables still without account_id (see ACCOUNT_ID_MISSING)
  ...Object.fromEntries(Object.keys(ACCOUNT_ID_MISSING).map((table) => [table, 'account-pending' as const])),
};

/** The reference tables, by name (README). */
export const REFERENCE_TABLES = Object.entries(TABLE_PLACEMENT)
  .filter(([, placement]) => placement !== 'account-pending' && placement.kind === 'reference')
  .map(([table]) => table);
