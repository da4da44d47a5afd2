import { afterEach, describe, expect, test } from 'bun:test';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import { hashPassword } from '../../src/lib/password';
import { DEFAULT_DETECTION_PARAMS, detectTrips } from '../../src/modules/trips/detector';
import { type DetectorPosition, scriptDrive } from '../../src/modules/trips/testing';
import { createTestDatabase } from '../support/database';
import { connectDevice, driveRecords } from '../support/device';
import { startInstance, startTcpProxy } from '../support/instances';
import { waitFor } from '../support/wait';

/**
 * Trip detection and geofence matching happen once across instances: two portal processes on one PostgreSQL database
 * behind a TCP proxy of the test's own, and trackers that drive through a zone and park while each frame goes out on a
 * new connection, so consecutive frames land on alternate instances (some sent twice, to both, as a tracker does that
 * missed its ACK). Both instances detect the same units at the same moments; each unit ends with the trip the detector
 * finds in the whole drive at once, and one entry and one exit in the zone log and the outbox.
 * PostgreSQL only: an embedded database belongs to one process.
 */
const POSTGRES = process.env.TEST_DB === 'postgres';
const PASSWORD = 'Secret-123!';
const TRACKERS = 3;
const RECORDS_PER_FRAME = 6;

const CENTER = { latitude: 59.33, longitude: 18.06 };
const RADIUS_M = 400;
const M_PER_LON = 111_320 * Math.cos((CENTER.latitude * Math.PI) / 180);

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => {});
  cleanup = [];
});

/** Sends one frame on a connection of its own through the proxy; true when it was acknowledged. */
async function sendFrame(port: number, imei: string, records: DetectorPosition[]): Promise<boolean> {
  const device = await connectDevice(port);
  try {
    device.write(encodeImeiFrame(imei));
    const login = await device.read(1, 20_000);
    if (login?.[0] !== 1) return false;
    device.write(encodeAvlFrame(0x8e, driveRecords(records)));
    const ack = await device.read(4, 20_000);
    return ack !== null && new DataView(ack.buffer, ack.byteOffset).getUint32(0) === records.length;
  } finally {
    device.end();
  }
}

