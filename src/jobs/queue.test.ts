import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestDatabase, type TestDatabase } from '../../tests/support/database';
import { ManualClock } from '../lib/clock';
import { createLogger } from '../lib/log';
import { JobQueue, PermanentJobError } from '../lib/queue';

let database: TestDatabase;
const clock = new ManualClock('2026-03-02T08:00:00Z');
const log = createLogger('silent');

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.dispose();
});

test('a job runs now or at its time; a unique key makes enqueueing again a no-op', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log });
  const ran: string[] = [];
  queue.define<{ label: string }>('test.record', async (payload) => {
    ran.push(payload.label);
  });

  await queue.enqueue(null, 'test.record', { label: 'now' });
  const later = await queue.enqueue(null, 'test.record', { label: 'at nine' }, { runAt: new Date('2026-03-02T09:00:00Z'), uniqueKey: 'check-0900' });
  const again = await queue.enqueue(null, 'test.record', { label: 'at nine, again' }, { runAt: new Date('2026-03-02T09:00:00Z'), uniqueKey: 'check-0900' });
  expect(later.created).toBe(true);
  expect(again).toEqual({ id: later.id, created: false });
  // Enqueued in a transaction that rolls back: never there.
  await expect(
    database.handle.transaction(async (tx) => {
      await queue.enqueue(tx, 'test.record', { label: 'rolled back' });
      throw new Error('the change fails');
    }),
  ).rejects.toThrow('the change fails');

  await queue.drain();
  expect(ran).toEqual(['now']);
  clock.set('2026-03-02T08:59:59Z');
  await queue.drain();
  expect(ran).toEqual(['now']);
  clock.set('2026-03-02T09:00:00Z');
  await queue.drain();
  expect(ran).toEqual(['now', 'at nine']);
  expect((await queue.get(later.id))!.status).toBe('done');
  // Done stays done: the same key enqueued after the run is still the one job.
  expect((await queue.enqueue(null, 'test.record', { label: 'late' }, { uniqueKey: 'check-0900' })).created).toBe(false);
  await queue.drain();
  expect(ran).toEqual(['now', 'at nine']);
});

test('a failing job is retried with exponential backoff up to its limit, dead-lettered, then retried by hand', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log, backoffMs: 10_000 });
  let failing = true;
  const attempts: number[] = [];
  queue.define(
    'test.flaky',
    async (_payload, job) => {
      attempts.push(job.attempt);
      if (failing) throw new Error('503 from the provider');
    },
    { maxAttempts: 3 },
  );
  const { id } = await queue.enqueue(null, 'test.flaky', {});
  await queue.drain();
  expect(attempts).toEqual([1]);
  let job = (await queue.get(id))!;
  expect(job.status).toBe('queued');
  expect(job.runAt.getTime() - clock.now().getTime()).toBe(10_000);
  expect(job.lastError).toBe('503 from the provider');

  clock.advance(9_999);
  await queue.drain();
  expect(attempts).toEqual([1]);
  clock.advance(1);
  await queue.drain();
  expect(attempts).toEqual([1, 2]);
  job = (await queue.get(id))!;
  expect(job.runAt.getTime() - clock.now().getTime()).toBe(20_000);
  clock.advance(20_000);
  await queue.drain();
  expect(attempts).toEqual([1, 2, 3]);
  job = (await queue.get(id))!;
  expect(job.status).toBe('dead');
  expect(job.attempts).toBe(3);
  clock.advance(86_400_000);
  await queue.drain();
  expect(attempts).toEqual([1, 2, 3]);
  expect((await queue.deadLetters()).map((dead) => dead.id)).toContain(id);

  failing = false;
  expect(await queue.retryDead(id)).toBe(true);
  expect(await queue.retryDead(id)).toBe(false);
  await queue.drain();
  expect(attempts).toEqual([1, 2, 3, 1]);
  expect((await queue.get(id))!.status).toBe('done');
  expect((await queue.deadLetters()).map((dead) => dead.id)).not.toContain(id);
});

