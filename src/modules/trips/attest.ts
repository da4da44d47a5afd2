import { AppError, forbidden, notFound } from '../../lib/http';
import { isLanguage, translate } from '../../lib/i18n';
import type { Querier as Query } from '../../lib/db/client';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import type {
  TripAttestHistoryEntry,
  TripAttestInput,
  TripAttestQuery,
  TripAttestRecord,
  TripAttestStatus,
  TripAttestView,
} from './model';
import { addToDay, dayOf, isTimeZone, startOfDay } from '../../lib/time';

/**
 * Attesting the trip log (spec §3 Attest record, §4 attest, §6): a user attests a month of their trips (the trips they
 * drove), an administrator also for the account's other users. Attested trips are read-only; an administrator can
 * unlock (editable again, the record stays), unattest or remove an attest. Every change is kept in the history.
 * A monthly reminder goes to users whose trips of the previous month are not attested.
 */

const FALLBACK_TIME_ZONE = 'Europe/Stockholm';
const attestNotFound = () => notFound('trips.attest.notFound');
/** Spec §4: attested trips are not editable. */
export const attestedError = () => new AppError(422, 'trips.attest.locked');

interface AttestRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  user_id: number;
  period: string;
  from_time: string | Date;
  to_time: string | Date;
  status: TripAttestStatus;
  note: string | null;
  attested_by: number | null;
  attested_at: string | Date;
}

const iso = (value: string | Date) => new Date(value).toISOString();

function toRecord(row: AttestRow): TripAttestRecord {
  return {
    id: row.id,
    userId: row.user_id,
    period: row.period,
    from: iso(row.from_time),
    to: iso(row.to_time),
    status: row.status,
    note: row.note,
    attestedBy: row.attested_by,
    attestedAt: iso(row.attested_at),
  };
}

/** The instants a month (YYYY-MM) spans in a time zone. */
export function monthRange(period: string, timeZone: string): { from: Date; to: Date } {
  const first = `${period}-01`;
  return { from: startOfDay(first, timeZone), to: startOfDay(addToDay(first, { months: 1 }), timeZone) };
}

/** SQL condition: trip `t` lies in an attested period of its driver. */
export const ATTESTED = `EXISTS (SELECT 1 FROM trip_attests a WHERE a.user_id = t.driver_user_id AND a.status = 'attested'
  AND t.start_time >= a.from_time AND t.start_time < a.to_time)`;


/** Refuses a change to trips of an attested period (by trip id). */
export async function refuseAttestedTrips(query: Query, tripIds: number[]): Promise<void> {
  const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM trips t WHERE t.id = ANY($1::bigint[]) AND ${ATTESTED}`, [tripIds]);
  if (Number(row?.n ?? 0) > 0) throw attestedError();
}

/**
 * Refuses a change to a unit's trips from an instant on (a driver check-in or check-out applies to later trips):
 * neither trips already attested nor trips that would join a period the new driver has attested.
 */
export async function refuseAttestedFrom(query: Query, unitId: number, from: string, newDriverUserId: number | null = null): Promise<void> {
  const [row] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM trips t WHERE t.unit_id = $1 AND t.start_time >= $2::timestamptz
       AND (${ATTESTED} OR EXISTS (SELECT 1 FROM trip_attests a WHERE a.user_id = $3 AND a.status = 'attested'
                                  AND t.start_time >= a.from_time AND t.start_time < a.to_time))`,
    [unitId, from, newDriverUserId],
  );
  if (Number(row?.n ?? 0) > 0) throw attestedError();
}

