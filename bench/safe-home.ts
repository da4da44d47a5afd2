/**
 * `bun run bench/safe-home.ts [--vehicles 20000] [--baseline 1000] [--workers 2] [--concurrency 4] [--connections 16] [--away 0.1] [--limit-s 30]`
 *
 * Safe return home at 18:00 on PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL / TEST_DATABASE_URL, else the local
 * server; a database `fleet_bench_safe_home` is created for the run): `--vehicles` vehicles of one account, each with a
 * home circle and the schedule "every weekday at 18:00, Europe/Stockholm", switched on. Most vehicles last reported
 * inside their home circle; `--away` of them 2 km away (a "not back home" alarm each), and every twentieth has no
 * position at all. `--workers` job-queue instances (as many portal processes, sharing a pool of `--connections`) run
 * the checks, `--concurrency` batches at once each.
 *
 * Baseline (same run): on Monday 2 March 2026 at 18:00 the first `--baseline` vehicles are due and their checks run one
 * by one (batches of one job: claim, check and complete per vehicle, as before batches). Then on Tuesday at 18:00 all
 * `--vehicles` are due, their checks queued as the product queues them (one job per vehicle and due time), and run in
 * the product's batches.
 *
 * Printed per phase: checks run, by outcome; alarms raised; vehicles checked twice or not at all; next checks queued;
 * the time from 18:00 to the last check, when half and 95 % were done, and checks per second; PASS when every vehicle
 * was checked once within `--limit-s`.
 */
import { createServices } from '../src/app';
import { ManualClock } from '../src/lib/clock';
import { openPostgres } from '../src/lib/db/client';
import { createLogger } from '../src/lib/log';
import { JobQueue } from '../src/lib/queue';
import { CHECK_JOB, createSafeHomeService } from '../src/modules/safe-home/service';
import postgres from 'postgres';
import { argument, benchPlatform, seedUnits } from './support';

const vehicles = Number(argument('vehicles', '20000'));
const workers = Number(argument('workers', '2'));
const concurrency = Number(argument('concurrency', '4'));
const baseline = Number(argument('baseline', '1000'));
const connections = Number(argument('connections', '16'));
const awayShare = Number(argument('away', '0.1'));
const limitS = Number(argument('limit-s', '30'));
process.env.BENCH_DATABASE_URL ??= process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const BASELINE_DUE = new Date('2026-03-02T17:00:00Z'); // Monday 18:00 in Stockholm (CET)
const DUE = new Date('2026-03-03T17:00:00Z'); // Tuesday 18:00
const HOME = { lat: 59.36, lon: 18.0 };
const clock = new ManualClock('2026-03-02T16:50:00Z');

