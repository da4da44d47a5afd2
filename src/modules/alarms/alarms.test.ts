import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { startPushService, type TestPushService } from '../../../tests/support/push';
import { startTwilioServer, type TestTwilio } from '../../../tests/support/twilio';
import type { NormalizedIo } from '../../lib/tracker-record';
import type { GeofenceCrossing } from '../geofences/events';
import type { LiveMessage } from '../tracking/model';
import type { StoredPosition } from '../tracking/service';
import type { TheftMovement } from '../units/events';
import { ALARM_COOL_DOWN_S, type AlarmDeliveryView, type AlarmSummary, type AlarmView } from './model';
import { alarmSettings, insertUnit, runStoredHooks, storedPosition } from './testing';

/**
 * The alarm engine over the API with the real receivers, queue and channels (SMS and push at loopback servers speaking
 * Twilio's and the push service's protocols): episodes and the cool-down, classes, each source (zone crossings and theft
 * movement through the outbox, device alarms through the ingest hook, service dates), delivery with SMS credits and
 * the log following the jobs' outcomes, acknowledging, who sees what, and the live socket's bell message.
 */
let app: TestApp;
let twilio: TestTwilio;
let push: TestPushService;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;
let plainToken: string;
let otherToken: string;
let unitA: number;
let unitB: number;
let receiverId: number;
let imeiSequence = 0;

async function addUnit(accountId: number, name: string, registration = ''): Promise<number> {
  imeiSequence += 1;
  return insertUnit(app, accountId, `3563070431${String(10000 + imeiSequence).padStart(5, '0')}`, name, registration);
}

async function setCredits(credits: number): Promise<void> {
  await app.database.query('UPDATE alarm_account_settings SET sms_credits = $2 WHERE account_id = $1', [admin.accountId, credits]);
}

const base = new Date('2026-03-02T07:00:00Z');
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000);

function crossing(unitId: number, minutes: number, theftMode = true): GeofenceCrossing {
  return { accountId: admin.accountId, unitId, geofenceId: 77, geofenceName: 'Marina', theftMode, at: at(minutes).toISOString(), latitude: 59.3293, longitude: 18.0686 };
}

async function publish<K extends 'geofence.exited' | 'geofence.entered' | 'unit.theft_movement'>(
  type: K,
  payload: K extends 'unit.theft_movement' ? TheftMovement : GeofenceCrossing,
) {
  await app.platform.database.transaction((tx) => app.platform.outbox.publish(tx, type, payload as never));
  await app.platform.outbox.drain();
}

async function alarmsOf(unitId: number, token = adminToken): Promise<AlarmView[]> {
  const result = await app.call<AlarmView[]>('GET', `/api/alarms?unitId=${unitId}`, { token });
  expect(result.status).toBe(200);
  return result.body.data!;
}

async function deliveriesOf(alarmId: number): Promise<AlarmDeliveryView[]> {
  const result = await app.call<AlarmDeliveryView[]>('GET', `/api/alarms/deliveries?alarmId=${alarmId}`, { token: adminToken });
  expect(result.status).toBe(200);
  return result.body.data!.sort((a, b) => a.channel.localeCompare(b.channel));
}

function position(unitId: number, minutes: number, normalized: NormalizedIo, extra: Partial<StoredPosition> = {}): StoredPosition {
  return storedPosition(admin.accountId, unitId, at(minutes), normalized, extra);
}

async function ingest(positions: StoredPosition[]): Promise<void> {
  await runStoredHooks(app, positions);
}

