import { bigint, bigserial, boolean, doublePrecision, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migration 0310. The service uses parameterised SQL; these types document the rows. */

export const alarms = pgTable('alarms', {
  id: bigserial('id', { mode: 'number' }).notNull(),
  accountId: integer('account_id').notNull(),
  unitId: integer('unit_id').notNull(),
  type: text('type').notNull(),
  class: text('class', { enum: ['security', 'function'] }).notNull(),
  raisedAt: timestamp('raised_at', { withTimezone: true }).notNull(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  occurrences: integer('occurrences').notNull(),
  lat: doublePrecision('lat'),
  lon: doublePrecision('lon'),
  address: text('address'),
  details: jsonb('details').notNull(),
  acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
  acknowledgedBy: integer('acknowledged_by'),
  acknowledgedByName: text('acknowledged_by_name'),
  /** The BLE device a BLE alarm is about (migration 0480). */
  bleDeviceId: integer('ble_device_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const alarmUnitInputs = pgTable('alarm_unit_inputs', {
  unitId: integer('unit_id').primaryKey(),
  din2: boolean('din2'),
  din3: boolean('din3'),
  externalPower: boolean('external_power'),
  serviceStep: integer('service_step'),
  lastFix: timestamp('last_fix', { withTimezone: true }),
});

export const alarmDeliveries = pgTable('alarm_deliveries', {
  id: bigserial('id', { mode: 'number' }).notNull(),
  accountId: integer('account_id').notNull(),
  alarmId: bigint('alarm_id', { mode: 'number' }).notNull(),
  receiverId: integer('receiver_id'),
  receiverName: text('receiver_name').notNull(),
  channel: text('channel', { enum: ['email', 'sms', 'push'] }).notNull(),
  recipient: text('recipient').notNull(),
  status: text('status', { enum: ['queued', 'sent', 'retrying', 'failed', 'refused'] }).notNull(),
  attempts: integer('attempts').notNull(),
  providerId: text('provider_id'),
  error: text('error'),
  jobId: bigint('job_id', { mode: 'number' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

/** Migration 0480 (keyed by tag and unit since 0580): when each paired BLE device was last heard by its GPS unit, and whether its absence has alarmed. */
export const alarmBleSightings = pgTable(
  'alarm_ble_sightings',
  {
    bleDeviceId: integer('ble_device_id').notNull(),
    unitId: integer('unit_id').notNull(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull(),
    alarmedAt: timestamp('alarmed_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.bleDeviceId, table.unitId] })],
);
