import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { startGateway, type Gateway } from '../../src/gateway';
import { buildPacket, encodeCommand, encodeLogin, encodeReply, Gt06Protocol } from '../../src/gateway/gt06';
import { encodeUdpDatagram } from '../../src/gateway/teltonika';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice, hex, imeiLogin } from '../support/device';
import { waitFor } from '../support/wait';

const C8_EX1 =
  '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';
const C8_EX3 =
  '000000000000004308020000016B40D57B480100000000000000000000000000000001010101000000000000016B40D5C198010000000000000000000000000000000101010101000000020000252C';
const UDP_C8 =
  '003DCAFE0105000F33353230393330383634303336353508010000016B4F815B30010000000000000000000000000000000103021503010101425DBC000001';
const GETIO_REPLY =
  '00000000000000370C01060000002F4449313A31204449323A30204449333A302041494E313A302041494E323A313639323420444F313A3020444F323A3101000066E3';
const GT06_LOGIN = '78780D01012345678901234500018CDD0D0A';
const GT06_GPS_0x12 = '78781F120B081D112E10CF027AC7EB0C46584900148F01CC00287D001FB8000380810D0A';

let app: TestApp;
let gateway: Gateway;
let accountId: number;

async function addUnit(imei: string, protocol = 'teltonika'): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, protocol, model) values (${accountId}, ${imei}, ${`Unit ${imei.slice(-4)}`}, ${protocol}, 'FMB920') returning id`,
  );
  return row!.id;
}

/** A unit whose IMEI is in stock, as registration leaves it (a replacement needs the stock rows). */
async function addUnitOf(ownerAccountId: number, imei: string): Promise<number> {
  await app.services.units.addStock({ imeis: [imei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
  const [row] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, protocol, model) values (${ownerAccountId}, ${imei}, 'Replaced van', 'teltonika', 'FMB920') returning id`,
  );
  return row!.id;
}

