/**
 * `bun run bench:reports [--db pglite|postgres] [--units 500] [--trips 450000] [--runs 3]`
 *
 * The fleet reports over a year of a fleet: `--units` units (fuel types, consumption and CO2 set, three departments)
 * with `--trips` trips spread over the last 12 months (500 × 12 months ≈ 450,000 trips, about 2.5 trips a unit a day),
 * seeded straight into the trip log's table. Through the real HTTP API with a bearer token, over a socket, prints the
 * time of a whole-fleet summary, an eco ranking (per driver) and, when the benefit report is present, a benefit report,
 * each as JSON and as a PDF export (`?format=pdf`), and of the fuel, CO2 and environmental reports as JSON: the median and the
 * slowest of `--runs` runs, and the answer's size.
 * Target on PostgreSQL: each report < 2 s, each PDF < 5 s.
 *
 * Run both databases: `bun run bench:reports --db pglite` and `BENCH_DATABASE_URL=postgres://… bun run bench:reports --db postgres`.
 * `--reuse`: keep the database `fleet_bench_reports` of an earlier run and its seed (seeding a year of a fleet takes
 * minutes), e.g. to time the same data before and after a change; with PGlite its directory /tmp/fleet-bench-fleet_bench_reports.
 */
import { assemble } from '../src/bootstrap';
import { ManualClock } from '../src/lib/clock';
import { loadConfig } from '../src/lib/config';
import { createLogger } from '../src/lib/log';
import { hashPassword } from '../src/lib/password';
import { addToDay, dayOf } from '../src/lib/time';
import { argument, openBenchDatabase, percentile, seedUnits } from './support';

const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'postgres' : 'pglite') as 'pglite' | 'postgres';
const unitCount = Number(argument('units', '500'));
const tripCount = Number(argument('trips', String(unitCount * 900)));
const runs = Number(argument('runs', '3'));

const { database, label } = await openBenchDatabase(kind, 'fleet_bench_reports', { keep: process.argv.includes('--reuse') });
const config = loadConfig({ LOG_LEVEL: 'warn', GATEWAY: '0', JOBS: '0' });
const clock = new ManualClock(new Date());
const { api } = await assemble(config, database, { clock, log: createLogger('warn') });
console.log(`database: ${label}`);

// --- Seed: the fleet, its drivers and a year of trips ---------------------------------------------------------------
const password = 'Bench-123!';
const today = dayOf(clock.now(), 'Europe/Stockholm');
const from = addToDay(today, { months: -12, days: 1 });
const reuse = process.argv.includes('--reuse');
const [{ trips: seededTrips } = { trips: 0 }] = await database.query<{ trips: number }>('SELECT count(*)::int AS trips FROM trips');
let accountId = 0;
if (reuse && Number(seededTrips) >= tripCount) {
  const [row] = await database.query<{ account_id: number }>(`SELECT account_id FROM users WHERE email = 'fleet.admin@example.com'`);
  accountId = Number(row!.account_id);
  console.log(`reusing the seed of an earlier run: ${seededTrips} trips`);
} else {
  const seedStart = performance.now();
  const unitIds = await seedUnits(database, unitCount);
  const [{ account_id: seededAccount } = { account_id: 0 }] = await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]]);
  accountId = seededAccount;
  const hash = await hashPassword(password);
  await database.query(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, 'fleet.admin@example.com', $2, 'Fia', 'Fleet', 'admin')`,
    [accountId, hash],
  );
  // One driver per ten units.
  const drivers = await database.query<{ id: number }>(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role)
     SELECT $1, 'driver' || i || '@example.com', $2, 'Driver', i::text, 'user' FROM generate_series(1, $3::int) AS i RETURNING id`,
    [accountId, hash, Math.max(1, Math.ceil(unitCount / 10))],
  );
  const departments = await database.query<{ id: number }>(
    `INSERT INTO departments (account_id, name) SELECT $1, name FROM unnest(ARRAY['Service', 'Sales', 'Logistics']) AS name RETURNING id`,
    [accountId],
  );
  await database.query(
    `UPDATE units u SET fuel_type = (ARRAY['petrol', 'diesel', 'electricity', 'diesel'])[1 + u.id % 4],
       fuel_consumption_per_10km = (ARRAY[0.7, 0.6, 1.8, 0.9])[1 + u.id % 4],
       co2_g_per_km = CASE WHEN u.id % 4 = 3 THEN 190 END,
       vehicle_type = CASE WHEN u.id % 4 = 3 THEN 'lorry' ELSE 'passenger_car' END,
       department_id = ($2::int[])[1 + u.id % 3]
     WHERE u.account_id = $1`,
    [accountId, departments.map((row) => row.id)],
  );
  await database.query(`INSERT INTO account_fuel_prices (account_id, market, fuel_type, price) VALUES ($1, 'SE', 'petrol', 18.49), ($1, 'SE', 'diesel', 19.29), ($1, 'SE', 'electricity', 2.1)`, [
    accountId,
  ]);
  const fromInstant = Date.parse(`${from}T05:00:00Z`);
  const spanMs = Date.parse(`${today}T00:00:00Z`) - fromInstant;
  const perUnit = Math.ceil(tripCount / unitCount);
  // Trip i: unit i % units, the (i / units)-th trip of that unit, spread evenly over the year; 5–60 km, 10–70 minutes.
  await database.query(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m, odometer_source,
                        distance_m, max_speed_kmh, avg_speed_kmh, driver_user_id, harsh_braking, harsh_acceleration, harsh_cornering,
                        type, type_source, detection, point_count)
     SELECT ($1::int[])[1 + i % $2::int], $3,
            to_timestamp(($4::float8 + (i / $2::int) * $5::float8) / 1000),
            to_timestamp(($4::float8 + (i / $2::int) * $5::float8) / 1000) + make_interval(mins => 10 + i % 61),
            ST_SetSRID(ST_MakePoint(18.0, 59.3), 4326), ST_SetSRID(ST_MakePoint(18.1, 59.4), 4326),
            0, 5000 + (i % 56) * 1000, 'gps', 5000 + (i % 56) * 1000, 70 + i % 60, 45,
            ($6::int[])[1 + (i % $2::int) % array_length($6::int[], 1)], (i % 7 = 0)::int, (i % 5 = 0)::int, (i % 11 = 0)::int,
            (ARRAY['business', 'business', 'private', 'other'])[1 + i % 4], 'default', 'ignition', 100
     FROM generate_series(0, $7::int - 1) AS i`,
    [unitIds, unitCount, accountId, fromInstant, spanMs / perUnit, drivers.map((row) => row.id), tripCount],
  );
  // As autovacuum leaves a table of past trips on a server: statistics, and pages marked all-visible (index-only scans).
  await database.query('VACUUM ANALYZE trips');
  await database.query('ANALYZE units');
  console.log(`seeded ${unitCount} units, ${drivers.length} drivers, ${tripCount} trips (${from} – ${today}) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
}

