/**
 * `bun run bench:triplog [--db pglite|postgres] [--part all|a|b] [--units 150] [--hours 6] [--trips 5000] [--runs 15]`
 *
 * Prints:
 * (a) trip detection throughput, against the ingest rate the gateway must sustain (bench/ingest.ts target:
 *     ≥ 20,000 positions/s):
 *     - the detector alone (the state machine of src/modules/trips/detector.ts, in memory);
 *     - the live detection path against the database: positions stored frame by frame as trackers send them,
 *       each frame followed by the trip service's detection run (load new positions, run the machine, write
 *       trips and detector state, look up addresses), exactly what ingest events trigger.
 * (b) the time to load 12 months of a busy unit (~5,000 trips) through the real HTTP API, GET /api/trips over
 *     a socket with a bearer token: p50/p95 over several runs (target < 500 ms); and the exports of that year.
 */
import { assemble } from '../src/bootstrap';
import { ManualClock } from '../src/lib/clock';
import { loadConfig } from '../src/lib/config';
import { addToDay, dayOf } from '../src/lib/time';
import { createLogger } from '../src/lib/log';
import { hashPassword } from '../src/lib/password';
import { DEFAULT_DETECTION_PARAMS, type DetectorPosition, detectTrips } from '../src/modules/trips/detector';
import { type DriveStep, scriptDrive, seededRandom } from '../src/modules/trips/drive';
import { argument, openBenchDatabase, percentile, seedUnits } from './support';

const INGEST_TARGET = 20_000;
const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'postgres' : 'pglite') as 'pglite' | 'postgres';
const unitCount = Number(argument('units', kind === 'postgres' ? '300' : '150'));
const hours = Number(argument('hours', '6'));
const tripCount = Number(argument('trips', '5000'));
const runs = Number(argument('runs', '15'));
const part = argument('part', 'all');
/** Positions per frame: a Teltonika buffers records and sends them together. */
const FRAME = 20;

const { database, label } = await openBenchDatabase(kind);
const config = loadConfig({ LOG_LEVEL: 'warn', GATEWAY: '0', JOBS: '0', RAW_FRAME_RETENTION_DAYS: '0' });
// The live path judges trips in progress against the clock: it follows the positions as a live server's would.
const clock = new ManualClock(new Date(Date.now() - 2 * 86_400_000));
const { services, api } = await assemble(config, database, { clock, log: createLogger('warn') });
console.log(`database: ${label}`);

if (part !== 'b') await detectionBenchmark();