export function createTripAttest(platform: Platform) {
  const { database, clock, mailer, log } = platform;
  type Tx = Parameters<Parameters<typeof database.transaction>[0]>[0];

  /** The user attested for: the caller, or (administrators only) another user of the caller's account; else 404/403. */
  async function targetUser(query: Tx, actor: Actor, userId: number | undefined): Promise<{ id: number; timezone: string }> {
    const id = userId ?? actor.userId;
    const [user] = await query<{ id: number; timezone: string | null }>('SELECT id, timezone FROM user_directory WHERE id = $1 AND account_id = $2', [
      id,
      actor.accountId,
    ]);
    if (!user) throw notFound('errors.invalidUserId');
    if (actor.role === 'user' && id !== actor.userId) throw forbidden();
    return { id: user.id, timezone: isTimeZone(user.timezone) ? user.timezone : FALLBACK_TIME_ZONE };
  }

  async function history(query: Tx, userId: number, period: string): Promise<TripAttestHistoryEntry[]> {
    const rows = await query<{ action: TripAttestHistoryEntry['action']; note: string | null; by_user_id: number | null; at: string | Date }>(
      'SELECT action, note, by_user_id, at FROM trip_attest_log WHERE user_id = $1 AND period = $2 ORDER BY at, id',
      [userId, period],
    );
    return rows.map((row) => ({ action: row.action, note: row.note, byUserId: row.by_user_id, at: iso(row.at) }));
  }

  async function view(query: Tx, userId: number, period: string): Promise<TripAttestView> {
    const [row] = await query<AttestRow>('SELECT * FROM trip_attests WHERE user_id = $1 AND period = $2', [userId, period]);
    return {
      userId,
      period,
      attested: row?.status === 'attested',
      record: row ? toRecord(row) : null,
      history: await history(query, userId, period),
    };
  }

  async function logAction(query: Tx, row: { account_id: number; user_id: number; period: string }, action: string, note: string | null, by: number) {
    await query('INSERT INTO trip_attest_log (account_id, user_id, period, action, note, by_user_id, at) VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)', [
      row.account_id,
      row.user_id,
      row.period,
      action,
      note,
      by,
      clock.now().toISOString(),
    ]);
    // The account's audit log names every attest change, in the same transaction.
    const [person] = await query<{ first_name: string; last_name: string }>('SELECT first_name, last_name FROM user_names WHERE id = $1', [row.user_id]);
    await platform.outbox.publish(query, 'audit.entry', {
      accountId: row.account_id,
      actorUserId: by,
      action: `attest.${action}`,
      target: { kind: 'attest', id: row.user_id, label: `${`${person?.first_name ?? ''} ${person?.last_name ?? ''}`.trim()} ${row.period}` },
      changes: note === null ? undefined : { note: { from: null, to: note } },
      at: clock.now().toISOString(),
    });
  }

  /** An attest of the caller's account by id, locked; administrators only (spec §4). */
  async function adminAttest(query: Tx, actor: Actor, id: number): Promise<AttestRow> {
    const [row] = await query<AttestRow>('SELECT * FROM trip_attests WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, actor.accountId]);
    if (!row) throw attestNotFound();
    if (actor.role === 'user') throw forbidden();
    return row;
  }

  /** Changes an attest's status (unlock, unattest); only an attested period can be unlocked or unattested. */
  async function change(actor: Actor, id: number, status: 'unlocked' | 'unattested'): Promise<TripAttestView> {
    return database.transaction(async (query) => {
      const row = await adminAttest(query, actor, id);
      if (row.status !== 'attested') throw new AppError(422, 'trips.attest.notAttested');
      await query('UPDATE trip_attests SET status = $2, changed_by = $3, changed_at = $4::timestamptz WHERE id = $1', [
        id,
        status,
        actor.userId,
        clock.now().toISOString(),
      ]);
      await logAction(query, row, status, null, actor.userId);
      return view(query, row.user_id, row.period);
    });
  }

  /**
   * Spec §4 reminders: every user who drove trips in the previous month (in their time zone) that are not attested
   * gets one e-mail in their language. A reminder sent is recorded first, so a second run sends nothing.
   */
  async function sendReminders(): Promise<number> {
    const now = clock.now();
    const users = await database.query<{ id: number; account_id: number; email: string; language: string; timezone: string | null }>(
      `SELECT u.id, u.account_id, u.email, u.language, u.timezone FROM user_directory u
       WHERE EXISTS (SELECT 1 FROM trips t WHERE t.driver_user_id = u.id AND t.start_time >= $1::timestamptz AND t.start_time < $2::timestamptz)`,
      // Every zone's previous month lies within these bounds; the exact month per user is checked below.
      [new Date(now.getTime() - 64 * 86_400_000).toISOString(), now.toISOString()],
    );
    let sent = 0;
    for (const user of users) {
      const timeZone = isTimeZone(user.timezone) ? user.timezone : FALLBACK_TIME_ZONE;
      const period = addToDay(`${dayOf(now, timeZone).slice(0, 7)}-01`, { months: -1 }).slice(0, 7);
      const { from, to } = monthRange(period, timeZone);
      const [open] = await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM trips t WHERE t.driver_user_id = $1 AND t.start_time >= $2::timestamptz AND t.start_time < $3::timestamptz
           AND NOT ${ATTESTED}`,
        [user.id, from.toISOString(), to.toISOString()],
      );
      if (Number(open?.n ?? 0) === 0) continue;
      const claimed = await database.query(
        'INSERT INTO trip_attest_reminders (user_id, account_id, period, sent_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING RETURNING user_id',
        [user.id, user.account_id, period, now.toISOString()],
      );
      if (claimed.length === 0) continue;
      const language = isLanguage(user.language) ? user.language : 'sv';
      const params = { period, trips: Number(open!.n) };
      try {
        await mailer.send({
          to: user.email,
          subject: translate(language, 'mail.attestReminder.subject', params),
          text: translate(language, 'mail.attestReminder.body', params),
        });
        sent += 1;
      } catch (error) {
        // Not sent: the next run tries again.
        await database.query('DELETE FROM trip_attest_reminders WHERE user_id = $1 AND period = $2', [user.id, period]);
        log.error('attest reminder failed', { userId: user.id, error: String(error) });
      }
    }
    return sent;
  }

  return {
    /** Spec §3/§4/§6: attests a month of a user's trips (the caller's own; an administrator: any user of the account). */
    async attest(actor: Actor, input: TripAttestInput): Promise<TripAttestView> {
      return database.transaction(async (query) => {
        const user = await targetUser(query, actor, input.userId);
        const { from, to } = monthRange(input.period, user.timezone);
        const note = input.note === undefined || input.note === '' ? null : input.note;
        const at = clock.now().toISOString();
        const [existing] = await query<AttestRow>('SELECT * FROM trip_attests WHERE user_id = $1 AND period = $2 FOR UPDATE', [user.id, input.period]);
        if (existing?.status === 'attested') throw new AppError(409, 'trips.attest.already');
        await query(
          `INSERT INTO trip_attests (account_id, user_id, period, from_time, to_time, status, note, attested_by, attested_at, changed_by, changed_at)
           VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, 'attested', $6, $7, $8::timestamptz, $7, $8::timestamptz)
           ON CONFLICT (user_id, period, account_id) DO UPDATE SET status = 'attested', note = EXCLUDED.note, attested_by = EXCLUDED.attested_by,
             attested_at = EXCLUDED.attested_at, changed_by = EXCLUDED.changed_by, changed_at = EXCLUDED.changed_at`,
          [actor.accountId, user.id, input.period, from.toISOString(), to.toISOString(), note, actor.userId, at],
        );
        await logAction(query, { account_id: actor.accountId, user_id: user.id, period: input.period }, 'attested', note, actor.userId);
        return view(query, user.id, input.period);
      });
    },

    /** The attest status and history of a user's month (the caller's own; an administrator: any user of the account). */
    async attestStatus(actor: Actor, input: TripAttestQuery): Promise<TripAttestView> {
      return database.transaction(async (query) => {
        const user = await targetUser(query, actor, input.userId);
        return view(query, user.id, input.period);
      });
    },

    /** Spec §4: an administrator makes an attested period editable again; the record stays. */
    unlockAttest: (actor: Actor, id: number) => change(actor, id, 'unlocked'),
    /** Spec §4: an administrator withdraws an attest; the user can attest the period again. */
    unattest: (actor: Actor, id: number) => change(actor, id, 'unattested'),

    /** Spec §4: an administrator removes an attest record; its history stays. */
    async removeAttest(actor: Actor, id: number): Promise<TripAttestView> {
      return database.transaction(async (query) => {
        const row = await adminAttest(query, actor, id);
        await query('DELETE FROM trip_attests WHERE id = $1', [id]);
        await logAction(query, row, 'removed', null, actor.userId);
        return view(query, row.user_id, row.period);
      });
    },

    sendAttestReminders: sendReminders,
  };
}

export type TripAttest = ReturnType<typeof createTripAttest>;
