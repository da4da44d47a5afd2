import { afterEach, describe, expect, test } from 'bun:test';
import type { Socket } from 'bun';
import { encodeLogin, encodeReply, Gt06Protocol } from '../../src/gateway/gt06';
import { encodeAvlFrame, encodeCodec12Response, encodeImeiFrame } from '../../src/gateway/teltonika';
import { hashPassword } from '../../src/lib/password';
import { reportFrequencyCommand } from '../../src/modules/units/model';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { connectDevice, hex } from '../support/device';
import { type Instance, startInstance, startTcpProxy, type TcpProxy } from '../support/instances';
import { startSmtpServer, type TestSmtp } from '../support/smtp';
import { waitFor } from '../support/wait';

/**
 * Two portal processes on one PostgreSQL database, with and without NATS, and a TCP proxy of the test's own spreading
 * simulated Teltonika trackers over both gateways (moving some mid-stream): every acknowledged position is stored once;
 * the map socket on each instance sees the units ingested on the other; a command queued through one reaches the tracker
 * held by the other, its answer is seen from the first, and a tracker that reconnects elsewhere continues its queue; an
 * interval job (the report schedules' scan) and an outbox delivery (an SOS alarm to its receivers) happen once; after
 * kill -9 of one instance the trackers reconnect through the proxy to the other and lose nothing acknowledged.
 * PostgreSQL only: an embedded database belongs to one process.
 */
const POSTGRES = process.env.TEST_DB === 'postgres';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

async function natsReachable(): Promise<string | null> {
  const { hostname, port } = new URL(NATS_URL);
  try {
    const socket = await Promise.race([
      Bun.connect({ hostname, port: Number(port || 4222), socket: { data() {} } }),
      Bun.sleep(3000).then(() => {
        throw new Error('no answer within 3 s');
      }),
    ]);
    socket.end();
    return null;
  } catch (error) {
    return `no NATS server at ${NATS_URL} (${error instanceof Error ? error.message : String(error)})`;
  }
}
const natsMissing = POSTGRES ? await natsReachable() : null;
if (natsMissing) console.log(`scale-out over NATS skipped: ${natsMissing}`);

const TRACKERS = 6;
const IMEI = (i: number) => `35630704255${String(i).padStart(4, '0')}`;
const GT06_IMEI = '359339075099001';
const SOS_FRAME = '787825160B0B0F0E241DCF027AC8870C4657E60014020901CC00287D001F726506040101003656A40D0A';
const PASSWORD = 'Secret-123!';

/**
 * A Teltonika tracker behind the proxy: sends one record a frame, keeps each until it is acknowledged, and when the
 * connection drops reconnects and sends the unacknowledged one again. Answers every Codec 12 command it is sent.
 */
class Tracker {
  acked: Date[] = [];
  commands: string[] = [];
  private socket: Socket<undefined> | null = null;
  private buffer = new Uint8Array(0);
  private waiting: { resolve: (ok: boolean) => void; kind: 'login' | 'ack' } | null = null;
  private next = 0;
  localPort = 0;
  private paused = false;
  /** The next command received is noted but not answered (the answer lost with the connection). */
  leaveNextUnanswered = false;

  constructor(
    readonly imei: string,
    readonly unitId: number,
    private readonly proxy: TcpProxy,
    private readonly start: Date,
  ) {}

  private async connect(): Promise<void> {
    for (;;) {
      if (this.paused) {
        await Bun.sleep(100);
        continue;
      }
      try {
        const socket = await Bun.connect({
          hostname: '127.0.0.1',
          port: this.proxy.port,
          socket: {
            data: (_socket, chunk) => this.received(chunk),
            close: () => this.dropped(),
            error: () => this.dropped(),
          },
        });
        this.socket = socket;
        this.buffer = new Uint8Array(0);
        this.localPort = socket.localPort;
        const loggedIn = this.expect('login');
        socket.write(encodeImeiFrame(this.imei));
        if (await loggedIn) return;
      } catch {
        // the proxy had no backend for the moment
      }
      this.socket = null;
      await Bun.sleep(200);
    }
  }

