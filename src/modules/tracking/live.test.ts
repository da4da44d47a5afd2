import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { waitFor } from '../../../tests/support/wait';
import type { DecodedRecord, NormalizedIo } from '../../lib/tracker-record';
import { IngestWriter } from './ingest';
import { decodeUnitList, LIVE_CLOSE, type LiveMessage, type LiveState, type TrackedUnitList } from './model';

/**
 * The live socket against a real server on a loopback port, with real WebSocket clients, positions
 * entering through the ingest writer exactly as the gateway submits them.
 */
let app: TestApp;
let writer: IngestWriter;
let base: string;
let imeiSequence = 0;

beforeAll(async () => {
  app = await createTestApp();
  app.clock.set(new Date());
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log);
  app.api.listen({ hostname: '127.0.0.1', port: 0 });
  base = `ws://127.0.0.1:${app.api.server!.port}/api/tracking/live`;
}, 60_000);
afterAll(async () => {
  app?.services.live.stop();
  await app?.api.stop(true);
  await app?.close();
});

async function party() {
  const account = await app.createAccount();
  imeiSequence += 1;
  const [unit] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${account.accountId}, ${`3563070426${String(imeiSequence).padStart(5, '0')}`}, 'Live van')
    returning id`);
  return { ...account, unitId: unit!.id, token: await app.login(account) };
}

function record(time: Date, latitude: number, normalized: NormalizedIo = { ignition: true }): DecodedRecord {
  return {
    protocol: 'teltonika',
    deviceId: 'x',
    time,
    latitude,
    longitude: 18.0686,
    altitude: 0,
    speedKmh: 40,
    course: 45,
    satellites: 8,
    valid: true,
    priority: 0,
    eventId: 0,
    io: {},
    normalized,
  };
}

let fixSequence = 0;

async function accountOf(unitId: number): Promise<number> {
  const [unit] = await app.database.rows<{ account_id: number }>(sql`select account_id from units where id = ${unitId}`);
  return unit!.account_id;
}

/** A new fix for a unit, always newer than the previous one. */
async function move(unitId: number, latitude: number, receivedAt = new Date()) {
  fixSequence += 1;
  const fix = record(new Date(Date.now() - 60_000 + fixSequence), latitude);
  await writer.submit({ unitId, accountId: await accountOf(unitId), protocol: 'teltonika', deviceId: 'x', records: [fix], receivedAt });
}

interface Client {
  socket: WebSocket;
  messages: LiveMessage[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string; opened: boolean }>;
  /** Resolves with the first message (already received or to come) that matches. */
  next<T extends LiveMessage>(match: (message: LiveMessage) => message is T, timeoutMs?: number): Promise<T>;
  units(): LiveState[];
}

function connect(query: string, protocols?: string[]): Client {
  const socket = new WebSocket(`${base}${query}`, protocols);
  const messages: LiveMessage[] = [];
  const waiters: Array<() => void> = [];
  let opened = false;
  socket.onmessage = (event) => {
    messages.push(JSON.parse(String(event.data)) as LiveMessage);
    for (const wake of waiters.splice(0)) wake();
  };
  const client: Client = {
    socket,
    messages,
    opened: new Promise((resolve, reject) => {
      socket.addEventListener('open', () => {
        opened = true;
        resolve();
      });
      socket.addEventListener('close', () => reject(new Error('closed before open')));
    }),
    closed: new Promise((resolve) => {
      socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason, opened }));
    }),
    // A generous deadline: a loaded machine may take seconds; how fast pushes arrive is measured by bench:map.
    async next(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let seen = 0;
      for (;;) {
        for (; seen < messages.length; seen++) if (match(messages[seen]!)) return messages[seen] as never;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    units: () => messages.flatMap((message) => ('units' in message ? message.units : [])),
  };
  client.opened.catch(() => {});
  return client;
}

const isHello = (message: LiveMessage): message is Extract<LiveMessage, { type: 'hello' }> => message.type === 'hello';
const isCatchup = (message: LiveMessage): message is Extract<LiveMessage, { type: 'catchup' }> => message.type === 'catchup';
const updateOf =
  (unitId: number, latitude?: number) =>
  (message: LiveMessage): message is Extract<LiveMessage, { type: 'update' }> =>
    message.type === 'update' && message.units.some((unit) => unit.id === unitId && (latitude === undefined || unit.lat === latitude));

describe('live socket', () => {
  test("a stored position reaches every socket of its account, and never another account's", async () => {
    const a = await party();
    const b = await party();
    const a1 = connect(`?token=${a.token}`);
    const a2 = connect('', ['bearer', a.token]);
    const spy = connect(`?token=${b.token}`);
    await Promise.all([a1.next(isHello), a2.next(isHello), spy.next(isHello)]);
    expect(a2.socket.protocol).toBe('bearer');

    await move(a.unitId, 59.5);
    const [first, second] = await Promise.all([a1.next(updateOf(a.unitId, 59.5)), a2.next(updateOf(a.unitId, 59.5))]);
    expect(first.units).toHaveLength(1);
    expect(first.units[0]).toMatchObject({ id: a.unitId, lat: 59.5, lon: 18.0686, speed: 40, course: 45, ignition: true, status: 'moving' });
    expect(second.units).toEqual(first.units);

    // B's own unit still reaches B (the socket works), and B never saw A's unit.
    await move(b.unitId, 61);
    await spy.next(updateOf(b.unitId, 61));
    await Bun.sleep(400);
    expect(spy.units().map((unit) => unit.id)).toEqual([b.unitId]);
    expect(a1.units().map((unit) => unit.id)).toEqual([a.unitId]);
    for (const client of [a1, a2, spy]) client.socket.close();
  });

  test('a pushed state is exactly what the unit list reads; after a fix without position the last valid one is kept', async () => {
    const a = await party();
    const client = connect(`?token=${a.token}`);
    await client.next(isHello);
    const full: NormalizedIo = {
      ignition: true,
      externalVoltageV: 12.345,
      din1: true,
      din2: false,
      dout1: true,
      odometerM: 123_456.7,
      driverId: '01A2B3C4D5E6',
      ble: [{ mac: '7CD9F4112233', temperatureC: 4.5 }],
    };
    await writer.submit({ unitId: a.unitId, accountId: a.accountId, protocol: 'teltonika', deviceId: 'x', records: [record(new Date(Date.now() - 20_000), 58.123456, full)], receivedAt: new Date() });
    const pushed = (await client.next(updateOf(a.unitId, 58.123456))).units.find((unit) => unit.id === a.unitId)!;
    const listed = decodeUnitList((await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token: a.token })).body.data!).units.find((unit) => unit.id === a.unitId)!;
    for (const key of Object.keys(pushed) as Array<keyof LiveState>) expect([key, pushed[key]]).toEqual([key, listed[key]]);

    // The list writes its rows in SQL: values on rounding edges (half-way decimals, west longitudes, a course
    // that rounds to 360, a speed that rounds down to the moving threshold) come out as the live path gives them.
    const edges: Array<Partial<DecodedRecord> & { normalized: NormalizedIo }> = [
      { latitude: 51.5000005, longitude: -0.1234565, speedKmh: 12.35, course: 359.6, normalized: { ignition: true, externalVoltageV: 12.355, odometerM: 0.5 } },
      { latitude: 60.1234565, longitude: 5.3210005, speedKmh: 3.04, course: 0.4, normalized: { ignition: true, externalVoltageV: 11.005, odometerM: 2.5 } },
      { latitude: 59.9999995, longitude: 10.75, speedKmh: 0.05, course: 180.5, normalized: { externalVoltageV: 0.125, din3: false, dout2: true } },
    ];
    for (const [i, edge] of edges.entries()) {
      const time = new Date(Date.now() - 19_000 + i * 1000);
      await writer.submit({ unitId: a.unitId, accountId: a.accountId, protocol: 'teltonika', deviceId: 'x', records: [{ ...record(time, edge.latitude!), ...edge }], receivedAt: new Date() });
      const live = (await client.next(updateOf(a.unitId, Math.round(edge.latitude! * 1e6) / 1e6))).units.find((unit) => unit.id === a.unitId)!;
      const inList = decodeUnitList((await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token: a.token })).body.data!).units.find((unit) => unit.id === a.unitId)!;
      for (const key of Object.keys(live) as Array<keyof LiveState>) expect([i, key, live[key]]).toEqual([i, key, inList[key]]);
    }

    // No fix: the unit stays where its last valid fix put it.
    await writer.submit({
      unitId: a.unitId,
      accountId: a.accountId,
      protocol: 'teltonika',
      deviceId: 'x',
      records: [{ ...record(new Date(Date.now() - 10_000), 0, { ignition: false }), longitude: 0, valid: false, satellites: 0 }],
      receivedAt: new Date(),
    });
    const stale = await client.next(
      (message): message is Extract<LiveMessage, { type: 'update' }> =>
        message.type === 'update' && message.units.some((unit) => unit.id === a.unitId && unit.valid === false),
    );
    // The last valid fix is the last edge case's.
    expect(stale.units.find((unit) => unit.id === a.unitId)).toMatchObject({ lat: 60, lon: 10.75, valid: false, ignition: false });
    client.socket.close();
  });

  test('positions are batched: many fixes in a burst become a few messages carrying the latest state', async () => {
    const a = await party();
    const client = connect(`?token=${a.token}`);
    await client.next(isHello);
    const started = performance.now();
    await Promise.all(Array.from({ length: 30 }, (_, i) => move(a.unitId, 50 + i / 100)));
    await client.next(updateOf(a.unitId, 50.29));
    const burstMs = performance.now() - started;
    await Bun.sleep(400);
    const updates = client.messages.filter((message) => message.type === 'update');
    // At most one message per 250 ms batch while the burst lasted (a loaded machine stretches the burst), however many fixes.
    expect(updates.length).toBeLessThanOrEqual(Math.min(29, Math.ceil(burstMs / 250) + 2));
    expect(client.units().at(-1)!.lat).toBe(50.29);
    client.socket.close();
  });

  test('reconnecting with ?since= first sends a catch-up of what changed meanwhile', async () => {
    const a = await party();
    const quiet = await app.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${a.accountId}, '356307042699999', 'Quiet') returning id`);
    const quietId = quiet[0]!.id;
    // Last heard from a minute ago: before the catch-up window.
    await move(quietId, 55, new Date(Date.now() - 60_000));
    const other = await party();

    const first = connect(`?token=${a.token}`);
    const hello = await first.next(isHello);
    first.socket.close();
    await first.closed;
    // While no socket is open: A's van moves, B's too.
    await move(a.unitId, 58.25);
    await move(other.unitId, 62);

    const second = connect(`?token=${a.token}&since=${encodeURIComponent(hello.serverTime)}`);
    const catchup = await second.next(isCatchup);
    expect(second.messages[0]!.type).toBe('hello');
    expect(second.messages[1]).toBe(catchup);
    expect(catchup.since).toBe(hello.serverTime);
    expect(catchup.units.map((unit) => unit.id)).toEqual([a.unitId]);
    expect(catchup.units[0]).toMatchObject({ lat: 58.25, status: 'moving' });

    // Then live as usual.
    await move(a.unitId, 58.5);
    await second.next(updateOf(a.unitId, 58.5));
    second.socket.close();
  });

  test('an invalid, missing or revoked token is refused; logout closes an open socket', async () => {
    const a = await party();
    for (const query of ['?token=not-a-token', '', `?token=${a.token}x`]) {
      const refused = connect(query);
      const closed = await refused.closed;
      expect({ query, opened: closed.opened }).toEqual({ query, opened: false });
      expect(refused.messages).toEqual([]);
    }
    const badProtocol = connect('', ['bearer', 'forged.token.value']);
    expect((await badProtocol.closed).opened).toBe(false);

    const open = connect(`?token=${a.token}`);
    await open.next(isHello);
    expect((await app.call('POST', '/api/logout', { token: a.token })).status).toBe(200);
    await app.services.live.revalidate();
    const closed = await open.closed;
    expect(closed).toEqual({ code: LIVE_CLOSE.unauthenticated, reason: 'Unauthenticated.', opened: true });
    const again = connect(`?token=${a.token}`);
    expect((await again.closed).opened).toBe(false);
  });

  test('a user without the map is refused, and an open socket closes when the map is taken away', async () => {
    const a = await party();
    const open = connect(`?token=${a.token}`);
    await open.next(isHello);
    await app.database.rows(sql`update users set realtime_map = false where id = ${a.userId}`);
    expect((await connect(`?token=${a.token}`).closed).opened).toBe(false);
    await app.services.live.revalidate();
    expect((await open.closed).code).toBe(LIVE_CLOSE.mapDisabled);
  });

  test('a malformed since is refused', async () => {
    const a = await party();
    expect((await connect(`?token=${a.token}&since=yesterday`).closed).opened).toBe(false);
  });

  test('a unit that has just gone 30 minutes without contact is pushed as offline', async () => {
    const a = await party();
    const client = connect(`?token=${a.token}`);
    await client.next(isHello);
    // Heard from 29.5 minutes ago (by the portal clock); the next sweep a minute later finds it offline.
    await move(a.unitId, 57, new Date(app.clock.now().getTime() - 29.5 * 60_000));
    await client.next(updateOf(a.unitId, 57));
    expect(client.units().at(-1)!.status).toBe('moving');
    app.clock.advance(60_000);
    await app.services.live.sweepOffline();
    const update = await client.next(
      (message): message is Extract<LiveMessage, { type: 'update' }> =>
        message.type === 'update' && message.units.some((unit) => unit.id === a.unitId && unit.status === 'offline'),
    );
    expect(update.units).toHaveLength(1);
    app.clock.set(new Date());
    client.socket.close();
  });

  test('ping is answered with the server time', async () => {
    const a = await party();
    const client = connect(`?token=${a.token}`);
    await client.next(isHello);
    client.socket.send(JSON.stringify({ type: 'ping' }));
    const pong = await client.next((message): message is Extract<LiveMessage, { type: 'pong' }> => message.type === 'pong');
    expect(Date.parse(pong.serverTime)).not.toBeNaN();
    client.socket.close();
  });

  test('a socket that reads slowly is not fed more; once drained it gets the latest state of what it missed', async () => {
    const a = await party();
    const actor = (await app.services.auth.authenticate(`Bearer ${a.token}`))!;
    let buffered = 0;
    const sent: LiveMessage[] = [];
    const socket = {
      send: (text: string) => {
        sent.push(JSON.parse(text) as LiveMessage);
        return buffered > 0 ? -1 : text.length;
      },
      close: () => {},
      getBufferedAmount: () => buffered,
    };
    const live = app.services.live;
    await live.open(socket, actor, a.token, null);
    await move(a.unitId, 51);
    await writer.drain();
    await live.flushNow();
    expect(sent.map((message) => message.type)).toEqual(['hello', 'update']);
    // The client stops reading: its buffer fills up.
    buffered = 5_000_000;
    for (const latitude of [52, 53, 54]) {
      await move(a.unitId, latitude);
      await writer.drain();
      await live.flushNow();
    }
    expect(sent).toHaveLength(2);
    // What it missed was kept with its state: after the drain it goes out without being read again.
    const tracking = app.services.tracking;
    const read = tracking.liveStates;
    let reads = 0;
    tracking.liveStates = (unitIds) => {
      reads += 1;
      return read(unitIds);
    };
    try {
      buffered = 0;
      live.drained(socket);
      await Bun.sleep(300);
      await live.flushNow();
    } finally {
      tracking.liveStates = read;
    }
    expect(sent).toHaveLength(3);
    expect(sent[2]).toMatchObject({ type: 'update', units: [{ id: a.unitId, lat: 54 }] });
    expect(reads).toBe(0);
    live.close(socket);
  });

  test('sockets are forgotten when they close', async () => {
    await waitFor('every closed socket to be forgotten', () => app.services.live.size === 0);
    expect(app.services.live.size).toBe(0);
  });
});
