import { integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migration 0300. The service uses parameterised SQL; these types document the rows. */

/** A BLE beacon or sensor of an account, by its MAC (12 upper-case hex digits), optionally paired with a GPS unit. */
export const bleDevices = pgTable('ble_devices', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  mac: text('mac').notNull(),
  name: text('name').notNull(),
  serialNumber: text('serial_number').notNull().default(''),
  kind: text('kind', { enum: ['sensor', 'beacon'] }).notNull(),
  pairedUnitId: integer('paired_unit_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