  private dropped(): void {
    this.socket = null;
    this.waiting?.resolve(false);
    this.waiting = null;
  }

  private expect(kind: 'login' | 'ack'): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting?.resolve === done) this.waiting = null;
        resolve(false);
      }, 20_000);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.waiting = { resolve: done, kind };
    });
  }

  private received(chunk: Uint8Array): void {
    const merged = new Uint8Array(this.buffer.length + chunk.length);
    merged.set(this.buffer);
    merged.set(chunk, this.buffer.length);
    this.buffer = merged;
    for (;;) {
      if (this.waiting?.kind === 'login' && this.buffer.length >= 1) {
        const accepted = this.buffer[0] === 1;
        this.buffer = this.buffer.slice(1);
        const waiting = this.waiting;
        this.waiting = null;
        waiting.resolve(accepted);
        continue;
      }
      if (this.buffer.length < 4) return;
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      if (view.getUint32(0) === 0) {
        // A Codec 12 frame: preamble, length, codec, quantity, type, size, text, quantity, CRC.
        if (this.buffer.length < 8) return;
        const total = 8 + view.getUint32(4) + 4;
        if (this.buffer.length < total) return;
        const size = view.getUint32(11);
        const text = new TextDecoder().decode(this.buffer.slice(15, 15 + size));
        this.buffer = this.buffer.slice(total);
        this.commands.push(text);
        if (this.leaveNextUnanswered) this.leaveNextUnanswered = false;
        else this.socket?.write(encodeCodec12Response(`New value ${text.replace(/^setparam /, '')}`));
        continue;
      }
      this.buffer = this.buffer.slice(4);
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.resolve(waiting.kind === 'ack' && view.getUint32(0) === 1);
    }
  }

  /** Sends `count` more records, each until it is acknowledged, reconnecting as needed. */
  async send(count: number, pauseMs = 150): Promise<void> {
    const until = this.next + count;
    while (this.next < until) {
      if (!this.socket) await this.connect();
      const time = new Date(this.start.getTime() + this.next * 1000);
      const record = { time, latitude: 59.3 + this.next * 0.0001, longitude: 18.0 + Number(this.imei.slice(-2)) * 0.01, altitude: 20, speedKmh: 30, course: 90, satellites: 9, io: {} };
      const acked = this.expect('ack');
      this.socket?.write(encodeAvlFrame(0x8e, [record]));
      if (await acked) {
        this.acked.push(time);
        this.next++;
        await Bun.sleep(pauseMs);
      } else {
        this.socket?.end();
        this.socket = null;
        await Bun.sleep(100);
      }
    }
  }

  /** Hangs up and stays away until `resume`. */
  pause(): void {
    this.paused = true;
    this.socket?.end();
    this.socket = null;
  }

  resume(): void {
    this.paused = false;
  }

  /** Connected (logged in) now, reconnecting if needed. */
  async online(): Promise<void> {
    if (!this.socket) await this.connect();
  }

  close(): void {
    this.paused = true;
    this.socket?.end();
  }
}

interface LiveSocketLog {
  units: Set<number>;
  alarms: Array<{ unacknowledged: number }>;
  close(): void;
}

async function openMap(instance: Instance, token: string): Promise<LiveSocketLog> {
  const units = new Set<number>();
  const alarms: Array<{ unacknowledged: number }> = [];
  const socket = new WebSocket(`${instance.url.replace('http', 'ws')}/api/tracking/live?token=${encodeURIComponent(token)}`);
  let hello = false;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { type: string; units?: Array<{ id: number }>; unacknowledged?: number };
    if (message.type === 'hello') hello = true;
    if (message.type === 'update' || message.type === 'catchup') for (const unit of message.units ?? []) units.add(unit.id);
    if (message.type === 'alarms') alarms.push({ unacknowledged: message.unacknowledged ?? 0 });
  });
  await waitFor(`the map socket on ${instance.name}`, () => hello, { timeoutMs: 30_000 });
  return { units, alarms, close: () => socket.close() };
}

