import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type Gateway, startGateway } from '../../src/gateway';
import { encodeLogin, encodeReply, Gt06Protocol } from '../../src/gateway/gt06';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import type { AlarmDeliveryView, AlarmSummary, AlarmView } from '../../src/modules/alarms/model';
import type { GeofenceView } from '../../src/modules/geofences/model';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice, hex } from '../support/device';
import { startPushService, type TestPushService } from '../support/push';
import { startTwilioServer, type TestTwilio } from '../support/twilio';

/**
 * The alarm chain end to end through the real gateway (issue 21's acceptance): a simulated Teltonika tracker drives out
 * of a theft-mode zone; the crossing found in the ingest batch reaches the alarm engine through the outbox; the alarm is
 * delivered through the job queue to a loopback SMTP server, a loopback server speaking Twilio's REST API and a
 * loopback web push service that decrypts it, each in the receiver's language (Norwegian) and time zone (Helsinki).
 * A GT06 tracker's SOS packet (the protocol document's own frame) raises an SOS alarm the same way.
 */
setDefaultTimeout(60_000);

let app: TestApp;
let gateway: Gateway;
let twilio: TestTwilio;
let push: TestPushService;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;

const CENTER = { latitude: 59.33, longitude: 18.06 };
const M_PER_LON = 111_320 * Math.cos((CENTER.latitude * Math.PI) / 180);