test('a permanent refusal is dead at once, without retries', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log });
  let runs = 0;
  queue.define('test.refused', async () => {
    runs += 1;
    throw new PermanentJobError('invalid number');
  });
  const { id } = await queue.enqueue(null, 'test.refused', {});
  await queue.drain();
  clock.advance(3_600_000);
  await queue.drain();
  expect(runs).toBe(1);
  const job = (await queue.get(id))!;
  expect(job.status).toBe('dead');
  expect(job.lastError).toBe('invalid number');
});

test('a job whose process died while running it runs again once its lease is out', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log, leaseMs: 60_000 });
  let runs = 0;
  queue.define('test.leased', async () => {
    runs += 1;
  });
  const { id } = await queue.enqueue(null, 'test.leased', {});
  // Claimed by a process that then died: running, with a lease.
  await database.handle.query(`UPDATE job_queue SET status = 'running', attempts = 1, locked_until = $2 WHERE id = $1`, [
    id,
    new Date(clock.now().getTime() + 60_000).toISOString(),
  ]);
  await queue.drain();
  expect(runs).toBe(0);
  clock.advance(60_001);
  await queue.drain();
  expect(runs).toBe(1);
  const job = (await queue.get(id))!;
  expect(job.status).toBe('done');
  expect(job.attempts).toBe(2);
});

test('a freed slot claims the next job at once: a slow job holds its own slot, not the others', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log, concurrency: 2 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ran: string[] = [];
  queue.define<{ key: string }>('test.slots', async ({ key }) => {
    if (key === 'slow') await released;
    ran.push(key);
  });
  await queue.enqueue(null, 'test.slots', { key: 'slow' });
  for (let n = 1; n <= 6; n++) await queue.enqueue(null, 'test.slots', { key: `quick-${n}` });
  const pass = queue.runOnce();
  // The six quick jobs go through the second slot while the slow one still holds the first.
  const deadline = Date.now() + 30_000;
  while (ran.length < 6 && Date.now() < deadline) await Bun.sleep(10);
  expect(ran.toSorted()).toEqual(['quick-1', 'quick-2', 'quick-3', 'quick-4', 'quick-5', 'quick-6']);
  release();
  expect(await pass).toBe(7);
  expect(ran.at(-1)).toBe('slow');
  expect(await queue.drain()).toBe(0);
});

test('stopping a queue in the middle of a pass claims nothing more: the jobs not yet claimed stay queued', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log, concurrency: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = false;
  queue.define<{ key: string }>('test.stopping', async ({ key }) => {
    if (key === 'first') {
      started = true;
      await released;
    }
  });
  await queue.enqueue(null, 'test.stopping', { key: 'first' });
  const { id: second } = await queue.enqueue(null, 'test.stopping', { key: 'second' });
  await queue.start();
  const deadline = Date.now() + 30_000;
  while (!started && Date.now() < deadline) await Bun.sleep(10);
  expect(started).toBe(true);
  const stopped = queue.stop();
  release();
  await stopped;
  expect((await queue.get(second))!.status).toBe('queued');
  expect(await queue.drain()).toBe(1);
});

