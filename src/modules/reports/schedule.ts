import { Elysia } from 'elysia';
import type { Querier } from '../../lib/db/client';
import { type ExportDocument, renderExportBytes } from '../../lib/export';
import { AppError, fieldError, forbidden, notFound, ok } from '../../lib/http';
import { isLanguage, type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { PermanentJobError } from '../../lib/queue';
import { addToDay, dayOf, isTimeZone, startOfDay } from '../../lib/time';
import { actorOf, findUserById } from '../accounts/service';
import { authGuard, requireActor } from '../auth';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import type { NotificationService } from '../notifications/service';
import type { BenefitService } from './benefit';
import { weekOf } from './eco';
import type { FleetReports } from './fleet-reports';
import {
  REPORT_TIME_ZONE,
  type ReportFormat,
  type ReportSchedule,
  type ReportScheduleList,
  type ReportScope,
  type ScheduleFrequency,
  type ScheduleInput,
  type ScheduleKind,
  scheduleInputSchema,
} from './model';
import { z } from '../../lib/validation';

/**
 * Scheduled reports: a fleet report rendered at each due time and e-mailed as an attachment through the notification
 * channels. Weekly runs are due on Monday at 06:00 and cover the week before; monthly runs on the 1st at 06:00 and
 * cover the month before, in the creator's time zone. A scheduler job claims due schedules (FOR UPDATE SKIP LOCKED)
 * and, in the same transaction, queues the run with a unique key per schedule and due time and moves the schedule to
 * its next due time, so every due run is queued once whatever the number of instances. The run renders the report
 * as its creator sees the fleet and queues one e-mail per recipient, each keyed so a retried run sends it once.
 */
export const SCHEDULE_SCAN_JOB = 'reports.schedules';
export const SCHEDULE_RUN_JOB = 'reports.scheduled-run';
/** Local hour of the day a run is due. */
export const SCHEDULE_HOUR = 6;

const CONTENT_TYPES: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
};

/** The first due time after `now` (exclusive). */
export function nextDue(frequency: ScheduleFrequency, now: Date, timeZone: string): Date {
  const today = dayOf(now, timeZone);
  const at = (day: string) => new Date(startOfDay(day, timeZone).getTime() + SCHEDULE_HOUR * 3_600_000);
  if (frequency === 'weekly') {
    let day = weekOf(today);
    while (at(day).getTime() <= now.getTime()) day = addToDay(day, { days: 7 });
    return at(day);
  }
  let day = `${today.slice(0, 8)}01`;
  while (at(day).getTime() <= now.getTime()) day = addToDay(day, { months: 1 });
  return at(day);
}

/** The days a run due at `due` covers: the week or month before the due day. */
export function periodOfRun(frequency: ScheduleFrequency, due: Date, timeZone: string): { from: string; to: string } {
  const dueDay = dayOf(due, timeZone);
  const to = addToDay(dueDay, { days: -1 });
  const from = frequency === 'weekly' ? addToDay(dueDay, { days: -7 }) : `${to.slice(0, 8)}01`;
  return { from, to };
}

interface ScheduleRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  created_by: number;
  name: string;
  kind: ScheduleKind;
  scope: ReportScope;
  frequency: ScheduleFrequency;
  format: ReportFormat;
  recipient_user_ids: number[];
  recipient_emails: string[];
  active: boolean;
  next_run_at: Date | string | null;
  last_run_at: Date | string | null;
  last_error: string | null;
  created_at: Date | string;
  creator_first: string | null;
  creator_last: string | null;
  creator_email: string | null;
}

const SELECT = `SELECT s.*, u.first_name AS creator_first, u.last_name AS creator_last, u.email AS creator_email
  FROM report_schedules s LEFT JOIN user_names u ON u.id = s.created_by`;

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

