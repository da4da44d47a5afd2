import { afterAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { type DatabaseHandle, openPglite, openPostgres } from '../../src/lib/db/client';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { collectLines } from '../support/instances';

/**
 * The outbox across real processes (tests/support/outbox-process.ts runs the product's outbox):
 * killed with SIGKILL between the commit and the delivery, and inside a delivery, a restarted process
 * delivers every event with its effect once; two processes on one PostgreSQL never run one delivery twice.
 */
const SCRIPT = join(import.meta.dir, '../support/outbox-process.ts');
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const database of databases) await database.dispose();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  await database.handle.exec('CREATE TABLE test_effects (event_id bigint NOT NULL, n integer NOT NULL, process text NOT NULL)');
  return database;
}

/** A child process and the lines it has printed so far. */
function spawn(database: TestDatabase, env: Record<string, string>) {
  const location =
    database.location.kind === 'pglite' ? { OUTBOX_PGLITE_DIR: database.location.dir } : { OUTBOX_POSTGRES_URL: database.location.url };
  const child: Subprocess<'ignore', 'pipe', 'inherit'> = Bun.spawn(['bun', SCRIPT], {
    env: { ...process.env, ...location, ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const { lines, reading } = collectLines(child.stdout);
  return {
    child,
    lines,
    async waitFor(line: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!lines.includes(line)) {
        if (Date.now() > deadline) throw new Error(`the process did not print "${line}" within ${timeoutMs} ms (printed ${lines.slice(-5).join(' | ')})`);
        if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode} before printing "${line}"`);
        await Bun.sleep(20);
      }
    },
    async kill(signal: 'SIGKILL' | 'SIGTERM') {
      child.kill(signal);
      await child.exited;
      await reading;
    },
  };
}

async function withHandle<T>(database: TestDatabase, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = database.location.kind === 'pglite' ? await openPglite(database.location.dir) : await openPostgres(database.location.url, 1);
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

async function waitUntilDelivered(database: TestDatabase, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await withHandle(database, (handle) =>
      handle.query<{ done: number }>(`SELECT count(*)::int AS done FROM outbox_deliveries WHERE status = 'done'`),
    );
    if (row!.done >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.done} of ${count} deliveries done within ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

test('killed between the commit and the delivery, and again inside a delivery: after a restart every event is delivered, its effect once', async () => {
  const database = await freshDatabase();
  // The embedded database belongs to one process at a time: the children open it, this test only between them.
  await database.handle.close();

  // 1. Twenty events committed, then the process dies before any is delivered.
  const publisher = spawn(database, { OUTBOX_MODE: 'publish', OUTBOX_COUNT: '20' });
  await publisher.waitFor('committed');
  await publisher.kill('SIGKILL');

  // 2. A dispatcher writes the first delivery's effect and dies before that transaction commits.
  const doomed = spawn(database, { OUTBOX_MODE: 'dispatch', OUTBOX_HANG: '1', OUTBOX_NAME: 'doomed' });
  await doomed.waitFor('hanging');
  await doomed.kill('SIGKILL');
  await withHandle(database, async (handle) => {
    const [row] = await handle.query<{ n: number }>('SELECT count(*)::int AS n FROM test_effects');
    expect(row!.n).toBe(0); // the killed delivery's effect went with its transaction
  });

  // 3. Restarted: every event delivered, each effect exactly once.
  const survivor = spawn(database, { OUTBOX_MODE: 'dispatch', OUTBOX_NAME: 'survivor' });
  await survivor.waitFor('started');
  if (database.location.kind === 'postgres') await waitUntilDelivered(database, 20);
  else {
    // PGlite is this child's alone while it runs: wait for its twenty deliveries in what it prints.
    const deadline = Date.now() + 30_000;
    while (survivor.lines.filter((line) => line.startsWith('handled ')).length < 20 && Date.now() < deadline) await Bun.sleep(50);
  }
  await survivor.kill('SIGTERM');
  await withHandle(database, async (handle) => {
    const effects = await handle.query<{ n: number; process: string }>('SELECT n, process FROM test_effects ORDER BY n');
    expect(effects.map((row) => row.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(new Set(effects.map((row) => row.process))).toEqual(new Set(['survivor']));
    const [deliveries] = await handle.query<{ done: number; total: number }>(
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*)::int AS total FROM outbox_deliveries`,
    );
    expect(deliveries).toEqual({ done: 20, total: 20 });
  });
}, 180_000);

test.skipIf(process.env.TEST_DB !== 'postgres')('two processes on one PostgreSQL share the deliveries and never run one twice', async () => {
  const database = await freshDatabase();
  const first = spawn(database, { OUTBOX_MODE: 'dispatch', OUTBOX_NAME: 'first', OUTBOX_BATCH: '25' });
  const second = spawn(database, { OUTBOX_MODE: 'dispatch', OUTBOX_NAME: 'second', OUTBOX_BATCH: '25' });
  await first.waitFor('started');
  await second.waitFor('started');

  // 2,000 events from this process, in 40 transactions of 50, while both dispatchers run.
  const { Outbox } = await import('../../src/lib/outbox');
  const { createLogger } = await import('../../src/lib/log');
  const { systemClock } = await import('../../src/lib/clock');
  const outbox = new Outbox<{ 'test.happened': { n: number } }>({ database: database.handle, clock: systemClock, log: createLogger('silent') });
  for (let batch = 0; batch < 40; batch++) {
    await database.handle.transaction((tx) =>
      outbox.publishMany(tx, Array.from({ length: 50 }, (_, i) => ({ type: 'test.happened' as const, payload: { n: batch * 50 + i } }))),
    );
  }
  await waitUntilDelivered(database, 2_000);
  await first.kill('SIGTERM');
  await second.kill('SIGTERM');

  const handled = [...first.lines, ...second.lines].filter((line) => line.startsWith('handled '));
  expect(handled.length).toBe(2_000); // every subscriber call, in either process: none twice
  expect(new Set(handled).size).toBe(2_000);
  const effects = await database.handle.query<{ process: string; n: number }>(`SELECT process, count(*)::int AS n FROM test_effects GROUP BY process`);
  const byProcess = Object.fromEntries(effects.map((row) => [row.process, row.n]));
  expect((byProcess.first ?? 0) + (byProcess.second ?? 0)).toBe(2_000);
  expect(byProcess.first).toBeGreaterThan(0);
  expect(byProcess.second).toBeGreaterThan(0);
  const [distinct] = await database.handle.query<{ n: number }>('SELECT count(DISTINCT event_id)::int AS n FROM test_effects');
  expect(distinct!.n).toBe(2_000);
}, 180_000);