async function countPositions(unitId: number): Promise<number> {
  const [row] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from positions where unit_id = ${unitId}`);
  return row!.n;
}

beforeAll(async () => {
  app = await createTestApp();
  accountId = (await app.createAccount()).accountId;
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

describe('Teltonika TCP', () => {
  test('a registered IMEI is accepted, records are stored and acknowledged with their count', async () => {
    const unitId = await addUnit('356307042441013');
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(imeiLogin('356307042441013'));
    expect(hex(await device.read(1))).toBe('01');
    device.write(C8_EX3);
    expect(hex(await device.read(4))).toBe('00000002');
    expect(await countPositions(unitId)).toBe(2);
    // The device sends the same packet again (it missed the ACK): acknowledged, stored once.
    device.write(C8_EX3);
    expect(hex(await device.read(4))).toBe('00000002');
    expect(await countPositions(unitId)).toBe(2);
    device.end();
  });

  test('after a tracker replacement the old IMEI is refused at once and the new one is accepted', async () => {
    const account = await app.createAccount();
    const oldImei = '356307042441090';
    const newImei = '356307042441091';
    const unitId = await addUnitOf(account.accountId, oldImei);
    // A connection now puts the old IMEI in the gateway's look-up cache.
    const before = await connectDevice(gateway.ports.teltonika);
    before.write(imeiLogin(oldImei));
    expect(hex(await before.read(1))).toBe('01');
    before.end();
    await app.services.units.addStock({ imeis: [newImei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const replaced = await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token: await app.login(account), body: { imei: newImei, confirm: true } });
    expect(replaced.status).toBe(200);
    const old = await connectDevice(gateway.ports.teltonika);
    old.write(imeiLogin(oldImei));
    expect(hex(await old.read(1))).toBe('00');
    old.end();
    const fresh = await connectDevice(gateway.ports.teltonika);
    fresh.write(imeiLogin(newImei));
    expect(hex(await fresh.read(1))).toBe('01');
    fresh.write(C8_EX3);
    expect(hex(await fresh.read(4))).toBe('00000002');
    expect(await countPositions(unitId)).toBe(2);
    fresh.end();
  });

  test('an unknown IMEI is refused with 00 and counted', async () => {
    const before = gateway.context.metrics.unknownDevices;
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(imeiLogin('359999999999999'));
    expect(hex(await device.read(1))).toBe('00');
    expect(await device.waitClosed()).toBe(true);
    expect(gateway.context.metrics.unknownDevices).toBe(before + 1);
  });

  test('a bad CRC is neither acknowledged nor stored, and is counted', async () => {
    const unitId = await addUnit('356307042441021');
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(imeiLogin('356307042441021'));
    expect(hex(await device.read(1))).toBe('01');
    const before = gateway.context.metrics.badCrc;
    device.write(`${C8_EX1.slice(0, -4)}0000`);
    expect(await device.read(4, 800)).toBeNull();
    expect(gateway.context.metrics.badCrc).toBe(before + 1);
    expect(await countPositions(unitId)).toBe(0);
    // The connection stays usable: the resent good frame goes through.
    device.write(C8_EX1);
    expect(hex(await device.read(4))).toBe('00000001');
    device.end();
  });

  test('garbage closes that connection only', async () => {
    const unitId = await addUnit('356307042441039');
    const good = await connectDevice(gateway.ports.teltonika);
    good.write(imeiLogin('356307042441039'));
    expect(hex(await good.read(1))).toBe('01');
    const bad = await connectDevice(gateway.ports.teltonika);
    bad.write('DEADBEEFDEADBEEFDEADBEEFDEADBEEF');
    expect(await bad.waitClosed()).toBe(true);
    good.write(C8_EX1);
    expect(hex(await good.read(4))).toBe('00000001');
    expect(await countPositions(unitId)).toBe(1);
    good.end();
  });

  test('a frame split into single bytes and two frames glued together both work', async () => {
    const unitId = await addUnit('356307042441047');
    const device = await connectDevice(gateway.ports.teltonika);
    const login = Buffer.from(imeiLogin('356307042441047'), 'hex');
    for (const byte of login) device.write(new Uint8Array([byte]));
    expect(hex(await device.read(1))).toBe('01');
    device.write(C8_EX1 + C8_EX3);
    expect(hex(await device.read(8))).toBe('0000000100000002');
    expect(await countPositions(unitId)).toBe(3);
    device.end();
  });

  test('Codec 12: a queued command is sent to the connected device and its response stored', async () => {
    const unitId = await addUnit('356307042441054');
    const commands = gateway.context.commands;
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(imeiLogin('356307042441054'));
    expect(hex(await device.read(1))).toBe('01');
    const id = await commands.enqueue({ unitId, kind: 'text', payload: 'getio' });
    // 'getio' exactly as the wiki encodes it.
    expect(hex(await device.read(25))).toBe('000000000000000D0C010500000005676574696F01000000CB');
    device.write(GETIO_REPLY);
    await waitFor('the command to be answered', async () => (await commands.get(id))?.status === 'answered');
    const stored = await commands.get(id);
    expect(stored?.status).toBe('answered');
    expect(stored?.response).toBe('DI1:1 DI2:0 DI3:0 AIN1:0 AIN2:16924 DO1:0 DO2:1');
    device.end();
  });

  test('a command for an offline unit waits for its next connection; an unanswered one is marked no-response after 90 s', async () => {
    const unitId = await addUnit('356307042441062');
    const commands = gateway.context.commands;
    const id = await commands.enqueue({ unitId, kind: 'setdigout', payload: 'setdigout 1??' });
    expect((await commands.get(id))?.status).toBe('queued');
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(imeiLogin('356307042441062'));
    expect(hex(await device.read(1))).toBe('01');
    expect(hex(await device.read(33))).toBe('00000000000000150C01050000000D7365746469676F757420313F3F010000FC0E');
    expect((await commands.get(id))?.status).toBe('sent');
    app.clock.advance(91_000);
    await commands.sweep();
    expect((await commands.get(id))?.status).toBe('no_response');
    device.end();
  });

  test('a command sent on a connection that dropped before the answer is sent again when the tracker logs in anew, ahead of what is queued behind it', async () => {
    const unitId = await addUnit('356307042441070');
    const commands = gateway.context.commands;
    const first = await connectDevice(gateway.ports.teltonika);
    first.write(imeiLogin('356307042441070'));
    expect(hex(await first.read(1))).toBe('01');
    const id = await commands.enqueue({ unitId, kind: 'text', payload: 'getio' });
    const queuedAfter = await commands.enqueue({ unitId, kind: 'text', payload: 'getver' });
    expect(hex(await first.read(25))).toBe('000000000000000D0C010500000005676574696F01000000CB');
    expect((await commands.get(id))?.status).toBe('sent');
    // The connection drops with the command unanswered: it stays sent until the tracker is back.
    first.end();
    await waitFor('the gateway to see the hang-up', () => !gateway.context.channels.has(unitId));
    expect((await commands.get(id))?.status).toBe('sent');

    const second = await connectDevice(gateway.ports.teltonika);
    second.write(imeiLogin('356307042441070'));
    expect(hex(await second.read(1))).toBe('01');
    // The unanswered one first, again; the one queued behind it waits for its answer.
    expect(hex(await second.read(25))).toBe('000000000000000D0C010500000005676574696F01000000CB');
    expect((await commands.get(queuedAfter))?.status).toBe('queued');
    second.write(GETIO_REPLY);
    await waitFor('the command to be answered', async () => (await commands.get(id))?.status === 'answered');
    expect((await commands.get(id))?.response).toBe('DI1:1 DI2:0 DI3:0 AIN1:0 AIN2:16924 DO1:0 DO2:1');
    await waitFor('the next command to go out', async () => (await commands.get(queuedAfter))?.status === 'sent');
    second.end();
  });
});

describe('Teltonika UDP', () => {
  test('a datagram is stored and acknowledged with packet id, AVL packet id and count', async () => {
    const unitId = await addUnit('352093086403655');
    const socket = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0 });
    const replies: string[] = [];
    const client = await Bun.udpSocket({
      hostname: '127.0.0.1',
      socket: { data: (_s, data) => void replies.push(Buffer.from(data).toString('hex').toUpperCase()) },
    });
    socket.close();
    client.send(Buffer.from(UDP_C8, 'hex'), gateway.ports.teltonika, '127.0.0.1');
    await waitFor('a reply', () => replies.length > 0);
    expect(replies).toEqual(['0005CAFE010501']);
    expect(await countPositions(unitId)).toBe(1);
    client.close();
  });

  test("a datagram's IO is read with its device's model (IO 16 is the odometer on an FMB920, not on an FMB640)", async () => {
    const heavy = await addUnit('352093086403701');
    await app.database.rows(sql`update units set model = 'FMB640' where id = ${heavy}`);
    const light = await addUnit('352093086403702');
    const replies: string[] = [];
    const client = await Bun.udpSocket({ hostname: '127.0.0.1', socket: { data: (_s, data) => void replies.push(Buffer.from(data).toString('hex')) } });
    const record = { time: new Date(Date.now() - 60_000), latitude: 59.33, longitude: 18.06, satellites: 9, io: { 239: 1, 66: 24_000, 16: 4_242 } };
    client.send(encodeUdpDatagram({ packetId: 1, avlPacketId: 1, imei: '352093086403701', codec: 0x8e, records: [record] }), gateway.ports.teltonika, '127.0.0.1');
    client.send(encodeUdpDatagram({ packetId: 2, avlPacketId: 2, imei: '352093086403702', codec: 0x8e, records: [record] }), gateway.ports.teltonika, '127.0.0.1');
    await waitFor('two replies', () => replies.length >= 2);
    expect(replies).toHaveLength(2);
    const odometers = async (unitId: number) =>
      (await app.database.rows<{ odometer_m: number | null }>(sql`select odometer_m from positions where unit_id = ${unitId}`)).map((row) => row.odometer_m);
    expect(await odometers(heavy)).toEqual([null]);
    expect(await odometers(light)).toEqual([4_242]);
    client.close();
  });
});

describe('GT06', () => {
  test('login and a location are answered with the echoed serial and stored', async () => {
    const unitId = await addUnit('123456789012345', 'gt06');
    const device = await connectDevice(gateway.ports.gt06);
    device.write(GT06_LOGIN);
    expect(hex(await device.read(10))).toBe('787805010001D9DC0D0A');
    device.write(GT06_GPS_0x12);
    const reply = await device.read(10);
    expect(hex(reply)?.slice(0, 12)).toBe('787805120003');
    const [row] = await app.database.rows<{ lat: number; lon: number }>(
      sql`select ST_Y(geom) as lat, ST_X(geom) as lon from positions where unit_id = ${unitId}`,
    );
    expect(row!.lat).toBeCloseTo(23.1116683, 6);
    expect(row!.lon).toBeCloseTo(114.409285, 6);
    device.end();
  });

  test('queued commands go out as 0x80 frames numbered 1, 2… one at a time, each after the answer to the one before', async () => {
    const unitId = await addUnit('359339075000011', 'gt06');
    const commands = gateway.context.commands;
    const first = await commands.enqueue({ unitId, kind: 'text', payload: 'Relay,1#' });
    const second = await commands.enqueue({ unitId, kind: 'text', payload: 'WHERE#' });
    const device = await connectDevice(gateway.ports.gt06);
    device.write(encodeLogin({ imei: '359339075000011', serial: 1 }));
    expect(hex(await device.read(10))).toBe(hex(encodeReply(Gt06Protocol.login, 1)));
    // The first waits for no report: it goes out right after the login's answer, the second not yet.
    const relay = encodeCommand('Relay,1#', 1);
    expect(hex(await device.read(relay.length))).toBe(hex(relay));
    expect((await commands.get(second))?.status).toBe('queued');
    // The device's answer (0x15: length, server flag, text) stores the response and lets the next command go.
    const answer = (serial: number, text: string) => {
      const bytes = new TextEncoder().encode(text);
      return buildPacket(Gt06Protocol.stringInfo, new Uint8Array([4 + bytes.length, 0, 0, 0, 0, ...bytes]), serial);
    };
    device.write(answer(1, 'Cut off the fuel supply: Success!'));
    const where = encodeCommand('WHERE#', 2);
    expect(hex(await device.read(where.length))).toBe(hex(where));
    expect(await commands.get(first)).toMatchObject({ status: 'answered', response: 'Cut off the fuel supply: Success!' });
    device.write(answer(2, 'Lat:N23.111668,Lon:E114.409285'));
    await waitFor('the second command to be answered', async () => (await commands.get(second))?.status === 'answered');
    expect(await commands.get(second)).toMatchObject({ status: 'answered', response: 'Lat:N23.111668,Lon:E114.409285' });
    device.end();
  });

  test('a 4G unit: login with its zone, the time asked, a 4G fix and a fence alarm stored, a heartbeat and information', async () => {
    const unitId = await addUnit('868120301234560', 'gt06');
    const device = await connectDevice(gateway.ports.gt06);
    const frame = (hex: string) => hex.replace(/[\s|]+/g, '');
    // Login at +05:30; the unit's own zone is unset, so its D6 times are read at +05:30.
    device.write(frame('78 78 | 11 | 01 | 08 68 12 03 01 23 45 60 | 22 08 | 21 22 | 00 04 | DA 64 | 0D 0A'));
    expect(hex(await device.read(10))).toBe('7878050100048E710D0A');
    // The time request is answered with the server's UTC time and the serial echoed.
    device.write(frame('78 78 | 05 | 8A | 00 03 | DF 84 | 0D 0A'));
    const time = await device.read(16);
    expect(hex(time)!.slice(0, 8)).toBe('78780B8A');
    expect(hex(time)!.slice(20, 24)).toBe('0003');
    const [yy, mo, dd, hh, mi, ss] = time!.subarray(4, 10);
    expect(Math.abs(Date.UTC(2000 + yy!, mo! - 1, dd!, hh!, mi!, ss!) - Date.now())).toBeLessThan(5_000);
    device.write(frame('78 78 | 29 | A0 | 18 05 11 09 1E 0F | C9 | 06 5D AC 58 | 01 F0 1F 28 | 2A | 14 57 | 00 F0 | 01 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | 01 | 00 | 00 | 00 42 | 0F 1F | 0D 0A'));
    expect(hex(await device.read(10))).toBe('787805A00042FC480D0A');
    device.write(frame('78 78 | 2D | A4 | 18 06 01 0C 00 05 | C7 | 06 31 05 7E | 01 48 E4 20 | 3A | 14 BE | 10 | 00 F0 | 02 | 00 00 1F 4A | 00 00 00 00 00 D2 E1 F0 | 46 | 05 | 04 | 04 | 02 | 01 | 02 05 | 96 6C | 0D 0A'));
    expect(hex(await device.read(10))).toBe('787805A402059A220D0A');
    // Information (door open) is kept without a fix and not answered; the heartbeat is.
    device.write(frame('79 79 00 07 94 05 05 00 62 94 5A 0D 0A'));
    device.write(frame('78 78 | 0A | 13 | 46 | 55 | 04 | 00 | 02 | 00 71 | B5 F4 | 0D 0A'));
    expect(hex(await device.read(10))).toBe('7878051300719A760D0A');
    await gateway.context.ingest.drain();
    const rows = await app.database.rows<{ time: string; valid: boolean; flags: number; io: Record<string, unknown>; normalized: Record<string, unknown> }>(
      sql`select time, valid, flags, io, normalized from positions where unit_id = ${unitId} order by time`,
    );
    expect(rows.map((row) => [new Date(row.time).toISOString(), row.valid, row.normalized.alarm ?? null])).toEqual([
      ['2024-05-17T04:00:15.000Z', true, null],
      ['2024-06-01T06:30:05.000Z', true, 'geofenceEnter'],
      [expect.any(String), false, null],
    ]);
    expect(rows[0]!.io).toMatchObject({ mcc: 240, mnc: 1, lac: 13_000, cellId: 27_440_068 });
    expect(rows[1]!.normalized.geofence).toBe(1);
    expect(rows[2]!.io).toMatchObject({ door: 1 });
    device.end();
  });

  test('a location before login closes the connection and stores nothing', async () => {
    const device = await connectDevice(gateway.ports.gt06);
    device.write(GT06_GPS_0x12);
    expect(await device.waitClosed()).toBe(true);
  });
});

describe('OsmAnd HTTP', () => {
  test('query, form and JSON formats are stored; an unknown id is refused', async () => {
    const unitId = await addUnit('861234567890123', 'osmand');
    const base = `http://127.0.0.1:${gateway.ports.osmand}`;
    const query = await fetch(`${base}/?id=861234567890123&timestamp=1749555449&lat=59.33&lon=18.06&speed=10&bearing=90&altitude=12&batt=93`, { method: 'POST' });
    expect(query.status).toBe(200);
    const form = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'id=861234567890123&timestamp=1749555509&lat=59.34&lon=18.07&speed=0',
    });
    expect(form.status).toBe(200);
    const json = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        device_id: '861234567890123',
        location: { timestamp: '2025-06-15T13:45:12.862Z', coords: { latitude: 59.35, longitude: 18.08, speed: 5, heading: 10, altitude: 5 }, is_moving: true, odometer: 1200 },
      }),
    });
    expect(json.status).toBe(200);
    expect(await countPositions(unitId)).toBe(3);
    expect((await fetch(`${base}/?id=000&lat=1&lon=1`)).status).toBe(400);
  });
});
