import { boolean, integer, pgTable, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export const accounts = pgTable('accounts', {
  id: serial('id').primaryKey(),
  parentId: integer('parent_id'),
  subsiteId: smallint('subsite_id').notNull(),
  isPrivate: boolean('is_private').notNull().default(false),
  companyName: text('company_name').notNull().default(''),
  contactPerson: text('contact_person').notNull().default(''),
  address: text('address').notNull().default(''),
  postalCode: text('postal_code').notNull().default(''),
  city: text('city').notNull().default(''),
  country: text('country').notNull().default(''),
  orgNumber: text('org_number').notNull().default(''),
  phone: text('phone').notNull().default(''),
  invoiceType: text('invoice_type').notNull().default(''),
  reseller: text('reseller').notNull().default(''),
  comment: text('comment').notNull().default(''),
  paymentType: smallint('payment_type').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  accountId: integer('account_id').notNull(),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  phone: text('phone').notNull().default(''),
  personalNumber: text('personal_number').notNull().default(''),
  role: text('role', { enum: ['admin', 'user', 'support', 'reseller'] }).notNull().default('user'),
  language: text('language', { enum: ['sv', 'en', 'no'] }).notNull().default('sv'),
  timezone: text('timezone').notNull().default('Europe/Stockholm'),
  twoFactor: boolean('two_factor').notNull().default(false),
  realtimeMap: boolean('realtime_map').notNull().default(true),
  basicOnly: boolean('basic_only').notNull().default(false),
  failedLogins: integer('failed_logins').notNull().default(0),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  alertsOptOut: boolean('alerts_opt_out').notNull().default(false),
  pushOptOut: boolean('push_opt_out').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export type AccountRow = typeof accounts.$inferSelect;
export type UserRow = typeof users.$inferSelect;
