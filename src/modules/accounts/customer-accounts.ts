import { notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import { requireRole } from '../auth';
import type { Actor, SessionUser } from '../auth/model';
import type { AuthService } from '../auth/service';
import type { AccountRow } from './schema';
import { findAccountById } from './users';

export interface CustomerAccount {
  id: number;
  companyName: string;
  orgNumber: string;
  city: string;
  country: string;
  reseller: string;
  users: number;
}

/**
 * Spec §1/§6 and issue 19 point 4, the scopes beyond one account:
 * - support (the portal operator's staff) searches every customer account and opens any of them;
 * - a reseller only its own customers: the accounts whose `reseller` field names the reseller's own account (its
 *   company name, compared without case and surrounding spaces).
 * Opening starts a read-only session inside the account (the web app shows a banner) and is audited there.
 */
export function createCustomerAccounts(platform: Platform, auth: AuthService) {
  const { database, outbox, clock } = platform;

  /** The scope as SQL over `a` (accounts): true for support, the reseller's customers otherwise. */
  async function scope(actor: Actor): Promise<{ clause: string; params: unknown[] }> {
    if (actor.role === 'support') return { clause: 'true', params: [] };
    const homeId = actor.acting?.homeAccountId ?? actor.accountId;
    const home = await findAccountById(database.db, homeId);
    const name = home?.companyName.trim().toLowerCase() ?? '';
    // A reseller account without a name has no customers (an empty reseller field must not match it).
    if (name === '') return { clause: 'false', params: [] };
    return { clause: 'lower(trim(a.reseller)) = $1 AND a.id <> $2', params: [name, homeId] };
  }

  return {
    async search(actorOrNull: Actor | null, q: string): Promise<CustomerAccount[]> {
      const actor = requireRole(actorOrNull, 'support', 'reseller');
      const { clause, params } = await scope(actor);
      const all = [...params, `%${q.replace(/[\\%_]/g, '\\$&')}%`, /^\d+$/.test(q) ? Number(q) : null];
      const n = params.length;
      const rows = await database.query<{
        id: number;
        company_name: string;
        org_number: string;
        city: string;
        country: string;
        reseller: string;
        users: number;
      }>(
        `SELECT a.id, a.company_name, a.org_number, a.city, a.country, a.reseller,
                (SELECT count(*)::int FROM users u WHERE u.account_id = a.id AND u.deleted_at IS NULL) AS users
         FROM accounts a
         WHERE ${clause} AND (a.company_name ILIKE $${n + 1} OR a.org_number ILIKE $${n + 1} OR a.id = $${n + 2}::int)
         ORDER BY lower(a.company_name), a.id LIMIT 50`,
        all,
      );
      return rows.map((row) => ({
        id: row.id,
        companyName: row.company_name,
        orgNumber: row.org_number,
        city: row.city,
        country: row.country,
        reseller: row.reseller,
        users: Number(row.users),
      }));
    },

    /** Opens a customer account read-only; another reseller's customer (or none) is 404. */
    async open(actorOrNull: Actor | null, accountId: number, userAgent: string): Promise<SessionUser> {
      const actor = requireRole(actorOrNull, 'support', 'reseller');
      const { clause, params } = await scope(actor);
      const [allowed] = await database.query<{ id: number }>(`SELECT a.id FROM accounts a WHERE ${clause} AND a.id = $${params.length + 1}`, [
        ...params,
        accountId,
      ]);
      const customer: AccountRow | null = allowed ? await findAccountById(database.db, accountId) : null;
      if (!customer) throw notFound('accounts.customer.notFound');
      await database.transaction((query) =>
        outbox.publish(query, 'audit.entry', {
          accountId: customer.id,
          actorUserId: null,
          supportUserId: actor.userId,
          action: 'support.account_opened',
          target: { kind: 'account', id: customer.id, label: customer.companyName },
          at: clock.now().toISOString(),
        }),
      );
      return auth.openActingSession(actor, customer, userAgent);
    },
  };
}

export type CustomerAccounts = ReturnType<typeof createCustomerAccounts>;
