/**
 * `bun run bench/safe-home.ts [--vehicles 20000] [--workers 2] [--concurrency 8] [--connections 16] [--away 0.1] [--limit-s 30]`
 *
 * Safe return home at 18:00 on PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL / TEST_DATABASE_URL, else the local
 * server; a database `fleet_bench` is created for the run): `--vehicles` vehicles of one account, each with a home
 * circle and the schedule "every weekday at 18:00, Europe/Stockholm", switched on, their check for Monday 2 March 2026
 * 18:00 queued as the product queues it (one job per vehicle and due time). Most vehicles last reported inside their
 * home circle; `--away` of them 2 km away (a "not back home" alarm each), and every twentieth has no position at all.
 * The clock (a manual one) then turns 18:00 and `--workers` job-queue instances (as many portal processes, sharing a
 * pool of `--connections`) run the checks, `--concurrency` at once each.
 *
 * Printed: checks run, by outcome; alarms raised; vehicles checked twice or not at all; next checks queued; the time
 * from 18:00 to the last check, when half and 95 % were done, and checks per second; PASS when every
 * vehicle was checked once within `--limit-s`.
 */
import { createServices } from '../src/app';
import { ManualClock } from '../src/lib/clock';
import { openPostgres } from '../src/lib/db/client';
import { createLogger } from '../src/lib/log';
import { JobQueue } from '../src/lib/queue';
import { CHECK_JOB, createSafeHomeService } from '../src/modules/safe-home/service';
import { argument, benchPlatform, openBenchDatabase, seedUnits } from './support';

const vehicles = Number(argument('vehicles', '20000'));
const workers = Number(argument('workers', '2'));
const concurrency = Number(argument('concurrency', '8'));
const connections = Number(argument('connections', '16'));
const awayShare = Number(argument('away', '0.1'));
const limitS = Number(argument('limit-s', '30'));
process.env.BENCH_DATABASE_URL ??= process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const DUE = new Date('2026-03-02T17:00:00Z'); // Monday 18:00 in Stockholm (CET)
const HOME = { lat: 59.36, lon: 18.0 };
const clock = new ManualClock('2026-03-02T16:50:00Z');

const { database: created, label } = await openBenchDatabase('postgres');
await created.close();
const url = new URL(process.env.BENCH_DATABASE_URL);
url.pathname = '/fleet_bench';
const database = await openPostgres(url.toString(), connections);
const platform = await benchPlatform(database, {}, { logLevel: 'error', queue: { concurrency } });
platform.clock = clock;
// The product's queue of this process, on the manual clock.
platform.queue = new JobQueue({ database, clock, log: createLogger('error'), concurrency });
const services = await createServices(platform);

