/**
 * `bun run trips`: the command-line trip detector on recorded drives (CSV, GPX) and on a unit's stored
 * positions, checked against what the live path (ingest → detection) stored for the same positions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { parseDriveCsv, parseGpx, type TripLine } from '../../scripts/trips';
import { assemble } from '../../src/bootstrap';
import { ManualClock } from '../../src/lib/clock';
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/log';
import type { DetectorPosition } from '../../src/modules/trips/detector';
import { IngestWriter } from '../../src/modules/tracking/service';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ROOT = join(import.meta.dir, '../..');
const FIXTURES = join(ROOT, 'tests/fixtures/trips');
const IMEI = '356307042460001';

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; trips: TripLine[] }> {
  const child = Bun.spawn(['bun', 'run', 'scripts/trips.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', PORT: '59998', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const trips = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TripLine);
  return { code, stdout, stderr, trips };
}

describe('bun run trips --file', () => {
  test('a CSV drive with ignition and a long stop is two trips, one JSON line each', async () => {
    const result = await cli(['--file', join(FIXTURES, 'drive-two-trips.csv')]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.trips.map((trip) => [trip.start, trip.stop, trip.detection, trip.odometerSource])).toEqual([
      ['2026-03-02T07:01:10.000Z', '2026-03-02T07:12:10.000Z', 'ignition', 'device'],
      ['2026-03-02T07:32:10.000Z', '2026-03-02T07:40:10.000Z', 'ignition', 'device'],
    ]);
    // 10 min at 50 km/h and 8 min at 40 km/h, by the device odometer.
    expect(result.trips[0]!.distanceM).toBeGreaterThan(8_000);
    expect(result.trips[0]!.distanceM).toBeLessThan(8_400);
    expect(result.trips[1]!.distanceM).toBeGreaterThan(5_100);
    expect(result.trips[1]!.distanceM).toBeLessThan(5_400);
    expect(Object.keys(result.trips[0]!)).toEqual(expect.arrayContaining(['start', 'stop', 'startLat', 'startLon', 'stopLat', 'stopLon', 'distanceM']));
    // The second trip starts where the first one parked.
    expect(Math.abs(result.trips[1]!.startLat - result.trips[0]!.stopLat)).toBeLessThan(0.002);
  });

  test('a GPX track (no ignition, speed from the extension) with a long stop is two trips by motion', async () => {
    const result = await cli(['--file', join(FIXTURES, 'drive-two-trips.gpx')]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.trips.map((trip) => [trip.start, trip.stop, trip.detection, trip.maxSpeedKmh])).toEqual([
      ['2026-03-02T12:00:35.000Z', '2026-03-02T12:12:35.000Z', 'motion', 60],
      ['2026-03-02T12:37:35.000Z', '2026-03-02T12:46:35.000Z', 'motion', 45],
    ]);
    expect(result.trips[0]!.distanceM).toBeGreaterThan(11_500);
    expect(result.trips[0]!.distanceM).toBeLessThan(12_300);
  });

  test('GPX without speeds derives them from the fixes and finds the same trips', () => {
    const gpx = readFileSync(join(FIXTURES, 'drive-two-trips.gpx'), 'utf8');
    const withSpeed = parseGpx(gpx);
    const without = parseGpx(gpx.replace(/<extensions>[\s\S]*?<\/extensions>/g, ''));
    expect(without.length).toBe(withSpeed.length);
    const moving = (positions: DetectorPosition[]) => positions.filter((p) => p.speedKmh >= 5).length;
    expect(Math.abs(moving(without) - moving(withSpeed))).toBeLessThanOrEqual(2);
  });

  test('malformed files: a clear message naming the line, exit code 1', async () => {
    const time = await cli(['--file', join(FIXTURES, 'malformed-time.csv')]);
    expect(time.code).toBe(1);
    expect(time.stdout).toBe('');
    expect(time.stderr).toContain('malformed-time.csv: line 4: time "2026-03-02 07:00:20" is not an ISO 8601 date and time with an offset');
    const header = await cli(['--file', join(FIXTURES, 'missing-lon.csv')]);
    expect([header.code, header.stderr.trim()]).toEqual([1, `${join(FIXTURES, 'missing-lon.csv')}: line 1: the header must name lon (found: timestamp, latitude, speed)`]);
    const gpx = await cli(['--file', join(FIXTURES, 'truncated.gpx')]);
    expect([gpx.code, gpx.stderr.trim()]).toEqual([1, `${join(FIXTURES, 'truncated.gpx')}: not a complete GPX file: it does not end with </gpx>`]);
    const missing = await cli(['--file', join(FIXTURES, 'no-such-file.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');
    expect(() => parseDriveCsv('time,lat,lon\n2026-03-02T07:00:00Z,91,18\n')).toThrow('line 2: lat "91" is not a number between -90 and 90');
    const usage = await cli([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage:');
  });
});

describe('bun run trips --unit', () => {
  let database: TestDatabase;
  let dataDir: string | null = null;
  let env: Record<string, string>;
  let live: Array<{ start: string; stop: string; distance_m: number; start_lat: number; start_lon: number }>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', GATEWAY: '0', JOBS: '0' });
    const { platform, services } = await assemble(config, database.handle, { clock: new ManualClock('2026-03-02T09:00:00Z'), log: createLogger('silent') });
    const [account] = await database.handle.rows<{ id: number }>(sql`insert into accounts (subsite_id, company_name) values (0, 'CLI test') returning id`);
    const [unit] = await database.handle.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name, model, protocol) values (${account!.id}, ${IMEI}, 'CLI car', 'FMB920', 'teltonika') returning id`);
    // The live path: the fixture's positions through the ingest pipeline, detected as the gateway's would be.
    const positions = parseDriveCsv(readFileSync(join(FIXTURES, 'drive-two-trips.csv'), 'utf8'));
    const writer = new IngestWriter(database.handle, platform.events, platform.log, { maxDelayMs: 1 });
    for (let i = 0; i < positions.length; i += 25) {
      await writer.submit({
        unitId: unit!.id,
        accountId: account!.id,
        protocol: 'teltonika',
        deviceId: IMEI,
        receivedAt: new Date('2026-03-02T09:00:00Z'),
        records: positions.slice(i, i + 25).map((p) => ({
          protocol: 'teltonika' as const,
          deviceId: IMEI,
          time: new Date(p.t),
          latitude: p.lat,
          longitude: p.lon,
          altitude: 30,
          speedKmh: p.speedKmh,
          course: 90,
          satellites: 10,
          valid: true,
          priority: 0,
          eventId: 0,
          io: {},
          normalized: { ...(p.ignition === null ? {} : { ignition: p.ignition }), ...(p.odometerM === null ? {} : { odometerM: p.odometerM }) },
        })),
      });
    }
    await writer.drain();
    await services.trips.idle();
    live = await database.handle.query(
      `SELECT to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start, to_char(stop_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stop,
              distance_m, ST_Y(start_geom) AS start_lat, ST_X(start_geom) AS start_lon
       FROM trips WHERE unit_id = $1 ORDER BY start_time`,
      [unit!.id],
    );
    if (database.location.kind === 'pglite') {
      // The CLI opens DATA_DIR/pglite, one process at a time: hand the directory over.
      await database.handle.close();
      dataDir = mkdtempSync(join(tmpdir(), 'fleet-trips-cli-'));
      renameSync(database.location.dir, join(dataDir, 'pglite'));
      env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    } else {
      env = { DATABASE_URL: database.location.url };
    }
  }, 120_000);
  afterAll(async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await database?.dispose();
  });

  test("prints the trips of the unit's stored positions, the same as the live path stored", async () => {
    expect(live.length).toBe(2);
    const result = await cli(['--unit', IMEI, '--from', '2026-03-02T00:00:00Z', '--to', '2026-03-02T09:00:00Z'], env);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.trips.map((trip) => [trip.start, trip.stop, trip.distanceM])).toEqual(live.map((trip) => [trip.start, trip.stop, Math.round(Number(trip.distance_m))]));
    expect(result.trips[0]!.startLat).toBeCloseTo(Number(live[0]!.start_lat), 5);
    // A window with only the second drive.
    const later = await cli(['--unit', IMEI, '--from', '2026-03-02T07:20:00Z', '--to', '2026-03-02T09:00:00Z'], env);
    expect(later.trips.map((trip) => trip.start)).toEqual([live[1]!.start]);
  }, 60_000);

  test('an unknown IMEI and bad arguments: a message and a non-zero exit', async () => {
    const unknown = await cli(['--unit', '356307042469999', '--from', '2026-03-01', '--to', '2026-03-03'], env);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'unknown IMEI 356307042469999: no unit has it in this database']);
    const short = await cli(['--unit', '12345', '--from', '2026-03-01', '--to', '2026-03-03'], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('15-digit IMEI');
    const order = await cli(['--unit', IMEI, '--from', '2026-03-03', '--to', '2026-03-01'], env);
    expect([order.code, order.stderr.trim()]).toEqual([2, '--to must be after --from']);
  }, 60_000);
});
