/**
 * The unit edit page's sections (spec §2 /user/edit-terminal): each saves on its own with its §5 rules,
 * and the §6 permissions (lock, report frequency) hold on the server.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { LockLogEntry, MeterHistoryEntry, NamedRef, NameHistoryEntry, UnitDetail } from './model';
import { addUnit, nextImei, setState } from './testing';

// Each test makes many API calls; a loaded CI machine needs more than the default 5 s.
// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

/** An account with an administrator and an ordinary user, and one unit. */
async function setup(extra: Parameters<typeof addUnit>[4] = {}) {
  const admin = await app.createAccount();
  const token = await app.login(admin);
  const userEmail = `plain-${admin.userId}@example.com`;
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${admin.accountId}, ${userEmail}, (select password_hash from users where id = ${admin.userId}), 'Olle', 'Olsson', 'user')
    returning id`);
  const userToken = await app.login({ email: userEmail, password: admin.password, subsiteId: 0 });
  const unitId = await addUnit(app, admin.accountId, nextImei('35800100'), 'Volvo V60', extra);
  return { admin, token, userId: user!.id, userEmail, userToken, unitId };
}

async function save(token: string, unitId: number, section: string, body: unknown) {
  return app.call<UnitDetail>('POST', `/api/units/${unitId}/${section}`, { token, body });
}

describe('name and name history', () => {
  test('the name is required; each rename is in the history, newest first, at most 50', async () => {
    const { token, unitId } = await setup();
    const empty = await save(token, unitId, 'name', { name: '   ' });
    expect([empty.status, empty.body.errors]).toEqual([422, { name: ['Enter a name for the unit.'] }]);
    expect((await save(token, unitId, 'name', { name: 'Pool car' })).body.data!.Name).toBe('Pool car');
    // Saving the same name again is no change.
    await save(token, unitId, 'name', { name: 'Pool car' });
    const history = await app.call<NameHistoryEntry[]>('GET', `/api/units/${unitId}/name-history`, { token });
    expect(history.body.data).toEqual([{ previousName: 'Volvo V60', name: 'Pool car', changedBy: expect.stringContaining('Test'), changedAt: expect.any(String) }]);
    for (let index = 1; index <= 55; index++) {
      app.clock.advance(1000);
      await save(token, unitId, 'name', { name: `Car ${index}` });
    }
    const long = (await app.call<NameHistoryEntry[]>('GET', `/api/units/${unitId}/name-history`, { token })).body.data!;
    expect(long).toHaveLength(50);
    expect(long[0]!.name).toBe('Car 55');
    expect(long[49]!.name).toBe('Car 6');
    const [{ n } = { n: 0 }] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from unit_name_history where unit_id = ${unitId}`);
    expect(n).toBe(50);
  });
});

describe('vehicle details and registration number', () => {
  const details = (registrationNumber: string) => ({ registrationNumber, vehicleType: 'passenger_car', vin: 'YV1ZW25UDK1234567', horsepower: 150 });

  test('letters and digits only (spaces and dashes typed between are dropped), required', async () => {
    const { token, unitId } = await setup();
    const ok = await save(token, unitId, 'details', details('abc-123'));
    expect(ok.body.data).toMatchObject({ RegistrationNumber: 'ABC123', Vin: 'YV1ZW25UDK1234567', Horsepower: 150 });
    const bad = await save(token, unitId, 'details', details('AB#12'));
    expect([bad.status, bad.body.errors]).toEqual([422, { registrationNumber: ['The registration number may contain letters and digits only.'] }]);
    const empty = await save(token, unitId, 'details', details(''));
    expect(empty.body.errors).toEqual({ registrationNumber: ['Enter the registration number.'] });
    expect((await save(token, unitId, 'details', details('ÅÄÖ987'))).status).toBe(200);
    const wrongType = await save(token, unitId, 'details', { ...details('ABC123'), vehicleType: 'spaceship' });
    expect(Object.keys(wrongType.body.errors as object)).toEqual(['vehicleType']);
    const badDate = await save(token, unitId, 'details', { ...details('ABC123'), nextInspection: '2026-02-30' });
    expect(badDate.body.errors).toEqual({ nextInspection: ['Enter a date as YYYY-MM-DD.'] });
  });

  test('changeable twice per 24 h per unit; other fields save meanwhile', async () => {
    const { admin, unitId } = await setup();
    let token = await app.login(admin);
    expect((await save(token, unitId, 'details', details('AAA111'))).status).toBe(200);
    app.clock.advance(60 * 60 * 1000);
    expect((await save(token, unitId, 'details', details('BBB222'))).status).toBe(200);
    const third = await save(token, unitId, 'details', details('CCC333'));
    expect([third.status, third.body.errors]).toEqual([
      422,
      { registrationNumber: ['The registration number has already been changed twice in the last 24 hours.'] },
    ]);
    // The same number with other fields changed is not a change of registration number.
    expect((await save(token, unitId, 'details', { ...details('BBB222'), horsepower: 200 })).body.data!.Horsepower).toBe(200);
    app.clock.advance(23 * 60 * 60 * 1000 + 1000);
    token = await app.login(admin); // sessions last 12 h
    const later = await save(token, unitId, 'details', details('CCC333'));
    expect([later.status, later.body.errors]).toEqual([200, null]);
    expect(later.body.data!.RegistrationNumber).toBe('CCC333');
    // Another unit has its own allowance.
    const other = await addUnit(app, admin.accountId, nextImei('35800101'), 'Other');
    expect((await save(token, other, 'details', details('DDD444'))).status).toBe(200);
  });
});

