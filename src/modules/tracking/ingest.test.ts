import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { DecodedRecord } from '../../gateway/types';
import { FLAG_FUTURE, FLAG_INVALID_FIX, IngestWriter } from './ingest';

let app: TestApp;
let unitId: number;
let writer: IngestWriter;

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${account.accountId}, '356307042441013', 'Van 1') returning id`,
  );
  unitId = unit!.id;
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

function record(time: string, overrides: Partial<DecodedRecord> = {}): DecodedRecord {
  return {
    protocol: 'teltonika',
    deviceId: '356307042441013',
    time: new Date(time),
    latitude: 59.3293,
    longitude: 18.0686,
    altitude: 20,
    speedKmh: 50,
    course: 90,
    satellites: 9,
    valid: true,
    priority: 0,
    eventId: 0,
    io: { '239': 1, '16': 1000, '78': 12345678901234567890n, '385': new Uint8Array([1, 2, 3]) },
    normalized: { ignition: true, odometerM: 1000 },
    ...overrides,
  };
}

async function positions() {
  return app.database.rows<{ time: string; flags: number; io: Record<string, unknown> }>(
    sql`select time, flags, io from positions where unit_id = ${unitId} order by time`,
  );
}

test('records are stored with raw IO, and the same records sent again are stored once', async () => {
  const submission = {
    unitId,
    protocol: 'teltonika',
    deviceId: '356307042441013',
    records: [record(new Date(Date.now() - 120_000).toISOString()), record(new Date(Date.now() - 60_000).toISOString())],
    rawFrame: new Uint8Array([0, 0, 0, 0]),
    receivedAt: new Date(),
  };
  await writer.submit(submission);
  await writer.submit(submission);
  const rows = await positions();
  expect(rows).toHaveLength(2);
  expect(rows[0]!.io['78']).toBe('12345678901234567890');
  expect(rows[0]!.io['385']).toBe('010203');
  const frames = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from raw_frames`);
  expect(frames[0]!.n).toBe(2);
});

test('an older record arriving late is kept in time order and does not move the latest state back', async () => {
  const latest = new Date(Date.now() - 30_000);
  await writer.submit({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(latest.toISOString(), { latitude: 60 })], receivedAt: new Date() });
  await writer.submit({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - 90_000).toISOString(), { latitude: 58 })], receivedAt: new Date() });
  await writer.drain();
  const [state] = await app.database.rows<{ time: string; lat: number }>(
    sql`select time, ST_Y(geom) as lat from unit_state where unit_id = ${unitId}`,
  );
  expect(new Date(state!.time).getTime()).toBe(latest.getTime());
  expect(state!.lat).toBeCloseTo(60, 6);
  const times = (await positions()).map((row) => new Date(row.time).getTime());
  expect([...times].sort((a, b) => a - b)).toEqual(times);
});

test('invalid and future fixes are flagged, not dropped', async () => {
  const future = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const invalid = new Date(Date.now() - 10_000).toISOString();
  await writer.submit({
    unitId,
    protocol: 'teltonika',
    deviceId: 'x',
    records: [record(future), record(invalid, { valid: false, satellites: 0 })],
    receivedAt: new Date(),
  });
  await writer.drain();
  const rows = await app.database.rows<{ time: string; flags: number }>(
    sql`select time, flags from positions where unit_id = ${unitId} and flags <> 0 order by time`,
  );
  expect(rows.map((r) => r.flags)).toEqual([FLAG_INVALID_FIX, FLAG_FUTURE]);
  const [state] = await app.database.rows<{ time: string }>(sql`select time from unit_state where unit_id = ${unitId}`);
  expect(new Date(state!.time).getTime()).toBeLessThan(Date.parse(future));
});

test('stored positions and ignition changes are published after commit', async () => {
  const seen: string[] = [];
  const offPositions = app.platform.events.on('positions.stored', (event) => {
    seen.push(`positions:${event.unitId}:${event.positions.length}`);
  });
  const offIgnition = app.platform.events.on('ignition.changed', (event) => {
    seen.push(`ignition:${event.ignition}`);
  });
  await writer.submit({
    unitId,
    protocol: 'teltonika',
    deviceId: 'x',
    records: [record(new Date(Date.now() - 5_000).toISOString(), { normalized: { ignition: false } })],
    receivedAt: new Date(),
  });
  // Devices are acknowledged at commit; the state writer and subscribers run right after, so wait for them here.
  await writer.drain();
  offPositions();
  offIgnition();
  expect(seen).toEqual([`positions:${unitId}:1`, 'ignition:false']);
});

