import { bigint, doublePrecision, integer, pgView, real, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The trip log's published read views (migrations/0270_unit_screen_views.sql): what the unit screens show of a unit's
 * check-ins and detection settings. Their columns stay stable when the tables behind them change.
 */

/** The driver checked in on a unit now (at most one per unit). */
export const unitCheckedInDrivers = pgView('unit_checked_in_drivers', {
  unitId: integer('unit_id').notNull(),
  userId: integer('user_id').notNull(),
}).existing();

/** A unit's own time till parked, in seconds (null or no row: `DEFAULT_TIME_TILL_PARKED_S`). */
export const unitParkingSettings = pgView('unit_parking_settings', {
  unitId: integer('unit_id').notNull(),
  timeTillParkedS: integer('time_till_parked_s'),
}).existing();

/** What the fleet reports read of a trip (migrations/0410_report_views.sql). */
export const tripReportRows = pgView('trip_report_rows', {
  tripId: bigint('trip_id', { mode: 'number' }).notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  startTime: timestamp('start_time', { withTimezone: true }).notNull(),
  stopTime: timestamp('stop_time', { withTimezone: true }).notNull(),
  distanceM: doublePrecision('distance_m').notNull(),
  maxSpeedKmh: real('max_speed_kmh').notNull(),
  avgSpeedKmh: real('avg_speed_kmh').notNull(),
  driverUserId: integer('driver_user_id'),
  harshAcceleration: integer('harsh_acceleration').notNull(),
  harshBraking: integer('harsh_braking').notNull(),
  harshCornering: integer('harsh_cornering').notNull(),
  type: text('type', { enum: ['business', 'private', 'other'] }).notNull(),
}).existing();