describe('odometer and operating hours', () => {
  test('both are required; calibrating today adjusts what follows and keeps the history', async () => {
    const { token, unitId } = await setup();
    const missing = await save(token, unitId, 'meters', { odometerKm: 1000 });
    expect([missing.status, missing.body.errors]).toEqual([422, { operatingHours: ['Enter the operating hours.'] }]);
    await setState(app, unitId, { odometerM: 100_000 });
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.OdometerKm).toBe(100);
    const calibrated = await save(token, unitId, 'meters', { odometerKm: 5000, operatingHours: 1200.5 });
    expect(calibrated.body.data).toMatchObject({ OdometerKm: 5000, OperatingHours: 1200.5 });
    // The tracker counts 50 km more: the calibrated value follows.
    await setState(app, unitId, { odometerM: 150_000 });
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.OdometerKm).toBe(5050);
    app.clock.advance(60_000);
    await save(token, unitId, 'meters', { odometerKm: 6000, operatingHours: 1200.5 });
    const history = await app.call<MeterHistoryEntry[]>('GET', `/api/units/${unitId}/meters/history`, { token });
    expect(history.body.data!.map((entry) => [entry.kind, entry.value])).toEqual([
      ['odometer', 6000],
      ['hours', 1200.5],
      ['odometer', 5000],
    ]);
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.OdometerKm).toBe(6000);
  });
});