// A database of its own (other benchmarks drop and create `fleet_bench`).
const url = new URL(process.env.BENCH_DATABASE_URL);
const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_safe_home WITH (FORCE)');
await admin.unsafe('CREATE DATABASE fleet_bench_safe_home');
await admin.end();
url.pathname = '/fleet_bench_safe_home';
const label = `PostgreSQL (${url.host})`;
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
    '2026-03-03T16:40:00Z',
    HOME.lon,
    HOME.lat,
    fixed.map((entry) => entry.index),
    fixed.map((entry) => (kinds[entry.index] === 'away' ? 0.02 : 0.001)),
  ],
);
const schedule = JSON.stringify([{ week: 1, days: [1, 2, 3, 4, 5].map((day) => ({ day, time: '18:00' })) }]);
await database.query(
  `INSERT INTO safe_homes (unit_id, account_id, status, schedule, frequency, start_date, time_zone, address, radius, center_lat, center_lng, enabled_at, next_due_at)
   SELECT u, $2, 1, $3, 1, '2026-03-02', 'Europe/Stockholm', 'Solna, SE', 300, $4, $5, '2026-03-02T08:00:00Z',
          CASE WHEN i <= $7 THEN $6::timestamptz ELSE $8::timestamptz END
   FROM unnest($1::int[]) WITH ORDINALITY AS s(u, i)`,
  [unitIds, accountId, schedule, HOME.lat, HOME.lon, BASELINE_DUE.toISOString(), baseline, DUE.toISOString()],
);
// The checks as the switch queues them: one job per vehicle and due time (the baseline's run queues their next ones).
await database.query(
  `INSERT INTO job_queue (name, unique_key, payload, run_at, max_attempts)
   SELECT $2, u || ':' || to_char(next_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          jsonb_build_object('unitId', u, 'dueAt', to_char(next_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), next_due_at, 8
   FROM unnest($1::int[]) AS u JOIN safe_homes ON unit_id = u`,
  [unitIds, CHECK_JOB],
);
await database.query('ANALYZE');
console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (${kinds.filter((k) => k === 'away').length} away, ${kinds.filter((k) => k === 'none').length} without a position)`);

/** `workers` job queues over the same database (as many processes), each with the check's handler. */
function queuesOf(checkBatchSize?: number): JobQueue[] {
  return Array.from({ length: workers }, () => {
    const queue = new JobQueue({ database, clock, log: createLogger('error'), concurrency });
    createSafeHomeService(
      { ...platform, queue },
      {
        brands: services.brands,
        accountSettings: services.accountSettings,
        geocoder: services.geocoder,
        alarms: services.alarms,
        units: services.units,
        ...(checkBatchSize === undefined ? {} : { checkBatchSize }),
      },
    );
    return queue;
  });
}

/** Turns the clock to `due` and runs the queues until nothing is due; prints the phase's figures; whether all `expected` ran once in time. */
async function phase(title: string, due: Date, expected: number, queues: JobQueue[], limit: number | null): Promise<{ rate: number; pass: boolean }> {
  clock.set(due);
  const start = performance.now();
  // Progress: when half, 95 % and all of the vehicles had been checked.
  const marks: Record<string, number> = {};
  let sampling = true;
  let endedAt = Number.POSITIVE_INFINITY;
  const sampler = (async () => {
    // One last sample after the queues are done: a run shorter than the sampling step still gets its marks.
    for (let last = false; !last; ) {
      last = !sampling;
      const [row] = await database.query<{ count: number }>('SELECT count(*)::int AS count FROM safe_home_checks WHERE due_at = $1', [due.toISOString()]);
      const at = Math.min((performance.now() - start) / 1000, endedAt);
      if (row!.count >= expected * 0.5) marks.p50 ??= at;
      if (row!.count >= expected * 0.95) marks.p95 ??= at;
      if (!last) await Bun.sleep(200);
    }
  })();
  await Promise.all(
    queues.map(async (queue) => {
      // Run until no check is due (the next ones are a day later).
      while ((await queue.runOnce()) > 0) {}
    }),
  );
  const elapsedS = (performance.now() - start) / 1000;
  endedAt = elapsedS;
  sampling = false;
  await sampler;
  const outcomes = await database.query<{ outcome: string; count: number }>(
    'SELECT outcome, count(*)::int AS count FROM safe_home_checks WHERE due_at = $1 GROUP BY outcome ORDER BY outcome',
    [due.toISOString()],
  );
  const [coverage] = await database.query<{ checked: number; missing: number }>(
    `SELECT count(c.unit_id)::int AS checked, count(*) FILTER (WHERE c.unit_id IS NULL)::int AS missing
     FROM (SELECT unit_id FROM safe_homes ORDER BY unit_id LIMIT $2) h LEFT JOIN safe_home_checks c ON c.unit_id = h.unit_id AND c.due_at = $1`,
    [due.toISOString(), expected],
  );
  const [alarms] = await database.query<{ count: number }>(`SELECT count(*)::int AS count FROM alarms WHERE type = 'not_home' AND raised_at = $1`, [
    due.toISOString(),
  ]);
  const [next] = await database.query<{ count: number; at: string }>(
    `SELECT count(*)::int AS count, min(run_at)::text AS at FROM job_queue WHERE name = $1 AND status = 'queued' AND run_at > $2`,
    [CHECK_JOB, due.toISOString()],
  );
  const [failed] = await database.query<{ count: number }>(`SELECT count(*)::int AS count FROM job_queue WHERE name = $1 AND last_error IS NOT NULL`, [
    CHECK_JOB,
  ]);
  const total = outcomes.reduce((sum, row) => sum + row.count, 0);
  const rate = total / elapsedS;
  console.log(`\n${title}`);
  console.log(
    `  checks: ${total} of ${expected} (${outcomes.map((row) => `${row.outcome} ${row.count}`).join(', ')}); missing ${coverage!.missing}; failed attempts ${failed!.count}`,
  );
  console.log(`  alarms "not back home": ${alarms!.count}; next checks queued: ${next!.count} (first at ${next!.at})`);
  console.log(
    `  all checked in ${elapsedS.toFixed(2)} s after 18:00 (half by ${marks.p50?.toFixed(2) ?? '-'} s, 95 % by ${marks.p95?.toFixed(2) ?? '-'} s): ${rate.toFixed(0)} checks/s; at this rate 20,000 vehicles take ${(20_000 / rate).toFixed(1)} s`,
  );
  return { rate, pass: total === expected && coverage!.missing === 0 && (limit === null || elapsedS <= limit) };
}

const before = baseline > 0 ? await phase(`baseline: Monday 18:00, ${baseline} vehicles checked one by one`, BASELINE_DUE, baseline, queuesOf(1), null) : null;
const after = await phase(`batches: Tuesday 18:00, ${vehicles} vehicles`, DUE, vehicles, queuesOf(), limitS);
if (before) console.log(`\nbatches vs one by one: ${(after.rate / before.rate).toFixed(1)}× the checks per second`);
console.log(after.pass ? `PASS (all ${vehicles} within ${limitS} s)` : `FAIL (limit ${limitS} s)`);
await database.close();
process.exit(after.pass ? 0 : 1);
