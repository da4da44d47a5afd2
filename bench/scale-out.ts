/**
 * `bun run bench:scale-out [--devices 1000] [--records 5] [--interval 5000] [--seconds 30] [--fanout both|notify|nats]`
 *
 * Portal instances as separate processes (`bun src/main.ts`, tests/support/instances.ts) on one PostgreSQL database
 * (`fleet_bench_scale_out` on BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL), trackers simulated by
 * scripts/simulate.ts (real TCP, Teltonika Codec 8E). Prints, for each setup measured in the same run:
 * - one instance: every tracker on its gateway, a map socket on it (the baseline);
 * - two instances, live events over PostgreSQL LISTEN/NOTIFY, and over NATS (NATS_URL, default nats://127.0.0.1:4222)
 *   when a server answers: half of the trackers on each gateway, a map socket on each;
 * the positions/s stored (rows committed in the window), and the latency from the moment the ingesting instance
 * received a position (the unit's `lastSeen`) to the map socket's message, p50/p95, split for two instances into
 * "ingested on the other instance" (the cross-instance path) and "on the same one".
 * On a machine with few cores the point is that a second instance costs little, not that it is faster.
 */
import postgres from 'postgres';
import { demoImei } from '../src/demo/seed';
import { openPostgres } from '../src/lib/db/client';
import { migrate } from '../src/lib/db/migrate';
import { hashPassword } from '../src/lib/password';
import type { LiveMessage } from '../src/modules/tracking/model';
import { type Instance, startInstance } from '../tests/support/instances';
import { argument, percentile } from './support';

const devices = Number(argument('devices', '1000'));
const recordsPerFrame = Number(argument('records', '5'));
const intervalMs = Number(argument('interval', '5000'));
const seconds = Number(argument('seconds', '30'));
const fanout = argument('fanout', 'both') as 'both' | 'notify' | 'nats';
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const warmupSeconds = 5;
const EMAIL = 'scale-out@example.com';
const PASSWORD = 'Bench-2026!';

const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!baseUrl) throw new Error('set BENCH_DATABASE_URL (or DATABASE_URL), e.g. postgres://postgres@127.0.0.1:5432/postgres');
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_scale_out WITH (FORCE)');
await admin.unsafe('CREATE DATABASE fleet_bench_scale_out');
const target = new URL(baseUrl);
target.pathname = '/fleet_bench_scale_out';
const databaseUrl = target.toString();
const database = await openPostgres(databaseUrl, 2);
await migrate(database);
const [account] = await database.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Scale-out benchmark') RETURNING id`);
await database.query(
  `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role, two_factor) VALUES ($1, $2, $3, 'Bench', 'Admin', 'admin', false)`,
  [account!.id, EMAIL, await hashPassword(PASSWORD)],
);
await database.query(
  `INSERT INTO units (account_id, imei, name, model, protocol) SELECT $1, imei, 'Bench ' || imei, 'FMB920', 'teltonika' FROM unnest($2::text[]) AS imei`,
  [account!.id, Array.from({ length: devices }, (_, i) => demoImei(i))],
);
const unitIdOf = new Map(
  (await database.query<{ id: number; imei: string }>('SELECT id, imei FROM units WHERE account_id = $1', [account!.id])).map((row) => [row.imei, row.id]),
);
console.log(`database: PostgreSQL (${target.host}/fleet_bench_scale_out); ${devices} trackers × ${recordsPerFrame} records every ${intervalMs} ms`);
console.log(`offered load: ${Math.round((devices * recordsPerFrame * 1000) / intervalMs)} positions/s`);