// --- The reports through the HTTP API ----------------------------------------------------------------------------
// A slow report is timed, not cut off by the server's idle timeout.
const server = api.listen({ hostname: '127.0.0.1', port: 0, idleTimeout: 255 });
const base = `http://127.0.0.1:${server.server!.port}`;
const login = await fetch(`${base}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ username: 'fleet.admin@example.com', password, subsiteid: 0 }),
});
const token = ((await login.json()) as { data: { user: { token: string } } }).data.user.token;
const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'x-timezone': 'Europe/Stockholm', 'x-lang': 'sv' };

async function timed(path: string): Promise<{ ms: number; bytes: number; status: number; body: ArrayBuffer }> {
  const start = performance.now();
  const response = await fetch(`${base}${path}`, { headers });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - start, bytes: body.byteLength, status: response.status, body };
}

const period = `from=${from}&to=${today}`;
const cases: Array<{ name: string; path: string; target: number }> = [
  { name: 'fleet summary', path: `/api/reports/summary?${period}`, target: 2000 },
  { name: 'fleet summary PDF', path: `/api/reports/summary?${period}&format=pdf`, target: 5000 },
  { name: 'eco ranking (drivers)', path: `/api/reports/eco?${period}&groupBy=driver`, target: 2000 },
  { name: 'eco ranking PDF', path: `/api/reports/eco?${period}&groupBy=driver&format=pdf`, target: 5000 },
  { name: 'fuel', path: `/api/reports/fuel?${period}`, target: 2000 },
  { name: 'CO2', path: `/api/reports/co2?${period}`, target: 2000 },
  { name: 'environmental', path: `/api/reports/environment?${period}`, target: 2000 },
];
// The benefit report of the whole fleet, where the product has it: every fifth car a benefit car, with its drivers' trips.
if (api.routes.some((route) => route.path === '/api/reports/benefit')) {
  await database.query(`UPDATE units SET car_usage = 'benefit', fuel_payer = 'company' WHERE account_id = $1 AND id % 5 = 0`, [accountId]);
  // It counts whole months: the last twelve, this one included.
  const months = `from=${addToDay(`${today.slice(0, 8)}01`, { months: -11 })}&to=${today}`;
  cases.push({ name: 'benefit report', path: `/api/reports/benefit?${months}`, target: 2000 });
  cases.push({ name: 'benefit report PDF', path: `/api/reports/benefit/export?${months}&format=pdf`, target: 5000 });
}

console.log('');
console.log(`${'report'.padEnd(24)} ${'median'.padStart(9)} ${'slowest'.padStart(9)} ${'bytes'.padStart(10)}  status  target`);
for (const c of cases) {
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let run = 0; run < runs; run++) {
    const result = await timed(c.path);
    times.push(result.ms);
    bytes = result.bytes;
    status = result.status;
  }
  const median = percentile(times, 50);
  const slowest = Math.max(...times);
  const verdict = status !== 200 ? 'FAILED' : median < c.target ? `< ${c.target / 1000} s ok` : `> ${c.target / 1000} s`;
  console.log(`${c.name.padEnd(24)} ${`${Math.round(median)} ms`.padStart(9)} ${`${Math.round(slowest)} ms`.padStart(9)} ${String(bytes).padStart(10)}  ${status}     ${verdict}`);
}
console.log(`${runs} runs each`);
server.stop(true);
await database.close();
process.exit(0);
