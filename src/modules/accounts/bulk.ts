import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { requestLanguage } from '../../lib/api';
import { drizzleQuerier } from '../../lib/db/querier';
import { AppError, fieldError, forbidden, notFound, ok } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { authGuard, requireActor } from '../auth';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import type { BulkTask } from '../units/model';
import type { UnitService } from '../units/service';
import { auditActors } from '../audit/events';
import {
  type AccountUserRef,
  type BulkJobCreate,
  type BulkJobView,
  bulkJobCreateSchema,
  bulkJobParamsSchema,
  type UserBulkResult,
  type UserBulkTask,
  userBulkSchema,
} from './model';
import { bulkJobs, users } from './schema';
import { actorOf, findUserById } from './users';

/** The queued job that runs a bulk task record by record. */
const BULK_JOB = 'accounts.bulk-job';
/** One record's outcome in a job. */
type JobResult = BulkJobView['results'][number];

/** The first message key of an error (a field error's, else its own). */
function keyOf(error: AppError): string {
  const first = Object.values(error.options.fields ?? {})[0]?.[0];
  return first ?? error.key;
}

/**
 * Bulk tasks on users (spec §2 bulk tasks, §5 at least one user, §6 unit access): the map flag, two-factor sign-in and
 * unit access for many users at once. Each user is one transaction with its audit entry, so a failing user leaves the
 * others done and is reported with its reason.
 */