describe('benefit car, fuel and CO2', () => {
  test('reimbursement > 0; fuel payer for benefit and private cars; fuel consumption and CO2 required for benefit cars', async () => {
    const { token, unitId } = await setup();
    const zero = await save(token, unitId, 'benefit', { carUsage: 'private', fuelPayer: 'private', reimbursementPer10Km: 0 });
    expect([zero.status, zero.body.errors]).toEqual([422, { reimbursementPer10Km: ['Reimbursement must be greater than 0.'] }]);
    const noPayer = await save(token, unitId, 'benefit', { carUsage: 'private', reimbursementPer10Km: 25 });
    expect(noPayer.body.errors).toEqual({ fuelPayer: ['Choose who pays for fuel.'] });
    const benefit = await save(token, unitId, 'benefit', { carUsage: 'benefit', fuelPayer: 'company' });
    expect([benefit.status, benefit.body.errors]).toEqual([
      422,
      { fuelConsumptionPer10Km: ['Fuel consumption is required for benefit cars.'], co2GPerKm: ['CO2 emission is required for benefit cars.'] },
    ]);
    expect((await save(token, unitId, 'fuel', { fuelType: 'diesel', fuelConsumptionPer10Km: 0.55 })).body.data).toMatchObject({
      FuelType: 'diesel',
      FuelConsumptionPer10Km: 0.55,
    });
    expect((await save(token, unitId, 'co2', { co2GPerKm: 128.5 })).body.data!.Co2GPerKm).toBe(128.5);
    const saved = await save(token, unitId, 'benefit', { carUsage: 'benefit', fuelPayer: 'company', reimbursementPer10Km: 18.5 });
    expect(saved.body.data).toMatchObject({ CarUsage: 'benefit', FuelPayer: 'company', ReimbursementPer10Km: 18.5 });
    // A benefit car keeps its consumption and CO2.
    expect((await save(token, unitId, 'fuel', { fuelType: 'diesel', fuelConsumptionPer10Km: null })).body.errors).toEqual({
      fuelConsumptionPer10Km: ['Fuel consumption is required for benefit cars.'],
    });
    expect((await save(token, unitId, 'co2', { co2GPerKm: null })).status).toBe(422);
    expect((await save(token, unitId, 'fuel', { fuelType: 'diesel', fuelConsumptionPer10Km: -1 })).status).toBe(422);
  });

  test('working hours need a working day when on, and end after start', async () => {
    const { token, unitId } = await setup();
    expect((await save(token, unitId, 'working-hours', { enabled: true, days: [] })).body.errors).toEqual({ days: ['Choose at least one working day.'] });
    const order = await save(token, unitId, 'working-hours', { enabled: true, days: [{ day: 1, start: '17:00', end: '08:00' }] });
    expect(order.body.errors).toEqual({ 'days.0.end': ['The end time must be after the start time.'] });
    const days = [
      { day: 5, start: '08:00', end: '15:00' },
      { day: 1, start: '07:30', end: '16:30' },
    ];
    const saved = await save(token, unitId, 'working-hours', { enabled: true, days });
    expect(saved.body.data!.WorkingHours).toEqual({ enabled: true, days: [days[1]!, days[0]!] });
    expect((await save(token, unitId, 'working-hours', { enabled: false, days: [] })).body.data!.WorkingHours).toEqual({ enabled: false, days: [] });
  });

  test('marker symbol and colour', async () => {
    const { token, unitId } = await setup();
    expect((await save(token, unitId, 'marker', { color: '#FF8800', markerIcon: 'truck' })).body.data).toMatchObject({ Color: '#ff8800', MarkerIcon: 'truck' });
    expect((await save(token, unitId, 'marker', { color: 'orange', markerIcon: 'truck' })).body.errors).toEqual({ color: ['Choose a colour as #RRGGBB.'] });
    expect((await save(token, unitId, 'marker', { color: '#ff8800', markerIcon: 'ufo' })).status).toBe(422);
  });
});

describe('lock and unlock (spec §4, §6)', () => {
  test('only benefit and private cars lock; only the locker or support unlocks; each change is logged; the locker is e-mailed', async () => {
    const { admin, token, userToken, userEmail, unitId } = await setup();
    const notCar = await app.call('POST', `/api/units/${unitId}/lock`, { token: userToken });
    expect([notCar.status, notCar.body.errors]).toEqual([422, { carUsage: ['Only benefit and private cars can be locked.'] }]);
    await save(token, unitId, 'benefit', { carUsage: 'private', fuelPayer: 'private', reimbursementPer10Km: 25 });
    const locked = await app.call<UnitDetail>('POST', `/api/units/${unitId}/lock`, { token: userToken });
    expect(locked.body.data).toMatchObject({ isLocked: true, Lock: { lockedBy: { name: 'Olle Olsson' }, canUnlock: true, canLock: false } });
    expect((await app.call('POST', `/api/units/${unitId}/lock`, { token })).status).toBe(409);
    // §4: benefit/private mode cannot be switched off while locked.
    const off = await save(token, unitId, 'benefit', { carUsage: 'none' });
    expect([off.status, off.body.errors]).toEqual([422, { carUsage: ['The unit is locked: unlock it before turning off benefit car mode.'] }]);
    // The administrator is not the locker.
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.Lock.canUnlock).toBe(false);
    const adminUnlock = await app.call('POST', `/api/units/${unitId}/unlock`, { token });
    expect([adminUnlock.status, adminUnlock.body.errors]).toEqual([403, 'Only the user who locked the unit, or support, can unlock it.']);
    // Support unlocks a unit of any account; the locker hears of it.
    const support = await app.login(await app.createAccount({ role: 'support' }));
    expect((await app.call('POST', `/api/units/${unitId}/unlock`, { token: support })).status).toBe(200);
    const mail = await app.smtp.waitFor(userEmail);
    expect(mail.subject).toBe('Volvo V60 har låsts upp');
    expect(mail.text).toContain('Volvo V60');
    expect((await app.call('POST', `/api/units/${unitId}/unlock`, { token: support })).status).toBe(409);
    // The locker unlocks their own lock.
    await app.call('POST', `/api/units/${unitId}/lock`, { token: userToken });
    expect((await app.call('POST', `/api/units/${unitId}/unlock`, { token: userToken })).status).toBe(200);
    await app.smtp.waitFor(userEmail);
    const log = await app.call<LockLogEntry[]>('GET', `/api/units/${unitId}/lock-log`, { token });
    expect(log.body.data!.map((entry) => [entry.action, entry.by, entry.locker])).toEqual([
      ['unlocked', 'Olle Olsson', 'Olle Olsson'],
      ['locked', 'Olle Olsson', 'Olle Olsson'],
      ['unlocked', expect.stringContaining('Test'), 'Olle Olsson'],
      ['locked', 'Olle Olsson', 'Olle Olsson'],
    ]);
    expect((await save(token, unitId, 'benefit', { carUsage: 'none' })).status).toBe(200);
    expect(admin.accountId).toBeGreaterThan(0);
  });
});