describe('batches', () => {
  test('due jobs of a batch name are claimed in batches; two processes run each one once, completed in the work\'s transaction', async () => {
    const keys = Array.from({ length: 250 }, (_, index) => `vehicle-${index}`);
    const first = new JobQueue({ database: database.handle, clock, log, concurrency: 3 });
    const second = new JobQueue({ database: database.handle, clock, log, concurrency: 3 });
    const ran: string[] = [];
    const sizes: number[] = [];
    for (const queue of [first, second]) {
      queue.defineBatch<{ key: string }>(
        'test.batch',
        async (jobs, batch) => {
          sizes.push(jobs.length);
          await database.handle.transaction(async (tx) => {
            await tx('SELECT 1');
            await batch.complete(
              tx,
              jobs.map((job) => job.job.id),
            );
          });
          for (const job of jobs) ran.push(job.payload.key);
          return new Map();
        },
        { batchSize: 40 },
      );
    }
    const created = await first.enqueueMany(
      null,
      'test.batch',
      keys.map((key) => ({ payload: { key }, uniqueKey: key, runAt: clock.now() })),
    );
    expect(created.filter((job) => job.created).length).toBe(250);
    // Enqueueing the same keys again adds nothing; a not-yet-due one waits.
    expect((await first.enqueueMany(null, 'test.batch', keys.slice(0, 10).map((key) => ({ payload: { key }, uniqueKey: key })))).filter((job) => job.created)).toEqual([]);
    await first.enqueue(null, 'test.batch', { key: 'later' }, { uniqueKey: 'later', runAt: new Date(clock.now().getTime() + 60_000) });

    await Promise.all([first.drain(), second.drain(), first.drain()]);
    expect(ran.toSorted()).toEqual(keys.toSorted());
    expect(Math.max(...sizes)).toBeLessThanOrEqual(40);
    expect(sizes.length).toBeLessThan(250); // batches, not one by one
    const [counts] = await database.handle.query<{ done: number; other: number }>(
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status <> 'done')::int AS other
       FROM job_queue WHERE name = 'test.batch'`,
    );
    expect(counts).toEqual({ done: 250, other: 1 });
    clock.advance(60_000);
    await second.drain();
    expect(ran.at(-1)).toBe('later');
  });

  test('a poisoned job among good ones fails alone: retried with backoff, then dead; the others are done', async () => {
    const queue = new JobQueue({ database: database.handle, clock, log, backoffMs: 10_000 });
    const ran: string[] = [];
    queue.defineBatch<{ key: string }>(
      'test.poisoned',
      async (jobs) => {
        const failed = new Map<number, unknown>();
        for (const job of jobs) {
          if (job.payload.key === 'poison') failed.set(job.job.id, new Error(`bad record at attempt ${job.job.attempt}`));
          else ran.push(job.payload.key);
        }
        return failed;
      },
      { maxAttempts: 2 },
    );
    await queue.enqueueMany(
      null,
      'test.poisoned',
      ['a', 'poison', 'b', 'c'].map((key) => ({ payload: { key }, uniqueKey: key })),
    );
    await queue.drain();
    expect(ran.toSorted()).toEqual(['a', 'b', 'c']);
    const rows = await database.handle.query<{ key: string; status: string; last_error: string | null }>(
      `SELECT payload->>'key' AS key, status, last_error FROM job_queue WHERE name = 'test.poisoned' ORDER BY id`,
    );
    expect(rows).toEqual([
      { key: 'a', status: 'done', last_error: null },
      { key: 'poison', status: 'queued', last_error: 'bad record at attempt 1' },
      { key: 'b', status: 'done', last_error: null },
      { key: 'c', status: 'done', last_error: null },
    ]);
    clock.advance(10_000);
    await queue.drain();
    expect(ran.toSorted()).toEqual(['a', 'b', 'c']);
    const [poison] = await database.handle.query<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM job_queue WHERE name = 'test.poisoned' AND payload->>'key' = 'poison'`,
    );
    expect(poison).toEqual({ status: 'dead', attempts: 2 });
  });

  test('a batch whose handler throws is retried whole; a batch whose process died runs again after its lease', async () => {
    const queue = new JobQueue({ database: database.handle, clock, log, backoffMs: 1_000, leaseMs: 60_000 });
    let throwing = true;
    const ran: string[] = [];
    queue.defineBatch<{ key: string }>('test.thrown', async (jobs) => {
      if (throwing) throw new Error('database went away');
      for (const job of jobs) ran.push(`${job.payload.key}#${job.job.attempt}`);
      return new Map();
    });
    await queue.enqueueMany(
      null,
      'test.thrown',
      ['x', 'y'].map((key) => ({ payload: { key }, uniqueKey: key })),
    );
    await queue.drain();
    expect(ran).toEqual([]);
    throwing = false;
    clock.advance(1_000);
    await queue.drain();
    expect(ran.toSorted()).toEqual(['x#2', 'y#2']);

    // Claimed by a process that then died.
    await queue.enqueue(null, 'test.thrown', { key: 'z' });
    await database.handle.query(
      `UPDATE job_queue SET status = 'running', attempts = 1, locked_until = $1 WHERE name = 'test.thrown' AND payload->>'key' = 'z'`,
      [new Date(clock.now().getTime() + 60_000).toISOString()],
    );
    await queue.drain();
    expect(ran).toHaveLength(2);
    clock.advance(60_001);
    await queue.drain();
    expect(ran.at(-1)).toBe('z#2');
  });
});

