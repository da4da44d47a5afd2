import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { startGateway, type Gateway } from '../../src/gateway';
import { Codec, crc16ibm, encodeAvlFrame, encodeUdpDatagram } from '../../src/gateway/teltonika';
import { FLAG_IMPLAUSIBLE } from '../../src/modules/tracking/model';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice, hex, imeiLogin } from '../support/device';

/**
 * One device's poisoned record in the same batch window as another device's good one, over Teltonika TCP, UDP and
 * OsmAnd: a timestamp past the date range (anyone who knows a device id can send one over UDP or HTTP), and a value
 * only the database refuses. The good record commits and is acknowledged; the poisoned one is kept flagged.
 */
const POISONED = '356307042441111';
const GOOD = '356307042442222';
/** 2^53 − 1 ms: a valid u64 on the wire, far past the last date JavaScript (and PostgreSQL) can hold. */
const FAR_TIMESTAMP = 2n ** 53n - 1n;

let app: TestApp;
let gateway: Gateway;
const units: Record<string, number> = {};

beforeAll(async () => {
  app = await createTestApp();
  const { accountId } = await app.createAccount();
  for (const imei of [POISONED, GOOD]) {
    const [unit] = await app.database.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${imei}) returning id`);
    units[imei] = unit!.id;
  }
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

async function stored(imei: string) {
  return app.database.rows<{ time: string; flags: number; valid: boolean }>(
    sql`select time, flags, valid from positions where unit_id = ${units[imei]!} order by time`,
  );
}

function fix(time: Date, latitude = 59.33) {
  return { time, latitude, longitude: 18.06, speedKmh: 30, course: 90, satellites: 8, io: { 239: 1 } };
}

/** Overwrites the first record's timestamp at `at` (and the TCP frame's CRC, when it has one). */
function withTimestamp(frame: Uint8Array, at: number, tcp: boolean): Uint8Array {
  const out = frame.slice();
  new DataView(out.buffer).setBigUint64(at, FAR_TIMESTAMP);
  if (tcp) new DataView(out.buffer).setUint32(out.length - 4, crc16ibm(out, 8, out.length - 4));
  return out;
}

async function settled() {
  await gateway.context.ingest.drain();
}

test('Teltonika TCP: a record past the date range beside another device’s good frame', async () => {
  const time = new Date(Date.now() - 60_000);
  const poisoned = await connectDevice(gateway.ports.teltonika);
  const good = await connectDevice(gateway.ports.teltonika);
  poisoned.write(imeiLogin(POISONED));
  good.write(imeiLogin(GOOD));
  expect(hex(await poisoned.read(1))).toBe('01');
  expect(hex(await good.read(1))).toBe('01');
  // Codec 8E: preamble 4 · length 4 · codec 1 · count 1, then the first record's timestamp at byte 10.
  poisoned.write(withTimestamp(encodeAvlFrame(Codec.codec8e, [fix(time), fix(new Date(time.getTime() + 1000))]), 10, true));
  good.write(encodeAvlFrame(Codec.codec8e, [fix(time, 60)]));
  expect(hex(await poisoned.read(4))).toBe('00000002');
  expect(hex(await good.read(4))).toBe('00000001');
  await settled();
  const bad = await stored(POISONED);
  expect(bad.map((row) => [row.flags, row.valid])).toEqual([[0, true], [FLAG_IMPLAUSIBLE, false]]);
  expect((await stored(GOOD)).map((row) => [new Date(row.time).getTime(), row.flags])).toEqual([[time.getTime(), 0]]);
  poisoned.end();
  good.end();
});

test('Teltonika UDP: the same poisoned timestamp in a datagram', async () => {
  const time = new Date(Date.now() - 50_000);
  const replies: string[] = [];
  let bothReplied: () => void = () => {};
  const replied = new Promise<void>((resolve) => (bothReplied = resolve));
  const socket = await Bun.udpSocket({
    socket: {
      data(_socket, data) {
        replies.push(hex(new Uint8Array(data))!);
        if (replies.length === 2) bothReplied();
      },
    },
  });
  const datagram = (imei: string, packetId: number, records: ReturnType<typeof fix>[]) =>
    encodeUdpDatagram({ packetId, avlPacketId: packetId, imei, codec: Codec.codec8e, records });
  // Length 2 · packet id 2 · type 1 · AVL packet id 1 · IMEI length 2 · IMEI 15 · codec 1 · count 1: the timestamp at 25.
  const poisoned = withTimestamp(datagram(POISONED, 7, [fix(time)]), 25, false);
  socket.send(poisoned, gateway.ports.teltonika, '127.0.0.1');
  socket.send(datagram(GOOD, 8, [fix(time, 61)]), gateway.ports.teltonika, '127.0.0.1');
  await Promise.race([replied, Bun.sleep(5000)]);
  socket.close();
  // Each device's acknowledgement names its own packet ids.
  expect(replies.sort()).toEqual(['00050007010701', '00050008010801']);
  await settled();
  expect((await stored(GOOD)).some((row) => new Date(row.time).getTime() === time.getTime() && row.flags === 0)).toBe(true);
  expect((await stored(POISONED)).filter((row) => row.flags & FLAG_IMPLAUSIBLE)).toHaveLength(2);
});

test('OsmAnd: a 16-digit timestamp, and a value only the database refuses, beside a good report', async () => {
  const base = `http://127.0.0.1:${gateway.ports.osmand}`;
  const goodTime = Math.floor(Date.now() / 1000) - 40;
  const implausibleBefore = gateway.context.ingest.implausibleRecords;
  const isolatedBefore = gateway.context.ingest.isolatedRecords;
  const [far, refused, good] = await Promise.all([
    fetch(`${base}/?id=${POISONED}&lat=59.3&lon=18.1&timestamp=9999999999999999`),
    // A NUL character in the driver id: no jsonb document holds it.
    fetch(`${base}/?id=${POISONED}&lat=59.3&lon=18.1&timestamp=${goodTime}&driverUniqueId=A%00B`),
    fetch(`${base}/?id=${GOOD}&lat=59.4&lon=18.2&timestamp=${goodTime}`),
  ]);
  expect([far.status, refused.status, good.status]).toEqual([200, 200, 200]);
  await settled();
  expect(gateway.context.ingest.implausibleRecords).toBe(implausibleBefore + 1);
  expect(gateway.context.ingest.isolatedRecords).toBe(isolatedBefore + 1);
  const poisoned = await stored(POISONED);
  const refusedRow = poisoned.find((row) => new Date(row.time).getTime() === goodTime * 1000);
  expect(refusedRow).toMatchObject({ flags: FLAG_IMPLAUSIBLE, valid: false });
  expect((await stored(GOOD)).find((row) => new Date(row.time).getTime() === goodTime * 1000)).toMatchObject({ flags: 0, valid: true });
  // The unit's latest position is never an implausible record.
  const [state] = await app.database.rows<{ time: string }>(sql`select time from unit_state where unit_id = ${units[POISONED]!}`);
  expect(poisoned.find((row) => row.time === state!.time || new Date(row.time).getTime() === new Date(state!.time).getTime())!.flags).toBe(0);
});

