import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { mergeDayOf, seedDemoHistory } from '../../src/demo/history';
import { demoFleetDevices } from '../../src/demo/live';
import { registerSimulatedUnits, simulatorImeis } from '../../src/demo/simulated';
import { demoImei, seedDemo } from '../../src/demo/seed';
import { demoEnabled, loadConfig } from '../../src/lib/config';
import type { ScheduleAnswer } from '../../src/modules/bookings/model';
import type { SafeHomeRecord } from '../../src/modules/safe-home/model';
import type { BenefitReport } from '../../src/modules/reports/model';
import { createTestApp, type TestApp } from '../support/app';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { DEMO_VEHICLES: '4', DEMO_EMAIL: 'Demo@Example.com', DEMO_PASSWORD: 'Demo-pass-1!' } });
}, 60_000);
afterAll(async () => app?.close());

test('the demo administrator can log in at once, and a restart adds nothing twice', async () => {
  const devices = await seedDemo(app.platform);
  expect(devices.map((d) => d.imei)).toEqual([...[0, 1, 2, 3].map(demoImei), '350000009000001']);
  const again = await seedDemo(app.platform);
  expect(again.map((d) => d.unitId)).toEqual(devices.map((d) => d.unitId));
  const [counts] = await app.database.rows<{ users: number; units: number; accounts: number }>(sql`
    select (select count(*)::int from users) as users, (select count(*)::int from units) as units,
           (select count(*)::int from accounts) as accounts`);
  // DEMO_VEHICLES vehicles and the Scout v2 boat in theft mode; the support user's and the reseller's accounts.
  expect(counts).toEqual({ users: 4, units: 5, accounts: 3 });

  const token = await app.login({ email: 'demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const me = await app.call<{ user: { Email: string; Role: string } }>('GET', '/api/me', { token });
  expect(me.body.data?.user).toMatchObject({ Email: 'demo@example.com', Role: 'admin' });

  // The demo driver, an ordinary user, sees the three vehicles given to him (spec §6).
  const driverToken = await app.login({ email: 'driver.demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const units = await app.call<Array<{ ID: number }>>('GET', '/api/units', { token: driverToken });
  expect(units.body.data!.map((unit) => unit.ID).sort((a, b) => a - b)).toEqual(devices.slice(0, 3).map((d) => d.unitId).sort((a, b) => a - b));

  // Issue 19: the support user registers stock (no longer 403 on a demo install) and opens the demo company;
  // the reseller finds it as its customer; the demo's audit log names its first users.
  const supportToken = await app.login({ email: 'support.demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  expect((await app.call('POST', '/api/admin/tracker-stock', { token: supportToken, body: { imeis: ['351000000000099'] } })).status).toBe(200);
  const resellerToken = await app.login({ email: 'reseller.demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const customers = await app.call<Array<{ companyName: string }>>('GET', '/api/admin/customer-accounts?q=Demo', { token: resellerToken });
  expect(customers.body.data!.map((account) => account.companyName)).toEqual(['Demo Fleet AB']);
  await app.platform.outbox.drain();
  const audit = await app.call<{ entries: Array<{ action: string; target: { label: string } }> }>('GET', '/api/audit', { token });
  expect(audit.body.data!.entries.map((entry) => `${entry.action} ${entry.target.label}`).sort()).toEqual(['user.created Anna Demo', 'user.created Erik Driver']);
  // The boat is in theft mode from the start: marked in the list, with its 24 h mode to return.
  const boat = devices.at(-1)!.unitId;
  const list = await app.call<Array<{ ID: number; TheftMode: string; OperatingMode: string }>>('GET', '/api/units', { token });
  expect(list.body.data!.find((unit) => unit.ID === boat)).toMatchObject({ TheftMode: 'on', OperatingMode: 'theft' });
  const theft = await app.call<{ state: string; previousMode: string }>('GET', `/api/units/${boat}/theft-mode`, { token });
  expect(theft.body.data).toMatchObject({ state: 'on', supported: true, previousMode: '24h' });
  // Issue 21: alarms in the history, two acknowledged, each with its delivery log (an SMS refused for want of credits).
  const alarms = await app.call<Array<{ type: string; acknowledgedBy: string | null }>>('GET', '/api/alarms', { token });
  expect(alarms.body.data!.map((alarm) => [alarm.type, alarm.acknowledgedBy])).toEqual([
    ['power_cut', null],
    ['overspeed', null],
    ['tamper', 'Anna Demo'],
    ['theft_zone_exit', 'Anna Demo'],
  ]);
  const bell = await app.call<{ unacknowledged: number }>('GET', '/api/alarms/summary', { token });
  expect(bell.body.data!.unacknowledged).toBe(2);
  const deliveries = await app.call<Array<{ channel: string; status: string; error: string | null }>>('GET', '/api/alarms/deliveries', { token });
  expect(deliveries.body.data!).toHaveLength(11);
  expect(deliveries.body.data!.filter((row) => row.status === 'refused')).toEqual([expect.objectContaining({ channel: 'sms', error: 'alarms.delivery.noSmsCredits' })]);
  // The car schedule shows a week of bookings (the test clock's week, Monday 2026-03-02), five on one Wednesday car.
  const week = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/week?week_day=2026-03-04', { token });
  const bookings = week.body.data!.BookingSchedules.flatMap((vehicle) => vehicle.Schedule);
  expect(bookings).toHaveLength(26);
  expect(new Set(bookings.map((booking) => booking.StartDate.slice(0, 10))).size).toBe(7);
  const wednesday = week.body.data!.BookingSchedules.find((vehicle) => vehicle.ID === devices[2]!.unitId)!.Schedule.filter((booking) => booking.StartDate.startsWith('2026-03-04'));
  expect(wednesday).toHaveLength(5);
  const mine = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/month?month=2026-03&mine=true', { token: driverToken });
  expect(mine.body.data!.BookingSchedules.flatMap((vehicle) => vehicle.Schedule).every((booking) => booking.Mine)).toBe(true);
  expect(mine.body.data!.BookingSchedules.flatMap((vehicle) => vehicle.Schedule).length).toBeGreaterThan(5);
  // Safe return home: two vehicles with a home and a schedule, switched on, their next checks queued (Monday 18:00).
  const homes = await app.call<SafeHomeRecord[]>('GET', '/api/admin/safe-home/list', { token });
  const homed = homes.body.data!.filter((record) => record.address !== null).sort((a, b) => a.imei.localeCompare(b.imei));
  expect(homed.map((record) => [record.imei, record.status, record.frequency, record.start_date])).toEqual([
    [demoImei(0), 1, 1, '2026-03-02'],
    [demoImei(1), 1, 2, '2026-03-02'],
  ]);
  expect(homed.every((record) => JSON.parse(record.schedule).length > 0 && record.radius >= 300)).toBe(true);
  const queued = await app.database.query<{ run_at: Date }>(`SELECT run_at FROM job_queue WHERE name = 'safe-home.check' ORDER BY run_at`);
  expect(queued.map((row) => new Date(row.run_at).toISOString())).toEqual(['2026-03-02T17:00:00.000Z', '2026-03-02T17:00:00.000Z']);
  // Scheduled reports: a weekly summary to Anna and a monthly CO2 report, due next Monday and on 1 April at 06:00 Stockholm time.
  const schedules = await app.call<{ schedules: Array<{ name: string; kind: string; frequency: string; nextRunAt: string }> }>('GET', '/api/reports/schedules', { token });
  expect(schedules.body.data!.schedules.map((s) => [s.kind, s.frequency, s.nextRunAt])).toEqual([
    ['co2', 'monthly', '2026-04-01T04:00:00.000Z'],
    ['summary', 'weekly', '2026-03-09T05:00:00.000Z'],
  ]);
  const summary = await app.call<{ units: unknown[] }>('GET', '/api/reports/summary', { token });
  expect(summary.body.data!.units.length).toBe(5);
  // Benefit value and reimbursement: Anna's petrol benefit car is valued this year without problems; the RAV4 is a private car.
  const benefit = await app.call<BenefitReport>('GET', '/api/reports/benefit', { token });
  expect(benefit.status).toBe(200);
  const volvo = benefit.body.data!.cars.find((car) => car.unitId === devices[0]!.unitId)!;
  expect(volvo).toMatchObject({ carUsage: 'benefit', currency: 'SEK', problems: [], holder: { name: 'Anna Demo' } });
  expect(volvo.benefitValue).toBeGreaterThan(0);
  expect(benefit.body.data!.cars.find((car) => car.unitId === devices[2]!.unitId)?.carUsage).toBe('private');
}, 60_000);

test('the merged pair is driven on a working day six to eight days back, whatever day the demo starts on', () => {
  // A weekend has no customer visits: a start on a Friday or a Saturday put the pair on a weekend and the demo had none.
  for (let date = 23; date <= 29; date++) {
    const today = `2026-11-${date}`;
    const day = mergeDayOf(today);
    expect([1, 2, 3, 4, 5]).toContain(new Date(`${day}T12:00:00Z`).getUTCDay());
    const back = (Date.parse(today) - Date.parse(day)) / 86_400_000;
    expect(back).toBeGreaterThanOrEqual(6);
    expect(back).toBeLessThanOrEqual(8);
  }
});

test('demo data is on by default only with the embedded database, and DEMO switches it either way', () => {
  expect(demoEnabled(loadConfig({}))).toBe(true);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://localhost/fleet' }))).toBe(false);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://localhost/fleet', DEMO: '1' }))).toBe(true);
  expect(demoEnabled(loadConfig({ DEMO: '0' }))).toBe(false);
});

test('the demo has 90 days of past driving: trips detected from its positions, with purposes, private weekends, a merged pair, an attested month and drivers', async () => {
  const devices = await seedDemo(app.platform);
  const history = await seedDemoHistory(app.platform, app.services, devices);
  expect(history).not.toBeNull();
  // Four cars: about 1,700 positions and 35 trips a month each (commutes, visits, weekends).
  expect(history!.positions).toBeGreaterThan(4 * 3 * 1000);
  expect(history!.trips).toBeGreaterThan(4 * 80);
  expect(history!.merged).toBe(1);
  expect(history!.attested).toBe('2026-02');
  // A restart finds the history and writes nothing.
  expect(await seedDemoHistory(app.platform, app.services, devices)).toBeNull();

  const [counts] = await app.database.rows<{ first: string; last: string; purposes: number; private: number; ruled: number; drivers: number; merged: number; places: number }>(sql`
    select min(start_time)::text as first, max(stop_time)::text as last, count(purpose)::int as purposes,
           count(*) filter (where type = 'private')::int as private, count(*) filter (where type_source = 'rule')::int as ruled,
           count(driver_user_id)::int as drivers, count(*) filter (where merged)::int as merged,
           (select count(*)::int from places) as places
    from trips`);
  expect(new Date(counts!.first).getTime()).toBeLessThan(Date.parse('2025-12-05T00:00:00Z'));
  expect(new Date(counts!.last).getTime()).toBeLessThanOrEqual(Date.parse('2026-03-02T08:00:00Z'));
  expect(counts!.purposes).toBeGreaterThan(50);
  expect(counts!.private).toBeGreaterThan(20);
  expect(counts!.ruled).toBeGreaterThan(20);
  expect(counts!.drivers).toBeGreaterThan(50);
  expect(counts!.merged).toBe(1);
  // An office per city the cars drive in and three homes, each with rules.
  expect(counts!.places).toBe(7);

  // The trip log shows them: the first car's trips of last week, its driver Erik, February attested.
  const token = await app.login({ email: 'demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const list = await app.call<{ trips: Array<{ driverName: string | null }> }>(
    'GET',
    `/api/trips?unitId=${devices[0]!.unitId}&from=2026-02-23&to=2026-03-01`,
    { token },
  );
  expect(list.status).toBe(200);
  expect(list.body.data!.trips.length).toBeGreaterThan(5);
  expect(list.body.data!.trips.every((trip) => trip.driverName === 'Erik Driver')).toBe(true);
  const [attest] = await app.database.rows<{ status: string }>(sql`select status from trip_attests where period = '2026-02'`);
  expect(attest?.status).toBe('attested');

  // The live cars go on from where the history ends (not from home).
  const fleet = await demoFleetDevices(app.platform, devices);
  const [last] = await app.database.rows<{ lat: number; lon: number }>(sql`
    select ST_Y(geom) as lat, ST_X(geom) as lon from positions where unit_id = ${devices[0]!.unitId} order by time desc limit 1`);
  const first = fleet[0]!.vehicle!(Date.parse('2026-03-02T08:00:00Z')).step(Date.parse('2026-03-02T08:00:00Z'), 0);
  expect(first.latitude).toBeCloseTo(Number(last!.lat), 5);
  expect(first.longitude).toBeCloseTo(Number(last!.lon), 5);
}, 300_000);

test('bun run simulate drives a range of IMEIs of its own, apart from the demo fleet, and registers them as units once', async () => {
  const devices = await seedDemo(app.platform);
  const imeis = simulatorImeis(3);
  expect(imeis).toEqual(['359990000000001', '359990000000002', '359990000000003']);
  for (const device of devices) expect(imeis).not.toContain(device.imei);
  expect(simulatorImeis(2, '359990000000099')).toEqual(['359990000000099', '359990000000100']);
  expect(() => simulatorImeis(1, '12345')).toThrow('15 digits');
  // Added to the demo account as "Simulated N"; a second run adds nothing, and an unknown user is named.
  expect(await registerSimulatedUnits(app.platform, imeis, app.platform.config.DEMO_EMAIL, 'teltonika')).toBe(3);
  expect(await registerSimulatedUnits(app.platform, imeis, app.platform.config.DEMO_EMAIL, 'teltonika')).toBe(0);
  const [demo] = await app.database.query<{ account_id: number }>('SELECT account_id FROM users WHERE email = lower($1)', [app.platform.config.DEMO_EMAIL]);
  const units = await app.database.query<{ name: string }>(
    'SELECT name FROM units WHERE account_id = $1 AND imei = ANY($2::text[]) ORDER BY name',
    [demo!.account_id, imeis],
  );
  expect(units.map((unit) => unit.name)).toEqual(['Simulated 1', 'Simulated 2', 'Simulated 3']);
  await expect(registerSimulatedUnits(app.platform, imeis, 'nobody@example.com', 'teltonika')).rejects.toThrow('no user nobody@example.com');
});
