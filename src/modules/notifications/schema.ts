import { bigint, bigserial, boolean, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Tables of migration 0101. The service uses parameterised SQL; these types document the rows. */

export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: serial('id').notNull(),
    accountId: integer('account_id').notNull(),
    userId: integer('user_id').notNull(),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    userAgent: text('user_agent').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);

export const notificationAttempts = pgTable('notification_attempts', {
  id: bigserial('id', { mode: 'number' }).notNull(),
  accountId: integer('account_id').notNull(),
  jobId: bigint('job_id', { mode: 'number' }).notNull(),
  attempt: integer('attempt').notNull(),
  channel: text('channel', { enum: ['email', 'sms', 'push'] }).notNull(),
  provider: text('provider').notNull(),
  recipient: text('recipient').notNull(),
  status: text('status', { enum: ['sent', 'recorded', 'retrying', 'failed'] }).notNull(),
  providerId: text('provider_id'),
  error: text('error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
}, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const pushVapidKeys = pgTable('push_vapid_keys', {
  id: boolean('id').primaryKey().default(true),
  publicKey: text('public_key').notNull(),
  privateKey: text('private_key').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
