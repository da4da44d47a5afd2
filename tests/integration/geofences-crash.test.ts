import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import { systemClock } from '../../src/lib/clock';
import { type DatabaseHandle, openPglite, openPostgres } from '../../src/lib/db/client';
import type { EventMap } from '../../src/lib/events';
import { createLogger } from '../../src/lib/log';
import { Outbox } from '../../src/lib/outbox';
import '../../src/modules/geofences/events';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { connectDevice, hex } from '../support/device';
import { collectLines, portalEnv, startPortal, waitForPort } from '../support/instances';

/**
 * A zone exit survives kill -9: the real portal (src/main.ts, its own gateway, no dispatcher) commits the crossing with
 * the frame and is killed right after acknowledging it; a consumer (tests/support/geofence-outbox.ts, the product's
 * outbox) is killed inside the delivery's transaction; restarted, it gets the exit exactly once. The tracker, having
 * missed its ACK, sends the frame again to a restarted portal: no second crossing.
 */
const IMEI = '356307042449913';
const SUBSCRIBER = join(import.meta.dir, '../support/geofence-outbox.ts');
const CENTER = { latitude: 59.33, longitude: 18.06 };
const M_PER_LON = 111_320 * Math.cos((CENTER.latitude * Math.PI) / 180);

let database: TestDatabase;
let dataRoot: string | null = null;
let env: Record<string, string>;

