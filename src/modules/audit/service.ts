import type { ExportDocument } from '../../lib/export';
import { formatInstant } from '../../lib/export';
import { notFound } from '../../lib/http';
import type { Language } from '../../lib/i18n';
import { translate } from '../../lib/i18n';
import type { Querier } from '../../lib/db/client';
import type { EventMap } from '../../lib/events';
import type { OutboxEvent } from '../../lib/outbox';
import type { Platform } from '../../lib/platform';
import { requireAdministration } from '../auth';
import type { Actor } from '../auth/model';
import type { BrandService } from '../brands/service';
import type { AuditEntry } from './events';
import type { AuditEntryView, AuditExportQuery, AuditList, AuditQuery } from './model';


interface AuditRow extends Record<string, unknown> {
  id: string | number;
  at: Date | string;
  actor_user_id: number | null;
  actor_name: string | null;
  support_name: string | null;
  action: string;
  target_kind: string;
  target_id: number | null;
  target_label: string;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

const nameOf = (first: string, last: string) => `${first} ${last}`.trim();

/**
 * The audit log (issue 19): every `audit.entry` published to the durable outbox is stored once, by the subscriber
 * below inside the delivery's transaction (the event id is unique, so a redelivery writes nothing), and shown to
 * the account's administrators with filters and as an export.
 */
export function createAuditService(platform: Platform, brands: BrandService) {
  const { database } = platform;

  /** The filters as SQL over `e` (audit_entries) in the caller's account; days are the caller's days. */
  function where(actor: Actor, query: Omit<AuditQuery, 'limit' | 'offset'>): { sql: string; params: unknown[] } {
    const params: unknown[] = [actor.accountId, actor.timezone || 'Europe/Stockholm'];
    // The zone ($2) is named in every statement, so one parameter list fits each of them.
    const clauses = ['e.account_id = $1', "$2::text <> ''"];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      clauses.push(clause(`$${params.length}`));
    };
    if (query.from) add((n) => `e.at >= (${n}::date)::timestamp AT TIME ZONE $2`, query.from);
    if (query.to) add((n) => `e.at < ((${n}::date + 1)::timestamp AT TIME ZONE $2)`, query.to);
    if (query.actorUserId) add((n) => `(e.actor_user_id = ${n} OR e.support_user_id = ${n})`, query.actorUserId);
    if (query.action) add((n) => `e.action = ${n}`, query.action);
    if (query.target) add((n) => `(e.target_label ILIKE ${n} OR e.target_kind ILIKE ${n})`, `%${query.target.replace(/[\\%_]/g, '\\$&')}%`);
    return { sql: clauses.join(' AND '), params };
  }

  /** An actor filter names a user of the account or someone who appears in its log (support); else 404. */
  async function checkActor(actor: Actor, userId: number | undefined): Promise<void> {
    if (userId === undefined) return;
    const [found] = await database.query(
      `SELECT 1 FROM user_directory WHERE id = $1 AND account_id = $2
       UNION ALL SELECT 1 FROM audit_entries WHERE account_id = $2 AND (actor_user_id = $1 OR support_user_id = $1) LIMIT 1`,
      [userId, actor.accountId],
    );
    if (!found) throw notFound('errors.invalidUserId');
  }

  async function rows(actor: Actor, query: Omit<AuditQuery, 'limit' | 'offset'>, limit: number, offset: number): Promise<AuditEntryView[]> {
    await checkActor(actor, query.actorUserId);
    const filter = where(actor, query);
    const found = await database.query<AuditRow>(
      `SELECT e.id, e.at, e.actor_user_id, a.first_name || ' ' || a.last_name AS actor_name, s.first_name || ' ' || s.last_name AS support_name,
              e.action, e.target_kind, e.target_id, e.target_label, e.changes
       FROM audit_entries e
       LEFT JOIN user_names a ON a.id = e.actor_user_id
       LEFT JOIN user_names s ON s.id = e.support_user_id
       WHERE ${filter.sql}
       ORDER BY e.at DESC, e.id DESC
       LIMIT ${limit} OFFSET ${offset}`,
      filter.params,
    );
    return found.map((row) => ({
      id: Number(row.id),
      at: new Date(row.at).toISOString(),
      actorUserId: row.actor_user_id,
      actor: row.actor_name?.trim() || null,
      support: row.support_name?.trim() || null,
      action: row.action,
      target: { kind: row.target_kind, id: row.target_id, label: row.target_label },
      changes: row.changes,
    }));
  }

