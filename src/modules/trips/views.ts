import { integer, pgView } from 'drizzle-orm/pg-core';

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