test('a started queue is woken by the enqueue, not by its polling interval', async () => {
  const queue = new JobQueue({ database: database.handle, clock, log, pollMs: 600_000 });
  let done: () => void = () => {};
  const ran = new Promise<void>((resolve) => {
    done = resolve;
  });
  queue.define('test.wake', async () => done());
  await queue.start();
  try {
    await Bun.sleep(50);
    await queue.enqueue(null, 'test.wake', {});
    // Polled every 10 minutes: running within a generous 30 s deadline can only be the enqueue's wake-up.
    const woken = await Promise.race([ran.then(() => true), Bun.sleep(30_000).then(() => false)]);
    expect(woken).toBe(true);
  } finally {
    await queue.stop();
  }
});

test('delivered events and finished jobs are pruned after 30 days; pending, dead and recent ones stay', async () => {
  const { platformJobs } = await import('.');
  const { loadConfig } = await import('../lib/config');
  const { Outbox } = await import('../lib/outbox');
  const outbox = new Outbox({ database: database.handle, clock, log });
  const queue = new JobQueue({ database: database.handle, clock, log });
  const retention = platformJobs({ database: database.handle, clock, log, config: loadConfig({}), outbox, queue } as never).find(
    (job) => job.name === 'outbox-and-queue.retention',
  )!;
  const old = new Date(clock.now().getTime() - 31 * 86_400_000).toISOString();
  const recent = new Date(clock.now().getTime() - 29 * 86_400_000).toISOString();
  const event = async (createdAt: string, status: string | null) => {
    const [row] = await database.handle.query<{ id: string }>(
      `INSERT INTO outbox_events (type, payload, created_at) VALUES ('retention.test', '{}', $1) RETURNING id`,
      [createdAt],
    );
    if (status) await database.handle.query(`INSERT INTO outbox_deliveries (event_id, subscriber, status) VALUES ($1, 'retention', $2)`, [row!.id, status]);
    return Number(row!.id);
  };
  const oldDone = await event(old, 'done');
  const oldPending = await event(old, 'pending');
  const oldDead = await event(old, 'dead');
  const recentDone = await event(recent, 'done');
  const job = async (status: string, finishedAt: string) => {
    const [row] = await database.handle.query<{ id: string }>(
      `INSERT INTO job_queue (name, status, run_at, max_attempts, finished_at) VALUES ('retention.test', $1, $2, 1, $2) RETURNING id`,
      [status, finishedAt],
    );
    return Number(row!.id);
  };
  const oldFinished = await job('done', old);
  const oldDeadJob = await job('dead', old);
  const recentFinished = await job('done', recent);

  await retention.run();
  const events = (await database.handle.query<{ id: string }>(`SELECT id FROM outbox_events WHERE type = 'retention.test'`)).map((row) => Number(row.id));
  expect(events.sort((x, y) => x - y)).toEqual([oldPending, oldDead, recentDone]);
  expect(events).not.toContain(oldDone);
  const jobs = (await database.handle.query<{ id: string }>(`SELECT id FROM job_queue WHERE name = 'retention.test'`)).map((row) => Number(row.id));
  expect(jobs.sort((x, y) => x - y)).toEqual([oldDeadJob, recentFinished]);
  expect(jobs).not.toContain(oldFinished);
});