beforeAll(async () => {
  twilio = await startTwilioServer();
  push = await startPushService();
  app = await createTestApp({
    env: { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_FROM: '+46700000001', TWILIO_API_URL: twilio.url, WEB_PUSH: '1' },
  });
  admin = await app.createAccount();
  adminToken = await app.login(admin);
  unitA = await addUnit(admin.accountId, 'Sea Ray', 'BOAT 1');
  unitB = await addUnit(admin.accountId, 'Van', 'ABC 123');
  const [plain] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${admin.accountId}, ${`plain-alarm-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'Plain', 'User', 'user')
    returning id`);
  await app.grantUnits(plain!.id, [unitA]);
  plainToken = await app.login({ email: `plain-alarm-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
  const other = await app.createAccount();
  otherToken = await app.login(other);
  await addUnit(other.accountId, 'Not yours');

  // The administrator receives both classes for both units by e-mail, SMS and push; Swedish, Stockholm time.
  await alarmSettings(app, admin.accountId, { language: 'sv', timeZone: 'Europe/Stockholm', smsCredits: 100 });
  const [receiver] = await app.database.query<{ id: number }>(
    `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification)
     VALUES ($1, $2, 'Test Admin', $3, '46', '701234567', true) RETURNING id`,
    [admin.accountId, admin.userId, admin.email],
  );
  receiverId = receiver!.id;
  await app.database.query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT r.id, u, r.account_id FROM alarm_receivers r, unnest(ARRAY[$2, $3]::int[]) AS u WHERE r.id = $1', [receiverId, unitA, unitB]);
  const subscribed = await app.call('POST', '/api/notifications/push/subscriptions', { token: adminToken, body: push.subscribe() });
  expect(subscribed.status).toBe(200);
}, 240_000);
afterAll(async () => {
  await app?.close();
  twilio?.close();
  push?.close();
});

describe('episodes, cool-down and classes', () => {
  test('leaving a theft-mode zone raises one security alarm; exits within the cool-down continue it; a later one is new', async () => {
    await publish('geofence.exited', crossing(unitA, 0));
    await publish('geofence.exited', crossing(unitA, 5));
    let alarms = await alarmsOf(unitA);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      unitName: 'Sea Ray',
      registration: 'BOAT 1',
      type: 'theft_zone_exit',
      class: 'security',
      raisedAt: at(0).toISOString(),
      lastSeenAt: at(5).toISOString(),
      occurrences: 2,
      latitude: 59.3293,
      longitude: 18.0686,
      address: 'Stockholm',
      details: { zone: 'Marina', geofenceId: 77 },
      acknowledgedAt: null,
    });
    // One message per channel, not one per event of the episode.
    expect((await deliveriesOf(alarms[0]!.id)).map((d) => [d.channel, d.status])).toEqual([
      ['email', 'queued'],
      ['push', 'queued'],
      ['sms', 'queued'],
    ]);
    await publish('geofence.exited', crossing(unitA, 5 + ALARM_COOL_DOWN_S / 60 + 1));
    alarms = await alarmsOf(unitA);
    expect(alarms.map((alarm) => [alarm.type, alarm.occurrences])).toEqual([
      ['theft_zone_exit', 1],
      ['theft_zone_exit', 2],
    ]);
  });

  test('the cool-down is per unit and per type; other zones give function alarms; theft movement is a security alarm', async () => {
    await publish('geofence.exited', crossing(unitB, 0, false));
    await publish('geofence.entered', crossing(unitB, 1, false));
    await publish('geofence.exited', crossing(unitB, 2, true));
    await publish('unit.theft_movement', {
      accountId: admin.accountId,
      unitId: unitB,
      since: at(0).toISOString(),
      cause: 'geofence',
      geofenceId: 77,
      positions: 4,
      from: at(2).toISOString(),
      to: at(3).toISOString(),
      latitude: 59.4,
      longitude: 18.1,
      speedKmh: 30,
      maxSpeedKmh: 41.6,
    });
    const alarms = await alarmsOf(unitB);
    expect(alarms.map((alarm) => [alarm.type, alarm.class]).sort()).toEqual([
      ['theft_movement', 'security'],
      ['theft_zone_exit', 'security'],
      ['zone_enter', 'function'],
      ['zone_exit', 'function'],
    ]);
    expect(alarms.find((alarm) => alarm.type === 'theft_movement')!.details).toEqual({ speed: 42, positions: 4 });
  });

  test('device alarms from the ingest batch: SOS, towing, an input change; a resent record is history', async () => {
    await ingest([
      position(unitB, 10, { ignition: false, din2: false }),
      position(unitB, 11, { alarm: 'sos', ignition: false, din2: true }),
      position(unitB, 12, { ignition: false }, { speedKmh: 32 }),
    ]);
    await ingest([position(unitB, 11, { alarm: 'sos', ignition: false, din2: false })]); // resent, older than what was judged
    const alarms = await alarmsOf(unitB);
    const device = alarms.filter((alarm) => ['sos', 'towing', 'din2'].includes(alarm.type));
    expect(device.map((alarm) => [alarm.type, alarm.class, alarm.raisedAt, alarm.occurrences]).sort()).toEqual([
      ['din2', 'function', at(11).toISOString(), 1],
      ['sos', 'security', at(11).toISOString(), 1],
      ['towing', 'security', at(12).toISOString(), 1],
    ]);
  });

  test("overspeed over the unit's feature profile threshold", async () => {
    const [profile] = await app.database.query<{ id: number }>(
      `INSERT INTO feature_profiles (account_id, name, overspeed_kmh) VALUES ($1, 'Limit 90', 90) RETURNING id`,
      [admin.accountId],
    );
    await app.database.query('UPDATE units SET feature_profile_id = $1 WHERE id = $2', [profile!.id, unitA]);
    await ingest([position(unitA, 20, { ignition: true }, { speedKmh: 85 }), position(unitA, 21, { ignition: true }, { speedKmh: 104 })]);
    const overspeed = (await alarmsOf(unitA)).filter((alarm) => alarm.type === 'overspeed');
    expect(overspeed.map((alarm) => [alarm.raisedAt, alarm.details])).toEqual([[at(21).toISOString(), { speed: 104, limit: 90 }]]);
  });

  test('service due by date: once for each due date', async () => {
    await app.database.query(`UPDATE units SET next_inspection = '2026-03-01' WHERE id = $1`, [unitB]);
    expect(await app.services.alarms.checkServiceDates()).toBe(1);
    expect(await app.services.alarms.checkServiceDates()).toBe(0);
    const [due] = (await alarmsOf(unitB)).filter((alarm) => alarm.type === 'service_due');
    expect(due).toMatchObject({ class: 'function', details: { reason: 'date', due: '2026-03-01' } });
  });

  test("a unit's remembered inputs are written only when they change or it raises something; a lost supply still raises", async () => {
    const unit = await addUnit(admin.accountId, 'Generator');
    const inputs = async () => {
      const [row] = await app.database.query<{ external_power: boolean | null; last_fix: Date | string | null; version: string }>(
        'SELECT external_power, last_fix, xmin::text AS version FROM alarm_unit_inputs WHERE unit_id = $1',
        [unit],
      );
      return { power: row!.external_power, lastFix: row!.last_fix === null ? null : new Date(row!.last_fix).toISOString(), version: row!.version };
    };
    await ingest([position(unit, 30, { externalVoltageV: 12.6 })]);
    const first = await inputs();
    expect(first).toMatchObject({ power: true, lastFix: at(30).toISOString() });
    // The same supply in later batches changes nothing: the row is not rewritten.
    await ingest([position(unit, 31, { externalVoltageV: 12.5 })]);
    await ingest([position(unit, 32, { externalVoltageV: 12.7 }), position(unit, 33, { externalVoltageV: 12.4 })]);
    expect(await inputs()).toEqual(first);
    // Judged again (resent), those records still raise nothing.
    await ingest([position(unit, 32, { externalVoltageV: 12.7 })]);
    expect(await inputs()).toEqual(first);
    // The supply lost: a power cut, and the row follows.
    await ingest([position(unit, 34, { externalVoltageV: 0.4 })]);
    const cut = await inputs();
    expect(cut).toMatchObject({ power: false, lastFix: at(34).toISOString() });
    expect(cut.version).not.toBe(first.version);
    const alarms = await alarmsOf(unit);
    expect(alarms.map((alarm) => [alarm.type, alarm.raisedAt, alarm.occurrences])).toEqual([['power_cut', at(34).toISOString(), 1]]);
    // A resent record of the batch that raised it is history.
    await ingest([position(unit, 34, { externalVoltageV: 0.4 })]);
    expect((await alarmsOf(unit)).map((alarm) => alarm.occurrences)).toEqual([1]);
    // Acknowledged, so the bell's counts below are of units A and B alone.
    expect((await app.call('POST', `/api/alarms/${alarms[0]!.id}/acknowledge`, { token: adminToken })).status).toBe(200);
  });
});

describe('delivery', () => {
  test("messages reach the servers in the receiver's language and time zone; the log follows each attempt", async () => {
    await app.platform.queue.drain();
    twilio.failNext(429);
    await publish('geofence.exited', crossing(unitA, 200));
    const [alarm] = await alarmsOf(unitA);
    const sms = twilio.messages.length;
    await app.platform.queue.drain();
    let log = await deliveriesOf(alarm!.id);
    expect(log.find((d) => d.channel === 'sms')).toMatchObject({ status: 'retrying', attempts: 1, error: expect.any(String) });
    expect(log.find((d) => d.channel === 'email')).toMatchObject({ status: 'sent', attempts: 1, receiver: 'Test Admin', recipient: admin.email });
    expect(log.find((d) => d.channel === 'push')).toMatchObject({ status: 'sent', attempts: 1 });
    app.clock.advance(60_000);
    await app.platform.queue.drain();
    log = await deliveriesOf(alarm!.id);
    const sent = twilio.messages.slice(sms);
    expect(sent).toHaveLength(1);
    expect(log.find((d) => d.channel === 'sms')).toMatchObject({ status: 'sent', attempts: 2, providerId: sent[0]!.sid, error: null, recipient: '+46701234567' });
    // 10:20 UTC is 11:20 in Stockholm in March; Swedish words.
    expect(sent[0]!.body).toContain('Sea Ray (BOAT 1)');
    expect(sent[0]!.body).toContain('lämnade stöldskyddszonen Marina');
    expect(sent[0]!.body).toContain('11:20');
    expect(sent[0]!.body).toContain(`http://portal.test/user/realtime-tracking?unit=${unitA}`);
    const mail = await app.smtp.waitFor(admin.email);
    expect(mail.subject).toBe('Larm: Sea Ray – lämnade stöldskyddszonen Marina');
    const pushed = JSON.parse(push.received.at(-1)!.payload) as { title: string; body: string; url: string };
    expect(pushed.title).toBe('Larm: Sea Ray – lämnade stöldskyddszonen Marina');
  });

  test('with no SMS credits left the SMS is refused and the refusal is in the log; e-mail and push still go', async () => {
    await setCredits(0);
    await publish('geofence.exited', crossing(unitA, 400));
    const [alarm] = await alarmsOf(unitA);
    const log = await deliveriesOf(alarm!.id);
    expect(log.map((d) => [d.channel, d.status, d.error])).toEqual([
      ['email', 'queued', null],
      ['push', 'queued', null],
      ['sms', 'refused', 'alarms.delivery.noSmsCredits'],
    ]);
    await setCredits(100);
  });
});