async function natsAnswers(): Promise<boolean> {
  const url = new URL(natsUrl.replace(/^nats:/, 'http:'));
  try {
    const socket = await Bun.connect({ hostname: url.hostname, port: Number(url.port || 4222), socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

interface Socket {
  /** Latencies (ms) from the unit's lastSeen to the message's arrival, by unit id. */
  samples: { unitId: number; ms: number }[];
  updates: number;
  close(): void;
}

async function login(instance: Instance): Promise<string> {
  const response = await fetch(`${instance.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ username: EMAIL, password: PASSWORD, subsiteid: 0 }),
  });
  const body = (await response.json()) as { data?: { user: { token: string } } };
  if (!body.data) throw new Error(`login on ${instance.name} failed: ${JSON.stringify(body)}`);
  return body.data.user.token;
}

async function openMapSocket(instance: Instance): Promise<Socket> {
  const token = await login(instance);
  const socket = new WebSocket(`${instance.url.replace(/^http/, 'ws')}/api/tracking/live`, ['bearer', token]);
  const state: Socket = { samples: [], updates: 0, close: () => socket.close() };
  socket.onmessage = (event) => {
    const arrived = Date.now();
    const message = JSON.parse(String(event.data)) as LiveMessage;
    if (message.type !== 'update') return;
    state.updates += 1;
    for (const unit of message.units) {
      if (unit.lastSeen) state.samples.push({ unitId: unit.id, ms: arrived - Date.parse(unit.lastSeen) });
    }
  };
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`map socket on ${instance.name} refused`));
  });
  return state;
}

/** A simulator process driving trackers [from, to) against one gateway port. */
function simulate(instance: Instance, from: number, to: number) {
  return Bun.spawn(
    ['bun', 'run', 'scripts/simulate.ts', '--imei-start', demoImei(from), '--devices', String(to - from), '--records', String(recordsPerFrame),
      '--interval', String(intervalMs), '--teltonika-port', String(instance.gateway.teltonika), '--gt06-port', String(instance.gateway.gt06),
      '--osmand-port', String(instance.gateway.osmand)],
    { stdout: 'ignore', stderr: 'inherit' },
  );
}

const storedSince = async (since: Date) =>
  (await database.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE received_at >= $1', [since.toISOString()]))[0]!.n;

interface Result {
  setup: string;
  rate: number;
  same: number[];
  cross: number[];
  updates: number;
}

/** Runs one setup: `count` instances, trackers split evenly over them, a map socket on each. */
async function measure(setup: string, count: 1 | 2, nats?: string): Promise<Result> {
  console.log(`\n${setup}: starting ${count} instance${count > 1 ? 's' : ''}`);
  const instances: Instance[] = [];
  const simulators: ReturnType<typeof simulate>[] = [];
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) {
      instances.push(await startInstance({ databaseUrl, natsUrl: nats, name: `instance ${'AB'[i]}`, jobs: i === 0, readyTimeoutMs: 180_000 }));
    }
    for (const instance of instances) sockets.push(await openMapSocket(instance));
    /** Which instance ingests each unit: trackers [0, half) on the first, the rest on the second. */
    const ingestedOn = new Map<number, number>();
    const share = Math.ceil(devices / count);
    for (let i = 0; i < count; i++) {
      const from = i * share;
      const to = Math.min(devices, from + share);
      for (let d = from; d < to; d++) ingestedOn.set(unitIdOf.get(demoImei(d))!, i);
      simulators.push(simulate(instances[i]!, from, to));
    }
    // Warm-up: until nine in ten trackers have reported through their gateway (a loaded machine starts processes
    // slowly), then a little more so every tracker reports at its steady pace.
    const phaseStart = new Date();
    const deadline = Date.now() + 180_000;
    let reporting = 0;
    while (Date.now() < deadline) {
      await Bun.sleep(2000);
      reporting = (await database.query<{ n: number }>('SELECT count(*)::int AS n FROM unit_state WHERE last_seen >= $1', [phaseStart.toISOString()]))[0]!.n;
      if (reporting >= devices * 0.9) break;
    }
    await Bun.sleep(warmupSeconds * 1000);
    console.log(`${reporting} of ${devices} trackers reporting; measuring for ${seconds} s`);
    for (const socket of sockets) {
      socket.samples.length = 0;
      socket.updates = 0;
    }
    const since = new Date();
    const started = performance.now();
    await Bun.sleep(seconds * 1000);
    const stored = await storedSince(since);
    const elapsed = (performance.now() - started) / 1000;
    const same: number[] = [];
    const cross: number[] = [];
    sockets.forEach((socket, i) => {
      for (const sample of socket.samples) (ingestedOn.get(sample.unitId) === i ? same : cross).push(sample.ms);
    });
    return { setup, rate: stored / elapsed, same, cross, updates: sockets.reduce((sum, socket) => sum + socket.updates, 0) };
  } finally {
    for (const socket of sockets) socket.close();
    for (const simulator of simulators) simulator.kill();
    await Promise.all(simulators.map((simulator) => simulator.exited));
    await Promise.all(instances.map((instance) => instance.stop()));
  }
}

const results: Result[] = [];
results.push(await measure('one instance (baseline)', 1));
if (fanout !== 'nats') results.push(await measure('two instances, LISTEN/NOTIFY', 2));
if (fanout !== 'notify') {
  if (await natsAnswers()) results.push(await measure('two instances, NATS', 2, natsUrl));
  else console.log(`\nno NATS server answers at ${natsUrl}: the NATS setup is left out`);
}

await database.close();
await admin.unsafe('DROP DATABASE IF EXISTS fleet_bench_scale_out WITH (FORCE)');
await admin.end();

const ms = (values: number[], p: number) => (values.length === 0 ? '   n/a' : `${String(Math.round(percentile(values, p))).padStart(5)} ms`);
console.log('');
console.log('setup                          positions/s   same instance p50 / p95      other instance p50 / p95     map messages');
for (const result of results) {
  console.log(
    `${result.setup.padEnd(30)} ${String(Math.round(result.rate)).padStart(11)}   ${ms(result.same, 50)} / ${ms(result.same, 95)}   ${result.cross.length === 0 && result.setup.startsWith('one') ? '            —            ' : `${ms(result.cross, 50)} / ${ms(result.cross, 95)}`}   ${String(result.updates).padStart(12)}`,
  );
}
const [baseline, ...others] = results;
for (const other of others) {
  console.log(`${other.setup}: ${(other.rate / baseline!.rate).toFixed(2)} × the baseline's positions/s; ${other.cross.length} cross-instance samples`);
  if (other.cross.length === 0) console.log('  no position ingested on one instance reached the map socket on the other');
}
process.exit(0);
