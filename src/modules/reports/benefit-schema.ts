import { boolean, date, doublePrecision, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Tables of migration 0400 (the reports module owns them): the benefit formulas' parameters per country and year, and
 * what valuing a unit as a benefit car needs beyond the unit's own fields.
 */
export const benefitParameters = pgTable(
  'benefit_parameters',
  {
    country: text('country', { enum: ['SE', 'NO', 'GB'] }).notNull(),
    year: integer('year').notNull(),
    key: text('key').notNull(),
    value: doublePrecision('value').notNull(),
    verified: boolean('verified').notNull(),
    source: text('source').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.country, table.year, table.key] })],
);

export const benefitCars = pgTable('benefit_cars', {
  unitId: integer('unit_id').primaryKey(),
  accountId: integer('account_id').notNull(),
  country: text('country', { enum: ['SE', 'NO', 'GB'] }),
  powertrain: text('powertrain').notNull(),
  vehicleClass: text('vehicle_class', { enum: ['car', 'van'] }).notNull(),
  listPrice: doublePrecision('list_price'),
  extraEquipment: doublePrecision('extra_equipment').notNull(),
  firstRegistered: date('first_registered', { mode: 'string' }),
  vehicleTax: doublePrecision('vehicle_tax').notNull(),
  electricRangeMiles: integer('electric_range_miles'),
  dieselRde2: boolean('diesel_rde2').notNull(),
  capitalContribution: doublePrecision('capital_contribution').notNull(),
  holderUserId: integer('holder_user_id'),
  availableFrom: date('available_from', { mode: 'string' }),
  availableUntil: date('available_until', { mode: 'string' }),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