describe('acknowledging and who sees what', () => {
  test('the bell counts open alarms of units the caller sees; acknowledging one names who did it', async () => {
    const before = (await app.call<AlarmSummary>('GET', '/api/alarms/summary', { token: adminToken })).body.data!;
    expect(before.unacknowledged).toBeGreaterThan(3);
    expect(before.security).toEqual([unitA, unitB]);
    expect(before.latest.length).toBeLessThanOrEqual(10);
    const [alarm] = await alarmsOf(unitA);
    const done = await app.call<AlarmView>('POST', `/api/alarms/${alarm!.id}/acknowledge`, { token: adminToken });
    expect(done.status).toBe(200);
    expect(done.body.data!.id).toBe(alarm!.id);
    expect(done.body.data!.acknowledgedAt).toBe(app.clock.now().toISOString());
    expect(done.body.data!.acknowledgedBy).toMatch(/^Test User \d+$/);
    const after = (await app.call<AlarmSummary>('GET', '/api/alarms/summary', { token: adminToken })).body.data!;
    expect(after.unacknowledged).toBe(before.unacknowledged - 1);
    const open = await app.call<AlarmView[]>('GET', `/api/alarms?state=acknowledged&unitId=${unitA}`, { token: adminToken });
    expect(open.body.data!.map((a) => a.id)).toEqual([alarm!.id]);
  });

  test('an ordinary user sees only the alarms of units given to them; another account sees none and gets 404', async () => {
    const plain = await app.call<AlarmView[]>('GET', '/api/alarms?limit=500', { token: plainToken });
    expect(new Set(plain.body.data!.map((alarm) => alarm.unitId))).toEqual(new Set([unitA]));
    const summary = (await app.call<AlarmSummary>('GET', '/api/alarms/summary', { token: plainToken })).body.data!;
    expect(summary.security).toEqual([unitA]);
    const [ofB] = await alarmsOf(unitB);
    expect((await app.call('POST', `/api/alarms/${ofB!.id}/acknowledge`, { token: plainToken })).status).toBe(404);
    expect((await app.call('POST', `/api/alarms/${ofB!.id}/acknowledge`, { token: otherToken })).status).toBe(404);
    expect((await app.call<AlarmView[]>('GET', '/api/alarms', { token: otherToken })).body.data).toEqual([]);
    // Several at once: one id the caller may not acknowledge and none is acknowledged.
    const [ofA] = (await alarmsOf(unitA)).filter((alarm) => alarm.acknowledgedAt === null);
    const many = await app.call('POST', '/api/alarms/acknowledge', { token: plainToken, body: { ids: [ofA!.id, ofB!.id] } });
    expect(many.status).toBe(404);
    expect((await alarmsOf(unitA)).find((alarm) => alarm.id === ofA!.id)!.acknowledgedAt).toBeNull();
    const ok = await app.call<{ acknowledged: number }>('POST', '/api/alarms/acknowledge', { token: adminToken, body: { ids: [ofA!.id, ofB!.id] } });
    expect(ok.body.data).toEqual({ acknowledged: 2 });
    // The delivery log is the administrators'.
    expect((await app.call('GET', '/api/alarms/deliveries', { token: plainToken })).status).toBe(403);
    expect((await app.call<AlarmDeliveryView[]>('GET', '/api/alarms/deliveries', { token: otherToken })).body.data).toEqual([]);
    expect((await app.call('GET', '/api/alarms?state=nope', { token: adminToken })).status).toBe(422);
  });

  test("the live socket tells the account's users their new count when an alarm is raised or acknowledged", async () => {
    const actor = (await app.services.auth.authenticate(`Bearer ${plainToken}`))!;
    const sent: LiveMessage[] = [];
    const socket = {
      send: (text: string) => {
        sent.push(JSON.parse(text) as LiveMessage);
        return text.length;
      },
      close: () => {},
    };
    await app.services.live.open(socket, actor, plainToken, null);
    const bell = () => sent.filter((message): message is Extract<LiveMessage, { type: 'alarms' }> => message.type === 'alarms');
    await publish('geofence.exited', crossing(unitA, 900));
    for (let i = 0; i < 50 && bell().length === 0; i++) await Bun.sleep(20);
    const expected = (await app.call<AlarmSummary>('GET', '/api/alarms/summary', { token: plainToken })).body.data!;
    expect(bell().at(-1)).toMatchObject({ type: 'alarms', unacknowledged: expected.unacknowledged, security: [unitA] });
    const count = bell().length;
    await app.call('POST', `/api/alarms/${expected.latest[0]!.id}/acknowledge`, { token: adminToken });
    for (let i = 0; i < 50 && bell().length === count; i++) await Bun.sleep(20);
    expect(bell().at(-1)!.unacknowledged).toBe(expected.unacknowledged - 1);
    app.services.live.close(socket);
  });
});
