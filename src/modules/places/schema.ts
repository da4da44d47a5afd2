import { customType, integer, pgTable, primaryKey, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migration 0060. The service uses parameterised SQL (PostGIS geography); these types document the rows. */

/** A PostGIS geography point as EWKB hex, the way the drivers hand it over; read coordinates with ST_Y/ST_X(center::geometry). */
const geographyPoint = customType<{ data: string }>({ dataType: () => 'geography(Point, 4326)' });

export const places = pgTable('places', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  label: text('label').notNull(),
  address: text('address').notNull(),
  center: geographyPoint('center').notNull(),
  radiusM: integer('radius_m').notNull(),
  timeZone: text('time_zone').notNull(),
  createdBy: integer('created_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const placeUnits = pgTable(
  'place_units',
  {
    placeId: integer('place_id').notNull(),
    unitId: integer('unit_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.placeId, table.unitId, table.accountId] })],
);

export const placeRules = pgTable('place_rules', {
  id: serial('id').notNull(),
  placeId: integer('place_id').notNull(),
  accountId: integer('account_id').notNull(),
  position: smallint('position').notNull(),
  kind: text('kind', { enum: ['start', 'end', 'between'] }).notNull(),
  otherPlaceId: integer('other_place_id'),
  days: smallint('days').array().notNull(),
  fromMinute: smallint('from_minute').notNull(),
  toMinute: smallint('to_minute').notNull(),
  category: text('category', { enum: ['business', 'private'] }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
