import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { startGateway, type Gateway } from '../../src/gateway';
import { seededRandom } from '../../src/gateway/simulator/vehicle';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice, hex, imeiLogin } from '../support/device';

/** Hostile and broken input on every listener: nothing crashes, nothing bad is stored, others carry on. */
const C8_EX1 =
  '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';
const GT06_LOGIN = '78780D01012345678901234500018CDD0D0A';

let app: TestApp;
let gateway: Gateway;
let goodUnit: number;

async function positions(): Promise<number> {
  const [row] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from positions`);
  return row!.n;
}

beforeAll(async () => {
  app = await createTestApp();
  const { accountId } = await app.createAccount();
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${accountId}, '356307042441013', 'Good') returning id`,
  );
  goodUnit = unit!.id;
  await app.database.rows(sql`insert into units (account_id, imei, name, protocol) values (${accountId}, '123456789012345', 'GT06', 'gt06')`);
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

test('random bytes, truncated frames, wrong CRCs and oversized lengths store nothing and leave a good device working', async () => {
  const random = seededRandom(42);
  const randomHex = (bytes: number) =>
    Array.from({ length: bytes }, () => Math.floor(random() * 256).toString(16).padStart(2, '0')).join('');

  // A well-behaved device stays connected throughout.
  const good = await connectDevice(gateway.ports.teltonika);
  good.write(imeiLogin('356307042441013'));
  expect(hex(await good.read(1))).toBe('01');

  const hostile: Array<Promise<unknown>> = [];
  for (let i = 0; i < 30; i++) {
    hostile.push(
      (async () => {
        const port = i % 2 === 0 ? gateway.ports.teltonika : gateway.ports.gt06;
        const device = await connectDevice(port);
        device.write(randomHex(1 + Math.floor(random() * 2000)));
        await device.waitClosed(2000);
        device.end();
      })(),
    );
  }
  // Logged in, then: a wrong CRC, a frame declaring 2 GB, a truncated frame then hang-up.
  const badCrc = await connectDevice(gateway.ports.teltonika);
  badCrc.write(imeiLogin('356307042441013'));
  expect(hex(await badCrc.read(1))).toBe('01');
  badCrc.write(`${C8_EX1.slice(0, -8)}DEADBEEF`);
  expect(await badCrc.read(4, 500)).toBeNull();

  const oversized = await connectDevice(gateway.ports.teltonika);
  oversized.write(imeiLogin('356307042441013'));
  expect(hex(await oversized.read(1))).toBe('01');
  oversized.write('000000007FFFFFFF08');
  expect(await oversized.waitClosed()).toBe(true); // refused at the header, nothing buffered

  const truncated = await connectDevice(gateway.ports.teltonika);
  truncated.write(imeiLogin('356307042441013'));
  expect(hex(await truncated.read(1))).toBe('01');
  truncated.write(C8_EX1.slice(0, 60));
  truncated.end();

  // GT06: a frame with a wrong CRC after login is not answered.
  const gt06 = await connectDevice(gateway.ports.gt06);
  gt06.write(GT06_LOGIN);
  expect(hex(await gt06.read(10))).toBe('787805010001D9DC0D0A');
  gt06.write('78781F120B081D112E10CF027AC7EB0C46584900148F01CC00287D001FB80003FFFF0D0A');
  expect(await gt06.read(10, 500)).toBeNull();

  // OsmAnd: malformed requests get 400 and store nothing.
  const base = `http://127.0.0.1:${gateway.ports.osmand}`;
  for (const body of ['{"location":', randomHex(200), 'id=356307042441013&lat=north&lon=18']) {
    const response = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  }

  await Promise.all(hostile);
  expect(await positions()).toBe(0);

  // The good device is unaffected.
  good.write(C8_EX1);
  expect(hex(await good.read(4))).toBe('00000001');
  const [row] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from positions where unit_id = ${goodUnit}`);
  expect(row!.n).toBe(1);
  expect(await positions()).toBe(1);
  good.end();
  badCrc.end();
  gt06.end();
  expect(gateway.context.metrics.badCrc).toBeGreaterThanOrEqual(2);
}, 60_000);

test('a slow device that sends one byte at a time is served; memory held per connection is capped', async () => {
  const slow = await connectDevice(gateway.ports.teltonika);
  for (const byte of Buffer.from(imeiLogin('356307042441013'), 'hex')) {
    slow.write(new Uint8Array([byte]));
    await Bun.sleep(5);
  }
  expect(hex(await slow.read(1))).toBe('01');
  // A second copy of example 1 with another timestamp so it is a new record.
  const frame = Buffer.from(C8_EX1, 'hex');
  for (const byte of frame) {
    slow.write(new Uint8Array([byte]));
    await Bun.sleep(2);
  }
  expect(hex(await slow.read(4))).toBe('00000001'); // a resend of a stored record: acknowledged, stored once
  slow.end();

  // 40 connections each announce a 60 KB frame and send only part of it: the gateway holds at most the
  // frame cap per connection, and a frame above the cap is refused before it is buffered.
  const hogs = await Promise.all(Array.from({ length: 40 }, () => connectDevice(gateway.ports.teltonika)));
  for (const hog of hogs) {
    hog.write(imeiLogin('356307042441013'));
    expect(hex(await hog.read(1))).toBe('01');
    hog.write(`00000000${(1 << 20).toString(16).padStart(8, '0')}08`);
  }
  for (const hog of hogs) expect(await hog.waitClosed()).toBe(true);
  expect(await positions()).toBe(1);
}, 60_000);
