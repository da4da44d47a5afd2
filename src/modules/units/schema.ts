import { integer, pgTable, serial, smallint, text, timestamp, varchar } from 'drizzle-orm/pg-core';

export const trackerStock = pgTable('tracker_stock', {
  imei: varchar('imei', { length: 15 }).primaryKey(),
  model: text('model').notNull().default('FMB920'),
  protocol: text('protocol', { enum: ['teltonika', 'gt06', 'osmand'] }).notNull().default('teltonika'),
  subsiteId: smallint('subsite_id'),
  paymentTypes: text('payment_types').array().notNull(),
  addedBy: integer('added_by'),
  addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
});

export const units = pgTable('units', {
  id: serial('id').primaryKey(),
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
});

export type UnitRow = typeof units.$inferSelect;
