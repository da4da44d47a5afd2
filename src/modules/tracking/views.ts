import { boolean, doublePrecision, integer, pgView, real, timestamp } from 'drizzle-orm/pg-core';

/**
 * The tracking module's published read views (migrations/0160_published_views.sql, 0270_unit_screen_views.sql): what
 * other modules may read of the stored state in their own queries. Their columns stay stable when the tables change.
 */

/** Each reported unit's latest state as the unit screens show it (values unrounded; one row per unit that has reported). */
export const unitLiveState = pgView('unit_live_state', {
  unitId: integer('unit_id').notNull(),
  time: timestamp('time', { withTimezone: true }).notNull(),
  lastSeen: timestamp('last_seen', { withTimezone: true }).notNull(),
  speedKmh: real('speed_kmh').notNull(),
  ignition: boolean('ignition'),
  odometerM: doublePrecision('odometer_m'),
  lat: doublePrecision('lat'),
  lon: doublePrecision('lon'),
  din2: boolean('din2'),
  din3: boolean('din3'),
  dout1: boolean('dout1'),
  dout2: boolean('dout2'),
  dout3: boolean('dout3'),
}).existing();

/** Stored positions' motion and reported fuel level (fix flags 0), read by the fleet reports (migrations/0410_report_views.sql). */
export const positionReportRows = pgView('position_report_rows', {
  unitId: integer('unit_id').notNull(),
  time: timestamp('time', { withTimezone: true }).notNull(),
  speedKmh: real('speed_kmh').notNull(),
  ignition: boolean('ignition'),
  lat: doublePrecision('lat').notNull(),
  lon: doublePrecision('lon').notNull(),
  fuelLevel: doublePrecision('fuel_level'),
}).existing();
