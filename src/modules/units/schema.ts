import {
  boolean,
  customType,
  date,
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  varchar,
} from 'drizzle-orm/pg-core';

/** bytea as Uint8Array on both drivers (PGlite answers Uint8Array, postgres.js a Buffer, which is one). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
});

/** numeric columns read as numbers (they hold small decimals: litres, grams, metres). */
const decimal = (name: string, precision: number, scale: number) =>
  customType<{ data: number; driverData: string | number }>({
    dataType: () => `numeric(${precision}, ${scale})`,
    fromDriver: (value) => Number(value),
    toDriver: (value) => value,
  })(name);

export const trackerStock = pgTable('tracker_stock', {
  imei: varchar('imei', { length: 15 }).primaryKey(),
  model: text('model').notNull().default('FMB920'),
  protocol: text('protocol', { enum: ['teltonika', 'gt06', 'osmand'] }).notNull().default('teltonika'),
  subsiteId: smallint('subsite_id'),
  paymentTypes: text('payment_types').array().notNull(),
  deviceKind: text('device_kind', { enum: ['triplog', 'battery'] }).notNull().default('triplog'),
  addedBy: integer('added_by'),
  addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
});

export interface WorkingHoursValue {
  enabled: boolean;
  days: Array<{ day: number; start: string; end: string }>;
}

