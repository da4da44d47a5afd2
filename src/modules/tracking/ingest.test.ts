import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { DecodedRecord } from '../../lib/tracker-record';
import { IngestWriter } from './ingest';
import { FLAG_FUTURE, FLAG_IMPLAUSIBLE, FLAG_INVALID_FIX } from './model';

let app: TestApp;
let unitId: number;
let accountId: number;
let writer: IngestWriter;

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${account.accountId}, '356307042441013', 'Van 1') returning id`,
  );
  unitId = unit!.id;
  accountId = account.accountId;
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
    accountId,
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
  await writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(latest.toISOString(), { latitude: 60 })], receivedAt: new Date() });
  await writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - 90_000).toISOString(), { latitude: 58 })], receivedAt: new Date() });
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
    accountId,
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
    accountId,
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

test('a failing database rejects every submission of the batch and stores nothing', async () => {
  const before = (await positions()).length;
  const down = { ...app.database, query: async () => Promise.reject(new Error('connection terminated')) };
  const failing = new IngestWriter(down, app.platform.events, app.platform.log, { maxDelayMs: 1 });
  const submit = (ms: number) => failing.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - ms).toISOString())], receivedAt: new Date() });
  const results = await Promise.allSettled([submit(2000), submit(1000)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect((await positions()).length).toBe(before);
});

test('implausible records are stored flagged and not valid, never as the latest position', async () => {
  await writer.drain();
  const [stateBefore] = await app.database.rows<{ time: string; lat: number }>(sql`select time, ST_Y(geom) as lat from unit_state where unit_id = ${unitId}`);
  const receivedAt = new Date(Date.now() + 1);
  const fresh = new Date(Date.now() - 1000).toISOString();
  const states: number[] = [];
  const off = app.platform.events.on('unit.states', ({ rows }) => void states.push(...rows.filter((row) => row.unitId === unitId).map((row) => row.lat)));
  await writer.submit({
    unitId,
    accountId,
    protocol: 'gt06',
    deviceId: 'x',
    records: [
      record(fresh, { latitude: -1408.5 }),
      record(fresh, { time: new Date(Number.NaN), longitude: 181 }),
      record(fresh, { time: new Date(8.64e15 + 1), latitude: Number.NaN }),
    ],
    rawFrame: new Uint8Array([0x78, 0x78]),
    receivedAt,
  });
  await writer.drain();
  off();
  const rows = await app.database.rows<{ time: string; flags: number; valid: boolean; lat: number; lon: number }>(
    sql`select time, flags, valid, ST_Y(geom) as lat, ST_X(geom) as lon from positions where unit_id = ${unitId} and (flags & ${FLAG_IMPLAUSIBLE}) <> 0 order by time, lat`,
  );
  // A time that is no date is stored at the arrival time, a millisecond apart per record of the frame; NaN coordinates as 0.
  expect(rows.map((r) => [new Date(r.time).toISOString(), r.flags, r.valid, r.lat, r.lon])).toEqual([
    [fresh, FLAG_IMPLAUSIBLE, false, -1408.5, 18.0686],
    [new Date(receivedAt.getTime() + 1).toISOString(), FLAG_IMPLAUSIBLE, false, 59.3293, 181],
    [new Date(receivedAt.getTime() + 2).toISOString(), FLAG_IMPLAUSIBLE, false, 0, 18.0686],
  ]);
  // Before 2000: implausible, stored at its arrival time too.
  const early = new Date(receivedAt.getTime() + 10);
  await writer.submit({ unitId, accountId, protocol: 'gt06', deviceId: 'x', records: [record('1999-12-31T23:59:59Z')], receivedAt: early });
  const [flagged] = await app.database.rows<{ flags: number; valid: boolean }>(sql`select flags, valid from positions where unit_id = ${unitId} and time = ${early.toISOString()}::timestamptz`);
  expect(flagged).toEqual({ flags: FLAG_IMPLAUSIBLE, valid: false });
  await writer.drain();
  const [state] = await app.database.rows<{ time: string; lat: number }>(sql`select time, ST_Y(geom) as lat from unit_state where unit_id = ${unitId}`);
  expect(state).toEqual(stateBefore!);
  expect(states.every((lat) => Math.abs(lat) <= 90)).toBe(true);
});

test('a record the database refuses is stored flagged without its IO; the batch around it commits', async () => {
  const [other] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${accountId}, '356307042441021', 'Van 2') returning id`,
  );
  const time = new Date(Date.now() - 4000).toISOString();
  const isolatedBefore = writer.isolatedRecords;
  // A NUL character passes every check of ours but no jsonb column takes it.
  const poisoned = writer.submit({
    unitId: other!.id,
    accountId,
    protocol: 'teltonika',
    deviceId: '356307042441021',
    // The second record one second after the first, exactly (two Date.now() calls may be a millisecond apart).
    records: [record(time, { normalized: { driverId: 'A\u0000B' } }), record(new Date(Date.parse(time) + 1000).toISOString())],
    rawFrame: new Uint8Array([1, 2, 3]),
    receivedAt: new Date(),
  });
  const good = writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(time, { latitude: 58.5, normalized: { ignition: false } })], receivedAt: new Date() });
  expect((await Promise.allSettled([poisoned, good])).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
  expect(writer.isolatedRecords).toBe(isolatedBefore + 1);
  const stored = await app.database.rows<{ unit_id: number; flags: number; io: Record<string, unknown>; normalized: Record<string, unknown> }>(
    sql`select unit_id, flags, io, normalized from positions where unit_id in (${unitId}, ${other!.id}) and time = ${time}::timestamptz order by unit_id`,
  );
  expect(stored.map((row) => [row.unit_id, row.flags])).toEqual([[unitId, 0], [other!.id, FLAG_IMPLAUSIBLE]]);
  expect(stored[1]!.io).toEqual({});
  const frames = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from raw_frames where device_id = '356307042441021'`);
  expect(frames[0]!.n).toBe(1);
  await writer.drain();
  const [state] = await app.database.rows<{ time: string }>(sql`select time from unit_state where unit_id = ${other!.id}`);
  expect(new Date(state!.time).getTime()).toBe(Date.parse(time) + 1000);
});

test('a heartbeat moves last_seen through the state writer and publishes the state', async () => {
  await writer.drain();
  const seen = new Date(Date.now() + 5_000);
  const published: Array<{ unitId: number; accountId: number; lastSeen: Date }> = [];
  const off = app.platform.events.on('unit.states', ({ rows }) => void published.push(...rows));
  writer.touch(unitId, accountId, seen);
  await writer.drain();
  off();
  const [state] = await app.database.rows<{ last_seen: string }>(sql`select last_seen from unit_state where unit_id = ${unitId}`);
  expect(new Date(state!.last_seen).getTime()).toBe(seen.getTime());
  expect(published.map((row) => [row.unitId, row.accountId, row.lastSeen.getTime()])).toEqual([[unitId, accountId, seen.getTime()]]);
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
    accountId,
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
  await writer.submit({ unitId: 999_999, accountId, protocol: 'teltonika', deviceId: 'gone', records: [record(time.toISOString())], receivedAt: new Date() });
  await writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(time.toISOString(), { latitude: 61 })], receivedAt: new Date() });
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
  const one = (at: number) => ({ unitId, accountId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(base + at * 1000).toISOString())], receivedAt: new Date() });
  // A window long enough that a loaded machine's stall between the two frames cannot outlast it.
  const batching = new IngestWriter(counting, app.platform.events, app.platform.log, { maxDelayMs: 5000, keepRawFrames: false });
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
