import { boolean, integer, jsonb, pgTable, primaryKey, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';

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

export const users = pgTable(
  'users',
  {
    id: serial('id').notNull(),
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
    alertsOptOut: boolean('alerts_opt_out').notNull().default(false),
    pushOptOut: boolean('push_opt_out').notNull().default(false),
    departmentId: integer('department_id'),
    userGroup: text('user_group').notNull().default(''),
    /** When the last invitation e-mail went out (null: the user set a password some other way). */
    invitedAt: timestamp('invited_at', { withTimezone: true }),
    /** A deleted user stays as a name for the trips they drove; they cannot sign in and are in no list. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);

/**
 * Each login e-mail, unique over every account (migrations/0571_user_keys.sql): the users table is distributed by
 * account and cannot check that itself. Written with the user in one transaction (login-emails.ts).
 */
export const loginEmails = pgTable('login_emails', {
  email: text('email').primaryKey(),
  userId: integer('user_id').notNull(),
  accountId: integer('account_id').notNull(),
});

/** Invitation links to set a first password (single use, valid 7 days). */
export const userInvitations = pgTable(
  'user_invitations',
  {
    codeHash: text('code_hash').notNull(),
    userId: integer('user_id').notNull(),
    accountId: integer('account_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.codeHash, table.accountId] })],
);

export type AccountRow = typeof accounts.$inferSelect;
export type UserRow = typeof users.$inferSelect;

/** The account catalogues units (and users) are filed under (spec §3, §5: names unique per account). */
const catalogColumns = {
  id: serial('id').notNull(),
  accountId: integer('account_id').notNull(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
};
export const departments = pgTable('departments', { ...catalogColumns }, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
export const projects = pgTable('projects', { ...catalogColumns }, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);
export const tags = pgTable('tags', { ...catalogColumns }, (table) => [primaryKey({ columns: [table.id, table.accountId] })]);

export const featureProfiles = pgTable(
  'feature_profiles',
  {
    id: serial('id').notNull(),
    accountId: integer('account_id').notNull(),
    name: text('name').notNull(),
    greenDriving: text('green_driving', { enum: ['sensitive', 'normal', 'insensitive'] }).notNull().default('normal'),
    overspeedKmh: integer('overspeed_kmh'),
    geozoneIds: integer('geozone_ids').array().notNull().default([]),
    workingHours: jsonb('working_hours').$type<{
      recurrence: number;
      startDate?: string | null;
      days: Array<{ week?: number; day: number; start: string; end: string }>;
    } | null>(),
    carBenefit: boolean('car_benefit').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);

/** Account settings (migrations/0231_account_settings.sql); an account without a row has the defaults. */
export const accountSettings = pgTable('account_settings', {
  accountId: integer('account_id').primaryKey(),
  language: text('language', { enum: ['sv', 'en', 'no'] }).notNull().default('sv'),
  timezone: text('timezone').notNull().default('Europe/Stockholm'),
  usersMayCreateProjects: boolean('users_may_create_projects').notNull().default(false),
  qrCheckinWithoutAccess: boolean('qr_checkin_without_access').notNull().default(false),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const accountFuelPrices = pgTable(
  'account_fuel_prices',
  {
      accountId: integer('account_id').notNull(),
      market: text('market', { enum: ['SE', 'NO'] }).notNull(),
      fuelType: text('fuel_type', { enum: ['petrol', 'diesel', 'electricity', 'gas', 'other'] }).notNull(),
      price: text('price').notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.market, table.fuelType] })],
);

/** Bulk tasks run as queued jobs (migrations/0321_bulk_jobs.sql): the progress the web app follows. */
export const bulkJobs = pgTable(
  'bulk_jobs',
  {
    id: serial('id').notNull(),
    accountId: integer('account_id').notNull(),
    createdBy: integer('created_by').notNull(),
    target: text('target', { enum: ['users', 'units'] }).notNull(),
    task: jsonb('task').notNull(),
    ids: integer('ids').array().notNull(),
    language: text('language', { enum: ['sv', 'en', 'no'] }).notNull().default('sv'),
    status: text('status', { enum: ['queued', 'running', 'done', 'failed'] }).notNull().default('queued'),
    done: integer('done').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    results: jsonb('results').$type<Array<{ id: number; ok: boolean; error: string | null; pending?: boolean }>>().notNull().default([]),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);