export function createUserBulkService(platform: Platform, units: UnitService) {
  const { database, clock, outbox, queue } = platform;
  const db = database.db;

  async function applyTo(actor: Actor, user: { id: number; email: string; realtimeMap: boolean; twoFactor: boolean }, task: UserBulkTask): Promise<void> {
    if (task.kind === 'department') {
      await database.transaction(async (query) => {
        if (task.departmentId !== null) {
          const [found] = await query('SELECT 1 FROM department_directory WHERE id = $1 AND account_id = $2', [task.departmentId, actor.accountId]);
          if (!found) throw notFound('units.department.notFound');
        }
        const [before] = await query<{ department_id: number | null }>('SELECT department_id FROM users WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE', [
          user.id,
          actor.accountId,
        ]);
        if (!before) throw notFound('errors.invalidUserId');
        if (before.department_id === task.departmentId) return;
        await query('UPDATE users SET department_id = $1 WHERE id = $2', [task.departmentId, user.id]);
        // Spec §6: a new department resets the user's unit access (the units module does it on this event).
        await outbox.publish(query, 'user.department_changed', { accountId: actor.accountId, userId: user.id, departmentId: task.departmentId });
        await outbox.publish(query, 'audit.entry', {
          accountId: actor.accountId,
          ...auditActors(actor),
          action: 'bulk.department',
          target: { kind: 'user', id: user.id, label: user.email },
          changes: { departmentId: { from: before.department_id, to: task.departmentId } },
          at: clock.now().toISOString(),
        });
      });
      return;
    }
    if (task.kind === 'unitAccess') {
      await units.changeUserUnits(actor, user.id, task.unitIds, task.mode);
      return;
    }
    const column = task.kind === 'realtimeMap' ? 'realtime_map' : 'two_factor';
    const before = task.kind === 'realtimeMap' ? user.realtimeMap : user.twoFactor;
    await database.transaction(async (query) => {
      await query(`UPDATE users SET ${column} = $1 WHERE id = $2 AND account_id = $3`, [task.enabled, user.id, actor.accountId]);
      await outbox.publish(query, 'audit.entry', {
        accountId: actor.accountId,
        actorUserId: actor.userId,
        action: `bulk.${task.kind}`,
        target: { kind: 'user', id: user.id, label: user.email },
        changes: { [task.kind]: { from: before, to: task.enabled } },
        at: clock.now().toISOString(),
      });
    });
  }

  /** One record of a job: its own transaction(s); a refusal is its result, anything else stops the job (retried). */
  async function runRecord(actor: Actor, target: 'users' | 'units', id: number, task: unknown, language: Language): Promise<JobResult> {
    try {
      if (target === 'users') {
        const [result] = (await service.run(actor, [id], task as UserBulkTask, language)).results;
        return { id, ok: result!.ok, error: result!.error };
      }
      const [result] = (await units.bulk(actor, [id], task as BulkTask, language)).results;
      return { id, ok: result!.ok, error: result!.error, ...(result!.pending ? { pending: true } : {}) };
    } catch (error) {
      // A record gone meanwhile (deleted user or unit) or a refused value fails that record only.
      if (error instanceof AppError && error.status < 500) return { id, ok: false, error: translate(language, keyOf(error)) };
      throw error;
    }
  }

  function jobView(row: typeof bulkJobs.$inferSelect): BulkJobView {
    const results = typeof row.results === 'string' ? (JSON.parse(row.results) as JobResult[]) : row.results;
    return { id: row.id, target: row.target, status: row.status, total: row.ids.length, done: row.done, failed: row.failed, results, error: row.error };
  }

  /**
   * Runs a job from where it stands: the records that have a result are skipped, so a job taken over after its process
   * died resumes after the last record it finished. Each result is written as soon as its record is done.
   */
  queue.define<{ jobId: number }>(BULK_JOB, async ({ jobId }) => {
    const [job] = await db.select().from(bulkJobs).where(eq(bulkJobs.id, jobId));
    if (!job || job.status === 'done' || job.status === 'failed') return;
    const language = job.language;
    // The job acts as its starter does now: a starter no longer an administrator of the account stops it.
    const starter = await findUserById(db, job.createdBy);
    if (!starter || starter.user.accountId !== job.accountId || starter.user.role !== 'admin') {
      await db
        .update(bulkJobs)
        .set({ status: 'failed', error: translate(language, 'errors.forbidden'), finishedAt: clock.now() })
        .where(eq(bulkJobs.id, jobId));
      return;
    }
    const actor = actorOf(starter, `bulk-job:${jobId}`);
    await db.update(bulkJobs).set({ status: 'running' }).where(eq(bulkJobs.id, jobId));
    const handled = new Set(jobView(job).results.map((result) => result.id));
    for (const id of job.ids) {
      if (handled.has(id)) continue;
      const result = await runRecord(actor, job.target, id, job.task, language);
      await db
        .update(bulkJobs)
        .set({
          results: sql`${bulkJobs.results} || ${JSON.stringify([result])}::jsonb`,
          done: sql`${bulkJobs.done} + 1`,
          failed: sql`${bulkJobs.failed} + ${result.ok ? 0 : 1}`,
        })
        .where(eq(bulkJobs.id, jobId));
    }
    await db.update(bulkJobs).set({ status: 'done', finishedAt: clock.now() }).where(eq(bulkJobs.id, jobId));
  });

  const service = {
    /** Starts a bulk task as a queued job (administrators); every named user or unit must be the account's (else 404). */
    async startJob(actor: Actor, input: BulkJobCreate, language: Language): Promise<BulkJobView> {
      if (actor.role !== 'admin' || actor.acting) throw forbidden();
      if (input.target === 'users') {
        const found = await db
          .select({ id: users.id })
          .from(users)
          .where(and(inArray(users.id, input.ids), eq(users.accountId, actor.accountId), isNull(users.deletedAt)));
        if (found.length !== input.ids.length) throw notFound('errors.invalidUserId');
        if (input.task.kind === 'department' && input.task.departmentId !== null) {
          const [department] = await database.query('SELECT 1 FROM department_directory WHERE id = $1 AND account_id = $2', [input.task.departmentId, actor.accountId]);
          if (!department) throw fieldError('task.departmentId', 'units.department.notFound');
        }
      } else {
        const visible = new Set((await units.list(actor)).map((unit) => unit.ID));
        if (input.ids.some((id) => !visible.has(id))) throw notFound('errors.unitNotFound');
        // The task's own checks (its department, project, tags, profile, users are the account's) before the job exists.
        await units.bulk(actor, [], input.task, language);
      }
      const row = await database.db.transaction(async (tx) => {
        const [created] = await tx
          .insert(bulkJobs)
          .values({ accountId: actor.accountId, createdBy: actor.userId, target: input.target, task: input.task, ids: input.ids, language })
          .returning();
        // The job exists exactly when its row does.
        await queue.enqueue(drizzleQuerier(tx), BULK_JOB, { jobId: created!.id }, { maxAttempts: 20 });
        return created!;
      });
      return jobView(row);
    },

    /** A bulk job's progress and results (administrators of its account; anyone else's is 404). */
    async job(actor: Actor, jobId: number): Promise<BulkJobView> {
      if (actor.role !== 'admin') throw forbidden();
      const [row] = await db
        .select()
        .from(bulkJobs)
        .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.accountId, actor.accountId)));
      if (!row) throw notFound('bulk.jobNotFound');
      return jobView(row);
    },

    /** Every named user must be the account's (else 404, nothing done); then each user succeeds or fails on its own. */
    async run(actor: Actor, userIds: number[], task: UserBulkTask, language: Language): Promise<UserBulkResult> {
      if (actor.role !== 'admin') throw forbidden();
      const rows = await db
        .select({ id: users.id, email: users.email, realtimeMap: users.realtimeMap, twoFactor: users.twoFactor })
        .from(users)
        .where(and(inArray(users.id, userIds), eq(users.accountId, actor.accountId), isNull(users.deletedAt)));
      if (rows.length !== userIds.length) throw notFound('errors.invalidUserId');
      const byId = new Map(rows.map((row) => [row.id, row]));
      const results: UserBulkResult['results'] = [];
      for (const userId of userIds) {
        try {
          await applyTo(actor, byId.get(userId)!, task);
          results.push({ userId, ok: true, error: null });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          results.push({ userId, ok: false, error: translate(language, keyOf(error)) });
        }
      }
      return { results };
    },

    /** The account's users by name (the bulk panels' pickers; administrators). */
    async accountUsers(actor: Actor): Promise<AccountUserRef[]> {
      if (actor.role !== 'admin') throw forbidden();
      const rows = await db
        .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, email: users.email, role: users.role })
        .from(users)
        .where(and(eq(users.accountId, actor.accountId), inArray(users.role, ['admin', 'user'])))
        .orderBy(asc(users.lastName), asc(users.firstName), asc(users.id));
      return rows.map((row) => ({ id: row.id, name: `${row.firstName} ${row.lastName}`.trim() || row.email, email: row.email, role: row.role }));
    },
  };
  return service;
}

