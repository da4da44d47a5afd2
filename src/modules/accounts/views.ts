import { boolean, integer, pgView, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The accounts module's published read views (migrations/0160_published_views.sql): what other modules may read of
 * users and accounts in their own queries. `user_directory` lists existing users only (a deleted one is in `user_names`). Their columns stay stable when the tables behind them change.
 */
export const userDirectory = pgView('user_directory', {
  id: integer('id').notNull(),
  accountId: integer('account_id').notNull(),
  email: text('email').notNull(),
  firstName: text('first_name').notNull(),
  lastName: text('last_name').notNull(),
  role: text('role', { enum: ['admin', 'user', 'support', 'reseller'] }).notNull(),
  language: text('language', { enum: ['sv', 'en', 'no'] }).notNull(),
  timezone: text('timezone').notNull(),
  /** Spec §6 /user/alerts: the user takes no alarms (alerts_opt_out) or no push (push_opt_out). Migration 0301. */
  alertsOptOut: boolean('alerts_opt_out').notNull(),
  pushOptOut: boolean('push_opt_out').notNull(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
}).existing();

/**
 * Every user's name, deleted ones too (migrations/0320_user_directory_active.sql): for history that names who did
 * something (a trip's driver, a unit's locker, an audit entry's actor). `user_directory` lists only existing users.
 */
export const userNames = pgView('user_names', {
  id: integer('id').notNull(),
  accountId: integer('account_id').notNull(),
  email: text('email').notNull(),
  firstName: text('first_name').notNull(),
  lastName: text('last_name').notNull(),
  deleted: boolean('deleted').notNull(),
}).existing();

export const accountDirectory = pgView('account_directory', {
  id: integer('id').notNull(),
  parentId: integer('parent_id'),
  subsiteId: smallint('subsite_id').notNull(),
  companyName: text('company_name').notNull(),
  orgNumber: text('org_number').notNull(),
  country: text('country').notNull(),
  isPrivate: boolean('is_private').notNull(),
}).existing();
