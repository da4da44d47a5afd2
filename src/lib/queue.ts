import type { Clock } from './clock';
import type { DatabaseHandle, Querier } from './db/client';
import type { Logger } from './log';
import { WorkLoop } from './work-loop';

/**
 * The job queue beside the interval scheduler: work to run now or at a time, in any process that has the
 * job's handler. Jobs are claimed with FOR UPDATE SKIP LOCKED under a lease (a job whose process died runs
 * again once its lease is out), so a job runs at least once and, while its process lives, in one process
 * only; handlers must be idempotent. A `uniqueKey` makes enqueueing idempotent: the same (name, key) is
 * one job for ever, so re-enqueueing a schedule or a notification is safe. A failure is retried with
 * exponential backoff up to the job's attempt limit and then dead-lettered; an error whose `retryable` is
 * false (a permanent refusal) is dead at once. Support lists dead letters and puts them back in line.
 */
export interface JobContext {
  id: number;
  name: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export type JobHandler<Payload> = (payload: Payload, job: JobContext) => Promise<void>;

/** One job of a claimed batch. */
export interface BatchJob<Payload> {
  payload: Payload;
  job: JobContext & { runAt: Date };
}

export interface BatchContext {
  /**
   * Marks jobs of the batch done in `tx`, the transaction that did their work: they are done exactly when it commits
   * (a job completed so is never run again, even when the process dies right after).
   */
  complete(tx: Querier, ids: readonly number[]): Promise<void>;
}

/**
 * Runs a claimed batch of jobs of one name. Answers the jobs that failed, each with its error (retried or dead-lettered
 * one by one as a single job's failure is); every other job of the batch is done. The handler keeps failures apart:
 * one job's failure must not fail the others (run them apart when the batch's work fails). A handler that throws
 * fails the whole batch.
 */
export type BatchHandler<Payload> = (jobs: BatchJob<Payload>[], batch: BatchContext) => Promise<ReadonlyMap<number, unknown>>;

/** Thrown (or any error with `retryable: false`) when running the job again cannot help. */
export class PermanentJobError extends Error {
  readonly retryable = false;
}

export interface EnqueueOptions {
  /** When to run it; default now. */
  runAt?: Date;
  /** One job per (name, key), whatever its state: enqueueing it again returns the existing job. */
  uniqueKey?: string;
  /** Default: the job definition's, else 8. */
  maxAttempts?: number;
}

export interface QueuedJob {
  id: number;
  name: string;
  uniqueKey: string | null;
  payload: unknown;
  status: 'queued' | 'running' | 'done' | 'dead';
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface JobQueueOptions {
  database: DatabaseHandle;
  clock: Clock;
  log: Logger;
  /** Delay before the first retry, doubled for each further one (default 5 s), capped at `maxBackoffMs` (1 h). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long a claimed job may run before another process takes it over (default 5 min). */
  leaseMs?: number;
  /** Jobs run at once by this process (default 4). */
  concurrency?: number;
  /** A pass runs at least this often, for jobs coming due (default 1 s; NOTIFY wakes it for new ones). */
  pollMs?: number;
}

const CHANNEL = 'job_queue';
const DEFAULT_MAX_ATTEMPTS = 8;

interface JobRow extends Record<string, unknown> {
  id: string | number | bigint;
  name: string;
  unique_key: string | null;
  payload: unknown;
  status: QueuedJob['status'];
  run_at: Date | string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
}

const iso = (date: Date) => date.toISOString();

function jobOf(row: JobRow): QueuedJob {
  return {
    id: Number(row.id),
    name: row.name,
    uniqueKey: row.unique_key,
    payload: row.payload,
    status: row.status,
    runAt: new Date(row.run_at),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  };
}

export interface EnqueueItem {
  payload: unknown;
  runAt?: Date;
  uniqueKey?: string;
}

export class JobQueue {
  private readonly definitions = new Map<string, { handle: JobHandler<never>; maxAttempts: number }>();
  private readonly batchDefinitions = new Map<string, { handle: BatchHandler<never>; maxAttempts: number; batchSize: number }>();
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly loop: WorkLoop;
  /** While `stop` waits: the pass under way claims nothing more, so shutting down waits only for the jobs already claimed. */
  private stopping = false;

  constructor(private readonly options: JobQueueOptions) {
    this.backoffMs = options.backoffMs ?? 5_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 3_600_000;
    this.leaseMs = options.leaseMs ?? 300_000;
    this.concurrency = options.concurrency ?? 4;
    this.loop = new WorkLoop(async () => (await this.runOnce()) > 0, {
      pollMs: options.pollMs ?? 1_000,
      onError: (error) => options.log.error('job queue pass failed', { error: String(error) }),
      wakeOn: { database: options.database, channel: CHANNEL },
    });
  }

