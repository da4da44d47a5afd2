import { boolean, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migration 0301. The service uses parameterised SQL; these types document the rows. */

export const alarmReceivers = pgTable('alarm_receivers', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  memberId: integer('member_id'),
  name: text('name').notNull(),
  email: text('email'),
  /** The dial code's digits, e.g. `46`. */
  countryCode: text('country_code'),
  /** The national number without leading zeros, e.g. `701234567`. */
  phone: text('phone'),
  pushNotification: boolean('push_notification').notNull().default(false),
  securityAlarm: boolean('security_alarm').notNull().default(true),
  functionAlarm: boolean('function_alarm').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const alarmReceiverUnits = pgTable(
  'alarm_receiver_units',
  {
    receiverId: integer('receiver_id').notNull(),
    unitId: integer('unit_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.receiverId, table.unitId, table.accountId] })],
);

export const alarmReceiverBleUnits = pgTable(
  'alarm_receiver_ble_units',
  {
    receiverId: integer('receiver_id').notNull(),
    bleDeviceId: integer('ble_device_id').notNull(),
    accountId: integer('account_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.receiverId, table.bleDeviceId, table.accountId] })],
);

/** Per account: alarm language and time zone, and the SMS credits left. */
export const alarmAccountSettings = pgTable('alarm_account_settings', {
  accountId: integer('account_id').primaryKey(),
  language: text('language', { enum: ['sv', 'en', 'no'] }).notNull().default('sv'),
  timeZone: text('time_zone').notNull().default('Europe/Stockholm'),
  smsCredits: integer('sms_credits').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const alertNumbers = pgTable('alert_numbers', {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  countryCode: text('country_code').notNull(),
  phone: text('phone').notNull(),
  label: text('label'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
