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
  unitId: integer('unit_id').notNull(),
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
  holderBirthYear: integer('holder_birth_year'),
  engineCc: integer('engine_cc'),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

/** Migration 0460: CO2 per litre (kWh) of fuel per fuel type, country and year, with its basis and source (co2.ts). */
export const co2Factors = pgTable(
  'co2_factors',
  {
    fuelType: text('fuel_type', { enum: ['petrol', 'diesel', 'electricity', 'gas', 'other'] }).notNull(),
    country: text('country', { enum: ['SE', 'NO', 'GB'] }).notNull(),
    year: integer('year').notNull(),
    kgPerUnit: doublePrecision('kg_per_unit').notNull(),
    energyUnit: text('energy_unit', { enum: ['l', 'kWh'] }).notNull(),
    basis: text('basis', { enum: ['ttw-fossil', 'ttw-blend', 'wtw'] }).notNull(),
    verified: boolean('verified').notNull(),
    source: text('source').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.fuelType, table.country, table.year] })],
);