/** (a): the detector alone, then the live detection path against the database. */
async function detectionBenchmark() {
  // --- Drives: a working day of a delivery car per unit, every 10 s, with ignition and odometer -----------------
  function drive(seed: number, start: number): DetectorPosition[] {
    const random = seededRandom(seed);
    const steps: DriveStep[] = [{ park: 120 }];
    let seconds = 0;
    while (seconds < hours * 3600) {
      const moving = 600 + Math.floor(random() * 1800);
      const parked = 900 + Math.floor(random() * 2700);
      steps.push({ move: moving, speedKmh: 30 + random() * 60, bearing: random() * 360 }, { idle: 60 }, { park: parked });
      seconds += moving + 60 + parked;
    }
    return scriptDrive({ start: new Date(start), lat: 59 + random(), lon: 15 + random() * 3, interval: 10, ignition: true, odometerM: Math.floor(random() * 1e8) }, steps);
  }

  const dayStart = Date.now() - 2 * 86_400_000;
  const drives = Array.from({ length: unitCount }, (_, index) => drive(index + 1, dayStart + (index % 60) * 1000));
  const totalPositions = drives.reduce((sum, list) => sum + list.length, 0);

  // (a1) The detector alone.
  let detected = 0;
  const pureStart = performance.now();
  for (const positions of drives) detected += detectTrips(positions, DEFAULT_DETECTION_PARAMS).length;
  const pureSeconds = (performance.now() - pureStart) / 1000;
  const pureRate = totalPositions / pureSeconds;

  // (a2) The live detection path against the database.
  const unitIds = await seedUnits(database, unitCount);
  async function store(frame: Array<{ unitId: number; position: DetectorPosition }>) {
    for (let offset = 0; offset < frame.length; offset += 2000) {
      const rows = frame.slice(offset, offset + 2000).map(({ unitId, position: p }) => [unitId, p.t, p.lon, p.lat, p.speedKmh, p.ignition, p.odometerM]);
      await database.query(
        `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, course, satellites, valid, flags, ignition, odometer_m)
         SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), now(), ST_SetSRID(ST_MakePoint((e->>2)::float8, (e->>3)::float8), 4326),
                (e->>4)::real, 90, 9, true, 0, (e->>5)::boolean, (e->>6)::float8
         FROM jsonb_array_elements($1::jsonb) AS e`,
        [JSON.stringify(rows)],
      );
    }
  }
  const frames = Math.max(...drives.map((list) => Math.ceil(list.length / FRAME)));
  console.log(`${unitCount} units × ${hours} h of driving every 10 s = ${totalPositions} positions in ${frames} frames of ${FRAME} per unit`);
  let detectMs = 0;
  let storeMs = 0;
  for (let frame = 0; frame < frames; frame++) {
    const batch: Array<{ unitId: number; position: DetectorPosition }> = [];
    const windows: Array<{ unitId: number; minT: number; maxT: number }> = [];
    drives.forEach((positions, index) => {
      const slice = positions.slice(frame * FRAME, (frame + 1) * FRAME);
      if (slice.length === 0) return;
      for (const position of slice) batch.push({ unitId: unitIds[index]!, position });
      windows.push({ unitId: unitIds[index]!, minT: slice[0]!.t, maxT: slice.at(-1)!.t });
    });
    // The frame arrives a second after its last fix.
    clock.set(new Date(Math.max(...windows.map((window) => window.maxT)) + 1000));
    const storeStart = performance.now();
    await store(batch);
    storeMs += performance.now() - storeStart;
    // What the ingest pipeline's positions.stored events do: queue each unit with its window, then the worker runs.
    const detectStart = performance.now();
    for (const window of windows) services.trips.detect(window.unitId, { minT: window.minT, maxT: window.maxT });
    await services.trips.idle();
    detectMs += performance.now() - detectStart;
  }
  const liveRate = totalPositions / (detectMs / 1000);
  const [{ trips: liveTrips } = { trips: 0 }] = await database.query<{ trips: number }>('SELECT count(*)::int AS trips FROM trips WHERE unit_id = ANY($1::int[])', [unitIds]);
  const stats = services.trips.stats();

  console.log('');
  console.log('(a) trip detection');
  console.log(`detector alone              ${Math.round(pureRate)} positions/s  (${totalPositions} in ${pureSeconds.toFixed(2)} s, ${detected} trips)`);
  console.log(`live path against the DB    ${Math.round(liveRate)} positions/s  (detection ${(detectMs / 1000).toFixed(1)} s, ${liveTrips} trips stored, ${stats.failures} failures)`);
  console.log(`  storing those positions   ${Math.round(totalPositions / (storeMs / 1000))} positions/s (raw batched inserts, for scale)`);
  console.log(`ingest target               ${INGEST_TARGET} positions/s`);
  console.log(`detector / ingest           ${(pureRate / INGEST_TARGET).toFixed(1)}×`);
  console.log(`live path / ingest          ${(liveRate / INGEST_TARGET).toFixed(2)}×`);
}

// --- (b) 12 months of a busy unit through the HTTP API --------------------------------------------------------
if (part === 'a') {
  await database.close();
  process.exit(0);
}
// The drives of (a) are garbage now; a server does not hold them either.
Bun.gc(true);
clock.set(new Date());
const [account] = await database.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name, country) VALUES (0, 'Busy AB', 'Sverige') RETURNING id`);
const password = 'Bench-123!';
const [user] = await database.query<{ id: number }>(
  `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, 'busy@example.com', $2, 'Bo', 'Busy', 'admin') RETURNING id`,
  [account!.id, await hashPassword(password)],
);
const [busy] = await database.query<{ id: number }>(
  `INSERT INTO units (account_id, imei, name, registration_number, model, protocol) VALUES ($1, '356307049990001', 'Busy van', 'BSY123', 'FMB920', 'teltonika') RETURNING id`,
  [account!.id],
);
// The year in Stockholm days: from the same day a year ago + 1 to today.
const today = dayOf(new Date(), 'Europe/Stockholm');
const from = addToDay(today, { months: -12, days: 1 });
const fromInstant = Date.parse(`${from}T00:00:00Z`);
const spanMs = Date.parse(`${today}T00:00:00Z`) - fromInstant;
const seedStart = performance.now();
await database.query(
  `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address, odometer_start_m, odometer_stop_m,
                      odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, driver_user_id, type, purpose, note, detection)
   SELECT $1, $2, to_timestamp(($3::float8 + i * $4::float8) / 1000), to_timestamp(($3::float8 + i * $4::float8 + 1500000) / 1000),
          ST_SetSRID(ST_MakePoint(18.0 + (i % 97) * 0.001, 59.3 + (i % 89) * 0.001), 4326), ST_SetSRID(ST_MakePoint(18.1 + (i % 83) * 0.001, 59.4), 4326),
          'Storgatan ' || (i % 120) || ', Stockholm', 'Industrivägen ' || (i % 70) || ', Solna', 1e8 + i * 18000, 1e8 + i * 18000 + 17000, 'device', 17000, 92, 41,
          CASE WHEN i % 3 = 0 THEN $5::int END, (ARRAY['business','business','private','other'])[1 + i % 4], CASE WHEN i % 4 < 2 THEN 'Kundbesök ' || i END, NULL, 'ignition'
   FROM generate_series(0, $6::int - 1) AS i`,
  [busy!.id, account!.id, fromInstant + 3_600_000, spanMs / tripCount, user!.id, tripCount],
);
await database.query('ANALYZE trips');
console.log('');
console.log(`(b) 12 months of a busy unit: ${tripCount} trips seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const server = api.listen({ hostname: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${server.server!.port}`;
const login = await fetch(`${base}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ username: 'busy@example.com', password, subsiteid: 0 }),
});
const token = ((await login.json()) as { data: { user: { token: string } } }).data.user.token;
const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'x-timezone': 'Europe/Stockholm', 'x-lang': 'sv' };
const listPath = `/api/trips?unitId=${busy!.id}&from=${from}&to=${today}`;

