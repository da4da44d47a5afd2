/**
 * `bun run bench:ingest [--db pglite|postgres] [--devices 5000] [--records 20] [--interval 5000] [--seconds 30] [--raw-frames 7]`
 *
 * Runs the simulator (a separate process, real TCP sockets, Teltonika Codec 8E) against the gateway and
 * prints: positions per second sustained, p50 and p99 from frame received to row committed, the gateway
 * process's CPU and peak RSS; then, on the same database in the same run, the raw batched-insert rate into
 * the positions table and the ratio of the two.
 */
import { startGateway } from '../src/gateway';
import { teltonikaRecord } from '../src/gateway/simulator/fleet';
import { SimulatedVehicle } from '../src/gateway/simulator/vehicle';
import { normalize } from '../src/gateway/teltonika';
import { ioToJson } from '../src/lib/tracker-record';
import { createCommandService } from '../src/modules/io/service';
import { demoImei } from '../src/demo/seed';
import { argument, benchPlatform, openBenchDatabase, rssSampler, seedUnits } from './support';

const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'postgres' : 'pglite') as 'pglite' | 'postgres';
const devices = Number(argument('devices', kind === 'postgres' ? '5000' : '1500'));
// A tracker buffers fixes and sends them in one frame (FMB default: records every few seconds, a frame
// when enough are collected), so 20 records every 5 s is 4 positions per second per device.
const recordsPerFrame = Number(argument('records', '20'));
const intervalMs = Number(argument('interval', '5000'));
const seconds = Number(argument('seconds', '30'));
const warmupSeconds = 12;

const { database, label } = await openBenchDatabase(kind);
// `--raw-frames 0` leaves raw frames out; by default they are kept, as the product keeps them (RAW_FRAME_RETENTION_DAYS=7).
const rawFrameDays = argument('raw-frames', '7');
const platform = await benchPlatform(database, { RAW_FRAME_RETENTION_DAYS: rawFrameDays });
console.log(`database: ${label}; raw frames ${rawFrameDays === '0' ? 'not kept' : `kept ${rawFrameDays} days`}`);
console.log(`offered load: ${devices} devices × ${recordsPerFrame} records every ${intervalMs} ms = ${Math.round((devices * recordsPerFrame * 1000) / intervalMs)} positions/s`);
const unitIds = await seedUnits(database, devices);
console.log(`${devices} units registered; starting the gateway and the simulator (${warmupSeconds} s warm-up)`);

// --- Gateway under simulated load -------------------------------------------------------------------
const commands = createCommandService(database, platform.events, platform.clock);
const gateway = await startGateway(platform, commands, { teltonika: 0, gt06: 0, osmand: 0 });
const simulator = Bun.spawn(
  ['bun', 'run', 'scripts/simulate.ts', '--imei-start', demoImei(0), '--devices', String(devices), '--records', String(recordsPerFrame), '--interval', String(intervalMs),
    '--teltonika-port', String(gateway.ports.teltonika), '--gt06-port', String(gateway.ports.gt06), '--osmand-port', String(gateway.ports.osmand)],
  { stdout: 'ignore', stderr: 'inherit' },
);
const metrics = gateway.context.metrics;
await Bun.sleep(warmupSeconds * 1000);
console.log(`warm-up done: ${metrics.connectionsOpen} devices connected; measuring for ${seconds} s`);
metrics.resetLatencies();
const rss = rssSampler();
const storedBefore = metrics.recordsStored;
const cpuBefore = process.cpuUsage();
const started = performance.now();
await Bun.sleep(seconds * 1000);
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const stored = metrics.recordsStored - storedBefore;
const gatewayRate = stored / elapsed;
const p50 = metrics.percentile(50);
const p99 = metrics.percentile(99);
const connections = metrics.connectionsOpen;
const failures = { ingest: metrics.ingestFailures, badCrc: metrics.badCrc, malformed: metrics.malformed };
const flagged = { implausible: gateway.context.ingest.implausibleRecords, isolated: gateway.context.ingest.isolatedRecords };
rss.stop();
simulator.kill();
await simulator.exited;
await gateway.stop();

// --- Raw batched inserts on the same database -------------------------------------------------------
// The same rows the gateway writes (a simulated record's raw IO and normalised view), inserted in
// batches of 2000 straight into the positions table: no sockets, no decoding, no latest-state update.
const sample = teltonikaRecord('350000000000001', new SimulatedVehicle(0, Date.now()).step(Date.now(), 1));
sample.normalized = normalize('FMB920', sample.io, 0);
const ioJson = ioToJson(sample.io);
const batch = 2000;
const rawSeconds = Math.min(10, seconds);
console.log(`measuring raw batched inserts for ${rawSeconds} s`);
let rawRows = 0;
const rawStart = performance.now();
// Timestamps in this month's partition, as live positions are, but in the past so nothing conflicts.
const monthStart = new Date();
let t = Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1);
while ((performance.now() - rawStart) / 1000 < rawSeconds) {
  const rows: unknown[] = [];
  for (let i = 0; i < batch; i++) {
    rows.push([unitIds[i % unitIds.length], t + Math.floor(i / unitIds.length) * 1000, 18 + Math.random() * 0.1, 59.3 + Math.random() * 0.1, ioJson, sample.normalized]);
  }
  t += Math.ceil(batch / unitIds.length) * 1000;
  await database.query(
    `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, course, satellites, valid, flags, io, normalized)
     SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), now(), ST_SetSRID(ST_MakePoint((e->>2)::float8, (e->>3)::float8), 4326),
            50, 90, 9, true, 0, e->4, e->5
     FROM jsonb_array_elements($1::jsonb) AS e`,
    [JSON.stringify(rows)],
  );
  rawRows += batch;
}
const rawRate = rawRows / ((performance.now() - rawStart) / 1000);
await database.close();

const cpuPct = ((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100;
console.log('');
console.log(`connected devices           ${connections}`);
console.log(`failed batches / bad CRC    ${failures.ingest} / ${failures.badCrc} (malformed ${failures.malformed})`);
console.log(`implausible / isolated      ${flagged.implausible} / ${flagged.isolated} records`);
console.log(`positions/s sustained       ${Math.round(gatewayRate)}  (${stored} stored in ${elapsed.toFixed(1)} s)`);
console.log(`frame → commit p50 / p99    ${p50.toFixed(0)} ms / ${p99.toFixed(0)} ms`);
console.log(`gateway CPU                 ${cpuPct.toFixed(0)} % of one core (user+system)`);
console.log(`gateway peak RSS            ${rss.peakMiB} MiB`);
console.log(`raw batched inserts         ${Math.round(rawRate)} rows/s (batches of ${batch})`);
console.log(`gateway / raw               ${(gatewayRate / rawRate).toFixed(2)}`);
process.exit(0);