describe('operating modes and report frequency (spec §4, §6)', () => {
  async function answer(unitId: number, response: string) {
    const command = await app.services.commands.claimNext(unitId);
    expect(command).not.toBeNull();
    await app.services.commands.recordResponse(unitId, response);
    return command!;
  }

  test('a battery tracker gets its mode through the command queue and shows it pending until the tracker answers', async () => {
    const { token, unitId } = await setup({ deviceKind: 'battery', model: 'TAT100' });
    const queued = await save(token, unitId, 'operating-mode', { mode: '24h' });
    expect(queued.body.data).toMatchObject({ OperatingMode: null, PendingSettings: { operating_mode: { value: '24h', status: 'pending' } } });
    const command = await answer(unitId, 'New value 10000:86400;10100:86400;10200:86400;10050:86400;10150:86400;10250:86400;');
    expect(command).toMatchObject({ kind: 'setparam', payload: 'setparam 10000:86400;10100:86400;10200:86400;10050:86400;10150:86400;10250:86400' });
    const confirmed = (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!;
    expect(confirmed.OperatingMode).toBe('24h');
    expect(confirmed.PendingSettings).toEqual({});
    // A newer request supersedes a pending one; a tracker that never answers fails it.
    await save(token, unitId, 'operating-mode', { mode: '1h' });
    await save(token, unitId, 'operating-mode', { mode: 'realtime' });
    await app.services.commands.claimNext(unitId);
    app.clock.advance(91_000);
    await app.services.commands.sweep();
    const failed = (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!;
    expect(failed.OperatingMode).toBe('24h');
    expect(failed.PendingSettings.operating_mode).toMatchObject({ value: 'realtime', status: 'pending' });
    await answer(unitId, 'New value 10000:86400;10050:300');
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.OperatingMode).toBe('realtime');
  });

  test('modes only on battery trackers, theft mode only on Scout v2, Teltonika only', async () => {
    const car = await setup();
    expect((await save(car.token, car.unitId, 'operating-mode', { mode: '8h' })).body.errors).toEqual({
      mode: ['Operating modes apply to battery-powered trackers only.'],
    });
    const tat = await setup({ deviceKind: 'battery', model: 'TAT100' });
    expect((await save(tat.token, tat.unitId, 'operating-mode', { mode: 'theft' })).body.errors).toEqual({
      mode: ['Theft mode is available on Scout v2 trackers only.'],
    });
    const scout = await setup({ deviceKind: 'battery', model: 'Scout v2' });
    expect((await save(scout.token, scout.unitId, 'operating-mode', { mode: 'theft' })).status).toBe(200);
    const gt06 = await setup({ deviceKind: 'battery', model: 'GT06N', protocol: 'gt06' });
    expect((await save(gt06.token, gt06.unitId, 'operating-mode', { mode: '8h' })).body.errors).toEqual({
      mode: ['This tracker cannot receive settings from the portal.'],
    });
    expect((await save(car.token, car.unitId, 'operating-mode', { mode: 'weekly' })).status).toBe(422);
  });

  test('report frequency: denied users and a locked frequency are refused; administrators decide', async () => {
    const { token, userId, userToken, unitId } = await setup();
    const ok = await save(userToken, unitId, 'report-frequency', { seconds: 30 });
    expect(ok.body.data!.PendingSettings.report_frequency).toMatchObject({ value: '30', status: 'pending' });
    expect((await app.services.commands.claimNext(unitId))!.payload).toBe('setparam 10050:30;10150:30;10250:30');
    expect((await save(userToken, unitId, 'report-frequency', { seconds: 45 })).status).toBe(422);
    // An administrator denies the user; the user's answer says so.
    expect((await app.call('POST', `/api/admin/users/${userId}/report-frequency`, { token: userToken, body: { denied: true } })).status).toBe(403);
    expect((await app.call('POST', `/api/admin/users/${userId}/report-frequency`, { token, body: { denied: true } })).status).toBe(200);
    const denied = await save(userToken, unitId, 'report-frequency', { seconds: 60 });
    expect([denied.status, denied.body.errors]).toEqual([403, 'You are not allowed to change the report frequency.']);
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token: userToken })).body.data!.CanChangeReportFrequency).toBe(false);
    await app.call('POST', `/api/admin/users/${userId}/report-frequency`, { token, body: { denied: false } });
    // A locked frequency is refused for everyone until it is unlocked; only administrators lock it.
    expect((await save(userToken, unitId, 'report-frequency-lock', { locked: true })).status).toBe(403);
    expect((await save(token, unitId, 'report-frequency-lock', { locked: true })).body.data!.ReportFrequencyLocked).toBe(true);
    const locked = await save(userToken, unitId, 'report-frequency', { seconds: 60 });
    expect([locked.status, locked.body.errors]).toEqual([409, 'The report frequency of this unit is locked.']);
    expect((await save(token, unitId, 'report-frequency', { seconds: 60 })).status).toBe(409);
    await save(token, unitId, 'report-frequency-lock', { locked: false });
    expect((await save(userToken, unitId, 'report-frequency', { seconds: 60 })).status).toBe(200);
    // Operating modes follow the same rules.
    const battery = await addUnit(app, (await app.database.rows<{ a: number }>(sql`select account_id as a from units where id = ${unitId}`))[0]!.a, nextImei('35800102'), 'Boat', {
      deviceKind: 'battery',
      model: 'TAT100',
    });
    await app.call('POST', `/api/admin/users/${userId}/report-frequency`, { token, body: { denied: true } });
    expect((await save(userToken, battery, 'operating-mode', { mode: '8h' })).status).toBe(403);
    expect((await save(userToken, battery, 'report-frequency', { seconds: 60 })).body.errors).toEqual({
      seconds: ['Report frequency applies to trip-log trackers; battery trackers use operating modes.'],
    });
  });
});

