/**
 * `bun run bench:geofences [--db pglite|postgres|both] [--units 20000] [--seconds 20] [--devices 5000|1500] [--records 20]
 *  [--interval 5000] [--gateway-seconds 30] [--no-baseline]`
 *
 * Geofence matching as positions are stored, on each database:
 * 1. matching throughput: `--units` units with 5 zones each (circles and 50-vertex polygons, half around where each unit
 *    starts, so positions fall inside, outside and across borders), batches of 2,000 positions matched as the ingest
 *    writer does (one matching statement per batch, state rows, log and outbox in one transaction), positions/s;
 * 2. the gateway with matching on: the simulator (a second process, Teltonika over TCP) for `--devices` of those units;
 *    positions/s, p50/p99 frame → commit, and p50/p95 from a crossing's publication to its subscriber's call, of the
 *    crossings published while measuring (the matching run's crossings, published with no dispatcher, are delivered
 *    first and reported apart);
 * 3. the same-run baseline: `bench:ingest` with the same load on a fresh database without zones.
 * PostgreSQL uses BENCH_DATABASE_URL (or DATABASE_URL / TEST_DATABASE_URL) and creates a database `fleet_bench`.
 */
import { startGateway } from '../src/gateway';
import { SimulatedVehicle } from '../src/gateway/simulator/vehicle';
import '../src/modules/geofences/events';
import { createZoneMatcher } from '../src/modules/geofences/matching';
import { createCommandService } from '../src/modules/io/service';
import { type StoredPosition, StoredBatchHooks } from '../src/modules/tracking/service';
import { demoImei } from '../src/demo/seed';
import { argument, benchPlatform, openBenchDatabase, percentile, seedUnits } from './support';

const which = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'both' : 'pglite');
const kinds: Array<'pglite' | 'postgres'> = which === 'both' ? ['pglite', 'postgres'] : [which as 'pglite' | 'postgres'];
const unitCount = Number(argument('units', '20000'));
const matchSeconds = Number(argument('seconds', '20'));
const recordsPerFrame = Number(argument('records', '20'));
const intervalMs = Number(argument('interval', '5000'));
const gatewaySeconds = Number(argument('gateway-seconds', '30'));
const baseline = !process.argv.includes('--no-baseline');
const BATCH = 2000;
const ZONES_PER_UNIT = 5;
const POLYGON_VERTICES = 50;

const mPerLat = 111_320;
const mPerLon = (lat: number) => 111_320 * Math.cos((lat * Math.PI) / 180);

/** Where each unit's simulated vehicle starts (its home), as the simulator will drive it. */
function homes(count: number): Array<{ lat: number; lon: number }> {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const sample = new SimulatedVehicle(i, now).step(now, 0);
    return { lat: sample.latitude, lon: sample.longitude };
  });
}

function polygonText(lat: number, lon: number, radiusM: number): string {
  const ring: string[] = [];
  for (let v = 0; v < POLYGON_VERTICES; v++) {
    const angle = (2 * Math.PI * v) / POLYGON_VERTICES;
    // A little irregular, as drawn zones are.
    const r = radiusM * (0.85 + 0.15 * Math.cos(angle * 3));
    ring.push(`${(lon + (r * Math.sin(angle)) / mPerLon(lat)).toFixed(6)} ${(lat + (r * Math.cos(angle)) / mPerLat).toFixed(6)}`);
  }
  ring.push(ring[0]!);
  return `SRID=4326;POLYGON((${ring.join(', ')}))`;
}

