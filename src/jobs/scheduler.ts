import type { DatabaseHandle } from '../lib/db/client';
import type { Logger } from '../lib/log';

export interface JobDefinition {
  name: string;
  intervalSeconds: number;
  /** Must be idempotent: a crash mid-run means the next claim runs it again. */
  run(): Promise<void>;
}

/**
 * A PostgreSQL-backed scheduler: due jobs are claimed with FOR UPDATE SKIP LOCKED and a lease, so two
 * instances never run the same job at once and a crashed run is retried when its lease runs out.
 */
export class JobScheduler {
  private timer: ReturnType<typeof setInterval> | null = null;
  private ticking = false;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly jobs: JobDefinition[],
    private readonly log: Logger,
  ) {}

  async register(): Promise<void> {
    for (const job of this.jobs) {
      await this.database.query(
        `INSERT INTO scheduled_jobs (name, interval_seconds, next_run_at) VALUES ($1, $2, now())
         ON CONFLICT (name) DO UPDATE SET interval_seconds = EXCLUDED.interval_seconds`,
        [job.name, job.intervalSeconds],
      );
    }
  }

  start(pollMs = 15_000): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), pollMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Runs every job that is due now; returns the names run. */
  async tick(): Promise<string[]> {
    if (this.ticking) return [];
    this.ticking = true;
    const ran: string[] = [];
    try {
      for (;;) {
        const [claimed] = await this.database.query<{ name: string }>(
          `UPDATE scheduled_jobs SET locked_until = now() + interval '10 minutes', last_started_at = now()
           WHERE name = (SELECT name FROM scheduled_jobs
                         WHERE next_run_at <= now() AND (locked_until IS NULL OR locked_until < now()) AND name = ANY($1::text[])
                         ORDER BY next_run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING name`,
          [this.jobs.map((j) => j.name)],
        );
        if (!claimed) break;
        const job = this.jobs.find((j) => j.name === claimed.name)!;
        let error: string | null = null;
        try {
          await job.run();
        } catch (cause) {
          error = String(cause);
          this.log.error('job failed', { job: job.name, error });
        }
        await this.database.query(
          `UPDATE scheduled_jobs SET locked_until = NULL, last_finished_at = now(), last_error = $2,
             next_run_at = now() + make_interval(secs => interval_seconds) WHERE name = $1`,
          [job.name, error],
        );
        ran.push(job.name);
      }
    } finally {
      this.ticking = false;
    }
    return ran;
  }
}