describe('features, time till parked, Bluetooth', () => {
  test('features (a feature profile of the account) only on trip-log devices', async () => {
    const { token, unitId, admin } = await setup();
    const profile = (await app.call<NamedRef>('POST', '/api/admin/feature-profiles', { token, body: { name: 'Eco' } })).body.data!;
    expect((await save(token, unitId, 'features', { featureProfileId: profile.id })).body.data!.FeatureProfile).toEqual(profile);
    const battery = await addUnit(app, admin.accountId, nextImei('35800103'), 'Tool box', { deviceKind: 'battery', model: 'TAT100' });
    expect((await save(token, battery, 'features', { featureProfileId: profile.id })).body.errors).toEqual({
      featureProfileId: ['Features are only available on trip-log devices.'],
    });
    expect((await save(token, battery, 'features', { featureProfileId: null })).status).toBe(200);
    expect((await save(token, unitId, 'features', { featureProfileId: null })).body.data!.FeatureProfile).toBeNull();
  });

  test('time till parked is the trip log setting of the unit', async () => {
    const { token, unitId } = await setup();
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.TimeTillParkedMin).toBe(5);
    expect((await save(token, unitId, 'time-till-parked', { minutes: 12 })).body.data!.TimeTillParkedMin).toBe(12);
    expect((await app.services.trips.settings(unitId)).timeTillParkedS).toBe(720);
    expect((await save(token, unitId, 'time-till-parked', { minutes: 0 })).status).toBe(422);
  });

  test('Bluetooth is switched on the tracker through the command queue', async () => {
    const { token, unitId } = await setup();
    const queued = await save(token, unitId, 'bluetooth', { enabled: true });
    expect(queued.body.data).toMatchObject({ BluetoothEnabled: false, PendingSettings: { bluetooth: { value: '1', status: 'pending' } } });
    const command = await app.services.commands.claimNext(unitId);
    expect(command!.payload).toBe('setparam 800:1');
    await app.services.commands.recordResponse(unitId, 'New value 800:1;');
    expect((await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.BluetoothEnabled).toBe(true);
  });
});
