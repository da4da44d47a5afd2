import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { startGateway, type Gateway } from '../../src/gateway';
import { DECODE_EXIT, runDecodeCommand } from '../../src/gateway/decode';
import { demoImei } from '../../src/demo/seed';
import { startFleet } from '../../src/gateway/simulator/fleet';
import { createTestApp, type TestApp } from '../support/app';
import { waitFor } from '../support/wait';

/** The decode CLI and the simulator, run as a user would. */
const C8_EX1 =
  '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';

async function decode(...args: string[]) {
  const child = Bun.spawn(['bun', 'run', 'scripts/decode.ts', ...args], { stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { lines: stdout.trim().split('\n').filter(Boolean), stderr, code };
}

test('bun run decode prints one JSON line per record for each protocol', async () => {
  const teltonika = await decode('teltonika', C8_EX1, '356307042441013');
  expect(teltonika.code).toBe(0);
  expect(teltonika.lines).toHaveLength(1);
  const record = JSON.parse(teltonika.lines[0]!);
  expect(record).toMatchObject({ protocol: 'teltonika', time: '2019-06-10T10:04:46.000Z', latitude: 0, longitude: 0 });
  expect(record.io['21']).toBe(3);

  const gt06 = await decode('gt06', '78780D01012345678901234500018CDD0D0A 78781F120B081D112E10CF027AC7EB0C46584900148F01CC00287D001FB8000380810D0A');
  expect(gt06.code).toBe(0);
  expect(gt06.lines.map((line) => JSON.parse(line).message)).toEqual(['login', 'location']);
  expect(JSON.parse(gt06.lines[1]!)).toMatchObject({ deviceId: '123456789012345', speedKmh: 0 });

  const osmand = await decode('osmand', 'id=861234567890123&timestamp=1749555449&lat=59.33&lon=18.06&speed=10&ignition=true');
  expect(osmand.code).toBe(0);
  expect(JSON.parse(osmand.lines[0]!)).toMatchObject({ deviceId: '861234567890123', latitude: 59.33, normalized: { ignition: true } });
});

test('bun run decode exits non-zero with a clear message on a malformed payload', async () => {
  const badCrc = await decode('teltonika', `${C8_EX1.slice(0, -4)}0000`);
  expect(badCrc.code).toBe(1);
  expect(badCrc.stderr).toContain('malformed teltonika payload');
  const notHex = await decode('gt06', 'hello');
  expect(notHex.code).toBe(1);
  expect(notHex.stderr).toContain('hexadecimal');
  const usage = await decode('nmea', 'x');
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('usage');
  expect((await decode('teltonika', C8_EX1, '--model')).code).toBe(2);
});

test("bun run decode: the frame's own codec, a ping in front, --model, and a time that is no date", async () => {
  const codec14 = await decode('teltonika', '00000000000000170e01050000000f0356307042441013676574696e666f0100009731');
  expect(codec14.lines.map((line) => JSON.parse(line))).toEqual([{ message: 'command', codec: 14, messageType: 5, text: 'getinfo' }]);
  const codec12 = await decode('teltonika', '000000000000000a0c0106000000026f6b010000d092');
  expect(JSON.parse(codec12.lines[0]!)).toEqual({ message: 'response', codec: 12, messageType: 6, text: 'ok' });
  // A capture that starts with the ping byte is TCP, not a UDP datagram.
  const pinged = await decode('teltonika', `FF${C8_EX1}`, '--model', 'FMB920');
  expect(pinged.code).toBe(0);
  expect(pinged.lines.map((line) => JSON.parse(line))).toMatchObject([{ message: 'ping' }, { codec: 8, protocol: 'teltonika', normalized: { externalVoltageV: 24.079 } }]);
  // Month 13: printed without a time rather than rolled over into the next year.
  const month13 = await decode('gt06', '78780D01012345678901234500018CDD0D0A 78781F120B0D1D112E10CF027AC7EB0C46584900148F01CC00287D001FB8000393F80D0A');
  expect(month13.code).toBe(0);
  expect(JSON.parse(month13.lines[1]!)).toMatchObject({ message: 'location', time: null });
});

test('bun run decode: a failure of the decoder itself has its own exit code and says so', () => {
  const errors: string[] = [];
  const code = runDecodeCommand(['gt06', '7878'], () => {}, (line) => errors.push(line), () => {
    throw new TypeError("Cannot read properties of undefined (reading 'length')");
  });
  expect(code).toBe(DECODE_EXIT.internal);
  expect(code).not.toBe(DECODE_EXIT.malformed);
  expect(errors[0]).toStartWith('internal error of the gt06 decoder');
});

let app: TestApp;
let gateway: Gateway;
beforeAll(async () => {
  app = await createTestApp();
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

test('the simulator drives trackers of all three protocols over real sockets, with trips, odometer and a BLE sensor', async () => {
  const { accountId } = await app.createAccount();
  const protocols = ['teltonika', 'teltonika', 'gt06', 'osmand'] as const;
  const devices = protocols.map((protocol, index) => ({ imei: demoImei(index), protocol }));
  for (const device of devices) {
    await app.database.rows(
      sql`insert into units (account_id, imei, name, protocol) values (${accountId}, ${device.imei}, ${device.imei}, ${device.protocol})`,
    );
  }
  let acknowledged = 0;
  const errors: string[] = [];
  // 600× speed-up: each frame covers a minute of driving.
  const fleet = startFleet({
    host: '127.0.0.1',
    ports: gateway.ports,
    devices,
    intervalMs: 100,
    recordsPerFrame: 3,
    speedup: 600,
    onAck: (records) => {
      acknowledged += records;
    },
    onError: (_imei, error) => void errors.push(error),
  });
  await waitFor('120 acknowledged records', () => acknowledged >= 120, { timeoutMs: 60_000, intervalMs: 100 });
  await fleet.stop();
  await gateway.context.ingest.drain();
  expect(errors).toEqual([]);
  const rows = await app.database.rows<{ protocol: string; n: number; ignition_on: number; temperature: number | null; odometer: number }>(sql`
    select u.protocol, count(*)::int as n, count(*) filter (where p.ignition)::int as ignition_on,
           max((p.normalized->'ble'->0->>'temperatureC')::float8) as temperature, max(p.odometer_m)::float8 as odometer
    from positions p join units u on u.id = p.unit_id group by u.protocol order by u.protocol`);
  expect(rows.map((row) => row.protocol)).toEqual(['gt06', 'osmand', 'teltonika']);
  for (const row of rows) expect(row.n).toBeGreaterThan(5);
  const teltonika = rows.find((row) => row.protocol === 'teltonika')!;
  expect(teltonika.ignition_on).toBeGreaterThan(0);
  expect(teltonika.temperature).toBeGreaterThan(0);
  expect(teltonika.odometer).toBeGreaterThan(10_000_000);
}, 60_000);

test('a simulated Teltonika tracker answers Codec 12 commands between its frames and keeps reporting', async () => {
  const { accountId } = await app.createAccount();
  const imei = demoImei(40);
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, protocol, model) values (${accountId}, ${imei}, ${imei}, 'teltonika', 'FMB920') returning id`,
  );
  let acknowledged = 0;
  const errors: string[] = [];
  const fleet = startFleet({
    host: '127.0.0.1',
    ports: gateway.ports,
    devices: [{ imei, protocol: 'teltonika' }],
    intervalMs: 200,
    recordsPerFrame: 2,
    speedup: 60,
    onAck: (records) => {
      acknowledged += records;
    },
    onError: (_imei, error) => void errors.push(error),
  });
  try {
    await waitFor('the first acknowledged frame', () => acknowledged > 0, { timeoutMs: 30_000 });
    const commands = app.services.commands;
    const mode = await commands.enqueue({ unitId: unit!.id, kind: 'setparam', payload: 'setparam 10000:300;10050:1800' });
    const version = await commands.enqueue({ unitId: unit!.id, kind: 'text', payload: 'getver' });
    await waitFor('both commands answered', async () => (await commands.get(version))?.status === 'answered', { timeoutMs: 30_000 });
    expect((await commands.get(mode))?.response).toBe('New value 10000:300;10050:1800');
    expect((await commands.get(version))?.response).toStartWith('Ver:');
    const before = acknowledged;
    await waitFor('frames acknowledged after the commands', () => acknowledged >= before + 4, { timeoutMs: 30_000 });
    expect(errors).toEqual([]);
  } finally {
    await fleet.stop();
  }
}, 60_000);
