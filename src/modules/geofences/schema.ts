import { bigserial, boolean, customType, doublePrecision, integer, pgTable, primaryKey, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migrations 0200, 0330, 0490 and 0550. The service uses parameterised SQL (PostGIS geography); these types document the rows. */

/** A PostGIS geography (a circle's centre point or a polygon) as EWKB hex, the way the drivers hand it over. */
const geography = customType<{ data: string }>({ dataType: () => 'geography' });
/** A PostGIS planar geometry (lon/lat degrees), EWKB hex likewise. */
const geometry = customType<{ data: string }>({ dataType: () => 'geometry' });

export const geofences = pgTable('geofences', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  name: text('name').notNull(),
  shape: text('shape', { enum: ['circle', 'polygon'] }).notNull(),
  geom: geography('geom').notNull(),
  radiusM: integer('radius_m'),
  theftMode: boolean('theft_mode').notNull(),
  realTime: boolean('real_time').notNull(),
  active: boolean('active').notNull(),
  timeZone: text('time_zone').notNull(),
  /** The zone's box in degrees widened beyond its margin (generated from geom and radius_m): matching's first test. */
  boxWest: doublePrecision('box_west'),
  boxSouth: doublePrecision('box_south'),
  boxEast: doublePrecision('box_east'),
  boxNorth: doublePrecision('box_north'),
  /** A circle's centre as numbers and a polygon densified every kilometre as a planar geometry (generated): matching's exact tests. */
  centreLon: doublePrecision('centre_lon'),
  centreLat: doublePrecision('centre_lat'),
  matchGeom: geometry('match_geom'),
  /** Moves with every change of geom, radius or shape (a trigger): matching's cached shapes are keyed by it. */
  shapeRevision: integer('shape_revision').notNull(),
  createdBy: integer('created_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const geofenceUnits = pgTable(
  'geofence_units',
  {
    geofenceId: integer('geofence_id').notNull(),
    unitId: integer('unit_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.geofenceId, table.unitId, table.accountId] })],
);

export const geofenceDeactivations = pgTable('geofence_deactivations', {
  id: serial('id').notNull(),
  geofenceId: integer('geofence_id').notNull(),
  accountId: integer('account_id').notNull(),
  position: smallint('position').notNull(),
  days: smallint('days').array().notNull(),
  fromMinute: smallint('from_minute').notNull(),
  toMinute: smallint('to_minute').notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const geofenceState = pgTable(
  'geofence_state',
  {
    unitId: integer('unit_id').notNull(),
    geofenceId: integer('geofence_id').notNull(),
    inside: boolean('inside'),
    leaning: boolean('leaning'),
    leaningCount: smallint('leaning_count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.unitId, table.geofenceId] })],
);

/**
 * One row a unit with zones: the newest fix matched (older fixes are history) and the mark before the latest batch; its
 * active zones and its state with each, in zone order (kept by triggers, migration 0550), so a batch reads one row a unit.
 */
export const geofenceUnitMarks = pgTable('geofence_unit_marks', {
  unitId: integer('unit_id').primaryKey(),
  lastFix: timestamp('last_fix', { withTimezone: true }),
  previousFix: timestamp('previous_fix', { withTimezone: true }),
  /** Any zone linked, active or not. */
  hasZones: boolean('has_zones').notNull(),
  zoneIds: integer('zone_ids').array().notNull(),
  zoneRevisions: integer('zone_revisions').array().notNull(),
  inside: boolean('inside').array().notNull(),
  leaning: boolean('leaning').array().notNull(),
  leaningCount: smallint('leaning_count').array().notNull(),
});

export const geofenceEvents = pgTable('geofence_events', {
  id: bigserial('id', { mode: 'number' }).notNull(),
  accountId: integer('account_id').notNull(),
  geofenceId: integer('geofence_id').notNull(),
  unitId: integer('unit_id').notNull(),
  transition: text('transition', { enum: ['entered', 'exited'] }).notNull(),
  at: timestamp('at', { withTimezone: true }).notNull(),
  lat: doublePrecision('lat').notNull(),
  lon: doublePrecision('lon').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