afterAll(async () => {
  await database?.dispose();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

const pgliteDir = () => join(dataRoot!, 'pglite');

async function withHandle<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = database.location.kind === 'pglite' ? await openPglite(pgliteDir()) : await openPostgres(database.location.url, 1);
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

/** The consumer process and what it has printed. */
function consumer(extra: Record<string, string>) {
  const location = database.location.kind === 'pglite' ? { OUTBOX_PGLITE_DIR: pgliteDir() } : { OUTBOX_POSTGRES_URL: database.location.url };
  const child: Subprocess<'ignore', 'pipe', 'inherit'> = Bun.spawn(['bun', SUBSCRIBER], { env: { ...process.env, ...location, ...extra }, stdout: 'pipe', stderr: 'inherit' });
  const { lines, reading } = collectLines(child.stdout);
  return {
    lines,
    async waitFor(line: string, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (!lines.some((one) => one.startsWith(line))) {
        if (Date.now() > deadline) throw new Error(`the consumer did not print "${line}" (printed ${lines.join(' | ')})`);
        await Bun.sleep(20);
      }
    },
    async stop(signal: 'SIGKILL' | 'SIGTERM') {
      child.kill(signal);
      await child.exited;
      await reading;
    },
  };
}

/** Leaves the zone: from its centre 1 km east, a fix every 60 m and 10 s, in one frame. */
function exitFrame(start: number): Uint8Array {
  const records = Array.from({ length: 18 }, (_, i) => ({
    time: new Date(start + i * 10_000),
    latitude: CENTER.latitude,
    longitude: CENTER.longitude + (i * 60) / M_PER_LON,
    altitude: 20,
    speedKmh: 40,
    course: 90,
    satellites: 9,
    io: { 239: 1, 240: 1 },
  }));
  return encodeAvlFrame(0x8e, records);
}

async function sendFrame(port: number, frame: Uint8Array): Promise<void> {
  const device = await connectDevice(port);
  device.write(encodeImeiFrame(IMEI));
  expect(hex(await device.read(1))).toBe('01');
  device.write(frame);
  expect(hex(await device.read(4, 10_000))).toBe('00000012');
  device.end();
}

test('a zone exit committed with its frame is delivered once after kill -9, and a resent frame adds none', async () => {
  database = await createTestDatabase();
  const [account] = await database.handle.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name, country) VALUES (0, 'Crash zones', 'Sweden') RETURNING id`);
  const [unit] = await database.handle.query<{ id: number }>(`INSERT INTO units (account_id, imei, name, protocol, model) VALUES ($1, $2, 'Crash car', 'teltonika', 'FMB920') RETURNING id`, [
    account!.id,
    IMEI,
  ]);
  const [zone] = await database.handle.query<{ id: number }>(
    `INSERT INTO geofences (account_id, name, shape, geom, radius_m, theft_mode) VALUES ($1, 'Crash depot', 'circle', ST_GeogFromText('SRID=4326;POINT(18.06 59.33)'), 400, true) RETURNING id`,
    [account!.id],
  );
  await database.handle.query('INSERT INTO geofence_units (geofence_id, unit_id, account_id) VALUES ($1, $2, $3)', [zone!.id, unit!.id, account!.id]);
  await database.handle.exec('CREATE TABLE test_effects (event_id bigint NOT NULL, unit_id integer, geofence_id integer, at text, process text NOT NULL)');
  const { teltonikaPort, env: portalSettings } = portalEnv();
  env = portalSettings;
  // 0. The consumer's subscription is recorded (as every process records its subscribers at start; the consumer's own
  //    start does the same again).
  const registering = new Outbox<EventMap>({ database: database.handle, clock: systemClock, log: createLogger('silent') });
  registering.subscribe('geofence.exited', 'test.geofence-effect', async () => {});
  await registering.register();
  dataRoot = mkdtempSync(join(tmpdir(), 'fleet-geo-crash-'));
  if (database.location.kind === 'pglite') {
    // The portal keeps its embedded database in DATA_DIR/pglite; one process holds it at a time.
    await database.handle.close();
    renameSync(database.location.dir, pgliteDir());
    env.DATA_DIR = dataRoot;
  } else {
    env.DATABASE_URL = database.location.url;
  }

  // 1. The unit leaves the zone; the portal acknowledges the frame and is killed at once, before anything is delivered.
  const start = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
  const frame = exitFrame(start);
  let portal = startPortal(env);
  await waitForPort(teltonikaPort);
  await sendFrame(teltonikaPort, frame);
  process.kill(portal.pid, 'SIGKILL');
  await portal.exited;
  const exitAt = new Date(start + 8 * 10_000).toISOString(); // x = 420 is in the margin; 480 (fix 8) and 540 (fix 9) outside: confirmed at fix 9
  const confirmedAt = new Date(start + 9 * 10_000).toISOString();
  expect(exitAt < confirmedAt).toBe(true);
  await withHandle(async (handle) => {
    const log = await handle.query<{ transition: string; at: Date | string }>('SELECT transition, at FROM geofence_events WHERE unit_id = $1', [unit!.id]);
    expect(log.map((row) => [row.transition, new Date(row.at).toISOString()])).toEqual([['exited', confirmedAt]]);
    // Counted for this consumer: the portal's own subscribers of zone exits (theft mode) have deliveries too.
    const [pending] = await handle.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_deliveries WHERE subscriber = 'test.geofence-effect' AND status <> 'done'`);
    expect(pending!.n).toBe(1);
  });

  // 2. The consumer writes the effect and dies inside that delivery's transaction: the effect goes with it.
  const doomed = consumer({ OUTBOX_HANG: '1', OUTBOX_NAME: 'doomed' });
  await doomed.waitFor('hanging');
  await doomed.stop('SIGKILL');
  expect(await withHandle((handle) => handle.query('SELECT * FROM test_effects'))).toEqual([]);

  // 3. Restarted, it gets the exit once, with the zone's theft-mode flag in the payload.
  const survivor = consumer({ OUTBOX_NAME: 'survivor' });
  await survivor.waitFor('handled');
  await Bun.sleep(500);
  await survivor.stop('SIGTERM');
  await withHandle(async (handle) => {
    const effects = await handle.query<{ unit_id: number; geofence_id: number; at: string; process: string }>('SELECT unit_id, geofence_id, at, process FROM test_effects');
    expect(effects).toEqual([{ unit_id: unit!.id, geofence_id: zone!.id, at: confirmedAt, process: 'survivor' }]);
    const [event] = await handle.query<{ payload: Record<string, unknown> | string }>(`SELECT payload FROM outbox_events WHERE type = 'geofence.exited'`);
    const payload = typeof event!.payload === 'string' ? JSON.parse(event!.payload) : event!.payload;
    expect(payload).toMatchObject({ unitId: unit!.id, geofenceId: zone!.id, geofenceName: 'Crash depot', theftMode: true, at: confirmedAt });
  });

  // 4. The tracker never saw its ACK and sends the frame again to a restarted portal: acknowledged, no new crossing.
  portal = startPortal(env);
  await waitForPort(teltonikaPort);
  await sendFrame(teltonikaPort, frame);
  portal.kill('SIGTERM');
  await portal.exited;
  await withHandle(async (handle) => {
    const [counts] = await handle.query<{ events: number; crossings: number; deliveries: number }>(
      `SELECT (SELECT count(*)::int FROM outbox_events WHERE type LIKE 'geofence.%') AS events,
              (SELECT count(*)::int FROM geofence_events) AS crossings,
              (SELECT count(*)::int FROM outbox_deliveries WHERE subscriber = 'test.geofence-effect') AS deliveries`,
    );
    expect(counts).toEqual({ events: 1, crossings: 1, deliveries: 1 });
  });
}, 400_000);
