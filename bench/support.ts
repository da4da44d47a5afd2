import { openFanout } from '../src/lib/fanout';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { demoImei } from '../src/demo/seed';
import { ensurePositionPartitions } from '../src/modules/tracking/service';
import { systemClock } from '../src/lib/clock';
import { loadConfig } from '../src/lib/config';
import { type DatabaseHandle, openPglite, openPostgres } from '../src/lib/db/client';
import { migrate } from '../src/lib/db/migrate';
import { EventBus } from '../src/lib/events';
import { createLogger } from '../src/lib/log';
import { createMailer } from '../src/lib/mail';
import { JobQueue, type JobQueueOptions } from '../src/lib/queue';
import { Outbox } from '../src/lib/outbox';
import type { Platform } from '../src/lib/platform';

/**
 * A fresh benchmark database: a PGlite directory under /tmp (with `keep`, /tmp/fleet-bench-`name` of an earlier run), or a new database `name` (default BENCH_DATABASE_NAME or `fleet_bench`, so
 * that two benchmarks on one server do not drop each other's) on the server of BENCH_DATABASE_URL (or DATABASE_URL),
 * dropped and created for each run.
 */
export async function openBenchDatabase(
  kind: 'pglite' | 'postgres',
  name = process.env.BENCH_DATABASE_NAME ?? 'fleet_bench',
  options: { keep?: boolean } = {},
): Promise<{ database: DatabaseHandle; label: string }> {
  if (kind === 'pglite') {
    // `keep`: the directory named after the database, kept from an earlier run (made when missing).
    const dir = options.keep ? join(tmpdir(), `fleet-bench-${name}`) : mkdtempSync(join(tmpdir(), 'fleet-bench-'));
    if (options.keep) mkdirSync(dir, { recursive: true });
    return { database: await openPglite(dir), label: `PGlite (${dir})` };
  }
  const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('set BENCH_DATABASE_URL (or DATABASE_URL) for the PostgreSQL run, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_DATABASE_NAME (the benchmark database name) must be a plain lower-case name, not ${name}`);
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  // `keep`: an earlier run's database when there is one (its seed is reused), else a new one.
  const exists = options.keep && (await admin.unsafe('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length > 0;
  if (!exists) {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  }
  await admin.end();
  const benchUrl = new URL(url);
  benchUrl.pathname = `/${name}`;
  return { database: await openPostgres(benchUrl.toString(), 8), label: `PostgreSQL (${benchUrl.host})` };
}

/**
 * A platform over the database with quiet logging and the mail server `env` names (none: the embedded outbox); otherwise
 * the product's defaults (raw frames kept), or the job queue's settings a bench asks for.
 */
export async function benchPlatform(
  database: DatabaseHandle,
  env: Record<string, string> = {},
  options: { logLevel?: 'warn' | 'error'; queue?: Pick<JobQueueOptions, 'leaseMs' | 'concurrency' | 'backoffMs'> } = {},
): Promise<Platform> {
  await migrate(database);
  const logLevel = options.logLevel ?? 'warn';
  const config = loadConfig({ LOG_LEVEL: logLevel, ...env });
  const log = createLogger(logLevel);
  const platform: Platform = {
    config,
    database,
    clock: systemClock,
    log,
    events: new EventBus(() => {}),
    outbox: new Outbox({ database, clock: systemClock, log }),
    queue: new JobQueue({ database, clock: systemClock, log, ...options.queue }),
    mailer: createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, database, log }),
    fanout: await openFanout({ natsUrl: config.NATS_URL, database, log }),
  };
  await ensurePositionPartitions(platform);
  return platform;
}

/** One account with `count` Teltonika units whose IMEIs are the demo series; returns their ids. */
export async function seedUnits(database: DatabaseHandle, count: number, offset = 0): Promise<number[]> {
  const [account] = await database.query<{ id: number }>(
    `INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Benchmark fleet') RETURNING id`,
  );
  const imeis = Array.from({ length: count }, (_, i) => demoImei(offset + i));
  const rows = await database.query<{ id: number }>(
    `INSERT INTO units (account_id, imei, name, model, protocol)
     SELECT $1, imei, 'Bench ' || imei, 'FMB920', 'teltonika' FROM unnest($2::text[]) AS imei RETURNING id`,
    [account!.id, imeis],
  );
  return rows.map((row) => row.id);
}

/** Samples this process's RSS every 200 ms and keeps the peak. */
export function rssSampler() {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 200);
  return {
    get peakMiB() {
      return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576);
    },
    stop: () => clearInterval(timer),
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1]! : fallback;
}
