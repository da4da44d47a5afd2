import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestDatabase, type TestDatabase } from '../../../tests/support/database';
import { ManualClock } from '../clock';
import { openPostgres } from '../db/client';
import { createLogger } from '../log';
import { Outbox } from '.';

interface TestEvents {
  'order.placed': { orderId: number; note: string };
  'order.cancelled': { orderId: number };
}

let database: TestDatabase;
const clock = new ManualClock('2026-03-02T08:00:00Z');
const log = createLogger('silent');

beforeAll(async () => {
  database = await createTestDatabase();
  await database.handle.exec('CREATE TABLE test_effects (event_id bigint NOT NULL, subscriber text NOT NULL, note text)');
}, 240_000);
afterAll(async () => {
  await database?.dispose();
});

async function effects(subscriber: string): Promise<Array<{ event_id: number; note: string | null }>> {
  const rows = await database.handle.query<{ event_id: string; note: string | null }>(
    'SELECT event_id, note FROM test_effects WHERE subscriber = $1 ORDER BY event_id',
    [subscriber],
  );
  return rows.map((row) => ({ event_id: Number(row.event_id), note: row.note }));
}

test('an event is delivered once its transaction commits, and never when it rolls back', async () => {
  const outbox = new Outbox<TestEvents>({ database: database.handle, clock, log });
  outbox.subscribe('order.placed', 'commit.effects', async (event, tx) => {
    await tx('INSERT INTO test_effects (event_id, subscriber, note) VALUES ($1, $2, $3)', [event.id, 'commit.effects', event.payload.note]);
  });
  await outbox.register();

  await database.handle.transaction(async (tx) => {
    await outbox.publish(tx, 'order.placed', { orderId: 1, note: 'kept' });
  });
  await expect(
    database.handle.transaction(async (tx) => {
      await outbox.publish(tx, 'order.placed', { orderId: 2, note: 'rolled back' });
      throw new Error('the change fails');
    }),
  ).rejects.toThrow('the change fails');

  expect(await outbox.drain()).toBe(1);
  expect((await effects('commit.effects')).map((row) => row.note)).toEqual(['kept']);
  // Delivered is delivered: nothing more to hand out.
  expect(await outbox.drain()).toBe(0);
  expect((await effects('commit.effects')).length).toBe(1);
});

test('every subscriber of a type gets each event; other types are not handed to it', async () => {
  const outbox = new Outbox<TestEvents>({ database: database.handle, clock, log });
  const seen: string[] = [];
  outbox.subscribe('order.cancelled', 'fanout.a', async (event) => {
    seen.push(`a:${event.payload.orderId}`);
  });
  outbox.subscribe('order.cancelled', 'fanout.b', async (event) => {
    seen.push(`b:${event.payload.orderId}`);
  });
  await outbox.register();
  await database.handle.transaction(async (tx) => {
    await outbox.publishMany(tx, [
      { type: 'order.cancelled', payload: { orderId: 7 } },
      { type: 'order.placed', payload: { orderId: 8, note: '' } },
      { type: 'order.cancelled', payload: { orderId: 9 } },
    ]);
  });
  await outbox.drain();
  expect(seen.sort()).toEqual(['a:7', 'a:9', 'b:7', 'b:9']);
});

test('a failing subscriber is retried with exponential backoff, dead-lettered after the limit, then retried by hand', async () => {
  const outbox = new Outbox<TestEvents>({ database: database.handle, clock, log, maxAttempts: 4, backoffMs: 1_000 });
  let failing = true;
  let calls = 0;
  outbox.subscribe('order.placed', 'flaky.effects', async (event, tx) => {
    calls += 1;
    await tx('INSERT INTO test_effects (event_id, subscriber, note) VALUES ($1, $2, $3)', [event.id, 'flaky.effects', 'written']);
    if (failing) throw new Error('the receiver is down');
  });
  // A healthy subscriber of the same event is not held back by the failing one.
  outbox.subscribe('order.placed', 'healthy.effects', async (event, tx) => {
    await tx('INSERT INTO test_effects (event_id, subscriber, note) VALUES ($1, $2, $3)', [event.id, 'healthy.effects', 'written']);
  });
  await outbox.register();
  await database.handle.transaction(async (tx) => {
    await outbox.publish(tx, 'order.placed', { orderId: 3, note: 'retry me' });
  });

  const delivery = async () => {
    const [row] = await database.handle.query<{ status: string; attempts: number; next_attempt_at: Date | string | null; last_error: string | null }>(
      `SELECT status, attempts, next_attempt_at, last_error FROM outbox_deliveries WHERE subscriber = 'flaky.effects'`,
    );
    return row!;
  };

  // Attempt 1 fails; the retries come due after 1 s, 2 s and 4 s, not before.
  await outbox.drain();
  expect(calls).toBe(1);
  expect((await effects('healthy.effects')).length).toBe(1);
  for (const [attempt, delayMs] of [
    [2, 1_000],
    [3, 2_000],
    [4, 4_000],
  ] as const) {
    const before = await delivery();
    expect(before.status).toBe('pending');
    expect(new Date(before.next_attempt_at!).getTime() - clock.now().getTime()).toBe(delayMs);
    clock.advance(delayMs - 1);
    await outbox.drain();
    expect(calls).toBe(attempt - 1); // not yet due
    clock.advance(1);
    await outbox.drain();
    expect(calls).toBe(attempt);
  }
  const dead = await delivery();
  expect(dead.status).toBe('dead');
  expect(dead.attempts).toBe(4);
  expect(dead.last_error).toBe('the receiver is down');
  // The failed attempts' effects were rolled back with them.
  expect((await effects('flaky.effects')).length).toBe(0);
  clock.advance(3_600_000);
  await outbox.drain();
  expect(calls).toBe(4); // a dead letter is not retried by itself

  const letters = await outbox.deadLetters();
  const letter = letters.find((one) => one.subscriber === 'flaky.effects')!;
  expect(letter.type).toBe('order.placed');
  expect(letter.payload).toEqual({ orderId: 3, note: 'retry me' });
  expect(letter.lastError).toBe('the receiver is down');

  failing = false;
  expect(await outbox.retryDead(letter.eventId, 'flaky.effects')).toBe(true);
  expect(await outbox.retryDead(letter.eventId, 'flaky.effects')).toBe(false); // no longer dead
  await outbox.drain();
  expect(calls).toBe(5);
  expect((await effects('flaky.effects')).length).toBe(1);
  expect((await delivery()).status).toBe('done');
  expect((await effects('healthy.effects')).length).toBe(1);
});