  /** Registers the handler of jobs named `name` in this process. */
  define<Payload>(name: string, handle: JobHandler<Payload>, options: { maxAttempts?: number } = {}): void {
    if (this.definitions.has(name) || this.batchDefinitions.has(name)) throw new Error(`job ${name} is defined twice`);
    this.definitions.set(name, { handle: handle as JobHandler<never>, maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS });
  }

  /**
   * Registers a batch handler of jobs named `name`: each pass claims up to `batchSize` due jobs of the name per batch in
   * one statement (FOR UPDATE SKIP LOCKED, under the lease, as single jobs are), up to `concurrency` batches side by
   * side, and completes the batch's done jobs in one statement. Enqueueing, uniqueness, leases, retries and dead
   * letters are a single job's.
   */
  defineBatch<Payload>(name: string, handle: BatchHandler<Payload>, options: { maxAttempts?: number; batchSize?: number } = {}): void {
    if (this.definitions.has(name) || this.batchDefinitions.has(name)) throw new Error(`job ${name} is defined twice`);
    this.batchDefinitions.set(name, {
      handle: handle as BatchHandler<never>,
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      batchSize: Math.max(1, options.batchSize ?? 500),
    });
  }

  /**
   * Enqueues a job, in the caller's transaction when given its querier (it then exists exactly when the
   * caller's change does). Returns the job's id and whether it is new (false: the unique key existed).
   */
  async enqueue(tx: Querier | null, name: string, payload: unknown, options: EnqueueOptions = {}): Promise<{ id: number; created: boolean }> {
    const query = tx ?? this.options.database.query;
    const maxAttempts = options.maxAttempts ?? this.maxAttemptsOf(name);
    const [inserted] = await query<{ id: string }>(
      `WITH job AS (
         INSERT INTO job_queue (name, unique_key, payload, run_at, max_attempts) VALUES ($1, $2, $3::jsonb, $4, $5)
         ON CONFLICT (name, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
         RETURNING id
       )
       SELECT id, pg_notify('${CHANNEL}', '') FROM job`,
      [name, options.uniqueKey ?? null, JSON.stringify(payload ?? {}), iso(options.runAt ?? this.options.clock.now()), maxAttempts],
    );
    this.loop.committed();
    if (inserted) return { id: Number(inserted.id), created: true };
    const [existing] = await query<{ id: string }>('SELECT id FROM job_queue WHERE name = $1 AND unique_key = $2', [name, options.uniqueKey ?? null]);
    return { id: Number(existing!.id), created: false };
  }

  /**
   * Enqueues many jobs of one name in one statement (in the caller's transaction when given), each with its unique key;
   * returns their ids in input order (an existing job's id when its key existed, `created` false).
   */
  async enqueueMany(
    tx: Querier | null,
    name: string,
    jobs: ReadonlyArray<EnqueueItem & { uniqueKey: string }>,
  ): Promise<Array<{ id: number; created: boolean }>> {
    if (jobs.length === 0) return [];
    const query = tx ?? this.options.database.query;
    const maxAttempts = this.maxAttemptsOf(name);
    const now = iso(this.options.clock.now());
    const rows = await query<{ ord: string | number; id: string; created: boolean }>(
      `WITH input AS (
         SELECT item->>'key' AS unique_key, item->'payload' AS payload, coalesce((item->>'runAt')::timestamptz, $3::timestamptz) AS run_at, ord
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS items(item, ord)
       ),
       job AS (
         INSERT INTO job_queue (name, unique_key, payload, run_at, max_attempts)
         SELECT $1, unique_key, payload, run_at, $4 FROM input ORDER BY ord
         ON CONFLICT (name, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
         RETURNING id, unique_key
       ),
       wake AS (SELECT pg_notify('${CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM job))
       SELECT input.ord, coalesce(job.id, existing.id) AS id, job.id IS NOT NULL AS created
       FROM input LEFT JOIN job ON job.unique_key = input.unique_key
       LEFT JOIN job_queue existing ON job.id IS NULL AND existing.name = $1 AND existing.unique_key = input.unique_key
       LEFT JOIN wake ON true
       ORDER BY input.ord`,
      [name, JSON.stringify(jobs.map((job) => ({ key: job.uniqueKey, payload: job.payload ?? {}, runAt: job.runAt ? iso(job.runAt) : undefined }))), now, maxAttempts],
    );
    this.loop.committed();
    return rows.map((row) => ({ id: Number(row.id), created: row.created === true }));
  }

