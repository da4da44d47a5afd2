import { bigint, bigserial, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** The audit log (migrations/0220_user_admin.sql): one row per `audit.entry` event, written by its subscriber. */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    eventId: bigint('event_id', { mode: 'number' }).notNull(),
    accountId: integer('account_id').notNull(),
    actorUserId: integer('actor_user_id'),
    supportUserId: integer('support_user_id'),
    action: text('action').notNull(),
    targetKind: text('target_kind').notNull(),
    targetId: integer('target_id'),
    targetLabel: text('target_label').notNull().default(''),
    changes: jsonb('changes'),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.id, table.accountId] })],
);