/** Five zones per unit: a circle and a 50-vertex polygon around its home, and three more (circle, polygon, circle) 2-4 km off. */
async function seedZones(database: Awaited<ReturnType<typeof openBenchDatabase>>['database'], unitIds: number[], starts: Array<{ lat: number; lon: number }>) {
  const [account] = await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]]);
  const rows: unknown[][] = [];
  for (const [i, unitId] of unitIds.entries()) {
    const { lat, lon } = starts[i]!;
    for (let z = 0; z < ZONES_PER_UNIT; z++) {
      const offset = z < 2 ? 0 : 2000 + z * 700;
      const zLat = lat + offset / mPerLat;
      const polygon = z % 2 === 1;
      rows.push([unitId, polygon ? 'polygon' : 'circle', polygon ? polygonText(zLat, lon, 700) : `SRID=4326;POINT(${lon.toFixed(6)} ${zLat.toFixed(6)})`, polygon ? null : 500]);
    }
  }
  for (let from = 0; from < rows.length; from += 5000) {
    await database.query(
      `WITH z AS (
         INSERT INTO geofences (account_id, name, shape, geom, radius_m)
         SELECT $1, 'Zone ' || (e->>0), e->>1, ST_GeogFromText(e->>2), (e->>3)::int FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, n)
         ORDER BY n RETURNING id, name, account_id
       )
       INSERT INTO geofence_units (geofence_id, unit_id, account_id) SELECT id, substring(name FROM 6)::int, account_id FROM z`,
      [account!.account_id, JSON.stringify(rows.slice(from, from + 5000))],
    );
  }
  await database.query('ANALYZE geofences');
  await database.query('ANALYZE geofence_units');
}

