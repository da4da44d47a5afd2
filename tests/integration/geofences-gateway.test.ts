import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type Gateway, startGateway } from '../../src/gateway';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import type { GeofenceInput, GeofenceView } from '../../src/modules/geofences/model';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice } from '../support/device';

/**
 * Scripted drives through the real gateway (Teltonika over TCP, each frame acknowledged before the next): matching runs
 * in each ingest batch's transaction, so once a frame is acknowledged its crossings are in the zone log and the outbox.
 * Into and out of a circle and a polygon; jitter along a border; the same drive out of order and resent late; a drive
 * inside a deactivation window; a zone without real-time activation (logged, not raised).
 */
let app: TestApp;
let gateway: Gateway;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let imeiSequence = 0;

const CENTER = { latitude: 59.33, longitude: 18.06 };
const RADIUS_M = 400;
/** Metres per degree of longitude at the centre's latitude, and per degree of latitude. */
const M_PER_LON = 111_320 * Math.cos((CENTER.latitude * Math.PI) / 180);
const M_PER_LAT = 110_950;

interface Fix {
  time: Date;
  latitude: number;
  longitude: number;
}

async function addUnit(name: string): Promise<{ id: number; imei: string }> {
  imeiSequence += 1;
  const imei = `3563070428${String(80000 + imeiSequence).padStart(5, '0')}`;
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, protocol, model) values (${admin.accountId}, ${imei}, ${name}, 'teltonika', 'FMB920') returning id`,
  );
  return { id: unit!.id, imei };
}

async function zone(input: Partial<GeofenceInput>): Promise<GeofenceView> {
  const body: GeofenceInput = {
    name: 'Depot',
    shape: 'circle',
    center: CENTER,
    radiusM: RADIUS_M,
    points: null,
    units: [],
    deactivations: [],
    theftMode: false,
    realTime: true,
    active: true,
    ...input,
  };
  const result = await app.call<GeofenceView>('POST', '/api/geofences', { token, body });
  expect(result.status).toBe(200);
  return result.body.data!;
}

/** A drive east along the centre's latitude, one fix every 10 s, `stepM` metres apart, starting at `fromM` east of the centre. */
function driveEast(start: Date, fromM: number, toM: number, stepM = 60): Fix[] {
  const fixes: Fix[] = [];
  for (let x = fromM, i = 0; x <= toM; x += stepM, i++) {
    fixes.push({ time: new Date(start.getTime() + i * 10_000), latitude: CENTER.latitude, longitude: CENTER.longitude + x / M_PER_LON });
  }
  return fixes;
}

/** Sends fixes as Codec 8E frames of `perFrame` records (optionally reordered inside each frame), each acknowledged. */
async function send(imei: string, fixes: Fix[], options: { perFrame?: number; shuffle?: boolean; frameOrder?: 'reverse' } = {}): Promise<void> {
  const perFrame = options.perFrame ?? 5;
  const frames: Fix[][] = [];
  for (let i = 0; i < fixes.length; i += perFrame) frames.push(fixes.slice(i, i + perFrame));
  if (options.frameOrder === 'reverse') frames.reverse();
  const device = await connectDevice(gateway.ports.teltonika);
  device.write(encodeImeiFrame(imei));
  expect(Buffer.from((await device.read(1))!).toString('hex')).toBe('01');
  for (const frame of frames) {
    // A fixed shuffle: reversed, then odd records before even ones.
    const ordered = options.shuffle ? [...frame].reverse().filter((_, i) => i % 2).concat([...frame].reverse().filter((_, i) => !(i % 2))) : frame;
    const records = ordered.map((fix) => ({ ...fix, altitude: 20, speedKmh: 40, course: 90, satellites: 9, io: { 239: 1, 240: 1 } }));
    device.write(encodeAvlFrame(0x8e, records));
    const ack = await device.read(4, 10_000);
    expect(ack ? new DataView(ack.buffer, ack.byteOffset).getUint32(0) : -1).toBe(records.length);
  }
  device.end();
}

/** The zone log of a unit, oldest first: transition and the confirming fix's time. */
async function logOf(unitId: number): Promise<Array<[string, string]>> {
  const rows = await app.database.query<{ transition: string; at: Date | string }>(
    'SELECT transition, at FROM geofence_events WHERE unit_id = $1 ORDER BY at, id',
    [unitId],
  );
  return rows.map((row) => [row.transition, new Date(row.at).toISOString()]);
}

/** The durable events published for a unit, oldest first. */
async function publishedFor(unitId: number): Promise<Array<{ type: string; payload: Record<string, unknown> }>> {
  const rows = await app.database.query<{ type: string; payload: Record<string, unknown> | string }>(
    "SELECT type, payload FROM outbox_events WHERE type LIKE 'geofence.%' AND (payload->>'unitId')::int = $1 ORDER BY id",
    [unitId],
  );
  return rows.map((row) => ({ type: row.type, payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload }));
}

const hourAgo = () => new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);

beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  token = await app.login(admin);
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 }, { storedBatchHooks: app.services.tracking.storedBatchHooks });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

describe('crossings through the gateway', () => {
  test('into and out of a circle: one entry and one exit, each at the second fix on the new side, in the log and the outbox', async () => {
    const unit = await addUnit('Circle car');
    const depot = await zone({ name: 'Circle depot', units: [unit.id], theftMode: true });
    const start = hourAgo();
    const drive = driveEast(start, -1030, 1000);
    await send(unit.imei, drive);
    // Fixes 60 m apart from -1030 m: inside (≤ 400 m) from x = -370 (fix 11), confirmed at fix 12; x = 410 (fix 24) is in the
    // margin, beyond 425 m from x = 470 (fix 25), confirmed at fix 26.
    expect(await logOf(unit.id)).toEqual([
      ['entered', drive[12]!.time.toISOString()],
      ['exited', drive[26]!.time.toISOString()],
    ]);
    const published = await publishedFor(unit.id);
    expect(published.map((event) => event.type)).toEqual(['geofence.entered', 'geofence.exited']);
    expect(published[1]!.payload).toEqual({
      accountId: admin.accountId,
      unitId: unit.id,
      geofenceId: depot.id,
      geofenceName: 'Circle depot',
      theftMode: true,
      at: drive[26]!.time.toISOString(),
      latitude: drive[26]!.latitude,
      longitude: Math.round(drive[26]!.longitude * 1e7) / 1e7,
    });
    // The list shows who is inside now: nobody.
    const view = await app.call<GeofenceView>('GET', `/api/geofences/${depot.id}`, { token });
    expect(view.body.data!.unitsInside).toEqual([]);
    const log = await app.call<Array<{ transition: string; unitName: string; geofenceName: string }>>('GET', `/api/geofences/events?unitId=${unit.id}`, { token });
    expect(log.body.data!.map((event) => [event.transition, event.unitName, event.geofenceName])).toEqual([
      ['exited', 'Circle car', 'Circle depot'],
      ['entered', 'Circle car', 'Circle depot'],
    ]);
  }, 60_000);

  test('into and out of a polygon', async () => {
    const unit = await addUnit('Polygon car');
    // A square 600 m wide around the centre, tilted points included so it is a true polygon.
    const half = 300;
    const corner = (dx: number, dy: number) => ({ latitude: CENTER.latitude + dy / M_PER_LAT, longitude: CENTER.longitude + dx / M_PER_LON });
    await zone({ name: 'Yard', shape: 'polygon', center: null, radiusM: null, points: [corner(-half, -half), corner(half, -half), corner(half, half), corner(-half, half)], units: [unit.id] });
    const drive = driveEast(hourAgo(), -1030, 1000);
    await send(unit.imei, drive);
    // x = -310 (fix 12) is in the margin; inside from x = -250 (fix 13), confirmed at 14; beyond 325 m from x = 350 (fix 23), confirmed at 24.
    expect(await logOf(unit.id)).toEqual([
      ['entered', drive[14]!.time.toISOString()],
      ['exited', drive[24]!.time.toISOString()],
    ]);
  }, 60_000);

  test('jitter along the border does not flap', async () => {
    const unit = await addUnit('Parked at the gate');
    await zone({ name: 'Gate', units: [unit.id] });
    const start = hourAgo();
    const at = (i: number, x: number): Fix => ({ time: new Date(start.getTime() + i * 10_000), latitude: CENTER.latitude, longitude: CENTER.longitude + x / M_PER_LON });
    // Inside, then 40 fixes scattered around the border: 15 m inside, 40 m outside (beyond the margin) and 10 m outside (in it), never two outside in a row.
    const scatter = [RADIUS_M - 15, RADIUS_M + 40, RADIUS_M + 10, RADIUS_M + 40, RADIUS_M - 15];
    const fixes = [at(0, 0), at(1, 100), ...Array.from({ length: 40 }, (_, i) => at(2 + i, scatter[i % scatter.length]!))];
    await send(unit.imei, fixes);
    expect(await logOf(unit.id)).toEqual([]);
    // Then it drives off: one exit.
    await send(unit.imei, [at(50, 600), at(51, 700)]);
    expect((await logOf(unit.id)).map(([transition]) => transition)).toEqual(['exited']);
  }, 60_000);

  test('the same drive out of order gives the same crossings; resent late it gives none', async () => {
    const inOrder = await addUnit('In order');
    const shuffled = await addUnit('Out of order');
    await zone({ name: 'Order depot', units: [inOrder.id, shuffled.id] });
    const start = hourAgo();
    const drive = driveEast(start, -1030, 1000);
    await send(inOrder.imei, drive, { perFrame: 10 });
    // A tracker sending its buffer newest first and scrambled inside each frame.
    await send(shuffled.imei, drive, { perFrame: 10, shuffle: true });
    const expected = await logOf(inOrder.id);
    expect(expected.map(([transition]) => transition)).toEqual(['entered', 'exited']);
    expect(await logOf(shuffled.id)).toEqual(expected);
    // Every frame again, last frame first (a tracker that missed its ACKs): late records invent nothing.
    await send(shuffled.imei, drive, { perFrame: 10, shuffle: true, frameOrder: 'reverse' });
    await send(shuffled.imei, drive.slice(0, 12).map((fix) => ({ ...fix, time: new Date(fix.time.getTime() - 5_000) })), { perFrame: 3 });
    expect(await logOf(shuffled.id)).toEqual(expected);
    expect((await publishedFor(shuffled.id)).length).toBe(2);
  }, 60_000);

  test('a drive inside a deactivation window raises nothing; a zone without real-time activation only logs', async () => {
    const quiet = await addUnit('Night drive');
    const logged = await addUnit('Logged only');
    // Every day, all day, in the account's time zone.
    const paused = await zone({ name: 'Paused depot', units: [quiet.id], deactivations: [{ days: [0, 1, 2, 3, 4, 5, 6], from: '00:00', to: '24:00' }] });
    await zone({ name: 'Report depot', units: [logged.id], realTime: false });
    const drive = driveEast(hourAgo(), -1030, 1000);
    await send(quiet.imei, drive.slice(0, 18)); // ends inside
    expect(await logOf(quiet.id)).toEqual([]);
    expect(await publishedFor(quiet.id)).toEqual([]);
    // The state followed the unit silently: it is inside.
    expect((await app.call<GeofenceView>('GET', `/api/geofences/${paused.id}`, { token })).body.data!.unitsInside).toEqual([quiet.id]);
    await send(logged.imei, drive);
    expect((await logOf(logged.id)).map(([transition]) => transition)).toEqual(['entered', 'exited']);
    expect(await publishedFor(logged.id)).toEqual([]);
  }, 60_000);

  test('an inactive zone raises nothing; switched on again, the first side is no crossing', async () => {
    const unit = await addUnit('Switched');
    const depot = await zone({ name: 'Switched depot', units: [unit.id], active: false });
    const drive = driveEast(hourAgo(), -1030, 1000);
    await send(unit.imei, drive.slice(0, 18)); // ends inside
    expect(await logOf(unit.id)).toEqual([]);
    await app.call('POST', `/api/geofences/${depot.id}/active`, { token, body: { active: true } });
    await send(unit.imei, drive.slice(18));
    // Inside was first confirmed after the switch, so only the exit is a crossing.
    expect((await logOf(unit.id)).map(([transition]) => transition)).toEqual(['exited']);
  }, 60_000);

  test("a zone on a unit's feature profile applies to the unit", async () => {
    const unit = await addUnit('Profile car');
    const depot = await zone({ name: 'Profile depot', units: [] });
    const profile = await app.call<{ id: number }>('POST', '/api/admin/feature-profiles', { token, body: { name: 'Depot profile', geozoneIds: [depot.id] } });
    expect(profile.status).toBe(200);
    await app.database.query('UPDATE units SET feature_profile_id = $1 WHERE id = $2', [profile.body.data!.id, unit.id]);
    await send(unit.imei, driveEast(hourAgo(), -1030, 1000));
    expect((await logOf(unit.id)).map(([transition]) => transition)).toEqual(['entered', 'exited']);
  }, 60_000);
});
