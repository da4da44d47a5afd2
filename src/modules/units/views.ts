import { date, doublePrecision, integer, pgView, text } from 'drizzle-orm/pg-core';

/**
 * The units module's published read views (migrations/0160_published_views.sql, 0230_catalog_ownership.sql): what
 * other modules may read of units in their own queries. Their columns stay stable when the tables behind them change.
 */
export const unitCatalogLinks = pgView('unit_catalog_links', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  departmentId: integer('department_id'),
  projectId: integer('project_id'),
  featureProfileId: integer('feature_profile_id'),
}).existing();

export const unitTagLinks = pgView('unit_tag_links', {
  unitId: integer('unit_id').notNull(),
  tagId: integer('tag_id').notNull(),
}).existing();

/** What the alarm engine reads of a unit (migrations/0310_alarms.sql): its names, its feature profile's overspeed threshold and its service settings. */
export const unitAlarmSettings = pgView('unit_alarm_settings', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  name: text('name').notNull(),
  registrationNumber: text('registration_number'),
  overspeedKmh: integer('overspeed_kmh'),
  serviceIntervalKm: integer('service_interval_km'),
  nextInspection: date('next_inspection'),
  lastService: date('last_service'),
}).existing();

/** A unit's fuel, emission and eco-driving settings, read by the fleet reports (migrations/0410_report_views.sql). */
export const unitReportSettings = pgView('unit_report_settings', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  fuelType: text('fuel_type', { enum: ['petrol', 'diesel', 'electricity', 'gas', 'other'] }),
  consumptionPer10Km: doublePrecision('consumption_per_10km'),
  co2GPerKm: doublePrecision('co2_g_per_km'),
  vehicleType: text('vehicle_type').notNull(),
  departmentId: integer('department_id'),
  greenDriving: text('green_driving', { enum: ['sensitive', 'normal', 'insensitive'] }).notNull(),
  overspeedKmh: integer('overspeed_kmh'),
}).existing();
