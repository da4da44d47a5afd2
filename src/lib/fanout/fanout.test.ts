import { afterEach, describe, expect, test } from 'bun:test';
import { createTestDatabase } from '../../../tests/support/database';
import { waitFor } from '../../../tests/support/wait';
import { type DatabaseHandle, openPostgres } from '../db/client';
import { createLogger } from '../log';
import { type Fanout, type FanoutDelivery, openFanout, signalParts } from '.';

const log = createLogger('silent');
const POSTGRES = process.env.TEST_DB === 'postgres';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

async function natsUp(): Promise<boolean> {
  const { hostname, port } = new URL(NATS_URL);
  try {
    const socket = await Bun.connect({ hostname, port: Number(port || 4222), socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}
const NATS = POSTGRES && (await natsUp());
if (POSTGRES && !NATS) console.log(`fan-out over NATS not tested: no NATS server at ${NATS_URL}`);

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  cleanup = [];
});

function collect<T>(fanout: Fanout, topic: string): Array<FanoutDelivery<T>> {
  const received: Array<FanoutDelivery<T>> = [];
  fanout.subscribe<T>(topic, (delivery) => received.push(delivery));
  return received;
}

/** Two instances' fan-outs over one database (two connections, as two processes have). */
async function twoInstances(natsUrl?: string): Promise<{ one: Fanout; two: Fanout; database: DatabaseHandle; url: string }> {
  const database = await createTestDatabase();
  cleanup.push(() => database.dispose());
  if (database.location.kind !== 'postgres') throw new Error('PostgreSQL only');
  const second = await openPostgres(database.location.url, 2);
  cleanup.push(() => second.close());
  const one = await openFanout({ natsUrl, database: database.handle, log });
  const two = await openFanout({ natsUrl, database: second, log });
  cleanup.push(
    () => one.stop(),
    () => two.stop(),
  );
  return { one, two, database: database.handle, url: database.location.url };
}

test('a long signal is cut at its commas into parts that fit a NOTIFY', () => {
  const ids = Array.from({ length: 3000 }, (_, i) => String(100_000 + i));
  const parts = signalParts(ids.join(','), 7000);
  expect(parts.length).toBeGreaterThan(1);
  for (const part of parts) expect(part.length).toBeLessThanOrEqual(7000);
  expect(parts.join(',').split(',')).toEqual(ids);
  expect(signalParts('1,2,3')).toEqual(['1,2,3']);
});

test.skipIf(POSTGRES)('on the embedded database there is no other instance: a signal on commit reaches this one, after the commit only', async () => {
  const database = await createTestDatabase();
  cleanup.push(() => database.dispose());
  const fanout = await openFanout({ database: database.handle, log });
  cleanup.push(() => fanout.stop());
  expect(fanout.kind).toBe('local');
  const received = collect<unknown>(fanout, 'alarms');
  fanout.publish('alarms', { whole: true }, '7');
  await database.handle.transaction(async (tx) => {
    await fanout.signalOnCommit(tx, 'alarms', '8');
    expect(received).toEqual([]);
  });
  await waitFor('the committed signal', () => received.length === 1);
  await database.handle
    .transaction(async (tx) => {
      await fanout.signalOnCommit(tx, 'alarms', '9');
      throw new Error('rolled back');
    })
    .catch(() => {});
  await Bun.sleep(300);
  expect(received).toEqual([{ signal: '8' }]);
});

describe.skipIf(!POSTGRES)('two instances on one PostgreSQL database', () => {
  test('over NOTIFY: what one publishes reaches the other as its signal, and a signal on commit reaches both', async () => {
    const { one, two, database } = await twoInstances();
    expect(one.kind).toBe('postgres');
    const atOne = collect<unknown>(one, 'unit.states');
    const atTwo = collect<unknown>(two, 'unit.states');
    one.publish('unit.states', [{ unitId: 4 }, { unitId: 5 }], '4,5');
    await waitFor('the signal at the other instance', () => atTwo.length === 1);
    expect(atTwo).toEqual([{ signal: '4,5' }]);
    const bellOne = collect<unknown>(one, 'alarms');
    const bellTwo = collect<unknown>(two, 'alarms');
    await database.transaction((tx) => one.signalOnCommit(tx, 'alarms', '12'));
    await waitFor('the bell at both', () => bellOne.length === 1 && bellTwo.length === 1);
    await Bun.sleep(300);
    expect(atOne).toEqual([]);
    expect(bellTwo).toEqual([{ signal: '12' }]);
  });

  test.skipIf(!NATS)('over NATS: the message travels whole, a signal on commit waits for the commit, another database hears nothing', async () => {
    const { one, two, database } = await twoInstances(NATS_URL);
    const elsewhere = await twoInstances(NATS_URL);
    expect(one.kind).toBe('nats');
    const atOne = collect<unknown>(one, 'unit.states');
    const atTwo = collect<{ unitId: number }[]>(two, 'unit.states');
    const foreign = collect<unknown>(elsewhere.two, 'unit.states');
    one.publish('unit.states', [{ unitId: 4 }, { unitId: 5 }], '4,5');
    await waitFor('the message at the other instance', () => atTwo.length === 1);
    expect(atTwo).toEqual([{ message: [{ unitId: 4 }, { unitId: 5 }] }]);
    // A long list goes in parts.
    one.publish(
      'unit.states',
      Array.from({ length: 1200 }, (_, i) => ({ unitId: i + 1 })),
      '',
    );
    await waitFor('the parts', () => atTwo.length === 4);
    expect(atTwo.slice(1).flatMap((delivery) => delivery.message ?? []).map((row) => row.unitId)).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));

    const bellOne = collect<unknown>(one, 'alarms');
    const bellTwo = collect<unknown>(two, 'alarms');
    await database
      .transaction(async (tx) => {
        await one.signalOnCommit(tx, 'alarms', '99');
        throw new Error('rolled back');
      })
      .catch(() => {});
    await database.transaction((tx) => one.signalOnCommit(tx, 'alarms', '12'));
    await waitFor('the bell at both', () => bellOne.length === 1 && bellTwo.length === 1);
    await Bun.sleep(500);
    expect(bellOne).toEqual([{ signal: '12' }]);
    expect(bellTwo).toEqual([{ signal: '12' }]);
    expect(atOne).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
