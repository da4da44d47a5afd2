/**
 * `bun run bench:storage [--units 500] [--rows 200000]`
 *
 * Bytes per stored position on PostgreSQL: fills the positions table of a fresh database `fleet_bench_storage` (on
 * BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL) with simulated Teltonika records as the gateway stores them
 * (raw IO and normalised view as JSON, one fix per unit per 10 s, as monthly partitions hold them), vacuums, and prints
 * `pg_total_relation_size` (heap, TOAST and the primary key) over every partition divided by the row count; beside it,
 * the same for one raw frame of 20 records, as kept for support. README's sizing table is computed from these figures.
 */
import postgres from 'postgres';
import { teltonikaRecord } from '../src/gateway/simulator/fleet';
import { SimulatedVehicle } from '../src/gateway/simulator/vehicle';
import { encodeAvlFrame, normalize } from '../src/gateway/teltonika';
import { openPostgres } from '../src/lib/db/client';
import { ioToJson } from '../src/lib/tracker-record';
import { argument, benchPlatform, seedUnits } from './support';

const unitCount = Number(argument('units', '500'));
const rowCount = Number(argument('rows', '200000'));
const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL (or DATABASE_URL), e.g. postgres://postgres@127.0.0.1:5432/postgres');

const admin = postgres(url, { max: 1, onnotice: () => {} });
await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_storage WITH (FORCE)');
await admin.unsafe('CREATE DATABASE fleet_bench_storage');
const target = new URL(url);
target.pathname = '/fleet_bench_storage';
const database = await openPostgres(target.toString(), 2);
await benchPlatform(database);
const unitIds = await seedUnits(database, unitCount);
console.log(`database: PostgreSQL (${target.host}); ${unitCount} units, ${rowCount} positions`);

// Timestamps inside the current month's partition, stepping back from now so nothing lies in the future.
const stepS = 10;
const rowsPerUnit = Math.ceil(rowCount / unitCount);
const start = Date.now() - rowsPerUnit * stepS * 1000;
const vehicles = unitIds.map((_, i) => new SimulatedVehicle(i, start));
const batch = 5000;
let written = 0;
for (let step = 0; written < rowCount; step++) {
  const rows: unknown[] = [];
  const at = start + step * stepS * 1000;
  for (let i = 0; i < unitIds.length && written + rows.length < rowCount; i++) {
    const record = teltonikaRecord('350000000000001', vehicles[i]!.step(at, stepS));
    record.normalized = normalize('FMB920', record.io, 0);
    rows.push([unitIds[i], at, record.longitude, record.latitude, record.speedKmh, record.course, record.satellites, ioToJson(record.io), record.normalized]);
  }
  for (let offset = 0; offset < rows.length; offset += batch) {
    await database.query(
      `INSERT INTO positions (unit_id, time, received_at, geom, altitude, speed_kmh, course, satellites, valid, flags, ignition, odometer_m, io, normalized)
       SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), to_timestamp((e->>1)::float8 / 1000) + interval '2 seconds',
              ST_SetSRID(ST_MakePoint((e->>2)::float8, (e->>3)::float8), 4326), 25, (e->>4)::real, (e->>5)::real, (e->>6)::smallint,
              true, 0, (e->7->>'239') = '1', (e->7->>'16')::float8, e->7, e->8
       FROM jsonb_array_elements($1::jsonb) AS e`,
      [JSON.stringify(rows.slice(offset, offset + batch))],
    );
  }
  written += rows.length;
}
await database.query('VACUUM ANALYZE positions');
const [size] = await database.query<{ rows: number; bytes: string; heap: string; index: string }>(
  `SELECT (SELECT count(*)::int FROM positions) AS rows,
          sum(pg_total_relation_size(relid))::text AS bytes,
          sum(pg_table_size(relid))::text AS heap,
          sum(pg_indexes_size(relid))::text AS index
   FROM pg_partition_tree('positions') WHERE isleaf`,
);
const perRow = Number(size!.bytes) / size!.rows;

// One raw frame as the gateway keeps it: 20 Codec 8E records, hex, with its protocol, device and remote address.
const frames = 20_000;
const frameVehicle = new SimulatedVehicle(0, Date.now());
const frame = encodeAvlFrame(0x8e, Array.from({ length: 20 }, (_, i) => teltonikaRecord('350000000000001', frameVehicle.step(Date.now() + i * 5000, 5))));
await database.query(
  `INSERT INTO raw_frames (received_at, protocol, device_id, remote, payload)
   SELECT now() - g * interval '1 second', 'teltonika', '3500000000' || lpad((g % 1000)::text, 5, '0'), '10.0.0.1:50000', $1::bytea
   FROM generate_series(1, ${frames}) AS g`,
  [Buffer.from(frame)],
);
await database.query('VACUUM ANALYZE raw_frames');
const [raw] = await database.query<{ bytes: string }>(`SELECT pg_total_relation_size('raw_frames')::text AS bytes`);
const perFrame = Number(raw!.bytes) / frames;

await database.close();
await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_storage WITH (FORCE)');
await admin.end();

console.log('');
console.log(`positions stored            ${size!.rows}`);
console.log(`positions size              ${(Number(size!.bytes) / 1048576).toFixed(1)} MiB (table+TOAST ${(Number(size!.heap) / 1048576).toFixed(1)} MiB, primary key ${(Number(size!.index) / 1048576).toFixed(1)} MiB)`);
console.log(`bytes per stored position   ${Math.round(perRow)}`);
console.log(`bytes per raw frame         ${Math.round(perFrame)} (${frame.length}-byte Codec 8E payload, 20 records)`);
process.exit(0);