async function timed(path: string): Promise<{ ms: number; bytes: number; status: number; body: ArrayBuffer }> {
  const start = performance.now();
  const response = await fetch(`${base}${path}`, { headers });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - start, bytes: body.byteLength, status: response.status, body };
}

for (let i = 0; i < 3; i++) await timed(listPath); // warm-up
const times: number[] = [];
let last: Awaited<ReturnType<typeof timed>> | null = null;
for (let i = 0; i < runs; i++) {
  last = await timed(listPath);
  if (last.status !== 200) throw new Error(`GET /api/trips answered ${last.status}: ${new TextDecoder().decode(last.body).slice(0, 300)}`);
  times.push(last.ms);
}
const listed = (JSON.parse(new TextDecoder().decode(last!.body)) as { data: { trips: unknown[] } }).data.trips.length;
console.log(`GET /api/trips (${from} – ${today}): ${listed} trips, ${(last!.bytes / 1024 / 1024).toFixed(2)} MiB JSON`);
console.log(`  p50 / p95 over ${runs} runs   ${percentile(times, 50).toFixed(0)} ms / ${percentile(times, 95).toFixed(0)} ms  (target < 500 ms)`);

/** An export read as a browser reads a download: when its first bytes arrived, and when the last did. */
async function timedExport(path: string): Promise<{ ms: number; firstByteMs: number; bytes: number; status: number }> {
  const start = performance.now();
  const response = await fetch(`${base}${path}`, { headers });
  const reader = response.body!.getReader();
  let firstByteMs = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) firstByteMs = performance.now() - start;
    bytes += value.byteLength;
  }
  return { ms: performance.now() - start, firstByteMs, bytes, status: response.status };
}

for (const format of ['csv', 'xlsx', 'pdf']) {
  const exportTimes: number[] = [];
  const firstBytes: number[] = [];
  let size = 0;
  for (let i = 0; i < 3; i++) {
    const result = await timedExport(`/api/trips/export?unitId=${busy!.id}&from=${from}&to=${today}&format=${format}`);
    if (result.status !== 200) throw new Error(`export ${format} answered ${result.status}`);
    exportTimes.push(result.ms);
    firstBytes.push(result.firstByteMs);
    size = result.bytes;
  }
  console.log(
    `  export ${format.padEnd(4)} p50 of 3        ${percentile(exportTimes, 50).toFixed(0)} ms, first byte after ${percentile(firstBytes, 50).toFixed(0)} ms  (${(size / 1024).toFixed(0)} KiB)`,
  );
}

// Why the list is as fast as it is: the plan of its query.
const plan = await database.query<Record<string, string>>(
  `EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF) SELECT t.id FROM trips t LEFT JOIN users d ON d.id = t.driver_user_id
   WHERE t.unit_id = $1 AND t.account_id = $2 AND t.start_time >= $3::timestamptz AND t.start_time < $4::timestamptz ORDER BY t.start_time`,
  [busy!.id, account!.id, new Date(fromInstant).toISOString(), new Date().toISOString()],
);
console.log('  plan:', plan.map((row) => String(Object.values(row)[0] ?? '')).filter((line) => /Scan|Sort|Execution/.test(line)).map((line) => line.trim()).join(' | '));

await server.stop();
await services.trips.idle();
await database.close();
process.exit(0);