console.log(`safe return home: ${vehicles} vehicles due at 18:00 on ${label}, ${workers} worker(s) × ${concurrency}, pool ${connections}`);
const seedStart = performance.now();
const unitIds = await seedUnits(database, vehicles);
const [{ account_id: accountId }] = (await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]])) as [
  { account_id: number },
];
// Latest fixes: inside the home circle (within 200 m), away (2 km north) or none.
const awayEvery = awayShare > 0 ? Math.round(1 / awayShare) : 0;
const kinds = unitIds.map((_, index) => (index % 20 === 19 ? 'none' : awayEvery > 0 && index % awayEvery === 0 ? 'away' : 'home'));
const fixed = unitIds.flatMap((unitId, index) => (kinds[index] === 'none' ? [] : [{ unitId, index }]));
await database.query(
  `INSERT INTO unit_state (unit_id, time, last_seen, geom, valid, speed_kmh)
   SELECT u, $2::timestamptz, $2::timestamptz, ST_SetSRID(ST_MakePoint($3 + (i % 100) * 0.00001, $4 + lat_offset), 4326), true, 0
   FROM unnest($1::int[], $5::int[], $6::float8[]) AS s(u, i, lat_offset)`,
  [
    fixed.map((entry) => entry.unitId),
    '2026-03-02T16:40:00Z',
    HOME.lon,
    HOME.lat,
    fixed.map((entry) => entry.index),
    fixed.map((entry) => (kinds[entry.index] === 'away' ? 0.02 : 0.001)),
  ],
);
const schedule = JSON.stringify([{ week: 1, days: [1, 2, 3, 4, 5].map((day) => ({ day, time: '18:00' })) }]);
await database.query(
  `INSERT INTO safe_homes (unit_id, account_id, status, schedule, frequency, start_date, time_zone, address, radius, center_lat, center_lng, enabled_at, next_due_at)
   SELECT u, $2, 1, $3, 1, '2026-03-02', 'Europe/Stockholm', 'Solna, SE', 300, $4, $5, '2026-03-02T08:00:00Z', $6 FROM unnest($1::int[]) AS u`,
  [unitIds, accountId, schedule, HOME.lat, HOME.lon, DUE.toISOString()],
);
// The checks as the switch queues them: one job per vehicle and due time.
await database.query(
  `INSERT INTO job_queue (name, unique_key, payload, run_at, max_attempts)
   SELECT $2, u || ':' || $3, jsonb_build_object('unitId', u, 'dueAt', $3::text), $3::timestamptz, 8 FROM unnest($1::int[]) AS u`,
  [unitIds, CHECK_JOB, DUE.toISOString()],
);
await database.query('ANALYZE');
console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (${kinds.filter((k) => k === 'away').length} away, ${kinds.filter((k) => k === 'none').length} without a position)`);

// Further "processes": job queues of their own over the same database, each running the check.
const queues = [platform.queue];
for (let worker = 1; worker < workers; worker++) {
  const queue = new JobQueue({ database, clock, log: createLogger('error'), concurrency });
  createSafeHomeService(
    { ...platform, queue },
    { brands: services.brands, accountSettings: services.accountSettings, geocoder: services.geocoder, alarms: services.alarms },
  );
  queues.push(queue);
}

clock.set(DUE);
const start = performance.now();
// Progress: when half, 95 % and all of the vehicles had been checked.
const marks: Record<string, number> = {};
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const [row] = await database.query<{ count: number }>('SELECT count(*)::int AS count FROM safe_home_checks');
    const at = (performance.now() - start) / 1000;
    if (row!.count >= vehicles * 0.5) marks.p50 ??= at;
    if (row!.count >= vehicles * 0.95) marks.p95 ??= at;
    await Bun.sleep(200);
  }
})();
await Promise.all(
  queues.map(async (queue) => {
    // Run until no check is due (the next ones are a day later).
    while ((await queue.runOnce()) > 0) {}
  }),
);
const elapsedS = (performance.now() - start) / 1000;
sampling = false;
await sampler;

const outcomes = await database.query<{ outcome: string; count: number }>(
  'SELECT outcome, count(*)::int AS count FROM safe_home_checks WHERE due_at = $1 GROUP BY outcome ORDER BY outcome',
  [DUE.toISOString()],
);
const [coverage] = await database.query<{ checked: number; missing: number }>(
  `SELECT count(c.unit_id)::int AS checked, count(*) FILTER (WHERE c.unit_id IS NULL)::int AS missing
   FROM safe_homes h LEFT JOIN safe_home_checks c ON c.unit_id = h.unit_id AND c.due_at = $1`,
  [DUE.toISOString()],
);
const [alarms] = await database.query<{ count: number }>(`SELECT count(*)::int AS count FROM alarms WHERE type = 'not_home'`);
const [next] = await database.query<{ count: number; at: string }>(
  `SELECT count(*)::int AS count, min(run_at)::text AS at FROM job_queue WHERE name = $1 AND status = 'queued'`,
  [CHECK_JOB],
);
const [failed] = await database.query<{ count: number }>(`SELECT count(*)::int AS count FROM job_queue WHERE name = $1 AND last_error IS NOT NULL`, [
  CHECK_JOB,
]);
const total = coverage!.checked;
console.log(`checks: ${total} of ${vehicles} (${outcomes.map((row) => `${row.outcome} ${row.count}`).join(', ')}); missing ${coverage!.missing}; failed attempts ${failed!.count}`);
console.log(`alarms "not back home": ${alarms!.count}; next checks queued: ${next!.count} (first at ${next!.at})`);
console.log(
  `all checked in ${elapsedS.toFixed(2)} s after 18:00 (half by ${marks.p50?.toFixed(2) ?? '-'} s, 95 % by ${marks.p95?.toFixed(2) ?? '-'} s): ${(total / elapsedS).toFixed(0)} checks/s`,
);
const projected = (20_000 / (total / elapsedS)).toFixed(1);
console.log(`at this rate 20,000 vehicles take ${projected} s`);
const pass = total === vehicles && coverage!.missing === 0 && elapsedS <= limitS;
console.log(pass ? `PASS (within ${limitS} s)` : `FAIL (limit ${limitS} s)`);
await database.close();
process.exit(pass ? 0 : 1);