test('OsmAnd: a latitude of −1408 is answered 200, kept with its raw frame flagged implausible, and never the latest position', async () => {
  const base = `http://127.0.0.1:${gateway.ports.osmand}`;
  const goodTime = Math.floor(Date.now() / 1000) - 20;
  const implausibleTime = goodTime + 10;
  const implausibleBefore = gateway.context.ingest.implausibleRecords;
  expect((await fetch(`${base}/?id=${POISONED}&lat=59.5&lon=18.5&timestamp=${goodTime}`)).status).toBe(200);
  await settled();
  const offRange = await fetch(`${base}/?id=${POISONED}&lat=-1408&lon=18.0686&timestamp=${implausibleTime}`);
  expect(offRange.status).toBe(200);
  await settled();
  expect(gateway.context.ingest.implausibleRecords).toBe(implausibleBefore + 1);
  const [row] = await app.database.rows<{ flags: number; valid: boolean; lat: number; lon: number }>(
    sql`select flags, valid, ST_Y(geom) as lat, ST_X(geom) as lon from positions
        where unit_id = ${units[POISONED]!} and time = ${new Date(implausibleTime * 1000).toISOString()}`,
  );
  expect(row!.flags & FLAG_IMPLAUSIBLE).toBe(FLAG_IMPLAUSIBLE);
  expect(row).toMatchObject({ valid: false, lat: -1408, lon: 18.0686 });
  const frames = await app.database.rows<{ payload: Uint8Array }>(
    sql`select payload from raw_frames where device_id = ${POISONED} and protocol = 'osmand'`,
  );
  expect(frames.some((frame) => Buffer.from(frame.payload).toString().includes(`lat=-1408&lon=18.0686&timestamp=${implausibleTime}`))).toBe(true);
  // The latest position stays the good report before it.
  const [state] = await app.database.rows<{ time: string; lat: number; lon: number }>(
    sql`select time, ST_Y(geom) as lat, ST_X(geom) as lon from unit_state where unit_id = ${units[POISONED]!}`,
  );
  expect([new Date(state!.time).getTime(), state!.lat, state!.lon]).toEqual([goodTime * 1000, 59.5, 18.5]);
});