async function api<T>(instance: Instance, method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; data: T }> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-lang': 'en' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${instance.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = (await response.json()) as { data: T };
  return { status: response.status, data: envelope.data };
}

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => {});
  cleanup = [];
});

async function scenario(natsUrl: string | undefined): Promise<void> {
  const database: TestDatabase = await createTestDatabase('postgres');
  cleanup.push(() => database.dispose());
  if (database.location.kind !== 'postgres') throw new Error('PostgreSQL only');
  const db = database.handle;
  const smtp: TestSmtp = await startSmtpServer();
  cleanup.push(() => smtp.close());

  // One account: an administrator, a second receiver from outside, the trackers, a GT06 tracker with an SOS button and
  // a weekly report that is due now.
  const [account] = await db.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Scale fleet') RETURNING id`);
  const accountId = account!.id;
  const email = `admin-${Date.now()}@example.com`;
  const [admin] = await db.query<{ id: number }>(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Ada', 'Admin', 'admin') RETURNING id`,
    [accountId, email, await hashPassword(PASSWORD)],
  );
  const unitIds: number[] = [];
  for (let i = 0; i < TRACKERS; i++) {
    const [unit] = await db.query<{ id: number }>(
      `INSERT INTO units (account_id, imei, name, protocol, model) VALUES ($1, $2, $3, 'teltonika', 'FMB920') RETURNING id`,
      [accountId, IMEI(i), `Car ${i}`],
    );
    unitIds.push(unit!.id);
  }
  const [gt06] = await db.query<{ id: number }>(
    `INSERT INTO units (account_id, imei, name, protocol, model) VALUES ($1, $2, 'Patrol', 'gt06', 'GT06N') RETURNING id`,
    [accountId, GT06_IMEI],
  );
  for (const [member, name, address] of [
    [admin!.id, 'Ada Admin', email],
    [null, 'Night guard', 'guard@example.com'],
  ] as const) {
    const [receiver] = await db.query<{ id: number }>(
      `INSERT INTO alarm_receivers (account_id, member_id, name, email, security_alarm, function_alarm) VALUES ($1, $2, $3, $4, true, false) RETURNING id`,
      [accountId, member, name, address],
    );
    await db.query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT id, $2, account_id FROM alarm_receivers WHERE id = $1', [receiver!.id, gt06!.id]);
  }
  await db.query(
    `INSERT INTO report_schedules (account_id, created_by, name, kind, scope, frequency, format, recipient_emails, next_run_at)
     VALUES ($1, $2, 'Weekly summary', 'summary', '{"groupBy":"vehicle"}', 'weekly', 'csv', '{reports@example.com}', now() - interval '1 minute')`,
    [accountId, admin!.id],
  );

  // Both instances run the jobs, the outbox and the queue.
  const env = { SMTP_URL: smtp.url };
  const [a, b] = await Promise.all([
    startInstance({ databaseUrl: database.location.url, natsUrl, name: 'instance A', env }),
    startInstance({ databaseUrl: database.location.url, natsUrl, name: 'instance B', env }),
  ]);
  cleanup.push(() => a.kill(), () => b.kill());
  const proxy = startTcpProxy([a.gateway.teltonika, b.gateway.teltonika]);
  cleanup.push(() => proxy.stop());
  const instanceOf = (port: number | undefined) => (port === a.gateway.teltonika ? a : port === b.gateway.teltonika ? b : null);

  const login = async (instance: Instance) => {
    const result = await api<{ user: { token: string } }>(instance, 'POST', '/api/login', null, { username: email, password: PASSWORD, subsiteid: 0 });
    expect(result.status).toBe(200);
    return result.data.user.token;
  };
  const [tokenA, tokenB] = [await login(a), await login(b)];
  const mapA = await openMap(a, tokenA);
  const mapB = await openMap(b, tokenB);
  cleanup.push(() => mapA.close(), () => mapB.close());

  const start = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  const trackers = unitIds.map((unitId, i) => new Tracker(IMEI(i), unitId, proxy, start));
  cleanup.push(() => {
    for (const tracker of trackers) tracker.close();
  });

  // Spread over both instances; which instance ingested which unit is noted as it is.
  await Promise.all(trackers.map((tracker) => tracker.online()));
  const ingestedOn = new Map<Instance, Set<number>>([
    [a, new Set()],
    [b, new Set()],
  ]);
  for (const tracker of trackers) ingestedOn.get(instanceOf(proxy.targetOf(tracker.localPort))!)?.add(tracker.unitId);
  expect(ingestedOn.get(a)!.size).toBeGreaterThan(0);
  expect(ingestedOn.get(b)!.size).toBeGreaterThan(0);
  await Promise.all(trackers.map((tracker) => tracker.send(4)));

  // The map socket on each instance sees the units ingested on the other.
  await waitFor('instance A’s map to show the units ingested on B', () => [...ingestedOn.get(b)!].every((id) => mapA.units.has(id)), { timeoutMs: 30_000 });
  await waitFor('instance B’s map to show the units ingested on A', () => [...ingestedOn.get(a)!].every((id) => mapB.units.has(id)), { timeoutMs: 30_000 });

  // Some trackers are moved mid-stream: the proxy cuts them and they reconnect (to the next instance in turn).
  const streaming = Promise.all(trackers.map((tracker) => tracker.send(6)));
  await Bun.sleep(300);
  expect(proxy.cut(2)).toBeGreaterThan(0);
  await streaming;

  // A command queued through the instance that does not hold the tracker reaches it at once; its answer is seen there.
  const target = trackers[0]!;
  await target.online();
  const holder = instanceOf(proxy.targetOf(target.localPort));
  expect(holder).not.toBeNull();
  const other = holder === a ? b : a;
  const otherToken = other === a ? tokenA : tokenB;
  const queued = await api(other, 'POST', `/api/units/${target.unitId}/report-frequency`, otherToken, { seconds: 60 });
  expect(queued.status).toBe(200);
  await waitFor('the command at the tracker', () => target.commands.length >= 1, { timeoutMs: 30_000 });
  expect(target.commands).toEqual([reportFrequencyCommand(60)]);
  await waitFor(
    'the answer seen from the other instance',
    async () => {
      const detail = await api<{ PendingSettings: Record<string, unknown> }>(other, 'GET', `/api/units/${target.unitId}`, otherToken);
      const [command] = await db.query<{ status: string; response: string | null }>('SELECT status, response FROM device_commands WHERE unit_id = $1', [target.unitId]);
      return command?.status === 'answered' && detail.status === 200 && detail.data.PendingSettings.report_frequency === undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );

  // Queued while the tracker is away: it continues its queue wherever it reconnects.
  target.pause();
  const second = await api(holder!, 'POST', `/api/units/${target.unitId}/report-frequency`, holder === a ? tokenA : tokenB, { seconds: 120 });
  expect(second.status).toBe(200);
  proxy.setTargets(holder === a ? [b.gateway.teltonika, a.gateway.teltonika] : [a.gateway.teltonika, b.gateway.teltonika]);
  target.resume();
  await target.online();
  expect(instanceOf(proxy.targetOf(target.localPort))).toBe(other);
  await waitFor('the queued command after the reconnect', () => target.commands.length >= 2, { timeoutMs: 30_000 });
  expect(target.commands).toEqual([reportFrequencyCommand(60), reportFrequencyCommand(120)]);
  proxy.setTargets([a.gateway.teltonika, b.gateway.teltonika]);

  // One SOS, through instance B's gateway: one alarm, one e-mail per receiver, and the bell on both instances' maps.
  const patrol = await connectDevice(b.gateway.gt06);
  patrol.write(encodeLogin({ imei: GT06_IMEI, serial: 1 }));
  expect(hex(await patrol.read(10, 10_000))).toBe(hex(encodeReply(Gt06Protocol.login, 1)));
  patrol.write(Buffer.from(SOS_FRAME, 'hex'));
  expect(hex(await patrol.read(10, 10_000))).toBe(hex(encodeReply(Gt06Protocol.alarm, 0x36)));
  patrol.end();
  await smtp.waitFor(email, 60_000);
  await smtp.waitFor('guard@example.com', 60_000);
  await waitFor('the bell on both maps', () => mapA.alarms.some((m) => m.unacknowledged === 1) && mapB.alarms.some((m) => m.unacknowledged === 1), {
    timeoutMs: 30_000,
  });
  // The scheduled report, queued by one instance's scan.
  await smtp.waitFor('reports@example.com', 90_000);

  // A command sent to a tracker held by instance A and not answered before A dies is sent again once the tracker is on B.
  await Promise.all(trackers.map((tracker) => tracker.online()));
  const stranded = trackers.find((tracker) => tracker !== target && instanceOf(proxy.targetOf(tracker.localPort)) === a);
  expect(stranded).toBeDefined();
  stranded!.leaveNextUnanswered = true;
  expect((await api(b, 'POST', `/api/units/${stranded!.unitId}/report-frequency`, tokenB, { seconds: 30 })).status).toBe(200);
  await waitFor('the command at the tracker held by A', () => stranded!.commands.length === 1, { timeoutMs: 30_000 });
  const [unanswered] = await db.query<{ status: string }>('SELECT status FROM device_commands WHERE unit_id = $1', [stranded!.unitId]);
  expect(unanswered?.status).toBe('sent');

  // kill -9 of instance A while the trackers stream: they reconnect through the proxy to B and lose nothing acknowledged.
  const finishing = Promise.all(trackers.map((tracker) => tracker.send(8)));
  await Bun.sleep(500);
  proxy.setTargets([b.gateway.teltonika]);
  await a.kill();
  await finishing;
  expect(proxy.connections().get(a.gateway.teltonika) ?? 0).toBe(0);
  await waitFor(
    'the stranded command sent again through B and answered',
    async () => {
      const [command] = await db.query<{ status: string }>('SELECT status FROM device_commands WHERE unit_id = $1', [stranded!.unitId]);
      return command?.status === 'answered';
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(stranded!.commands).toEqual([reportFrequencyCommand(30), reportFrequencyCommand(30)]);

  // Every acknowledged position stored, once.
  for (const tracker of trackers) {
    expect(tracker.acked).toHaveLength(18);
    const rows = await db.query<{ time: Date }>('SELECT time FROM positions WHERE unit_id = $1 ORDER BY time', [tracker.unitId]);
    expect(rows.map((row) => new Date(row.time).toISOString())).toEqual(tracker.acked.map((time) => time.toISOString()));
  }

  // Once across instances: the alarm and its deliveries, the report, the commands.
  await Bun.sleep(3000);
  const alarms = await db.query<{ id: number; type: string }>('SELECT id, type FROM alarms WHERE unit_id = $1', [gt06!.id]);
  expect(alarms.map((alarm) => alarm.type)).toEqual(['sos']);
  const deliveries = await db.query<{ channel: string; status: string; attempts: number }>(
    'SELECT channel, status, attempts FROM alarm_deliveries WHERE alarm_id = $1 ORDER BY receiver_id',
    [alarms[0]!.id],
  );
  expect(deliveries.map((row) => [row.channel, row.status, row.attempts])).toEqual([
    ['email', 'sent', 1],
    ['email', 'sent', 1],
  ]);
  // Each was taken from the inbox when it came: no second one since.
  const inbox = smtp.inbox;
  expect(inbox.filter((mail) => mail.to.includes(email))).toHaveLength(0);
  expect(inbox.filter((mail) => mail.to.includes('guard@example.com'))).toHaveLength(0);
  expect(inbox.filter((mail) => mail.to.includes('reports@example.com'))).toHaveLength(0);
  expect(target.commands).toHaveLength(2);
  expect(stranded!.commands).toHaveLength(2);
}

describe.skipIf(!POSTGRES)('two instances on one PostgreSQL database', () => {
  test('live updates over PostgreSQL NOTIFY', () => scenario(undefined), 170_000);
  test.skipIf(natsMissing !== null)('live updates over NATS', () => scenario(NATS_URL), 170_000);
});