async function addUnit(imei: string, name: string, protocol: 'teltonika' | 'gt06', registration: string): Promise<number> {
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, registration_number, protocol, model)
        values (${admin.accountId}, ${imei}, ${name}, ${registration}, ${protocol}, ${protocol === 'gt06' ? 'GT06N' : 'FMB920'}) returning id`,
  );
  return unit!.id;
}

async function waitFor<T>(what: string, read: () => T | undefined | Promise<T | undefined>, done: (value: T) => boolean = () => true): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await read();
    if (value !== undefined && done(value)) return value;
    await Bun.sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  twilio = await startTwilioServer();
  push = await startPushService();
  app = await createTestApp({
    env: { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_FROM: '+46700000001', TWILIO_API_URL: twilio.url, WEB_PUSH: '1' },
  });
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 }, { storedBatchHooks: app.services.tracking.storedBatchHooks });
  admin = await app.createAccount();
  token = await app.login(admin);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
  twilio?.close();
  push?.close();
});

describe('alarm delivery end to end', () => {
  test("leaving a theft-mode zone → e-mail, SMS and push in the receiver's language and time zone, and the bell", async () => {
    const imei = '356307042990001';
    const unitId = await addUnit(imei, 'Buster', 'teltonika', 'BOAT 42');
    const zone = await app.call<GeofenceView>('POST', '/api/geofences', {
      token,
      body: { name: 'Marina', shape: 'circle', center: CENTER, radiusM: 400, points: null, units: [unitId], deactivations: [], theftMode: true, realTime: true, active: true },
    });
    expect(zone.status).toBe(200);
    // The receiver: the administrator, by e-mail, SMS and push, for this unit's security alarms; the account's alarms in
    // Norwegian and Helsinki time, with SMS credits.
    await setUpReceiver(unitId);
    expect((await app.call('POST', '/api/notifications/push/subscriptions', { token, body: push.subscribe() })).status).toBe(200);

    // An hour ago: inside the zone, then east out of it, a fix every 10 s, 60 m apart; each frame acknowledged after its commit.
    const start = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    const fixes = Array.from({ length: 20 }, (_, i) => ({
      time: new Date(start.getTime() + i * 10_000),
      latitude: CENTER.latitude,
      longitude: CENTER.longitude + (-200 + i * 60) / M_PER_LON,
    }));
    const device = await connectDevice(gateway.ports.teltonika);
    device.write(encodeImeiFrame(imei));
    expect(hex(await device.read(1))).toBe('01');
    for (let i = 0; i < fixes.length; i += 5) {
      const records = fixes.slice(i, i + 5).map((fix) => ({ ...fix, altitude: 5, speedKmh: 22, course: 90, satellites: 9, io: { 239: 1, 240: 1 } }));
      device.write(encodeAvlFrame(0x8e, records));
      expect(hex(await device.read(4, 10_000))).toBe(records.length.toString(16).padStart(8, '0').toUpperCase());
    }
    device.end();
    // x = 460 m (fix 11) is past the 25 m margin; fix 12 confirms the exit.
    const exitAt = fixes[12]!.time;

    // The crossing (in the outbox with the positions) reaches the engine; the messages go through the queue.
    await app.platform.outbox.drain();
    const [alarm] = (await app.call<AlarmView[]>('GET', `/api/alarms?unitId=${unitId}`, { token })).body.data!;
    expect(alarm).toMatchObject({ type: 'theft_zone_exit', class: 'security', raisedAt: exitAt.toISOString(), details: { zone: 'Marina' }, occurrences: 1 });
    await app.platform.queue.drain();

    const helsinki = new Intl.DateTimeFormat('nb-NO', { timeZone: 'Europe/Helsinki', hour: '2-digit', minute: '2-digit' }).format(exitAt);
    const stockholm = new Intl.DateTimeFormat('nb-NO', { timeZone: 'Europe/Stockholm', hour: '2-digit', minute: '2-digit' }).format(exitAt);
    expect(helsinki).not.toBe(stockholm);
    const link = `http://portal.test/user/realtime-tracking?unit=${unitId}`;

    const mail = await app.smtp.waitFor(admin.email);
    expect(mail.subject).toBe('Alarm: Buster – forlot tyverisikringssonen Marina');
    expect(mail.text).toContain('Alarm for Buster (BOAT 42): forlot tyverisikringssonen Marina.');
    expect(mail.text).toContain(helsinki);
    expect(mail.text).toContain('Sted: Stockholm');
    expect(mail.text).toContain(link);

    const sms = await waitFor('the SMS', () => twilio.messages.find((message) => message.to === '+4741234567'));
    expect(sms.body).toContain('Alarm for Buster (BOAT 42): forlot tyverisikringssonen Marina.');
    expect(sms.body).toContain(`Tid: `);
    expect(sms.body).toContain(helsinki);
    expect(sms.body).toContain(link);

    const pushed = await waitFor('the push', () => push.received.at(-1));
    const payload = JSON.parse(pushed.payload) as { title: string; body: string; url: string };
    expect(payload.title).toBe('Alarm: Buster – forlot tyverisikringssonen Marina');
    expect(payload.body).toContain(helsinki);
    expect(payload.url).toContain(`/user/realtime-tracking?unit=${unitId}`);

    // The delivery log: each channel sent once, with the provider's id for the SMS; SMS credits were taken.
    const log = (await app.call<AlarmDeliveryView[]>('GET', `/api/alarms/deliveries?alarmId=${alarm!.id}`, { token })).body.data!;
    expect(log.map((row) => [row.channel, row.status, row.attempts]).sort()).toEqual([
      ['email', 'sent', 1],
      ['push', 'sent', 1],
      ['sms', 'sent', 1],
    ]);
    expect(log.find((row) => row.channel === 'sms')!.providerId).toBe(sms.sid);
    const [credits] = await app.database.query<{ sms_credits: number }>('SELECT sms_credits FROM alarm_account_settings WHERE account_id = $1', [admin.accountId]);
    expect(credits!.sms_credits).toBeLessThan(50);

    // The bell: one open security alarm, the unit standing out.
    const bell = (await app.call<AlarmSummary>('GET', '/api/alarms/summary', { token })).body.data!;
    expect(bell).toMatchObject({ unacknowledged: 1, security: [unitId] });
    // Nothing more is sent however often the queue and outbox run again.
    await app.platform.outbox.drain();
    await app.platform.queue.drain();
    expect(twilio.messages.filter((message) => message.to === '+4741234567')).toHaveLength(1);
    expect(push.received).toHaveLength(1);
  });

  test("a GT06 tracker's SOS packet raises an SOS alarm", async () => {
    const imei = '359339075099001';
    const unitId = await addUnit(imei, 'Patrol', 'gt06', 'SOS 1');
    const device = await connectDevice(gateway.ports.gt06);
    device.write(encodeLogin({ imei, serial: 1 }));
    expect(hex(await device.read(10))).toBe(hex(encodeReply(Gt06Protocol.login, 1)));
    // The GT06 v1.8 document's alarm packet 0x16: SOS (the reference vector).
    device.write(Buffer.from('787825160B0B0F0E241DCF027AC8870C4657E60014020901CC00287D001F726506040101003656A40D0A', 'hex'));
    expect(hex(await device.read(10))).toBe(hex(encodeReply(Gt06Protocol.alarm, 0x36)));
    device.end();
    const alarms = await waitFor(
      'the SOS alarm',
      async () => (await app.call<AlarmView[]>('GET', `/api/alarms?unitId=${unitId}`, { token })).body.data!,
      (list) => list.length > 0,
    );
    expect(alarms.map((alarm) => [alarm.type, alarm.class, alarm.raisedAt])).toEqual([['sos', 'security', '2011-11-15T14:36:29.000Z']]);
  });
});

async function setUpReceiver(unitId: number): Promise<void> {
  await app.database.query(
    `INSERT INTO alarm_account_settings (account_id, language, time_zone, sms_credits) VALUES ($1, 'no', 'Europe/Helsinki', 50)
     ON CONFLICT (account_id) DO UPDATE SET language = 'no', time_zone = 'Europe/Helsinki', sms_credits = 50`,
    [admin.accountId],
  );
  const [receiver] = await app.database.query<{ id: number }>(
    `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification, security_alarm, function_alarm)
     VALUES ($1, $2, 'Test Admin', $3, '47', '41234567', true, true, false) RETURNING id`,
    [admin.accountId, admin.userId, admin.email],
  );
  await app.database.query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT id, $2, account_id FROM alarm_receivers WHERE id = $1', [receiver!.id, unitId]);
}
