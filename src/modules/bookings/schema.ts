import { integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Table of migration 0350 (the overlap exclusion constraint is in the SQL). The service uses parameterised SQL;
 * this type documents the rows and names the module as the table's owner.
 */
export const bookings = pgTable('bookings', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  unitId: integer('unit_id').notNull(),
  driverId: integer('driver_id').notNull(),
  startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
  endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
  purpose: text('purpose').notNull(),
  createdBy: integer('created_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
