/**
 * `bun run bench:ingest [--db pglite|postgres] [--devices 5000] [--records 4] [--interval 1000] [--seconds 30]`
 *
 * Runs the simulator (a separate process, real TCP sockets, Teltonika Codec 8E) against the gateway and
 * prints: positions per second sustained, p50 and p99 from frame received to row committed, the gateway
 * process's CPU and peak RSS; then, on the same database in the same run, the raw batched-insert rate into
 * the positions table and the ratio of the two.
 */
import { startGateway } from '../src/gateway';
import { createCommandService } from '../src/modules/io/commands';
import { argument, benchPlatform, openBenchDatabase, rssSampler, seedUnits } from './support';

const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'postgres' : 'pglite') as 'pglite' | 'postgres';
const devices = Number(argument('devices', kind === 'postgres' ? '5000' : '1500'));
const recordsPerFrame = Number(argument('records', '4'));
const intervalMs = Number(argument('interval', '1000'));
const seconds = Number(argument('seconds', '30'));
const warmupSeconds = 8;

const { database, label } = await openBenchDatabase(kind);
const platform = await benchPlatform(database);
console.log(`database: ${label}`);
console.log(`offered load: ${devices} devices × ${recordsPerFrame} records every ${intervalMs} ms = ${Math.round((devices * recordsPerFrame * 1000) / intervalMs)} positions/s`);
const unitIds = await seedUnits(database, devices);
console.log(`${devices} units registered; starting the gateway and the simulator (${warmupSeconds} s warm-up)`);

// --- Gateway under simulated load -------------------------------------------------------------------
const commands = createCommandService(database, platform.events, platform.clock);
const gateway = await startGateway(platform, commands, { teltonika: 0, gt06: 0, osmand: 0 });
const simulator = Bun.spawn(
  ['bun', 'run', 'scripts/simulate.ts', '--devices', String(devices), '--records', String(recordsPerFrame), '--interval', String(intervalMs),
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
rss.stop();
simulator.kill();
await simulator.exited;
await gateway.stop();

// --- Raw batched inserts on the same database -------------------------------------------------------
const batch = 2000;
const rawSeconds = Math.min(10, seconds);
console.log(`measuring raw batched inserts for ${rawSeconds} s`);
let rawRows = 0;
const rawStart = performance.now();
// Timestamps in this month's partition, as live positions are, but in the past so nothing conflicts.
const monthStart = new Date();
let t = Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1);
while ((performance.now() - rawStart) / 1000 < rawSeconds) {
  const units: number[] = [];
  const times: string[] = [];
  const lons: number[] = [];
  const lats: number[] = [];
  for (let i = 0; i < batch; i++) {
    units.push(unitIds[i % unitIds.length]!);
    times.push(new Date(t + Math.floor(i / unitIds.length) * 1000).toISOString());
    lons.push(18 + Math.random() * 0.1);
    lats.push(59.3 + Math.random() * 0.1);
  }
  t += Math.ceil(batch / unitIds.length) * 1000;
  await database.query(
    `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, valid, flags, io, normalized)
     SELECT u, tm, now(), ST_SetSRID(ST_MakePoint(lon, lat), 4326), 50, true, 0, '{}'::jsonb, '{}'::jsonb
     FROM unnest($1::int[], $2::timestamptz[], $3::float8[], $4::float8[]) AS x(u, tm, lon, lat)`,
    [units, times, lons, lats],
  );
  rawRows += batch;
}
const rawRate = rawRows / ((performance.now() - rawStart) / 1000);
await database.close();

const cpuPct = ((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100;
console.log('');
console.log(`connected devices           ${connections}`);
console.log(`positions/s sustained       ${Math.round(gatewayRate)}  (${stored} stored in ${elapsed.toFixed(1)} s)`);
console.log(`frame → commit p50 / p99    ${p50.toFixed(0)} ms / ${p99.toFixed(0)} ms`);
console.log(`gateway CPU                 ${cpuPct.toFixed(0)} % of one core (user+system)`);
console.log(`gateway peak RSS            ${rss.peakMiB} MiB`);
console.log(`raw batched inserts         ${Math.round(rawRate)} rows/s (batches of ${batch})`);
console.log(`gateway / raw               ${(gatewayRate / rawRate).toFixed(2)}`);
process.exit(0);