describe.skipIf(!POSTGRES)('two instances on one PostgreSQL database', () => {
  test('a drive through a zone, frame by frame on alternate instances: one trip, one entry and one exit', async () => {
    const database = await createTestDatabase('postgres');
    cleanup.push(() => database.dispose());
    if (database.location.kind !== 'postgres') throw new Error('PostgreSQL only');
    const db = database.handle;

    const [account] = await db.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Zone fleet') RETURNING id`);
    const accountId = account!.id;
    const email = `zones-${Date.now()}@example.com`;
    await db.query(`INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Zed', 'Admin', 'admin')`, [
      accountId,
      email,
      await hashPassword(PASSWORD),
    ]);
    const units: Array<{ id: number; imei: string }> = [];
    for (let i = 0; i < TRACKERS; i++) {
      const imei = `35630704266${String(i).padStart(4, '0')}`;
      const [unit] = await db.query<{ id: number }>(
        `INSERT INTO units (account_id, imei, name, protocol, model) VALUES ($1, $2, $3, 'teltonika', 'FMB920') RETURNING id`,
        [accountId, imei, `Van ${i}`],
      );
      units.push({ id: unit!.id, imei });
    }

    const [a, b] = await Promise.all([
      startInstance({ databaseUrl: database.location.url, name: 'instance A' }),
      startInstance({ databaseUrl: database.location.url, name: 'instance B' }),
    ]);
    cleanup.push(() => a.kill(), () => b.kill());
    const proxy = startTcpProxy([a.gateway.teltonika, b.gateway.teltonika]);
    cleanup.push(() => proxy.stop());

    // The zone, through instance B's API.
    const headers = { accept: 'application/json', 'content-type': 'application/json', 'x-lang': 'en' };
    const login = await fetch(`${b.url}/api/login`, { method: 'POST', headers, body: JSON.stringify({ username: email, password: PASSWORD, subsiteid: 0 }) });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { data: { user: { token: string } } }).data.user.token;
    const created = await fetch(`${b.url}/api/geofences`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: 'Depot',
        shape: 'circle',
        center: CENTER,
        radiusM: RADIUS_M,
        points: null,
        units: units.map((unit) => unit.id),
        deactivations: [],
        theftMode: false,
        realTime: true,
        active: true,
      }),
    });
    expect(created.status).toBe(200);

    // West of the zone, 5 minutes east through it at 36 km/h (100 m a fix), then parked with the ignition off for 10.
    const start = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    const drive = scriptDrive({ start, lat: CENTER.latitude, lon: CENTER.longitude - 1550 / M_PER_LON, interval: 10 }, [
      { park: 60 },
      { move: 300, speedKmh: 36, bearing: 90 },
      { park: 600 },
    ]);
    const expected = detectTrips(drive, DEFAULT_DETECTION_PARAMS);
    expect(expected).toHaveLength(1);

    // Every frame on a new connection, so the proxy sends consecutive frames to alternate instances; every third is
    // sent again on the next connection (the other instance) before the tracker goes on. All trackers at once.
    const framesSent = await Promise.all(
      units.map(async (unit) => {
        let connections = 0;
        for (let i = 0, frame = 0; i < drive.length; i += RECORDS_PER_FRAME, frame++) {
          const records = drive.slice(i, i + RECORDS_PER_FRAME);
          const times = frame % 3 === 2 ? 2 : 1;
          for (let sent = 0; sent < times; ) {
            connections++;
            if (await sendFrame(proxy.port, unit.imei, records)) sent++;
          }
        }
        return connections;
      }),
    );
    for (const connections of framesSent) expect(connections).toBeGreaterThan(drive.length / RECORDS_PER_FRAME);
    const served = proxy.served();
    expect(served.get(a.gateway.teltonika)).toBeGreaterThan(TRACKERS * 5);
    expect(served.get(b.gateway.teltonika)).toBeGreaterThan(TRACKERS * 5);

    // Each unit: every position once, the detector's one trip, one entry and one exit.
    const tripsOf = (unitId: number) =>
      db.query<{ start_time: Date; stop_time: Date }>('SELECT start_time, stop_time FROM trips WHERE unit_id = $1 ORDER BY start_time', [unitId]);
    const logOf = async (unitId: number) =>
      (await db.query<{ transition: string }>('SELECT transition FROM geofence_events WHERE unit_id = $1 ORDER BY at, id', [unitId])).map((row) => row.transition);
    const publishedOf = async (unitId: number) =>
      (
        await db.query<{ type: string }>("SELECT type FROM outbox_events WHERE type LIKE 'geofence.%' AND (payload->>'unitId')::int = $1 ORDER BY id", [
          unitId,
        ])
      ).map((row) => row.type);
    const settled = async () => {
      for (const unit of units) {
        const trips = await tripsOf(unit.id);
        if (trips.length !== 1 || new Date(trips[0]!.stop_time).getTime() !== expected[0]!.stop.t) return false;
      }
      return true;
    };
    await waitFor('each unit’s trip detected', settled, { timeoutMs: 60_000, intervalMs: 250 });
    // Both instances have had their detection passes since (a pass runs every second): still one trip each.
    await Bun.sleep(3000);
    for (const unit of units) {
      const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE unit_id = $1', [unit.id]);
      expect(count!.n).toBe(drive.length);
      const trips = await tripsOf(unit.id);
      expect(trips.map((trip) => [new Date(trip.start_time).getTime(), new Date(trip.stop_time).getTime()])).toEqual([
        [expected[0]!.start.t, expected[0]!.stop.t],
      ]);
      expect(await logOf(unit.id)).toEqual(['entered', 'exited']);
      expect(await publishedOf(unit.id)).toEqual(['geofence.entered', 'geofence.exited']);
    }
  }, 170_000);
});