test('a failing batch rejects every submission in it and stores nothing', async () => {
  const before = (await positions()).length;
  // A fix without coordinates cannot become a point: the whole batch's transaction fails.
  const broken = writer.submit({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - 2000).toISOString(), { latitude: Number.NaN })], receivedAt: new Date() });
  const good = writer.submit({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - 1000).toISOString())], receivedAt: new Date() });
  const results = await Promise.allSettled([broken, good]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect((await positions()).length).toBe(before);
});

test('every ignition and input change inside one frame is published, late records are not', async () => {
  const seen: string[] = [];
  const off = [
    app.platform.events.on('ignition.changed', (event) => void seen.push(`ignition:${event.ignition}`)),
    app.platform.events.on('input.changed', (event) => void seen.push(`${event.input}:${event.value}`)),
    app.platform.events.on('sensor.reading', (event) => void seen.push(`ble:${event.reading.temperatureC}`)),
  ];
  const base = Date.now() - 3_000;
  await writer.submit({
    unitId,
    protocol: 'teltonika',
    deviceId: 'x',
    records: [
      record(new Date(base).toISOString(), { normalized: { ignition: true, din1: false } }),
      record(new Date(base + 1000).toISOString(), { normalized: { ignition: false, din1: true, ble: [{ temperatureC: 4.5 }] } }),
      record(new Date(base + 2000).toISOString(), { normalized: { ignition: true, din1: true } }),
      // Older than what is stored: history, not a change.
      record(new Date(base - 60_000).toISOString(), { normalized: { ignition: false, din1: false } }),
    ],
    receivedAt: new Date(),
  });
  await writer.drain();
  for (const unsubscribe of off) unsubscribe();
  expect(seen).toEqual(['ble:4.5', 'ignition:true', 'ignition:false', 'ignition:true', 'din1:true']);
});

test('devices are acknowledged once their positions are durable; the latest state follows', async () => {
  const time = new Date(Date.now() - 500);
  // A unit that no longer exists does not stop the state of the others from being projected.
  await writer.submit({ unitId: 999_999, protocol: 'teltonika', deviceId: 'gone', records: [record(time.toISOString())], receivedAt: new Date() });
  await writer.submit({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(time.toISOString(), { latitude: 61 })], receivedAt: new Date() });
  await writer.drain();
  const [state] = await app.database.rows<{ time: string; lat: number }>(sql`select time, ST_Y(geom) as lat from unit_state where unit_id = ${unitId}`);
  expect(new Date(state!.time).getTime()).toBe(time.getTime());
  expect(state!.lat).toBeCloseTo(61, 6);
  const orphans = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from unit_state where unit_id = 999999`);
  expect(orphans[0]!.n).toBe(0);
});

test('a partial batch waits for its window even when a batch has just finished; a full batch goes at once', async () => {
  const statements: number[] = [];
  let inserting: () => void = () => {};
  const firstInsert = new Promise<void>((resolve) => (inserting = resolve));
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  // The writer's database, counting the records of each position insert and holding the first one until released.
  const counting = {
    ...app.database,
    query: async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => {
      if (text.includes('INSERT INTO positions')) {
        statements.push((JSON.parse(String(params[0])) as unknown[]).length);
        if (statements.length === 1) {
          inserting();
          await released;
        }
      }
      return app.database.query<T>(text, params);
    },
  };
  const base = Date.now() - 3_600_000;
  const one = (at: number) => ({ unitId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(base + at * 1000).toISOString())], receivedAt: new Date() });
  const batching = new IngestWriter(counting, app.platform.events, app.platform.log, { maxDelayMs: 1000, keepRawFrames: false });
  const acknowledged = [batching.submit(one(1))];
  await firstInsert;
  // One frame arrives while the first batch is written, another just after it: both go in the next statement.
  acknowledged.push(batching.submit(one(2)));
  release();
  await acknowledged[0];
  await Bun.sleep(50); // well inside the window, long after a writer that flushes whatever is queued would have
  acknowledged.push(batching.submit(one(3)));
  await Promise.all(acknowledged);
  expect(statements).toEqual([1, 2]);
  await batching.drain();

  // Four records fill a batch of four: written without waiting out a window of a minute (the test would time out).
  const full = new IngestWriter(counting, app.platform.events, app.platform.log, { maxDelayMs: 60_000, maxBatchRecords: 4, keepRawFrames: false });
  await Promise.all([4, 5, 6, 7].map((at) => full.submit(one(at))));
  expect(statements).toEqual([1, 2, 4]);
  await full.drain();
});
