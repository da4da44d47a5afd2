import { bigserial, boolean, customType, doublePrecision, integer, jsonb, pgTable, primaryKey, real, text, timestamp } from 'drizzle-orm/pg-core';
import type { MachineState } from './detector';

/** Tables of migration 0020. Detection and the trip list use parameterised SQL (PostGIS, bulk writes); these types document the rows. */

/** A PostGIS point as EWKB hex, the way the drivers hand it over; read coordinates with ST_X/ST_Y. */
const point = customType<{ data: string }>({ dataType: () => 'geometry(Point, 4326)' });

export const tripUnitSettings = pgTable('trip_unit_settings', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  detection: text('detection', { enum: ['auto', 'ignition', 'motion'] }),
  minDistanceM: integer('min_distance_m'),
  minDurationS: integer('min_duration_s'),
  timeTillParkedS: integer('time_till_parked_s'),
  maxGapS: integer('max_gap_s'),
  movingSpeedKmh: real('moving_speed_kmh'),
  defaultTripType: text('default_trip_type', { enum: ['business', 'private', 'other'] }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

export const tripDetectorState = pgTable('trip_detector_state', {
  unitId: integer('unit_id').primaryKey(),
  lastPositionTime: timestamp('last_position_time', { withTimezone: true }),
  machine: jsonb('machine').$type<MachineState>(),
  openSince: timestamp('open_since', { withTimezone: true }),
  recheckAt: timestamp('recheck_at', { withTimezone: true }),
  reportsIgnition: boolean('reports_ignition').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const trips = pgTable('trips', {
  id: bigserial('id', { mode: 'number' }).notNull(),
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  startTime: timestamp('start_time', { withTimezone: true }).notNull(),
  stopTime: timestamp('stop_time', { withTimezone: true }).notNull(),
  startGeom: point('start_geom').notNull(),
  stopGeom: point('stop_geom').notNull(),
  startAddress: text('start_address'),
  stopAddress: text('stop_address'),
  odometerStartM: doublePrecision('odometer_start_m').notNull(),
  odometerStopM: doublePrecision('odometer_stop_m').notNull(),
  odometerSource: text('odometer_source', { enum: ['device', 'gps'] }).notNull(),
  distanceM: doublePrecision('distance_m').notNull(),
  maxSpeedKmh: real('max_speed_kmh').notNull(),
  avgSpeedKmh: real('avg_speed_kmh').notNull(),
  driverKey: text('driver_key'),
  driverUserId: integer('driver_user_id'),
  /** Where the driver came from: 'checkin' or 'booking' (null: no driver). */
  driverSource: text('driver_source').$type<'checkin' | 'booking'>(),
  harshBraking: integer('harsh_braking').notNull(),
  harshAcceleration: integer('harsh_acceleration').notNull(),
  harshCornering: integer('harsh_cornering').notNull(),
  type: text('type', { enum: ['business', 'private', 'other'] }).notNull(),
  typeSource: text('type_source', { enum: ['default', 'rule', 'user'] }).notNull(),
  purpose: text('purpose'),
  note: text('note'),
  passengers: text('passengers'),
  detection: text('detection', { enum: ['ignition', 'motion'] }).notNull(),
  pointCount: integer('point_count').notNull(),
  detectedAt: timestamp('detected_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
