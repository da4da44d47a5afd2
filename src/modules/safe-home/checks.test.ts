import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { createLogger } from '../../lib/log';
import { JobQueue } from '../../lib/queue';
import type { AlarmView } from '../alarms/model';
import { addUnit, nextImei, setState } from '../units/testing';
import { nextDue } from './schedule';
import { createSafeHomeService } from './service';

/**
 * The scheduled checks with a manual clock: due times in the record's time zone every N weeks from the start date
 * (across the spring daylight-saving change in Stockholm, 29 March 2026), a vehicle at home (no alarm), away (one
 * alarm, e-mailed through the loopback SMTP server), without a position since the last check, and a check missed while
 * no process ran (run late, once, even with two processes). Home: Solna, 59.36 N 18.00 E, radius 300 m.
 */
setDefaultTimeout(60_000);
let app: TestApp;
let admin: { accountId: number; userId: number; email: string; password: string };
/** A session at the clock's time (the clock jumps weeks, past any session's life). */
const token = () => app.login({ email: admin.email, password: admin.password, subsiteId: 0 });
let car: { id: number; imei: string };

const HOME = { lat: 59.36, lon: 18.0 };
const AWAY = { lat: 59.38, lon: 18.0 }; // about 2.2 km north
const MONDAY_1800 = [{ week: 1, days: [{ day: 1, time: '18:00' }] }];

interface CheckRow extends Record<string, unknown> {
  due: string;
  outcome: string;
  late: boolean;
  alarm: boolean;
}
const checks = () =>
  app.database.rows<CheckRow>(sql`
    select to_char(due_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as due, outcome, late, alarm_id is not null as alarm
    from safe_home_checks where unit_id = ${car.id} order by due_at`);
const queuedChecks = async () =>
  (
    await app.database.rows<{ run_at: string }>(sql`
      select to_char(run_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as run_at from job_queue
      where name = 'safe-home.check' and status = 'queued' order by run_at`)
  ).map((row) => row.run_at);
const alarms = async () =>
  (await app.call<AlarmView[]>('GET', `/api/alarms?unitId=${car.id}`, { token: await token() })).body.data!.filter((alarm) => alarm.type === 'not_home');

async function switchOn(input: { schedule?: unknown; frequency?: number; start_date: string }, vehicle: { imei: string } = car) {
  const car = vehicle;
  const session = await token();
  const put = (path: string, body: unknown) => app.call('PUT', `/api/admin/safe-home/${path}`, { token: session, body });
  expect((await put('set-geofence', { imei: car.imei, radius: 300, centerLat: HOME.lat, centerLng: HOME.lon, address: 'Solna' })).status).toBe(200);
  const scheduled = await put('update-schedule-alert', {
    imei: car.imei,
    schedule: input.schedule ?? MONDAY_1800,
    frequency: input.frequency ?? 1,
    start_date: input.start_date,
    time_zone: 'Europe/Stockholm',
  });
  expect(scheduled.status).toBe(200);
  expect((await put('toggle-status', { imei: car.imei, status: 1 })).status).toBe(200);
}

/** The vehicle reports a fix at `at` (default now). */
const report = (where: { lat: number; lon: number }, at?: Date, unitId = car.id) => setState(app, unitId, { ...where, lastSeen: at ?? app.clock.now() });

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  admin = { accountId: account.accountId, userId: account.userId, email: account.email, password: account.password };
  car = { imei: nextImei('3584'), id: 0 };
  car.id = await addUnit(app, account.accountId, car.imei, 'Family car', { registrationNumber: 'HEM001' });
  // The account's alarms in English and Stockholm time; the administrator receives function alarms by e-mail.
  await app.database.query(
    `INSERT INTO alarm_account_settings (account_id, language, time_zone, sms_credits) VALUES ($1, 'en', 'Europe/Stockholm', 0)
     ON CONFLICT (account_id) DO UPDATE SET language = 'en', time_zone = 'Europe/Stockholm'`,
    [admin.accountId],
  );
  const [receiver] = await app.database.query<{ id: number }>(
    `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification, security_alarm, function_alarm)
     VALUES ($1, $2, 'Test Admin', $3, NULL, NULL, false, false, true) RETURNING id`,
    [admin.accountId, admin.userId, admin.email],
  );
  await app.database.query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT id, $2, account_id FROM alarm_receivers WHERE id = $1', [receiver!.id, car.id]);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

