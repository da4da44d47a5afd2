/**
 * Car schedule benchmark: the week view (`GET /api/car-schedule/week`) over HTTP for an administrator of an account
 * with `--units` vehicles (default 2,000) and `--bookings` bookings (default 20,000) spread over ten weeks around the
 * measured week, on PostgreSQL (BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL; a fresh database
 * `fleet_bench_bookings`, so it runs beside the other benchmarks' `fleet_bench`)
 * or PGlite (`--db pglite`). Prints p50/p95/max of `--runs` requests after a warm-up, and the answer's size. Target:
 * under 300 ms on PostgreSQL.
 */
import { assemble } from '../src/bootstrap';
import { systemClock } from '../src/lib/clock';
import { loadConfig } from '../src/lib/config';
import { createLogger } from '../src/lib/log';
import { hashPassword } from '../src/lib/password';
import postgres from 'postgres';
import { type DatabaseHandle, openPostgres } from '../src/lib/db/client';
import { argument, openBenchDatabase, percentile, seedUnits } from './support';

const TARGET_MS = 300;
const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite') as
  | 'pglite'
  | 'postgres';
const unitCount = Number(argument('units', '2000'));
const bookingCount = Number(argument('bookings', '20000'));
const runs = Number(argument('runs', '20'));
const WEEKS = 10;

/** A fresh database of its own on the server (PostgreSQL), or the shared helper's PGlite directory. */
async function openDatabase(): Promise<{ database: DatabaseHandle; label: string }> {
  if (kind === 'pglite') return openBenchDatabase('pglite');
  const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('set BENCH_DATABASE_URL for the PostgreSQL run, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_bookings WITH (FORCE)');
  await admin.unsafe('CREATE DATABASE fleet_bench_bookings');
  await admin.end();
  const benchUrl = new URL(url);
  benchUrl.pathname = '/fleet_bench_bookings';
  return { database: await openPostgres(benchUrl.toString(), 8), label: `PostgreSQL (${benchUrl.host})` };
}

const { database, label } = await openDatabase();
const config = loadConfig({ LOG_LEVEL: 'warn', GATEWAY: '0', JOBS: '0' });
const { api } = await assemble(config, database, { clock: systemClock, log: createLogger('warn') });
console.log(`database: ${label}`);

// --- Seed: the vehicles, an administrator and nine drivers, and the bookings (no two of a vehicle overlap) -----------
const seedStart = performance.now();
const unitIds = await seedUnits(database, unitCount);
const [{ account_id: accountId }] = (await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]])) as [
  { account_id: number },
];
await database.query("UPDATE units SET registration_number = 'ABC' || lpad((id % 1000)::text, 3, '0') WHERE account_id = $1", [accountId]);
const password = 'Bench-pass-1!';
const hash = await hashPassword(password);
const users = await database.query<{ id: number }>(
  `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role)
   SELECT $1, 'driver' || i || '@bench.example.com', $2, 'Driver', 'No ' || i, CASE WHEN i = 0 THEN 'admin' ELSE 'user' END
   FROM generate_series(0, 9) AS i RETURNING id`,
  [accountId, hash],
);
// The measured week starts on this week's Monday (Stockholm); bookings spread from four weeks before to six after.
const monday = new Date();
monday.setUTCHours(0, 0, 0, 0);
monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
const weekDay = monday.toISOString().slice(0, 10);
const perUnit = Math.ceil(bookingCount / unitCount);
const slotMs = (WEEKS * 7 * 86_400_000) / perUnit;
await database.query(
  `INSERT INTO bookings (account_id, unit_id, driver_id, starts_at, ends_at, purpose, created_by)
   SELECT $1, u.id, ($2::int[])[1 + (n + u.id) % 10],
          to_timestamp(($3::float8 + n * $4::float8 + (u.id % 8) * 900000) / 1000),
          to_timestamp(($3::float8 + n * $4::float8 + (u.id % 8) * 900000 + 3600000 * (1 + (u.id + n) % 6)) / 1000),
          'Customer visit ' || n, ($2::int[])[1]
   FROM unnest($5::int[]) AS u(id), generate_series(0, $6::int - 1) AS n
   LIMIT $7`,
  [accountId, users.map((user) => user.id), monday.getTime() - 4 * 7 * 86_400_000, slotMs, unitIds, perUnit, bookingCount],
);
await database.query('ANALYZE bookings');
await database.query('ANALYZE units');
const [counted] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM bookings');
console.log(`seeded ${unitCount} vehicles and ${counted!.n} bookings in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

// --- Measure over HTTP ------------------------------------------------------------------------------------------------
const server = api.listen({ hostname: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${server.server!.port}`;
const login = await fetch(`${base}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ username: 'driver0@bench.example.com', password, subsiteid: 0 }),
});
const token = ((await login.json()) as { data: { user: { token: string } } }).data.user.token;
const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': 'gzip', 'x-lang': 'sv' };
const path = `/api/car-schedule/week?week_day=${weekDay}&Imeis=`;

const times: number[] = [];
let bytes = 0;
let shown = 0;
for (let run = -3; run < runs; run++) {
  const start = performance.now();
  const response = await fetch(`${base}${path}`, { headers });
  const body = (await response.json()) as { data: { BookingSchedules: Array<{ Schedule: unknown[] }> } };
  const ms = performance.now() - start;
  if (response.status !== 200) throw new Error(`week view answered ${response.status}`);
  if (run >= 0) times.push(ms);
  bytes = Number(response.headers.get('content-length') ?? 0);
  shown = body.data.BookingSchedules.reduce((sum, vehicle) => sum + vehicle.Schedule.length, 0);
}
const p50 = percentile(times, 50);
const p95 = percentile(times, 95);
console.log(
  `week view, ${unitCount} vehicles, ${counted!.n} bookings (${shown} in the week, ${bytes ? `${Math.round(bytes / 1024)} KiB compressed` : 'size n/a'}): ` +
    `p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms over ${runs} requests ` +
    `(target < ${TARGET_MS} ms: ${p95 < TARGET_MS ? 'met' : 'NOT met'})`,
);
await server.stop();
await database.close();
process.exit(0);
