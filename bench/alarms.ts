/**
 * `bun run bench:alarms [--units 10000] [--sms-429 0.05] [--kill-at 0.4] [--timeout 600] [--workers 1] [--lease 15] [--concurrency 16]`
 *
 * An alarm storm on PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL / TEST_DATABASE_URL, else the local server; a
 * database `fleet_bench_alarms` is created for the run): `--units` units, each in a theft-mode zone of its own, with one
 * alarm receiver taking security alarms by e-mail, SMS and web push. Every unit leaves its zone at once: the positions go
 * through the ingest batches' hooks (geofence matching and the alarm engine) in batches of 2,000, committed as the
 * ingest writer commits them; the zone exits reach the alarm engine through the outbox (a batch subscriber: a dispatch
 * pass's exits become alarms and delivery jobs in one set of statements), each alarm is queued to its receiver's three
 * channels, and `--workers` portal processes (`src/main.ts` with JOBS on, no gateway: the product's outbox dispatcher
 * and job queue, `JOB_LEASE_SECONDS=--lease`, `JOB_CONCURRENCY=--concurrency`) send them to loopback servers speaking
 * SMTP, Twilio's REST API (answering `--sms-429` of requests with 429) and web push (decrypting). When `--kill-at` of
 * the expected messages have arrived, a portal process is killed with SIGKILL (kill -9) and a new one started.
 *
 * Printed: messages received per channel at the servers (a repeat carrying a delivery's Message-ID or push Topic already
 * seen is counted apart, as the receiver drops it; an SMS has no such id, so the portal asks Twilio's list before sending
 * one whose earlier attempt may have gone: the SMS the server took and the list calls are printed), units with a message missing or received twice, the delivery
 * log's statuses, deliveries per second (first commit → last message), and p50/p95 from the commit of a unit's exit
 * position to its message's acceptance by the server.
 */
import type { Subprocess } from 'bun';
import { createServices, servicesSubscriptions } from '../src/app';
import { subscribeAll } from '../src/composition';
import { openPostgres } from '../src/lib/db/client';
import type { StoredPosition } from '../src/modules/tracking/service';
import { startPushService } from '../tests/support/push';
import { startSmtpServer } from '../tests/support/smtp';
import { startTwilioServer } from '../tests/support/twilio';
import { argument, benchPlatform, openBenchDatabase, percentile, seedUnits } from './support';

const BATCH_POSITIONS = 2000;

/** The product's platform and services over the database (this process stores the storm's positions; it dispatches nothing). */
async function benchApp(url: string, env: Record<string, string>) {
  const platform = await benchPlatform(await openPostgres(url, 8), env, { logLevel: 'error' });
  const services = await createServices(platform);
  subscribeAll(platform.outbox, servicesSubscriptions(platform, services));
  await platform.outbox.register();
  return { platform, services };
}

const unitCount = Number(argument('units', '10000'));
const smsFailure = Number(argument('sms-429', '0.05'));
const killAt = Number(argument('kill-at', '0.4'));
const timeoutS = Number(argument('timeout', '600'));
const workerCount = Number(argument('workers', '1'));
const leaseS = Number(argument('lease', '15'));
const concurrency = Number(argument('concurrency', '16'));
process.env.BENCH_DATABASE_URL ??= process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const smtp = await startSmtpServer();
const twilio = await startTwilioServer();
const push = await startPushService();
const { database: setup } = await openBenchDatabase('postgres', 'fleet_bench_alarms');
const benchUrl = (() => {
  const url = new URL(process.env.BENCH_DATABASE_URL!);
  url.pathname = '/fleet_bench_alarms';
  return url.toString();
})();
await setup.close();
const env = {
  SMTP_URL: smtp.url,
  TWILIO_ACCOUNT_SID: twilio.accountSid,
  TWILIO_AUTH_TOKEN: twilio.authToken,
  TWILIO_FROM: '+46700000000',
  TWILIO_API_URL: twilio.url,
  WEB_PUSH: '1',
  PUBLIC_URL: 'https://portal.example.com',
};
const { platform, services } = await benchApp(benchUrl, env);
const { database } = platform;