function view(row: ScheduleRow): ReportSchedule {
  const scope = typeof row.scope === 'string' ? (JSON.parse(row.scope) as ReportScope) : row.scope;
  return {
    id: Number(row.id),
    name: row.name,
    kind: row.kind,
    scope,
    frequency: row.frequency,
    format: row.format,
    recipientUserIds: (row.recipient_user_ids ?? []).map(Number),
    recipientEmails: row.recipient_emails ?? [],
    active: row.active,
    createdBy: {
      id: Number(row.created_by),
      name: [row.creator_first, row.creator_last].filter(Boolean).join(' ').trim() || (row.creator_email ?? ''),
    },
    nextRunAt: iso(row.next_run_at),
    lastRunAt: iso(row.last_run_at),
    lastError: row.last_error,
    createdAt: iso(row.created_at)!,
  };
}

export function createReportSchedules(
  platform: Platform,
  fleet: FleetReports,
  notifications: Pick<NotificationService, 'send'>,
  benefit: Pick<BenefitService, 'exportFile'>,
) {
  const { database, clock, queue, log } = platform;

  const zoneOf = (actor: Actor) => (isTimeZone(actor.timezone) ? actor.timezone : REPORT_TIME_ZONE);

  function requireWriter(actor: Actor) {
    if (actor.role !== 'admin' && actor.role !== 'user') throw forbidden();
    if (actor.acting) throw forbidden();
  }

  /** A schedule of the caller's account the caller may see: an administrator all, an ordinary user their own. */
  async function own(actor: Actor, id: number): Promise<ScheduleRow> {
    const [row] = await database.query<ScheduleRow>(`${SELECT} WHERE s.id = $1 AND s.account_id = $2`, [id, actor.accountId]);
    if (!row) throw notFound('reports.schedule.notFound');
    if (actor.role !== 'admin' && Number(row.created_by) !== actor.userId) throw notFound('reports.schedule.notFound');
    return row;
  }

  async function check(actor: Actor, input: ScheduleInput) {
    // The benefit report's scope is checked like the summary's: both show a locked car without access (spec §6), and
    // the units, department and driver named must be the caller's alike.
    await fleet.checkScope(actor, input.kind === 'benefit' ? 'summary' : input.kind, input.scope);
    const ids = [...new Set(input.recipientUserIds)];
    if (ids.length > 0) {
      const rows = await database.query<{ id: number }>('SELECT id FROM user_directory WHERE account_id = $1 AND id = ANY($2::int[])', [actor.accountId, ids]);
      if (rows.length !== ids.length) throw fieldError('recipientUserIds', 'reports.schedule.recipientNotFound');
    }
  }

  async function runSchedule(payload: { scheduleId: number; due: string }): Promise<void> {
    const [row] = await database.query<ScheduleRow>(`${SELECT} WHERE s.id = $1`, [payload.scheduleId]);
    if (!row?.active) return;
    const creator = await findUserById(database.db, Number(row.created_by));
    if (!creator || Number(creator.account.id) !== Number(row.account_id)) {
      await database.query('UPDATE report_schedules SET last_error = $2 WHERE id = $1', [row.id, 'reports.schedule.creatorGone']);
      throw new PermanentJobError('the schedule creator is gone');
    }
    const actor = actorOf(creator, `report-schedule:${row.id}`);
    const timeZone = zoneOf(actor);
    const due = new Date(payload.due);
    const period = periodOfRun(row.frequency, due, timeZone);
    const language: Language = isLanguage(actor.language) ? actor.language : 'sv';
    const scope = view(row).scope;
    let file: { document: ExportDocument; fileName: string };
    try {
      // The benefit report counts whole months: a run covers the months of its days (a monthly run: the month before).
      file =
        row.kind === 'benefit'
          ? await benefit.exportFile(actor, { ...scope, ...period, format: row.format, lang: language }, {})
          : await fleet.fleetReportFile(actor, row.kind, { ...scope, ...period }, row.format, language, timeZone);
    } catch (error) {
      if (error instanceof AppError) {
        await database.query('UPDATE report_schedules SET last_error = $2, last_run_at = $3 WHERE id = $1', [row.id, error.key, clock.now().toISOString()]);
        throw new PermanentJobError(error.key);
      }
      throw error;
    }
    const bytes = await renderExportBytes(file.document, row.format);
    const userIds = (row.recipient_user_ids ?? []).map(Number);
    const users = userIds.length === 0
      ? []
      : await database.query<{ email: string }>('SELECT email FROM user_directory WHERE account_id = $1 AND id = ANY($2::int[])', [row.account_id, userIds]);
    const recipients = [...new Set([...users.map((user) => user.email.toLowerCase()), ...(row.recipient_emails ?? [])])];
    const report = translate(language, `reports.title.${row.kind}`);
    const params = { name: row.name, report, from: period.from, to: period.to };
    await database.transaction(async (tx) => {
      for (const to of recipients) {
        await notifications.send(tx, {
          accountId: Number(row.account_id),
          channel: 'email',
          to,
          key: `report-schedule:${row.id}:${due.toISOString()}`,
          ref: `report-schedule:${row.id}`,
          message: {
            title: translate(language, 'reports.mail.subject', params),
            body: translate(language, 'reports.mail.body', params),
            attachments: [{ filename: file.fileName, contentType: CONTENT_TYPES[row.format], content: Buffer.from(bytes).toString('base64'), encoding: 'base64' }],
          },
        });
      }
      await tx('UPDATE report_schedules SET last_run_at = $2, last_error = NULL WHERE id = $1', [row.id, clock.now().toISOString()]);
    });
  }

  queue.define<{ scheduleId: number; due: string }>(SCHEDULE_RUN_JOB, (payload) => runSchedule(payload), { maxAttempts: 5 });

  return {
    async list(actor: Actor): Promise<ReportScheduleList> {
      requireWriter(actor);
      const rows = await database.query<ScheduleRow>(
        `${SELECT} WHERE s.account_id = $1 AND ($2::boolean OR s.created_by = $3) ORDER BY s.name, s.id`,
        [actor.accountId, actor.role === 'admin', actor.userId],
      );
      return { schedules: rows.map(view) };
    },

    async get(actor: Actor, id: number): Promise<ReportSchedule> {
      requireWriter(actor);
      return view(await own(actor, id));
    },

    async create(actor: Actor, input: ScheduleInput): Promise<ReportSchedule> {
      requireWriter(actor);
      await check(actor, input);
      const next = input.active ? nextDue(input.frequency, clock.now(), zoneOf(actor)).toISOString() : null;
      const [row] = await database.query<{ id: number }>(
        `INSERT INTO report_schedules (account_id, created_by, name, kind, scope, frequency, format, recipient_user_ids, recipient_emails, active, next_run_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::int[], $9::text[], $10, $11::timestamptz) RETURNING id`,
        [
          actor.accountId,
          actor.userId,
          input.name,
          input.kind,
          JSON.stringify(input.scope),
          input.frequency,
          input.format,
          [...new Set(input.recipientUserIds)],
          [...new Set(input.recipientEmails)],
          input.active,
          next,
        ],
      );
      return view(await own(actor, Number(row!.id)));
    },

    async update(actor: Actor, id: number, input: ScheduleInput): Promise<ReportSchedule> {
      requireWriter(actor);
      const before = await own(actor, id);
      await check(actor, input);
      const next = input.active ? nextDue(input.frequency, clock.now(), zoneOf(actor)).toISOString() : null;
      await database.query(
        `UPDATE report_schedules SET name = $3, kind = $4, scope = $5::jsonb, frequency = $6, format = $7, recipient_user_ids = $8::int[],
           recipient_emails = $9::text[], active = $10, next_run_at = $11::timestamptz, updated_at = now()
         WHERE id = $1 AND account_id = $2`,
        [
          before.id,
          actor.accountId,
          input.name,
          input.kind,
          JSON.stringify(input.scope),
          input.frequency,
          input.format,
          [...new Set(input.recipientUserIds)],
          [...new Set(input.recipientEmails)],
          input.active,
          next,
        ],
      );
      return view(await own(actor, id));
    },

    async remove(actor: Actor, id: number): Promise<{ id: number }> {
      requireWriter(actor);
      const row = await own(actor, id);
      await database.query('DELETE FROM report_schedules WHERE id = $1 AND account_id = $2', [row.id, actor.accountId]);
      return { id: Number(row.id) };
    },

    /**
     * Queues the run of every due schedule and moves each to its next due time, in one transaction per batch with the
     * rows locked (SKIP LOCKED: another instance takes the others). Returns how many runs were queued.
     */
    async queueDue(): Promise<number> {
      let queued = 0;
      for (;;) {
        const count = await database.transaction(async (tx: Querier) => {
          const due = await tx<{ id: number; frequency: ScheduleFrequency; next_run_at: Date | string; created_by: number }>(
            `SELECT s.id, s.frequency, s.next_run_at, s.created_by FROM report_schedules s
             WHERE s.active AND s.next_run_at <= $1::timestamptz ORDER BY s.next_run_at, s.id LIMIT 50 FOR UPDATE SKIP LOCKED`,
            [clock.now().toISOString()],
          );
          for (const row of due) {
            const at = new Date(row.next_run_at);
            await queue.enqueue(tx, SCHEDULE_RUN_JOB, { scheduleId: Number(row.id), due: at.toISOString() }, { uniqueKey: `${row.id}:${at.toISOString()}` });
            const [zone] = await tx<{ timezone: string | null }>('SELECT timezone FROM user_directory WHERE id = $1', [row.created_by]);
            const timeZone = isTimeZone(zone?.timezone) ? zone!.timezone! : REPORT_TIME_ZONE;
            // The next due time after now: a schedule that missed several (the service was down) runs once, for the latest.
            await tx('UPDATE report_schedules SET next_run_at = $2::timestamptz WHERE id = $1', [row.id, nextDue(row.frequency, clock.now(), timeZone).toISOString()]);
          }
          return due.length;
        });
        queued += count;
        if (count < 50) break;
      }
      if (queued > 0) log.info('scheduled reports queued', { queued });
      return queued;
    },
  };
}