beforeEach(async () => {
  await app.database.rows(sql`delete from safe_homes`);
  await app.database.rows(sql`delete from safe_home_checks`);
  await app.database.rows(sql`delete from alarm_deliveries`);
  await app.database.rows(sql`delete from alarms`);
  await app.database.rows(sql`delete from job_queue`);
  await app.database.rows(sql`delete from unit_state`);
  app.smtp.inbox.splice(0);
});

describe('due times', () => {
  test('every 2 weeks from the start date, in the zone, across the spring DST change', () => {
    const plan = { schedule: MONDAY_1800, frequency: 2, startDate: '2026-03-16', timeZone: 'Europe/Stockholm' };
    const first = nextDue(plan, new Date('2026-03-10T12:00:00Z'))!;
    const second = nextDue(plan, first)!;
    const third = nextDue(plan, second)!;
    // 18:00 CET is 17:00 UTC; after 29 March 18:00 CEST is 16:00 UTC. The Monday between (23 March) is the off week.
    expect([first, second, third].map((due) => due.toISOString())).toEqual(['2026-03-16T17:00:00.000Z', '2026-03-30T16:00:00.000Z', '2026-04-13T16:00:00.000Z']);
  });

  test('weeks count from the start date: week 2 of a 3-week cycle, and nothing before the start date', () => {
    const plan = {
      schedule: [{ week: 2, days: [{ day: 3, time: '07:15' }] }],
      frequency: 3,
      startDate: '2026-03-05', // a Thursday: its week (from Monday 2 March) is week 1
      timeZone: 'Europe/Oslo',
    };
    const first = nextDue(plan, new Date('2026-03-01T00:00:00Z'))!;
    expect(first.toISOString()).toBe('2026-03-11T06:15:00.000Z');
    expect(nextDue(plan, first)!.toISOString()).toBe('2026-04-01T05:15:00.000Z');
    expect(nextDue({ ...plan, schedule: [] }, first)).toBeNull();
  });
});