// --- Seed: units, a theft-mode zone around each, one receiver of security alarms with e-mail, phone and a browser.
const t0 = performance.now();
const unitIds = await seedUnits(database, unitCount);
const [{ account_id: accountId }] = (await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [unitIds[0]])) as [
  { account_id: number },
];
const home = (i: number) => ({ lat: 58.5 + (i % 100) * 0.02, lon: 15.0 + Math.floor(i / 100) * 0.02 });
for (let from = 0; from < unitIds.length; from += 5000) {
  const slice = unitIds.slice(from, from + 5000);
  await database.query(
    `WITH z AS (
       INSERT INTO geofences (account_id, name, shape, geom, radius_m, theft_mode)
       SELECT $1, 'Harbour ' || (e->>0), 'circle', ST_GeogFromText(e->>1), 300, true FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, n)
       ORDER BY n RETURNING id, name, account_id
     )
     INSERT INTO geofence_units (geofence_id, unit_id, account_id) SELECT id, substring(name FROM 9)::int, account_id FROM z`,
    [accountId, JSON.stringify(slice.map((unitId, k) => [unitId, `SRID=4326;POINT(${home(from + k).lon.toFixed(6)} ${home(from + k).lat.toFixed(6)})`]))],
  );
}
const [admin] = await database.query<{ id: number }>(
  `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role, phone)
   VALUES ($1, 'alarms@bench.example', 'x', 'Alva', 'Larm', 'admin', '+46701112233') RETURNING id`,
  [accountId],
);
const subscription = push.subscribe();
await database.query(`INSERT INTO push_subscriptions (account_id, user_id, endpoint, p256dh, auth, user_agent) VALUES ($1, $2, $3, $4, $5, 'bench')`, [
  accountId,
  admin!.id,
  subscription.endpoint,
  subscription.keys.p256dh,
  subscription.keys.auth,
]);
await seedReceiver(accountId, admin!.id, unitIds);
console.log(`seeded ${unitCount} units, zones and a receiver in ${Math.round(performance.now() - t0)} ms`);

/** The receiver of every unit (the account's user), taking security alarms; the account's alarms in English and London time, with SMS credits for the storm. */
async function seedReceiver(account: number, userId: number, units: number[]): Promise<void> {
  await database.query(`INSERT INTO alarm_account_settings (account_id, language, time_zone, sms_credits) VALUES ($1, 'en', 'Europe/London', $2)`, [
    account,
    units.length * 10,
  ]);
  const [receiver] = await database.query<{ id: number }>(
    `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification, security_alarm, function_alarm)
     VALUES ($1, $2, 'Alva Larm', 'alarms@bench.example', '46', '701112233', true, true, false) RETURNING id`,
    [account, userId],
  );
  await database.query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT r.id, u, r.account_id FROM alarm_receivers r, unnest($2::int[]) AS u WHERE r.id = $1', [receiver!.id, units]);
}

// --- Prime: two fixes inside each zone (the first side a unit is confirmed on is no crossing).
const startMs = Date.now() - 10 * 60_000;
function fixes(offsetS: number, away: boolean): StoredPosition[] {
  return unitIds.map((unitId, i) => {
    const { lat, lon } = home(i);
    return {
      unitId,
      accountId,
      time: new Date(startMs + offsetS * 1000),
      latitude: away ? lat + 0.01 : lat,
      longitude: lon,
      speedKmh: away ? 40 : 0,
      course: 0,
      valid: true,
      flags: 0,
      ignition: true,
      odometerM: undefined,
      normalized: { ignition: true },
    };
  });
}
async function store(positions: StoredPosition[], committed?: Map<number, number>): Promise<void> {
  for (let from = 0; from < positions.length; from += BATCH_POSITIONS) {
    const batch = positions.slice(from, from + BATCH_POSITIONS);
    await database.transaction((tx) => services.tracking.storedBatchHooks.run(tx, batch));
    const at = Date.now();
    if (committed) for (const position of batch) committed.set(position.unitId, at);
  }
}
await store([...fixes(0, false), ...fixes(10, false)]);

