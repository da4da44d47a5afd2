import { boolean, integer, pgTable, primaryKey, serial, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').notNull(),
    userId: integer('user_id').notNull(),
    /** The user's own account (also in a session inside a customer's account). */
    accountId: integer('account_id').notNull(),
    remember: boolean('remember').notNull().default(false),
    userAgent: text('user_agent').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** A support or reseller user's session inside a customer's account (read-only); null: their own account. */
    actingAccountId: integer('acting_account_id'),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);

/** A login that passed its password and owes a code; found by the hash of the token only that client holds. */
export const twoFactorChallenges = pgTable(
  'two_factor_challenges',
  {
    tokenHash: text('token_hash').notNull(),
    userId: integer('user_id').notNull(),
    accountId: integer('account_id').notNull(),
    codeHash: text('code_hash'),
    codeExpiresAt: timestamp('code_expires_at', { withTimezone: true }),
    codeAttempts: integer('code_attempts').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    codesSent: integer('codes_sent').notNull().default(0),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true }),
    remember: boolean('remember').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.tokenHash, table.accountId] })],
);

export const trustedBrowsers = pgTable(
  'trusted_browsers',
  {
    id: serial('id').notNull(),
    userId: integer('user_id').notNull(),
    accountId: integer('account_id').notNull(),
    secretHash: text('secret_hash').notNull(),
    fingerprintHash: text('fingerprint_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.id, table.accountId] }),
    unique('trusted_browsers_user_id_fingerprint_hash_key').on(table.userId, table.fingerprintHash, table.accountId),
  ],
);

export const passwordResets = pgTable(
  'password_resets',
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

export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