export type UserBulkService = ReturnType<typeof createUserBulkService>;

const bearer = [{ bearer: [] }];

export function userBulkRoutes(bulk: UserBulkService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['users'] })
    .use(authGuard(auth))
    .post('/admin/users/bulk', async ({ actor, body, request }) => ok(await bulk.run(requireActor(actor), body.userIds, body.task, requestLanguage(request.headers))), {
      body: userBulkSchema,
      detail: { summary: 'A bulk task on selected users (department, map, two-factor, unit access) with a result per user (administrators)', security: bearer },
    })
    .post('/admin/bulk-jobs', async ({ actor, body, request }) => ok(await bulk.startJob(requireActor(actor), body, requestLanguage(request.headers))), {
      body: bulkJobCreateSchema,
      detail: { summary: 'Start a bulk task on users or units as a queued job; it runs record by record (administrators)', security: bearer },
    })
    .get('/admin/bulk-jobs/:jobId', async ({ actor, params }) => ok(await bulk.job(requireActor(actor), params.jobId)), {
      params: bulkJobParamsSchema,
      detail: { summary: "A bulk job's progress: done, failed and a result per record (administrators)", security: bearer },
    })
    .get('/admin/account-users', async ({ actor }) => ok(await bulk.accountUsers(requireActor(actor))), {
      detail: { summary: "The account's users by name, for pickers (administrators)", security: bearer },
    });
}