  private maxAttemptsOf(name: string): number {
    return this.definitions.get(name)?.maxAttempts ?? this.batchDefinitions.get(name)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }

  /** Deletes jobs that finished before `cutoff` (their unique keys are free again); dead ones stay. */
  async prune(cutoff: Date): Promise<void> {
    await this.options.database.query(`DELETE FROM job_queue WHERE status = 'done' AND finished_at < $1`, [cutoff.toISOString()]);
  }

  async start(): Promise<void> {
    this.stopping = false;
    await this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    try {
      await this.loop.stop();
    } finally {
      this.stopping = false;
    }
  }

  /** Runs everything due now (and what comes due meanwhile), then returns the number of runs (tests). */
  async drain(): Promise<number> {
    return WorkLoop.drain(() => this.runOnce());
  }

  /**
   * One pass: single jobs run in `concurrency` slots, and a slot that frees claims the next due job at once (a slow job
   * holds its own slot, not the others'); each batch-defined name runs up to `concurrency` batches side by side and
   * claims again when they end. The pass ends when no lane finds a due job. Returns the number of jobs run.
   */
  async runOnce(): Promise<number> {
    const names = [...this.definitions.keys()];
    const batchNames = [...this.batchDefinitions.keys()];
    if (names.length === 0 && batchNames.length === 0) return 0;
    const now = this.options.clock.now();
    // A job whose lease ran out on its last allowed attempt is dead: its process died running it each time.
    await this.options.database.query(
      `UPDATE job_queue SET status = 'dead', locked_until = NULL, finished_at = $1, last_error = coalesce(last_error, 'lease expired')
       WHERE status = 'running' AND locked_until < $1 AND attempts >= max_attempts`,
      [iso(now)],
    );
    const lanes = await Promise.all([names.length === 0 ? 0 : this.runSingles(names), ...batchNames.map((name) => this.runBatches(name))]);
    return lanes.reduce((sum, ran) => sum + ran, 0);
  }