  return {
    /** Stores one entry, through the outbox delivery's querier (the event id makes a redelivery write nothing). */
    async store(event: OutboxEvent<EventMap, 'audit.entry'>, tx: Querier): Promise<void> {
      const entry: AuditEntry = event.payload;
      await tx(
        `INSERT INTO audit_entries (event_id, account_id, actor_user_id, support_user_id, action, target_kind, target_id, target_label, changes, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::timestamptz) ON CONFLICT (event_id, account_id) DO NOTHING`,
        [
          event.id,
          entry.accountId,
          entry.actorUserId,
          entry.supportUserId ?? null,
          entry.action,
          entry.target.kind,
          entry.target.id,
          entry.target.label.slice(0, 200),
          entry.changes ? JSON.stringify(entry.changes) : null,
          entry.at,
        ],
      );
    },

    /** The account's audit log, newest first, filtered by period, actor, action and target (administrators). */
    async list(actorOrNull: Actor | null, query: AuditQuery): Promise<AuditList> {
      const actor = requireAdministration(actorOrNull);
      const filter = where(actor, query);
      const [entries, [count], actors, actions] = await Promise.all([
        rows(actor, query, query.limit, query.offset),
        database.query<{ total: number }>(`SELECT count(*)::int AS total FROM audit_entries e WHERE ${filter.sql}`, filter.params),
        database.query<{ id: number; first_name: string; last_name: string }>(
          `SELECT DISTINCT u.id, u.first_name, u.last_name FROM audit_entries e JOIN user_names u ON u.id IN (e.actor_user_id, e.support_user_id)
           WHERE e.account_id = $1 ORDER BY u.first_name, u.last_name`,
          [actor.accountId],
        ),
        database.query<{ action: string }>('SELECT DISTINCT action FROM audit_entries WHERE account_id = $1 ORDER BY action', [actor.accountId]),
      ]);
      return {
        entries,
        total: Number(count?.total ?? 0),
        actors: actors.map((row) => ({ id: row.id, name: nameOf(row.first_name, row.last_name) })),
        actions: actions.map((row) => row.action),
      };
    },

    /** The same list as an export-kit document (every matching entry, at most 50,000). */
    async exportDocument(actorOrNull: Actor | null, query: AuditExportQuery, language: Language): Promise<ExportDocument> {
      const actor = requireAdministration(actorOrNull);
      const { format: _format, ...filters } = query;
      const entries = await rows(actor, filters, 50_000, 0);
      const t = (key: string) => translate(language, key);
      const timeZone = actor.timezone || 'Europe/Stockholm';
      const [account] = await database.query<{ company_name: string; subsite_id: number }>('SELECT company_name, subsite_id FROM account_directory WHERE id = $1', [
        actor.accountId,
      ]);
      const period = `${query.from ?? '…'} – ${query.to ?? '…'}`;
      return {
        title: t('audit.export.title'),
        subject: account?.company_name ?? '',
        language,
        timeZone,
        generatedAt: platform.clock.now(),
        brand: await brands.exportBrand(Number(account?.subsite_id ?? actor.subsiteId)),
        facts: [{ label: t('audit.export.period'), value: { type: 'text', value: period } }],
        columns: [
          { label: t('audit.col.time'), type: 'text', width: 16 },
          { label: t('audit.col.actor'), type: 'text', width: 18 },
          { label: t('audit.col.action'), type: 'text', width: 18 },
          { label: t('audit.col.target'), type: 'text', width: 22 },
          { label: t('audit.col.changes'), type: 'text', width: 40 },
        ],
        rows: entries.map((entry) => [
          formatInstant(new Date(entry.at), timeZone),
          entry.support ? `${entry.support} (${entry.actor ?? ''})` : (entry.actor ?? t('audit.system')),
          entry.action,
          `${entry.target.kind}: ${entry.target.label}`,
          entry.changes
            ? Object.entries(entry.changes)
                .map(([field, change]) => `${field}: ${JSON.stringify(change.from)} → ${JSON.stringify(change.to)}`)
                .join('; ')
            : '',
        ]),
        totals: [{ label: t('audit.export.count'), value: { type: 'number', value: entries.length, decimals: 0 } }],
        notes: [],
        footer: [t('audit.export.title'), period],
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