async function run(kind: 'pglite' | 'postgres') {
  const { database, label } = await openBenchDatabase(kind);
  const platform = await benchPlatform(database);
  const matchBatch = createZoneMatcher();
  const devices = Math.min(unitCount, Number(argument('devices', kind === 'postgres' ? '5000' : '1500')));
  console.log(`\n=== ${label}`);
  const seedStart = performance.now();
  const unitIds = await seedUnits(database, unitCount);
  const starts = homes(unitCount);
  await seedZones(database, unitIds, starts);
  console.log(`${unitCount} units × ${ZONES_PER_UNIT} zones seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  const [accountRow] = await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]]);
  const accountId = accountRow!.account_id;

  // Crossings published from here on reach this subscriber: publication → call, as the alarm engine would see it.
  const delays: Array<{ createdAt: number; ms: number }> = [];
  let delivered = 0;
  for (const type of ['geofence.entered', 'geofence.exited'] as const) {
    platform.outbox.subscribe(type, `bench.${type}`, async (event) => {
      delays.push({ createdAt: event.createdAt.getTime(), ms: Date.now() - event.createdAt.getTime() });
      delivered += 1;
    });
  }
  await platform.outbox.register();

  // --- 1. Matching throughput -------------------------------------------------------------------------
  // Each unit moves on a line through its home, 40 m a fix: inside, across the border and out again.
  let time = Date.now() - 6 * 3_600_000;
  let step = 0;
  let matched = 0;
  const matchStart = performance.now();
  while ((performance.now() - matchStart) / 1000 < matchSeconds) {
    const positions: StoredPosition[] = [];
    for (let k = 0; k < BATCH; k++) {
      const index = (step * BATCH + k) % unitCount;
      const lap = Math.floor((step * BATCH + k) / unitCount);
      const home = starts[index]!;
      const x = ((lap % 50) - 25) * 40;
      positions.push({
        unitId: unitIds[index]!,
        accountId,
        time: new Date(time + lap * 10_000),
        latitude: home.lat,
        longitude: home.lon + x / mPerLon(home.lat),
        speedKmh: 40,
        course: 90,
        valid: true,
        flags: 0,
        ignition: true,
        odometerM: undefined,
        normalized: {},
      });
    }
    step += 1;
    await database.transaction((tx) => matchBatch(tx, platform.outbox, positions));
    matched += BATCH;
  }
  const matchElapsed = (performance.now() - matchStart) / 1000;
  const [crossingRow] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM geofence_events');
  const matchRate = matched / matchElapsed;
  time += 24 * 3_600_000;
  // The matching run's crossings were published with no dispatcher running: delivered now, so the gateway's delays
  // below are those of crossings found while it runs (before, this backlog was still being delivered while measuring).
  const backlogStart = performance.now();
  const backlog = await platform.outbox.drain();
  const backlogSeconds = (performance.now() - backlogStart) / 1000;

  // --- 2. The gateway with matching on ---------------------------------------------------------------
  await platform.outbox.start();
  const hooks = new StoredBatchHooks();
  hooks.register((query, positions) => matchBatch(query, platform.outbox, positions));
  const gateway = await startGateway(platform, createCommandService(database, platform.events, platform.clock), { teltonika: 0, gt06: 0, osmand: 0 }, { storedBatchHooks: hooks });
  const simulator = Bun.spawn(
    ['bun', 'run', 'scripts/simulate.ts', '--imei-start', demoImei(0), '--devices', String(devices), '--records', String(recordsPerFrame), '--interval', String(intervalMs),
      '--teltonika-port', String(gateway.ports.teltonika), '--gt06-port', String(gateway.ports.gt06), '--osmand-port', String(gateway.ports.osmand)],
    { stdout: 'ignore', stderr: 'inherit' },
  );
  const metrics = gateway.context.metrics;
  await Bun.sleep(12_000);
  metrics.resetLatencies();
  delays.length = 0;
  const storedBefore = metrics.recordsStored;
  const [eventsBeforeRow] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM geofence_events');
  const started = performance.now();
  const windowStart = Date.now();
  await Bun.sleep(gatewaySeconds * 1000);
  const windowEnd = Date.now();
  const elapsed = (performance.now() - started) / 1000;
  const stored = metrics.recordsStored - storedBefore;
  const p50 = metrics.percentile(50);
  const p99 = metrics.percentile(99);
  simulator.kill();
  await simulator.exited;
  await gateway.stop();
  const [eventsAfterRow] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM geofence_events');
  // Let the dispatcher deliver what is left before reading the delays.
  await Bun.sleep(2000);
  await platform.outbox.stop();
  await database.close();

  console.log(`matching                    ${Math.round(matchRate)} positions/s (${matched} in ${matchElapsed.toFixed(1)} s, batches of ${BATCH}; ${crossingRow!.n} crossings)`);
  console.log(`gateway with zones          ${Math.round(stored / elapsed)} positions/s (${devices} devices × ${recordsPerFrame} records every ${intervalMs} ms)`);
  console.log(`frame → commit p50 / p99    ${p50.toFixed(0)} ms / ${p99.toFixed(0)} ms`);
  console.log(`crossings while measuring   ${eventsAfterRow!.n - eventsBeforeRow!.n} (delivered to the subscriber in all: ${delivered})`);
  const fresh = delays.filter((delay) => delay.createdAt >= windowStart && delay.createdAt < windowEnd).map((delay) => delay.ms);
  const all = delays.map((delay) => delay.ms);
  console.log(`matching run's backlog      ${backlog} deliveries in ${backlogSeconds.toFixed(1)} s, before the gateway starts`);
  console.log(`publish → event p50 / p95   ${fresh.length ? `${percentile(fresh, 50)} ms / ${percentile(fresh, 95)} ms (${fresh.length} published while measuring)` : 'no crossing in the window'}`);
  console.log(`  any delivered meanwhile   ${all.length ? `${percentile(all, 50)} ms / ${percentile(all, 95)} ms (${all.length})` : 'none'}`);

  // --- 3. Same-run baseline: bench:ingest without zones --------------------------------------------
  if (baseline) {
    console.log(`baseline (bench:ingest, no zones, same load):`);
    const child = Bun.spawn(
      ['bun', 'run', 'bench/ingest.ts', '--db', kind, '--devices', String(devices), '--records', String(recordsPerFrame), '--interval', String(intervalMs), '--seconds', String(gatewaySeconds)],
      { stdout: 'pipe', stderr: 'inherit' },
    );
    const text = await new Response(child.stdout).text();
    await child.exited;
    for (const line of text.split('\n')) {
      if (/positions\/s sustained|frame → commit|raw batched|gateway \/ raw/.test(line)) console.log(`  ${line}`);
    }
  }
}

for (const kind of kinds) await run(kind);
process.exit(0);
