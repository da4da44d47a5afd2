import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { EventBus } from '../../lib/events';
import { IngestWriter } from '../tracking/service';
import { createDetection } from './detection';
import { type DetectorPosition, detectTrips, DEFAULT_DETECTION_PARAMS } from './detector';
import { type DriveStep, driveRecord, scriptDrive, seededRandom } from './drive';

/**
 * Trip detection fed through the real ingest pipeline (IngestWriter → positions → domain events →
 * detector), on PGlite and, with TEST_DB=postgres, on PostgreSQL.
 */
let app: TestApp;
let writer: IngestWriter;
let accountId: number;
let imeiSequence = 0;

beforeAll(async () => {
  app = await createTestApp();
  accountId = (await app.createAccount()).accountId;
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log, { maxDelayMs: 1 });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function newUnit(name: string): Promise<number> {
  imeiSequence += 1;
  const imei = `3563070424${String(70000 + imeiSequence).padStart(5, '0')}`;
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`,
  );
  return unit!.id;
}

/** Submits positions as a tracker would, one frame after the other, then waits for detection and addresses. */
async function feed(unitId: number, positions: DetectorPosition[], options: { batch?: number; shuffle?: number } = {}) {
  const size = options.batch ?? 25;
  const frames: DetectorPosition[][] = [];
  for (let i = 0; i < positions.length; i += size) frames.push(positions.slice(i, i + size));
  if (options.shuffle !== undefined) {
    const random = seededRandom(options.shuffle);
    for (let i = frames.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [frames[i], frames[j]] = [frames[j]!, frames[i]!];
    }
  }
  for (const frame of frames) {
    await writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'test', records: frame.map(driveRecord), receivedAt: new Date() });
    // Shuffled frames are detected one by one, as trackers sending late data are: each late frame re-detects its span.
    if (options.shuffle !== undefined) {
      await writer.drain();
      await app.services.trips.idle();
    }
  }
  await writer.drain();
  await app.services.trips.idle();
}

interface StoredTrip {
  id: number;
  start: string;
  stop: string;
  distance: number;
  odoStart: number;
  odoStop: number;
  source: string;
  detection: string;
  startAddress: string | null;
  stopAddress: string | null;
  detectedAt: string;
  type: string;
  purpose: string | null;
}

async function tripsOf(unitId: number): Promise<StoredTrip[]> {
  const rows = await app.database.query<Record<string, unknown>>(
    `SELECT id, start_time, stop_time, distance_m, odometer_start_m, odometer_stop_m, odometer_source, detection, start_address, stop_address,
            detected_at, type, purpose
     FROM trips WHERE unit_id = $1 ORDER BY start_time`,
    [unitId],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    start: new Date(row.start_time as string).toISOString(),
    stop: new Date(row.stop_time as string).toISOString(),
    distance: Math.round(Number(row.distance_m)),
    odoStart: Math.round(Number(row.odometer_start_m)),
    odoStop: Math.round(Number(row.odometer_stop_m)),
    source: row.odometer_source as string,
    detection: row.detection as string,
    startAddress: row.start_address as string | null,
    stopAddress: row.stop_address as string | null,
    detectedAt: new Date(row.detected_at as string).toISOString(),
    type: row.type as string,
    purpose: row.purpose as string | null,
  }));
}

const iso = (t: number) => new Date(t).toISOString();
const span = (trips: Array<{ start: string; stop: string }>) => trips.map((trip) => [trip.start, trip.stop]);

/** Two days of driving in and around Stockholm: errands with short and long stops. */
function workDays(options: { ignition?: boolean; odometerM?: number; start?: string } = {}): DetectorPosition[] {
  const day: DriveStep[] = [
    { park: 600 },
    { move: 900, speedKmh: 50, bearing: 60 },
    { idle: 90 },
    { move: 600, speedKmh: 70, bearing: 90 },
    { park: 1800 },
    { move: 1200, speedKmh: 60, bearing: 200 },
    { park: 720 },
    { move: 600, speedKmh: 40, bearing: 270 },
    { park: 1200 },
  ];
  const first = scriptDrive({ start: options.start ?? '2026-02-16T07:00:00Z', ignition: options.ignition, odometerM: options.odometerM }, day);
  const second = scriptDrive(
    {
      start: iso(Date.parse(options.start ?? '2026-02-16T07:00:00Z') + 86_400_000),
      lat: first.at(-1)!.lat,
      lon: first.at(-1)!.lon,
      ignition: options.ignition,
      odometerM: first.at(-1)!.odometerM ?? undefined,
    },
    day,
  );
  return [...first, ...second];
}

describe('trips detected from ingested positions', () => {
  test('by ignition: trips as the pure detector finds them, with odometer, speeds and addresses', async () => {
    const unitId = await newUnit('Ignition car');
    const drive = workDays();
    await feed(unitId, drive);
    const trips = await tripsOf(unitId);
    const expected = detectTrips(drive);
    expect(expected).toHaveLength(6);
    expect(span(trips)).toEqual(expected.map((trip) => [iso(trip.start.t), iso(trip.stop.t)]));
    expect(trips.every((trip) => trip.detection === 'ignition' && trip.source === 'gps' && trip.type === 'business')).toBe(true);
    expect(trips.map((trip) => trip.distance)).toEqual(expected.map((trip) => Math.round(trip.distanceM)));
    // Addresses from the offline provider: the first trip leaves central Stockholm.
    expect(trips[0]!.startAddress).toBe('Stockholm, SE');
    expect(trips.every((trip) => trip.startAddress?.endsWith(', SE') && trip.stopAddress?.endsWith(', SE'))).toBe(true);
    const [speeds] = await app.database.query<{ max: number; avg: number }>(
      'SELECT max_speed_kmh AS max, avg_speed_kmh AS avg FROM trips WHERE unit_id = $1 ORDER BY start_time LIMIT 1',
      [unitId],
    );
    expect(Number(speeds!.max)).toBe(70);
    expect(Number(speeds!.avg)).toBeGreaterThan(45);
    expect(Number(speeds!.avg)).toBeLessThan(60);
  }, 120_000);

  test('by motion when the tracker reports no ignition', async () => {
    const unitId = await newUnit('Phone');
    const drive = workDays({ ignition: false, start: '2026-02-09T07:00:00Z' });
    await feed(unitId, drive, { batch: 10 });
    const trips = await tripsOf(unitId);
    expect(trips).toHaveLength(6);
    expect(trips.every((trip) => trip.detection === 'motion')).toBe(true);
    expect(span(trips)).toEqual(detectTrips(drive).map((trip) => [iso(trip.start.t), iso(trip.stop.t)]));
  }, 120_000);

  test('a data gap longer than the maximum splits a trip', async () => {
    const unitId = await newUnit('Gap');
    const drive = scriptDrive({ start: '2026-02-11T10:00:00Z' }, [
      { park: 60 },
      { move: 900, speedKmh: 60 },
      { silent: 3600 },
      { move: 900, speedKmh: 60 },
      { park: 900 },
    ]);
    await feed(unitId, drive);
    expect(span(await tripsOf(unitId))).toEqual([
      ['2026-02-11T10:01:10.000Z', '2026-02-11T10:16:00.000Z'],
      ['2026-02-11T11:16:10.000Z', '2026-02-11T11:31:10.000Z'],
    ]);
  }, 120_000);

  test('the device odometer is used when reported; GPS odometers run on from trip to trip', async () => {
    const device = await newUnit('Odometer car');
    await feed(device, workDays({ odometerM: 250_000, start: '2026-02-02T07:00:00Z' }));
    const deviceTrips = await tripsOf(device);
    expect(deviceTrips.every((trip) => trip.source === 'device')).toBe(true);
    expect(deviceTrips[0]!.odoStart).toBeGreaterThanOrEqual(250_000);
    for (const trip of deviceTrips) expect(trip.distance).toBe(trip.odoStop - trip.odoStart);

    const gps = await newUnit('GPS odometer');
    await feed(gps, workDays({ start: '2026-02-02T07:00:00Z' }));
    const gpsTrips = await tripsOf(gps);
    expect(gpsTrips[0]!.odoStart).toBe(0);
    for (let i = 1; i < gpsTrips.length; i++) expect(gpsTrips[i]!.odoStart).toBe(gpsTrips[i - 1]!.odoStop);
    expect(gpsTrips.at(-1)!.odoStop).toBe(gpsTrips.reduce((sum, trip) => sum + trip.distance, 0));
  }, 120_000);

  test('the same drive fed out of order gives the same trips', async () => {
    const drive = workDays({ start: '2026-02-23T07:00:00Z' });
    const inOrder = await newUnit('In order');
    await feed(inOrder, drive, { batch: 20 });
    const expected = (await tripsOf(inOrder)).map(({ start, stop, distance, odoStart, odoStop }) => ({ start, stop, distance, odoStart, odoStop }));
    expect(expected).toHaveLength(6);
    for (const seed of [1, 2]) {
      const shuffled = await newUnit(`Shuffled ${seed}`);
      const before = app.services.trips.stats();
      await feed(shuffled, drive, { batch: 20, shuffle: seed });
      // Most frames arrived before some earlier one: their spans were re-detected.
      expect(app.services.trips.stats().redetections - before.redetections).toBeGreaterThan(10);
      expect(app.services.trips.stats().failures).toBe(0);
      const trips = (await tripsOf(shuffled)).map(({ start, stop, distance, odoStart, odoStop }) => ({ start, stop, distance, odoStart, odoStop }));
      expect(trips).toEqual(expected);
    }
  }, 120_000);

  test('a late batch re-detects only the span it touches; people’s entries and ids carry over', async () => {
    const unitId = await newUnit('Late data');
    const drive = workDays({ start: '2026-02-04T07:00:00Z' });
    // Hold back 17 minutes in the middle of the first day's second trip (08:06:40-08:26:40): a hole longer than the maximum gap.
    const late = drive.filter((p) => p.t >= Date.parse('2026-02-04T08:08:00Z') && p.t < Date.parse('2026-02-04T08:25:00Z'));
    const early = drive.filter((p) => !late.includes(p));
    app.clock.set('2026-03-02T08:00:00Z');
    await feed(unitId, early);
    const before = await tripsOf(unitId);
    expect(before).toHaveLength(7); // the second trip is split in two by the hole
    const split = before[1]!;
    await app.database.query("UPDATE trips SET type = 'private', type_source = 'user', purpose = 'Groceries' WHERE id = $1", [split.id]);

    app.clock.set('2026-03-02T09:00:00Z');
    await feed(unitId, late);
    const after = await tripsOf(unitId);
    expect(after).toHaveLength(6);
    expect(span(after)).toEqual(detectTrips(drive).map((trip) => [iso(trip.start.t), iso(trip.stop.t)]));
    // Untouched trips keep their rows: same ids, detected at the first run.
    const untouched = after.filter((trip) => trip.start !== split.start);
    expect(untouched.map((trip) => trip.id)).toEqual(before.filter((_trip, i) => i !== 1 && i !== 2).map((trip) => trip.id));
    expect(untouched.every((trip) => trip.detectedAt === '2026-03-02T08:00:00.000Z')).toBe(true);
    // The joined trip keeps the id of the half it overlaps most, and what was entered on either half.
    const merged = after[1]!;
    expect(merged).toMatchObject({ id: before[2]!.id, type: 'private', purpose: 'Groceries', detectedAt: '2026-03-02T09:00:00.000Z' });
    // The odometer stays continuous across the re-detected span.
    for (let i = 1; i < after.length; i++) expect(after[i]!.odoStart).toBe(after[i - 1]!.odoStop);
    // The same batch again changes nothing.
    app.clock.set('2026-03-02T10:00:00Z');
    await feed(unitId, late);
    expect(await tripsOf(unitId)).toEqual(after);
  }, 120_000);

  test('a tracker that falls silent when parked: the trip is stored once the clock says it ended', async () => {
    const unitId = await newUnit('Silent');
    const drive = scriptDrive({ start: '2026-03-02T07:00:00Z', ignition: false }, [{ idle: 60 }, { move: 1200, speedKmh: 50 }, { idle: 30 }]);
    const last = drive.at(-1)!.t;
    app.clock.set(iso(last + 60_000));
    await feed(unitId, drive);
    expect(await tripsOf(unitId)).toEqual([]);
    const [state] = await app.database.query<{ recheck_at: string }>('SELECT recheck_at FROM trip_detector_state WHERE unit_id = $1', [unitId]);
    expect(new Date(state!.recheck_at).getTime()).toBe(drive.at(-3)!.t + DEFAULT_DETECTION_PARAMS.timeTillParkedS * 1000);

    app.clock.set(iso(last + 30 * 60_000));
    expect(await app.services.trips.recheckDue()).toBeGreaterThanOrEqual(1);
    await app.services.trips.idle();
    const trips = await tripsOf(unitId);
    expect(span(trips)).toEqual([[iso(drive[6]!.t), iso(drive.at(-3)!.t)]]);
    expect(trips[0]!.startAddress).toBe('Stockholm, SE');
    expect(trips[0]!.stopAddress).toEndWith(', SE');

    // It reports again the next morning: the trip stays as it was, a new one follows.
    const next = scriptDrive({ start: iso(last + 12 * 3_600_000), lat: drive.at(-1)!.lat, lon: drive.at(-1)!.lon, ignition: false }, [
      { move: 600, speedKmh: 50 },
      { idle: 600 },
    ]);
    app.clock.set(iso(next.at(-1)!.t + 60_000));
    await feed(unitId, next);
    const both = await tripsOf(unitId);
    expect(both).toHaveLength(2);
    expect(both[0]).toEqual(trips[0]!);
  }, 120_000);

  test('detection is idempotent and safe when runs for one unit race', async () => {
    const unitId = await newUnit('Racing');
    const drive = workDays({ start: '2026-02-25T07:00:00Z' });
    // Store the positions without detection, then detect concurrently from two handles.
    const records = drive.map(driveRecord);
    const silent = new IngestWriter(app.database, new EventBus(), app.platform.log);
    for (let i = 0; i < records.length; i += 500) {
      await silent.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'test', records: records.slice(i, i + 500), receivedAt: new Date() });
    }
    await silent.drain();
    const one = createDetection(app.database, app.clock);
    const two = createDetection(app.database, app.clock);
    const window = { minT: drive[0]!.t, maxT: drive.at(-1)!.t };
    await Promise.all([one.detect(unitId, window), two.detect(unitId, window), one.detect(unitId, { minT: drive[100]!.t, maxT: drive[200]!.t })]);
    const trips = await tripsOf(unitId);
    expect(span(trips)).toEqual(detectTrips(drive).map((trip) => [iso(trip.start.t), iso(trip.stop.t)]));
    await two.detect(unitId, window);
    expect((await tripsOf(unitId)).map((trip) => trip.id)).toEqual(trips.map((trip) => trip.id));
  }, 120_000);

  test('no unit has overlapping trips', async () => {
    const overlaps = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM trips a JOIN trips b
         ON a.unit_id = b.unit_id AND a.id < b.id AND a.start_time < b.stop_time AND b.start_time < a.stop_time`,
    );
    expect(overlaps[0]!.n).toBe(0);
    const [{ n }] = (await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM trips')) as [{ n: number }];
    expect(n).toBeGreaterThan(40);
    // The database refuses an overlapping trip outright.
    const [trip] = await app.database.query<{ unit_id: number; start_time: string; stop_time: string }>(
      'SELECT unit_id, start_time, stop_time FROM trips ORDER BY id LIMIT 1',
    );
    await expect(
      app.database.query(
        `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m,
                            odometer_source, distance_m, type, detection)
         VALUES ($1, $2, $3::timestamptz + interval '1 minute', $4::timestamptz + interval '1 hour',
                 ST_SetSRID(ST_MakePoint(18, 59), 4326), ST_SetSRID(ST_MakePoint(18, 59), 4326),
                 0, 1, 'gps', 1, 'business', 'ignition')`,
        [trip!.unit_id, accountId, trip!.start_time, trip!.stop_time],
      ),
    ).rejects.toThrow('overlaps');
  }, 120_000);

  test('per-unit settings change detection: a longer time till parked joins the trips around a 12-minute stop', async () => {
    const unitId = await newUnit('Patient');
    await app.services.trips.updateSettings(unitId, { timeTillParkedS: 900, defaultTripType: 'private' });
    expect(await app.services.trips.settings(unitId)).toMatchObject({ timeTillParkedS: 900, minDistanceM: 200, defaultTripType: 'private' });
    await feed(unitId, workDays({ start: '2026-02-18T07:00:00Z' }));
    const trips = await tripsOf(unitId);
    // The 12-minute stop (park 720) no longer splits: 2 trips a day instead of 3.
    expect(trips).toHaveLength(4);
    expect(trips.every((trip) => trip.type === 'private')).toBe(true);

    // Back to the defaults, and the period re-detected with them.
    await app.services.trips.updateSettings(unitId, {});
    await app.services.trips.redetect(unitId, new Date('2026-02-18T00:00:00Z'), new Date('2026-02-20T00:00:00Z'));
    const again = await tripsOf(unitId);
    expect(again).toHaveLength(6);
    expect(again.every((trip) => trip.type === 'business')).toBe(true);
    for (let i = 1; i < again.length; i++) expect(again[i]!.odoStart).toBe(again[i - 1]!.odoStop);
  }, 120_000);
});