test('a running dispatcher is woken by the commit, not by its polling interval', async () => {
  const outbox = new Outbox<TestEvents>({ database: database.handle, clock, log, pollMs: 600_000 });
  const delivered: number[] = [];
  let wake: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    wake = resolve;
  });
  outbox.subscribe('order.placed', 'wake.effects', async (event) => {
    delivered.push(event.payload.orderId);
    wake();
  });
  await outbox.register();
  await outbox.start();
  try {
    await outbox.drain(); // what earlier tests left for this subscriber: nothing
    await Bun.sleep(50);
    // On PostgreSQL the publisher is another connection pool, so only NOTIFY can wake this dispatcher.
    const publisher = database.location.kind === 'postgres' ? await openPostgres(database.location.url, 1) : database.handle;
    const publishingOutbox = new Outbox<TestEvents>({ database: publisher, clock, log });
    await publisher.transaction(async (tx) => {
      await publishingOutbox.publish(tx, 'order.placed', { orderId: 42, note: 'wake up' });
    });
    // Polled every 10 minutes: a delivery within a generous 30 s deadline can only be the commit's wake-up.
    await Promise.race([arrived, Bun.sleep(30_000)]);
    expect(delivered).toEqual([42]);
    if (publisher !== database.handle) await publisher.close();
  } finally {
    await outbox.stop();
  }
});

test('a batch subscriber gets a pass’s events at once; a failing event is found one at a time and only it waits', async () => {
  const outbox = new Outbox<TestEvents>({ database: database.handle, clock, log, backoffMs: 60_000 });
  const calls: number[][] = [];
  outbox.subscribeMany('order.cancelled', 'batch.effects', async (events, tx) => {
    calls.push(events.map((event) => event.payload.orderId));
    if (events.some((event) => event.payload.orderId === 13)) throw new Error('order 13 cannot be handled');
    for (const event of events) await tx('INSERT INTO test_effects (event_id, subscriber, note) VALUES ($1, $2, $3)', [event.id, 'batch.effects', String(event.payload.orderId)]);
  });
  await outbox.register();
  await database.handle.transaction((tx) => outbox.publishMany(tx, [1, 2, 3].map((orderId) => ({ type: 'order.cancelled' as const, payload: { orderId } }))));
  expect(await outbox.dispatchOnce()).toBe(3);
  expect(calls).toEqual([[1, 2, 3]]);
  expect((await effects('batch.effects')).map((row) => row.note)).toEqual(['1', '2', '3']);

  // A batch with a failing event: rolled back whole, then handed one at a time; the failure is recorded against 13 alone.
  calls.length = 0;
  await database.handle.transaction((tx) => outbox.publishMany(tx, [12, 13, 14].map((orderId) => ({ type: 'order.cancelled' as const, payload: { orderId } }))));
  await outbox.drain();
  // The batch fails; one at a time 12 passes and 13 fails (rolling 12 back with it); then 12 and 14 as a batch again.
  expect(calls).toEqual([[12, 13, 14], [12], [13], [12, 14]]);
  expect((await effects('batch.effects')).map((row) => row.note)).toEqual(['1', '2', '3', '12', '14']);
  const [failed] = await database.handle.query<{ attempts: number; status: string }>(
    `SELECT d.attempts, d.status FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
     WHERE d.subscriber = 'batch.effects' AND e.payload->>'orderId' = '13'`,
  );
  expect(failed).toMatchObject({ attempts: 1, status: 'pending' });
});