// --- Portal processes (src/main.ts with JOBS on, no gateway, no demo), the servers' counters, then the storm.
const workers: Subprocess[] = [];
function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}
async function startWorker(): Promise<Subprocess> {
  const port = freePort();
  const child = Bun.spawn(['bun', 'src/main.ts'], {
    cwd: new URL('..', import.meta.url).pathname,
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: benchUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      GATEWAY: '0',
      JOBS: '1',
      DEMO: '0',
      LOG_LEVEL: 'error',
      JOB_LEASE_SECONDS: String(leaseS),
      JOB_CONCURRENCY: String(concurrency),
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  workers.push(child);
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return child;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error('the portal did not answer /api/health within 120 s');
}
for (let n = 0; n < workerCount; n++) await startWorker();

const nameToUnit = new Map<string, number>();
for (const row of await database.query<{ id: number; name: string }>('SELECT id, name FROM units WHERE account_id = $1', [accountId])) nameToUnit.set(row.name, row.id);
const received = { email: new Map<number, number[]>(), sms: new Map<number, number[]>(), push: new Map<number, number[]>() };
const seen = { email: 0, sms: 0, push: 0 };
// A send repeated after the kill carries its delivery's Message-ID or Topic: a mail client or push service drops it.
const deliveryIds = { email: new Set<string>(), sms: new Set<string>(), push: new Set<string>() };
const repeatsDropped = { email: 0, sms: 0, push: 0 };
const unitOf = (text: string) => nameToUnit.get(text.match(/Bench \d{15}/)?.[0] ?? '');
function collect(): void {
  const now = Date.now();
  const take = (channel: keyof typeof received, count: number, textAt: (index: number) => string, idAt: (index: number) => string | null) => {
    for (let index = seen[channel]; index < count; index++) {
      const unit = unitOf(textAt(index));
      if (unit === undefined) continue;
      const id = idAt(index);
      if (id) {
        if (deliveryIds[channel].has(id)) {
          repeatsDropped[channel]++;
          continue;
        }
        deliveryIds[channel].add(id);
      }
      const list = received[channel].get(unit) ?? [];
      list.push(now);
      received[channel].set(unit, list);
    }
    seen[channel] = count;
  };
  take('email', smtp.inbox.length, (index) => smtp.inbox[index]!.subject, (index) => smtp.inbox[index]!.messageId || null);
  take('sms', twilio.messages.length, (index) => twilio.messages[index]!.body, () => null);
  take('push', push.received.length, (index) => push.received[index]!.payload, (index) => push.received[index]!.topic);
}
const collector = setInterval(collect, 10);

twilio.failRandomly(smsFailure, 429);
const committed = new Map<number, number>();
const stormStart = Date.now();
await store(fixes(20, true), committed);
await store(fixes(30, true), committed);
const stormCommitted = Date.now();
console.log(`storm: ${unitCount} exits committed in ${stormCommitted - stormStart} ms`);

const expected = unitCount * 3;
const total = () => received.email.size + received.sms.size + received.push.size;
let killed = false;
const deadline = Date.now() + timeoutS * 1000;
while (Date.now() < deadline) {
  await Bun.sleep(100);
  if (!killed && killAt > 0 && total() >= expected * killAt) {
    killed = true;
    const victim = workers.shift()!;
    victim.kill('SIGKILL');
    console.log(`portal process killed with SIGKILL (kill -9) at ${total()} of ${expected} messages; a new one starts`);
    await startWorker();
  }
  if (total() >= expected) break;
}
await Bun.sleep(3000); // anything sent twice arrives meanwhile
collect();
clearInterval(collector);

// --- Figures.
const lastMessage = Math.max(...Object.values(received).flatMap((map) => [...map.values()].flat()));
const latencies: number[] = [];
const twice: Record<string, number> = {};
const missing: Record<string, number> = {};
for (const channel of ['email', 'sms', 'push'] as const) {
  twice[channel] = [...received[channel].values()].filter((times) => times.length > 1).length;
  missing[channel] = unitIds.filter((unitId) => !received[channel].has(unitId)).length;
  for (const [unitId, times] of received[channel]) latencies.push(times[0]! - committed.get(unitId)!);
}
const statuses = await database.query<{ channel: string; status: string; n: number }>(
  'SELECT channel, status, count(*)::int AS n FROM alarm_deliveries GROUP BY channel, status ORDER BY channel, status',
);
const [alarmCount] = await database.query<{ n: number; occurrences: number }>(`SELECT count(*)::int AS n, sum(occurrences)::int AS occurrences FROM alarms WHERE type = 'theft_zone_exit'`);
// Commit → alarm and delivery jobs queued (the alarm row's transaction: the outbox dispatch of the exit).
const queuedAt = await database.query<{ unit_id: number; ms: number }>(
  `SELECT unit_id, (extract(epoch FROM created_at) * 1000)::float8 AS ms FROM alarms WHERE type = 'theft_zone_exit'`,
);
const queueLatencies = queuedAt.map((row) => Number(row.ms) - committed.get(row.unit_id)!).filter((ms) => Number.isFinite(ms));
const throttled = twilio.requests.filter((request) => request.status === 429).length;
// A retry after an attempt whose outcome is unknown (in flight at the kill) asks Twilio's list before sending again.
const smsListCalls = twilio.requests.filter((request) => request.method === 'GET').length;
const delivered = Object.values(received).reduce((sum, map) => sum + [...map.values()].reduce((s, times) => s + times.length, 0), 0);
console.log(
  JSON.stringify(
    {
      units: unitCount,
      alarms: alarmCount,
      killedWorker: killed,
      messagesReceived: { email: received.email.size, sms: received.sms.size, push: received.push.size, total: delivered },
      unitsMissingAMessage: missing,
      unitsReceivedTwice: twice,
      repeatsDroppedByDeliveryId: repeatsDropped,
      sms429Answered: throttled,
      smsAcceptedByProvider: twilio.messages.length,
      smsListCalls,
      deliveryLog: statuses,
      deliveriesPerSecond: Math.round((delivered / (lastMessage - stormStart)) * 1000),
      commitToQueuedMs: { p50: percentile(queueLatencies, 50), p95: percentile(queueLatencies, 95), max: Math.max(...queueLatencies) },
      commitToAcceptedMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies) },
    },
    null,
    2,
  ),
);
for (const worker of workers) worker.kill('SIGKILL');
await database.close();
await smtp.close();
twilio.close();
push.close();
process.exit(0);