export type ReportSchedules = ReturnType<typeof createReportSchedules>;

const idParams = z.object({ id: z.string().trim().min(1, { abort: true }).pipe(z.coerce.number<string>().int().positive().max(2_147_483_647)) });
const security = [{ bearer: [] }];

export function reportScheduleRoutes(schedules: ReportSchedules, auth: AuthService) {
  return new Elysia({ prefix: '/api/reports/schedules', tags: ['reports'] })
    .use(authGuard(auth))
    .get('', async ({ actor }) => ok(await schedules.list(requireActor(actor))), {
      detail: { summary: "Scheduled reports of the caller's account (an ordinary user: their own)", security },
    })
    .post('', async ({ actor, body }) => ok(await schedules.create(requireActor(actor), body)), {
      body: scheduleInputSchema,
      detail: { summary: 'Schedules a report: kind, scope, weekly or monthly, format and recipients (users of the account and/or e-mail addresses)', security },
    })
    .get('/:id', async ({ actor, params }) => ok(await schedules.get(requireActor(actor), params.id)), {
      params: idParams,
      detail: { summary: 'One scheduled report', security },
    })
    .put('/:id', async ({ actor, params, body }) => ok(await schedules.update(requireActor(actor), params.id, body)), {
      params: idParams,
      body: scheduleInputSchema,
      detail: { summary: 'Changes a scheduled report (its next due time follows the new frequency)', security },
    })
    .delete('/:id', async ({ actor, params }) => ok(await schedules.remove(requireActor(actor), params.id)), {
      params: idParams,
      detail: { summary: 'Deletes a scheduled report', security },
    });
}