  /**
   * Single jobs of `names` in `concurrency` slots. A slot whose job ended claims as many due jobs as slots are free then
   * (one statement, shared by the slots waiting on it), so a claimed job starts at once and never waits behind another.
   */
  private async runSingles(names: string[]): Promise<number> {
    const ready: QueuedJob[] = [];
    let busy = 0;
    let ran = 0;
    let exhausted = false;
    let claiming: Promise<void> | null = null;
    const next = async (): Promise<QueuedJob | undefined> => {
      while (ready.length === 0 && !exhausted && !this.stopping) {
        claiming ??= this.claim(this.options.clock.now(), names, this.concurrency - busy)
          .then((rows) => {
            if (rows.length === 0) exhausted = true;
            ready.push(...rows.map(jobOf));
          })
          .finally(() => {
            claiming = null;
          });
        await claiming;
      }
      return ready.shift();
    };
    const slot = async () => {
      for (let job = await next(); job; job = await next()) {
        busy += 1;
        try {
          await this.run(job);
        } finally {
          busy -= 1;
          ran += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, slot));
    return ran;
  }

  /** Batches of one batch-defined name, `concurrency` side by side, claimed again as long as due jobs remain. */
  private async runBatches(name: string): Promise<number> {
    const { batchSize } = this.batchDefinitions.get(name)!;
    let ran = 0;
    while (!this.stopping) {
      const jobs = (await this.claim(this.options.clock.now(), [name], batchSize * this.concurrency)).map(jobOf);
      if (jobs.length === 0) return ran;
      const chunks: QueuedJob[][] = [];
      // As even as possible: a few due jobs are still spread over the batches run side by side.
      const size = Math.min(batchSize, Math.max(1, Math.ceil(jobs.length / this.concurrency)));
      for (let index = 0; index < jobs.length; index += size) chunks.push(jobs.slice(index, index + size));
      await Promise.all(chunks.map((chunk) => this.runBatch(chunk)));
      ran += jobs.length;
    }
    return ran;
  }

  /**
   * Claims up to `limit` due jobs of `names` (queued and due, or running with an expired lease and attempts left: the
   * next pass dead-letters one without) in one statement.
   */
  private claim(now: Date, names: string[], limit: number): Promise<JobRow[]> {
    return this.options.database.query<JobRow>(
      `UPDATE job_queue SET status = 'running', attempts = attempts + 1, locked_until = $2
       WHERE id IN (
         SELECT id FROM job_queue
         WHERE name = ANY($3::text[])
           AND ((status = 'queued' AND run_at <= $1) OR (status = 'running' AND locked_until < $1 AND attempts < max_attempts))
         ORDER BY run_at, id LIMIT $4
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [iso(now), iso(new Date(now.getTime() + this.leaseMs)), names, limit],
    );
  }

  /** Marks claimed jobs done (those still running on the attempt that claimed them), in `query`'s transaction. */
  private async completeJobs(query: Querier, jobs: readonly QueuedJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await query(
      `UPDATE job_queue j SET status = 'done', locked_until = NULL, finished_at = $3, last_error = NULL
       FROM unnest($1::bigint[], $2::int[]) AS c(id, attempts)
       WHERE j.id = c.id AND j.attempts = c.attempts AND j.status = 'running'`,
      [jobs.map((job) => job.id), jobs.map((job) => job.attempts), iso(this.options.clock.now())],
    );
  }

  private async runBatch(jobs: QueuedJob[]): Promise<void> {
    const definition = this.batchDefinitions.get(jobs[0]!.name)!;
    const byId = new Map(jobs.map((job) => [job.id, job]));
    let failed: ReadonlyMap<number, unknown>;
    try {
      failed = await definition.handle(
        jobs.map((job) => ({
          payload: job.payload as never,
          job: { id: job.id, name: job.name, attempt: job.attempts, maxAttempts: job.maxAttempts, runAt: job.runAt },
        })),
        { complete: (tx, ids) => this.completeJobs(tx, ids.flatMap((id) => byId.get(id) ?? [])) },
      );
    } catch (error) {
      failed = new Map(jobs.map((job) => [job.id, error]));
    }
    try {
      await this.completeJobs(
        this.options.database.query,
        jobs.filter((job) => !failed.has(job.id)),
      );
    } catch (error) {
      // Their leases run out and they run again (their handler is idempotent).
      this.options.log.error('job batch completion failed', { job: jobs[0]!.name, jobs: jobs.length, error: String(error) });
    }
    for (const [id, error] of failed) {
      const job = byId.get(id);
      if (job) await this.fail(job, error);
    }
  }

  private async run(job: QueuedJob): Promise<void> {
    const definition = this.definitions.get(job.name)!;
    try {
      await definition.handle(job.payload as never, { id: job.id, name: job.name, attempt: job.attempts, maxAttempts: job.maxAttempts });
      await this.completeJobs(this.options.database.query, [job]);
    } catch (error) {
      await this.fail(job, error);
    }
  }

  /** A failed run: retried after the backoff, or dead-lettered (last attempt, or a permanent refusal). */
  private async fail(job: QueuedJob, error: unknown): Promise<void> {
    const now = this.options.clock.now();
    const message = error instanceof Error ? error.message : String(error);
    const permanent = (error as { retryable?: unknown } | null)?.retryable === false;
    const dead = permanent || job.attempts >= job.maxAttempts;
    await this.options.database.query(
      `UPDATE job_queue SET status = $3, run_at = $4, locked_until = NULL, last_error = $5, finished_at = $6
       WHERE id = $1 AND status = 'running' AND attempts = $2`,
      [
        job.id,
        job.attempts,
        dead ? 'dead' : 'queued',
        iso(dead ? job.runAt : new Date(now.getTime() + this.backoff(job.attempts))),
        message.slice(0, 2000),
        dead ? iso(now) : null,
      ],
    );
    const fields = { job: job.name, id: job.id, attempt: job.attempts, error: message };
    if (dead) this.options.log.error(permanent ? 'job refused permanently, dead-lettered' : 'job dead-lettered', fields);
    else this.options.log.warn('job failed, retrying', fields);
  }

  /** The delay before retry number `attempts` (1 = the first retry): backoff × 2^(attempts−1), capped. */
  backoff(attempts: number): number {
    return Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempts - 1));
  }

  async get(id: number): Promise<QueuedJob | null> {
    const [row] = await this.options.database.query<JobRow>('SELECT * FROM job_queue WHERE id = $1', [id]);
    return row ? jobOf(row) : null;
  }

  async deadLetters(limit = 100): Promise<QueuedJob[]> {
    const rows = await this.options.database.query<JobRow>(`SELECT * FROM job_queue WHERE status = 'dead' ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(jobOf);
  }

  /** Puts a dead job back in line now with a fresh set of attempts; false when it is not dead. */
  async retryDead(id: number): Promise<boolean> {
    const rows = await this.options.database.query(
      `UPDATE job_queue SET status = 'queued', attempts = 0, run_at = $2, finished_at = NULL
       WHERE id = $1 AND status = 'dead' RETURNING id`,
      [id, iso(this.options.clock.now())],
    );
    if (rows.length > 0) {
      await this.options.database.query(`SELECT pg_notify('${CHANNEL}', '')`);
      this.loop.wake();
    }
    return rows.length > 0;
  }
}