export const units = pgTable('units', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  imei: varchar('imei', { length: 15 }).notNull(),
  name: text('name').notNull(),
  registrationNumber: text('registration_number').notNull().default(''),
  model: text('model').notNull().default(''),
  protocol: text('protocol', { enum: ['teltonika', 'gt06', 'osmand'] }).notNull().default('teltonika'),
  subscriptionType: text('subscription_type').notNull().default('standard'),
  vehicleType: text('vehicle_type').notNull().default('passenger_car'),
  timezoneMinutes: integer('timezone_minutes').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  deviceKind: text('device_kind', { enum: ['triplog', 'battery'] }).notNull().default('triplog'),
  color: text('color').notNull().default('#0b5cad'),
  markerIcon: text('marker_icon').notNull().default('car'),
  fuelType: text('fuel_type', { enum: ['petrol', 'diesel', 'electricity', 'gas', 'other'] }),
  fuelConsumptionPer10km: decimal('fuel_consumption_per_10km', 6, 2),
  co2GPerKm: decimal('co2_g_per_km', 7, 1),
  horsepower: integer('horsepower'),
  vin: text('vin').notNull().default(''),
  chassisNumber: text('chassis_number').notNull().default(''),
  chassisPlacement: text('chassis_placement').notNull().default(''),
  obdPortType: text('obd_port_type').notNull().default(''),
  obdPlacement: text('obd_placement').notNull().default(''),
  inspectionPeriodMonths: integer('inspection_period_months'),
  nextInspection: date('next_inspection', { mode: 'string' }),
  serviceIntervalKm: integer('service_interval_km'),
  lastService: date('last_service', { mode: 'string' }),
  departmentId: integer('department_id'),
  projectId: integer('project_id'),
  featureProfileId: integer('feature_profile_id'),
  operatingMode: text('operating_mode', { enum: ['24h', '8h', '1h', 'realtime', 'theft'] }),
  reportFrequencyS: integer('report_frequency_s'),
  reportFrequencyLocked: boolean('report_frequency_locked').notNull().default(false),
  bluetoothEnabled: boolean('bluetooth_enabled').notNull().default(false),
  workingHours: jsonb('working_hours').$type<WorkingHoursValue | null>(),
  carUsage: text('car_usage', { enum: ['none', 'benefit', 'private'] }).notNull().default('none'),
  fuelPayer: text('fuel_payer', { enum: ['company', 'private'] }),
  reimbursementPer10km: decimal('reimbursement_per_10km', 8, 2),
  lockedBy: integer('locked_by'),
  lockedAt: timestamp('locked_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export type UnitRow = typeof units.$inferSelect;

export const unitTags = pgTable(
  'unit_tags',
  {
    unitId: integer('unit_id').notNull(),
    tagId: integer('tag_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.unitId, table.tagId, table.accountId] })],
);

export const unitNameHistory = pgTable('unit_name_history', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  previousName: text('previous_name').notNull(),
  name: text('name').notNull(),
  changedBy: integer('changed_by'),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const unitRegistrationChanges = pgTable('unit_registration_changes', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  previousNumber: text('previous_number').notNull(),
  registrationNumber: text('registration_number').notNull(),
  changedBy: integer('changed_by'),
  changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const unitMeterCalibrations = pgTable('unit_meter_calibrations', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  kind: text('kind', { enum: ['odometer', 'hours'] }).notNull(),
  value: doublePrecision('value').notNull(),
  sourceValue: doublePrecision('source_value'),
  setBy: integer('set_by'),
  setAt: timestamp('set_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const unitLockLog = pgTable('unit_lock_log', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  action: text('action', { enum: ['locked', 'unlocked'] }).notNull(),
  userId: integer('user_id'),
  lockerId: integer('locker_id'),
  at: timestamp('at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export interface LinkValue {
  name: string;
  url: string;
}

export const unitObjectDescriptions = pgTable('unit_object_descriptions', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  objectType: text('object_type', { enum: ['boat', 'waterjet', 'car', 'other'] }).notNull(),
  manufacturer: text('manufacturer').notNull().default(''),
  model: text('model').notNull().default(''),
  year: integer('year'),
  hullNumber: text('hull_number').notNull().default(''),
  motor: text('motor').notNull().default(''),
  motorNumber: text('motor_number').notNull().default(''),
  horsepower: integer('horsepower'),
  trackerLocation: text('tracker_location').notNull().default(''),
  dnaMarking: text('dna_marking').notNull().default(''),
  insuranceCompany: text('insurance_company').notNull().default(''),
  insuranceNumber: text('insurance_number').notNull().default(''),
  policeDetails: text('police_details').notNull().default(''),
  links: jsonb('links').$type<LinkValue[]>().notNull().default([]),
  serialNumber: text('serial_number').notNull().default(''),
  productionDate: date('production_date', { mode: 'string' }),
  skirtType: text('skirt_type', { enum: ['louse_skirt', 'louse_skirt_hd', 'flow_through_skirt'] }),
  lengthM: decimal('length_m', 6, 2),
  depthM: decimal('depth_m', 6, 2),
  weightKg: decimal('weight_kg', 9, 1),
  ballastType: text('ballast_type', { enum: ['lead', 'steel', 'chain'] }),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

export const unitImages = pgTable('unit_images', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  contentType: text('content_type', { enum: ['image/png', 'image/jpeg'] }).notNull(),
  fileName: text('file_name').notNull().default(''),
  data: bytea('data').notNull(),
  uploadedBy: integer('uploaded_by'),
  uploadedAt: timestamp('uploaded_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const unitTheftReports = pgTable('unit_theft_reports', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  theftDate: date('theft_date', { mode: 'string' }),
  stolenFrom: text('stolen_from').notNull().default(''),
  whatStolen: text('what_stolen').notNull().default(''),
  ownerName: text('owner_name').notNull().default(''),
  ownerEmail: text('owner_email').notNull().default(''),
  ownerPhone: text('owner_phone').notNull().default(''),
  policeStation: text('police_station').notNull().default(''),
  policeReportNumber: text('police_report_number').notNull().default(''),
  insuranceClaimNumber: text('insurance_claim_number').notNull().default(''),
  otherInformation: text('other_information').notNull().default(''),
  recipients: text('recipients').array().notNull().default([]),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

export const unitSettingRequests = pgTable('unit_setting_requests', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  setting: text('setting', { enum: ['operating_mode', 'report_frequency', 'bluetooth'] }).notNull(),
  value: text('value').notNull(),
  commandId: integer('command_id'),
  status: text('status', { enum: ['pending', 'confirmed', 'failed', 'superseded'] }).notNull().default('pending'),
  requestedBy: integer('requested_by'),
  requestedAt: timestamp('requested_at', { withTimezone: true }).notNull(),
  resolvedAt: timestamp('resolved_at', { withTimezone: true }),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const unitTrackerHistory = pgTable('unit_tracker_history', {
  id: serial('id').notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  previousImei: varchar('previous_imei', { length: 15 }).notNull(),
  previousModel: text('previous_model').notNull(),
  imei: varchar('imei', { length: 15 }).notNull(),
  model: text('model').notNull(),
  replacedBy: integer('replaced_by'),
  replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const reportFrequencyDenials = pgTable(
  'report_frequency_denials',
  {
    userId: integer('user_id').notNull(),
    accountId: integer('account_id').notNull(),
    deniedBy: integer('denied_by'),
    deniedAt: timestamp('denied_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.accountId] })],
);

/** Spec §3 User "visible units", §6 unit access: an ordinary user sees a unit only with a row here. */
export const unitAccess = pgTable(
  'unit_access',
  {
    unitId: integer('unit_id').notNull(),
    userId: integer('user_id').notNull(),
    accountId: integer('account_id').notNull(),
    grantedBy: integer('granted_by'),
    grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.unitId, table.userId, table.accountId] })],
);

/** Operating hours counted from the tracker's records (ignition-on time) and its own counter, if any. */
export const unitEngineHours = pgTable('unit_engine_hours', {
  unitId: integer('unit_id').primaryKey(),
  countedS: doublePrecision('counted_s').notNull().default(0),
  lastTime: timestamp('last_time', { withTimezone: true }),
  lastIgnition: boolean('last_ignition'),
  trackerS: doublePrecision('tracker_s'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Car info onboarding per unit (migrations/0232_unit_onboarding.sql); no row: not yet through it. */
export const unitOnboarding = pgTable('unit_onboarding', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  status: text('status', { enum: ['skipped', 'done'] }).notNull(),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

/** Spec §4 theft mode of a unit: the switch, the mode to restore, and how far its positions were published as security events. */
export const unitTheftMode = pgTable('unit_theft_mode', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  state: text('state', { enum: ['off', 'pending-on', 'on', 'pending-off'] }).notNull(),
  previousMode: text('previous_mode', { enum: ['24h', '8h', '1h', 'realtime'] }),
  cause: text('cause', { enum: ['manual', 'geofence'] }),
  geofenceId: integer('geofence_id'),
  geofenceName: text('geofence_name'),
  since: timestamp('since', { withTimezone: true }),
  requestId: integer('request_id'),
  failed: boolean('failed').notNull().default(false),
  watchedUntil: timestamp('watched_until', { withTimezone: true }),
  switchedBy: integer('switched_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);