describe('the checks', () => {
  test('every 2 weeks across DST through the queue: at home each time, no alarm, the off week skipped', async () => {
    app.clock.set('2026-03-10T12:00:00Z');
    await switchOn({ frequency: 2, start_date: '2026-03-16' });
    expect(await queuedChecks()).toEqual(['2026-03-16 17:00']);

    app.clock.set('2026-03-16T16:59:00Z');
    await report(HOME);
    await app.platform.queue.drain();
    expect(await checks()).toEqual([]);

    app.clock.set('2026-03-16T17:00:05Z');
    await app.platform.queue.drain();
    expect(await checks()).toEqual([{ due: '2026-03-16 17:00', outcome: 'home', late: false, alarm: false }]);
    expect(await queuedChecks()).toEqual(['2026-03-30 16:00']);

    app.clock.set('2026-03-23T17:00:05Z'); // the off week
    await app.platform.queue.drain();
    expect(await checks()).toHaveLength(1);

    app.clock.set('2026-03-30T15:30:00Z');
    await report(HOME);
    app.clock.set('2026-03-30T16:00:05Z');
    await app.platform.queue.drain();
    expect(await checks()).toEqual([
      { due: '2026-03-16 17:00', outcome: 'home', late: false, alarm: false },
      { due: '2026-03-30 16:00', outcome: 'home', late: false, alarm: false },
    ]);
    expect(await alarms()).toEqual([]);
    expect(app.smtp.inbox).toEqual([]);
  });

  test('away: one "not back home" alarm, e-mailed to the receiver; running the queue again adds nothing', async () => {
    app.clock.set('2026-03-02T08:00:00Z');
    await switchOn({ start_date: '2026-03-02' });
    app.clock.set('2026-03-02T16:30:00Z');
    await report(AWAY);
    app.clock.set('2026-03-02T17:00:01Z');
    await app.platform.queue.drain();
    await app.platform.queue.drain();

    expect(await checks()).toEqual([{ due: '2026-03-02 17:00', outcome: 'away', late: false, alarm: true }]);
    const raised = await alarms();
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ class: 'function', raisedAt: '2026-03-02T17:00:00.000Z', latitude: AWAY.lat, longitude: AWAY.lon });
    expect(raised[0]!.details).toMatchObject({ variant: 'away', due: '18:00', home: 'Solna', radius: 300, late: false });
    const mail = await app.smtp.waitFor(admin.email);
    expect(mail.subject).toContain('not back home');
    expect(mail.text).toContain('Family car (HEM001)');
    expect(mail.text).toMatch(/not back home at 18:00: 22\d\d m from the home Solna \(radius 300 m\)/);
    expect(mail.text).not.toContain('late');
    expect(app.smtp.inbox).toEqual([]);
    expect(await queuedChecks()).toEqual(['2026-03-09 17:00']);
  });

  test('no position since the last check: the alarm says so', async () => {
    app.clock.set('2026-03-02T08:00:00Z');
    await switchOn({ start_date: '2026-03-02' });
    app.clock.set('2026-03-02T16:00:00Z');
    await report(AWAY);
    app.clock.set('2026-03-02T17:00:01Z');
    await app.platform.queue.drain();
    await app.smtp.waitFor(admin.email);
    // A week later the tracker has not reported since.
    app.clock.set('2026-03-09T17:00:01Z');
    await app.platform.queue.drain();
    expect((await checks()).map((check) => check.outcome)).toEqual(['away', 'no_position']);
    const mail = await app.smtp.waitFor(admin.email);
    expect(mail.text).toContain('not confirmed back home at 18:00: no position since the last check (home Solna)');
    expect((await alarms()).map((alarm) => alarm.details.variant)).toEqual(['noPosition', 'away']);
  });

  test('a check missed while no process ran runs once when one comes back, and says it ran late', async () => {
    app.clock.set('2026-03-02T08:00:00Z');
    await switchOn({ start_date: '2026-03-02' });
    app.clock.set('2026-03-02T16:00:00Z');
    await report(AWAY);
    // Down from before 18:00 until 21:00: two processes start and both run their queues at once.
    app.clock.set('2026-03-02T20:00:00Z');
    const second = new JobQueue({ database: app.database, clock: app.clock, log: createLogger('silent') });
    createSafeHomeService(
      { ...app.platform, queue: second },
      { brands: app.services.brands, accountSettings: app.services.accountSettings, geocoder: app.services.geocoder, alarms: app.services.alarms, units: app.services.units },
    );
    await Promise.all([app.platform.queue.drain(), second.drain(), app.platform.queue.drain()]);
    await app.platform.queue.drain();

    expect(await checks()).toEqual([{ due: '2026-03-02 17:00', outcome: 'away', late: true, alarm: true }]);
    expect(await alarms()).toHaveLength(1);
    const mail = await app.smtp.waitFor(admin.email);
    expect(mail.text).toContain('not back home at 18:00');
    expect(mail.text).toContain('The check ran late, at 21:00, because the service was down at the planned time.');
    expect(app.smtp.inbox).toEqual([]);
    // The next check is next week's, planned once.
    expect(await queuedChecks()).toEqual(['2026-03-09 17:00']);
  });

  test('a check whose schedule changed or was switched off meanwhile does nothing', async () => {
    app.clock.set('2026-03-02T08:00:00Z');
    await switchOn({ start_date: '2026-03-02' });
    expect(await queuedChecks()).toEqual(['2026-03-02 17:00']);
    await app.call('PUT', '/api/admin/safe-home/toggle-status', { token: await token(), body: { imei: car.imei, status: 0 } });
    await report(AWAY);
    app.clock.set('2026-03-02T17:00:01Z');
    await app.platform.queue.drain();
    expect(await checks()).toEqual([]);
    expect(await alarms()).toEqual([]);
  });

  test('checks due together run as one batch; a poisoned record among them fails alone and is retried, the others are done', async () => {
    app.clock.set('2026-03-02T08:00:00Z');
    const fleet = [car];
    for (const name of ['Second car', 'Third car', 'Poisoned car']) {
      const imei = nextImei('3584');
      fleet.push({ imei, id: await addUnit(app, admin.accountId, imei, name) });
    }
    for (const vehicle of fleet) await switchOn({ start_date: '2026-03-02' }, vehicle);
    const poisoned = fleet[3]!;
    // A record the product cannot have written (an unknown time zone): planning its next check throws.
    await app.database.query(`UPDATE safe_homes SET time_zone = 'Nowhere/Void' WHERE unit_id = $1`, [poisoned.id]);
    app.clock.set('2026-03-02T16:30:00Z');
    await report(AWAY, undefined, car.id);
    for (const vehicle of fleet.slice(1)) await report(HOME, undefined, vehicle.id);
    // One process taking every due check in one batch.
    const batchQueue = new JobQueue({ database: app.database, clock: app.clock, log: createLogger('silent'), concurrency: 1 });
    createSafeHomeService(
      { ...app.platform, queue: batchQueue },
      { brands: app.services.brands, accountSettings: app.services.accountSettings, geocoder: app.services.geocoder, alarms: app.services.alarms, units: app.services.units },
    );
    app.clock.set('2026-03-02T17:00:01Z');
    await batchQueue.drain();

    const outcomes = await app.database.query<{ unit_id: number; outcome: string }>(
      `SELECT unit_id, outcome FROM safe_home_checks WHERE due_at = '2026-03-02T17:00:00Z' ORDER BY unit_id`,
    );
    expect(outcomes).toEqual(fleet.slice(0, 3).map((vehicle) => ({ unit_id: vehicle.id, outcome: vehicle === car ? 'away' : 'home' })));
    expect(await alarms()).toHaveLength(1);
    const jobs = await app.database.query<{ unit_id: number; status: string; attempts: number; failed: boolean }>(
      `SELECT (payload->>'unitId')::int AS unit_id, status, attempts, last_error IS NOT NULL AS failed FROM job_queue
       WHERE name = 'safe-home.check' AND payload->>'dueAt' = '2026-03-02T17:00:00.000Z' ORDER BY 1`,
    );
    expect(jobs).toEqual(
      fleet.map((vehicle) =>
        vehicle === poisoned
          ? { unit_id: vehicle.id, status: 'queued', attempts: 1, failed: true }
          : { unit_id: vehicle.id, status: 'done', attempts: 1, failed: false },
      ),
    );
    // The good ones' next checks are queued; the record mended, its check runs on its retry, once.
    expect(await queuedChecks()).toEqual(['2026-03-02 17:00', '2026-03-09 17:00', '2026-03-09 17:00', '2026-03-09 17:00']);
    await app.database.query(`UPDATE safe_homes SET time_zone = 'Europe/Stockholm' WHERE unit_id = $1`, [poisoned.id]);
    app.clock.set('2026-03-02T17:05:00Z');
    await batchQueue.drain();
    await batchQueue.drain();
    const [mended] = await app.database.query<{ outcome: string; late: boolean }>(
      `SELECT outcome, late FROM safe_home_checks WHERE unit_id = $1 AND due_at = '2026-03-02T17:00:00Z'`,
      [poisoned.id],
    );
    expect(mended).toEqual({ outcome: 'home', late: false });
    expect(await queuedChecks()).toEqual(['2026-03-09 17:00', '2026-03-09 17:00', '2026-03-09 17:00', '2026-03-09 17:00']);
    expect(await app.database.query(`SELECT 1 FROM safe_home_checks`)).toHaveLength(4);
  });
});
