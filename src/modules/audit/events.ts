/**
 * The audit log's one input. Any module that changes something an administrator must be able to trace (users,
 * unit access, locks, attests, settings, bulk tasks, support actions) publishes `audit.entry` to the durable outbox
 * with the querier of the transaction that makes the change, so the entry exists exactly when the change does.
 * The audit module subscribes and stores it for the account's administrators.
 */
export interface AuditEntry {
  /** The account whose data changed. */
  accountId: number;
  /** The signed-in user who made the change (null: the system, e.g. a job). */
  actorUserId: number | null;
  /** Set when a support or reseller user acted inside a customer's account. */
  supportUserId?: number | null;
  /** Dotted verb, e.g. `user.created`, `user.updated`, `unit.access_changed`, `settings.updated`, `bulk.department`. */
  action: string;
  /** What was changed, named as it was at the time (a deleted user keeps its name here). */
  target: { kind: string; id: number | null; label: string };
  /** Field by field, before and after; secrets are never included. */
  changes?: Record<string, { from: unknown; to: unknown }>;
  /** ISO instant of the change. */
  at: string;
}

/**
 * Who an entry names for a caller: support and resellers (in a customer's account or reaching it as support) are
 * named as such; everyone else is the actor.
 */
export function auditActors(actor: { userId: number; role: string }): Pick<AuditEntry, 'actorUserId' | 'supportUserId'> {
  return actor.role === 'support' || actor.role === 'reseller' ? { actorUserId: null, supportUserId: actor.userId } : { actorUserId: actor.userId, supportUserId: null };
}

declare module '../../lib/events' {
  interface EventMap {
    'audit.entry': AuditEntry;
  }
}

