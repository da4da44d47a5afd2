import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { translate } from '../../lib/i18n';
import { addUnit, nextImei, setState } from '../units/testing';
import { type LatestPosition, SAFE_HOME_MESSAGES, type SafeHomeRecord, type SafeHomeSaved, updateScheduleSchema } from './model';

/**
 * The safe-return-home calls (spec §3 record, §4 switch, §5 rules, §7 shapes, §8 keys): administrators of an account
 * whose brand has EnableSafeReturnHome (sub-site 0) on; sub-site 1 has it off.
 */
setDefaultTimeout(60_000);
let app: TestApp;
let admin: { accountId: number; userId: number; token: string };
let userToken: string;
let car: { id: number; imei: string };
let van: { id: number; imei: string };
let otherImei: string;
let scooter: { id: number; imei: string };

const BASE = '/api/admin/safe-home';
const says = (key: string) => translate('en', key);
const errorsOf = (result: { body: { errors: unknown; message?: string } }) => JSON.stringify(result.body.errors) + (result.body.message ?? '');

const geofence = (overrides: Record<string, unknown> = {}) => ({
  imei: car.imei,
  radius: 450,
  centerLat: 59.3600123456,
  centerLng: 18.0012344444,
  address: 'Solna',
  ...overrides,
});
const schedule = (overrides: Record<string, unknown> = {}) => ({
  imei: car.imei,
  schedule: [{ week: 1, days: [{ day: 1, time: '18:00', checked: true }] }],
  frequency: 1,
  start_date: '2026-03-02',
  time_zone: 'Europe/Stockholm',
  ...overrides,
});
const put = <T = SafeHomeSaved>(path: string, body: unknown, token = admin.token) => app.call<T>('PUT', `${BASE}/${path}`, { token, body });
const list = async () => (await app.call<SafeHomeRecord[]>('GET', `${BASE}/list`, { token: admin.token })).body.data!;
const recordOf = async (imei: string) => (await list()).find((record) => record.imei === imei)!;

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  admin = { accountId: account.accountId, userId: account.userId, token: await app.login(account) };
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${account.accountId}, ${`plain-${account.userId}@example.com`}, (select password_hash from users where id = ${account.userId}), 'Plain', 'user')
    returning id`);
  userToken = await app.login({ email: `plain-${account.userId}@example.com`, password: account.password, subsiteId: 0 });
  car = { imei: nextImei('3581'), id: 0 };
  car.id = await addUnit(app, account.accountId, car.imei, 'Family car', { registrationNumber: 'ABC123' });
  van = { imei: nextImei('3581'), id: 0 };
  van.id = await addUnit(app, account.accountId, van.imei, 'Work van', { registrationNumber: 'XYZ987' });
  // A vehicle of the Basic subscription: no safe return home.
  scooter = { imei: nextImei('3581'), id: 0 };
  scooter.id = await addUnit(app, account.accountId, scooter.imei, 'Basic scooter', { registrationNumber: 'BAS001' });
  await app.database.rows(sql`update units set subscription_type = 'Bas' where id = ${scooter.id}`);
  await app.grantUnits(user!.id);
  const other = await app.createAccount();
  otherImei = nextImei('3582');
  await addUnit(app, other.accountId, otherImei, 'Stranger car');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

beforeEach(async () => {
  app.clock.set('2026-03-02T08:00:00Z');
  await app.database.rows(sql`delete from safe_homes`);
  await app.database.rows(sql`delete from job_queue`);
});

describe('§7 shapes', () => {
  test('GET list: every vehicle of the account as a §3 record, defaults when never set up, by name', async () => {
    const result = await app.call<SafeHomeRecord[]>('GET', `${BASE}/list`, { token: admin.token });
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([
      {
        imei: car.imei,
        name: 'Family car',
        RegistrationNumber: 'ABC123',
        status: 0,
        schedule: '[]',
        frequency: 1,
        start_date: null,
        time_zone: 'Europe/Stockholm',
        address: null,
        radius: 300,
        centerLat: null,
        centerLng: null,
      },
      expect.objectContaining({ imei: van.imei, name: 'Work van', RegistrationNumber: 'XYZ987', status: 0, radius: 300 }),
    ]);
    expect(JSON.stringify(result.body)).not.toContain(otherImei);
  });

  test('GET tracker latest position: Latitude and Longitude with 6 decimals, null when the tracker has none', async () => {
    const none = await app.call<LatestPosition>('GET', `${BASE}/tracker/latest-position?imei=${van.imei}`, { token: admin.token });
    expect(none.body.data).toEqual({ Latitude: null, Longitude: null });
    await setState(app, car.id, { lat: 59.123456789, lon: 18.987654321 });
    const fix = await app.call<LatestPosition>('GET', `${BASE}/tracker/latest-position?imei=${car.imei}`, { token: admin.token });
    expect(fix.body.data).toEqual({ Latitude: 59.123457, Longitude: 18.987654 });
  });

  test('PUT set geofence: stores the circle with 6 decimals and answers the record with HomeAddressUpdateMsg', async () => {
    const result = await put('set-geofence', geofence());
    expect(result.status).toBe(200);
    expect(result.body.data!.messageKey).toBe(SAFE_HOME_MESSAGES.HomeAddressUpdateMsg);
    expect(result.body.data!.message).toBe('The home address has been updated.');
    expect(result.body.data!.record).toMatchObject({ imei: car.imei, address: 'Solna', radius: 450, centerLat: 59.360012, centerLng: 18.001234, status: 0 });
    expect(await recordOf(car.imei)).toMatchObject({ address: 'Solna', radius: 450, centerLat: 59.360012, centerLng: 18.001234 });
  });

  test('PUT update schedule alert: keeps only checked days with a time, drops empty weeks, answers AlertScheduleUpdated', async () => {
    const result = await put(
      'update-schedule-alert',
      schedule({
        frequency: 3,
        start_date: '2026-03-04',
        time_zone: 'Europe/Oslo',
        schedule: JSON.stringify([
          { week: 1, days: [{ day: 0, time: '20:00', checked: true }, { day: 1, time: '18:00', checked: true }, { day: 2, time: '18:00', checked: false }, { day: 3, time: '' }] },
          { week: 2, days: [{ day: 5, time: '18:00', checked: false }] },
          { week: 3, days: [{ day: 6, time: '07:45' }] },
        ]),
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body.data!.messageKey).toBe(SAFE_HOME_MESSAGES.AlertScheduleUpdated);
    expect(result.body.data!.message).toBe('The alert schedule has been updated.');
    const stored = [
      { week: 1, days: [{ day: 1, time: '18:00' }, { day: 0, time: '20:00' }] },
      { week: 3, days: [{ day: 6, time: '07:45' }] },
    ];
    expect(result.body.data!.record).toMatchObject({ schedule: JSON.stringify(stored), frequency: 3, start_date: '2026-03-04', time_zone: 'Europe/Oslo' });
    expect(JSON.parse((await recordOf(car.imei)).schedule)).toEqual(stored);
  });

  test('PUT toggle status: answers the record with its new status', async () => {
    await put('set-geofence', geofence());
    await put('update-schedule-alert', schedule());
    const on = await put('toggle-status', { imei: car.imei, status: 1 });
    expect(on.status).toBe(200);
    expect(on.body.data!.record.status).toBe(1);
    expect(on.body.data!.messageKey).toBe(SAFE_HOME_MESSAGES.StatusUpdated);
    const off = await put('toggle-status', { imei: car.imei, status: '0' });
    expect(off.body.data!.record.status).toBe(0);
    expect((await recordOf(car.imei)).status).toBe(0);
  });
});

describe('§5 rules and §8 keys', () => {
  test('radius below 300 is RadiusLessThan300; 300 itself is accepted', async () => {
    const small = await put('set-geofence', geofence({ radius: 299 }));
    expect(small.status).toBe(422);
    expect(errorsOf(small)).toContain(says(SAFE_HOME_MESSAGES.RadiusLessThan300));
    expect(says(SAFE_HOME_MESSAGES.RadiusLessThan300)).toBe('The radius must be at least 300 metres.');
    const missing = await put('set-geofence', geofence({ radius: undefined }));
    expect(errorsOf(missing)).toContain(says(SAFE_HOME_MESSAGES.RadiusLessThan300));
    expect((await put('set-geofence', geofence({ radius: 300 }))).body.data!.record.radius).toBe(300);
  });

  test('an empty address is SafeReturnHomeAddrEmpty; one that does not geocode is the geocoder failure text', async () => {
    const empty = await put('set-geofence', geofence({ address: '   ' }));
    expect(empty.status).toBe(422);
    expect(errorsOf(empty)).toContain(says(SAFE_HOME_MESSAGES.SafeReturnHomeAddrEmpty));
    const nowhere = await put('set-geofence', geofence({ address: 'Qwxzvbnm Plplpl' }));
    expect(nowhere.status).toBe(422);
    expect(errorsOf(nowhere)).toContain('An error occurred while fetching location.');
    expect((await recordOf(car.imei)).address).toBeNull();
    // The label the geocoder gives the point itself is accepted too.
    const label = await app.services.geocoder.reverse(59.36, 18.0);
    expect(label).not.toBeNull();
    expect((await put('set-geofence', geofence({ address: label, centerLat: 59.36, centerLng: 18.0 }))).status).toBe(200);
  });

  test('coordinates out of range, and an address over 50 characters, are refused', async () => {
    expect((await put('set-geofence', geofence({ centerLat: 91 }))).status).toBe(422);
    expect((await put('set-geofence', geofence({ centerLng: 'east' }))).status).toBe(422);
    expect((await put('set-geofence', geofence({ address: 'S'.repeat(51) }))).status).toBe(422);
  });

  test('schedule rules: 15-minute steps, weeks within the frequency, frequency 1-3, a real start date and time zone', async () => {
    const offGrid = await put('update-schedule-alert', schedule({ schedule: [{ week: 1, days: [{ day: 1, time: '18:10' }] }] }));
    expect(offGrid.status).toBe(422);
    expect(errorsOf(offGrid)).toContain(says(SAFE_HOME_MESSAGES.TimeStep));
    const beyond = await put('update-schedule-alert', schedule({ frequency: 1, schedule: [{ week: 2, days: [{ day: 1, time: '18:00' }] }] }));
    expect(errorsOf(beyond)).toContain(says(SAFE_HOME_MESSAGES.InvalidSchedule));
    expect((await put('update-schedule-alert', schedule({ frequency: 4 }))).status).toBe(422);
    expect((await put('update-schedule-alert', schedule({ start_date: '2026-02-30' }))).status).toBe(422);
    const zone = await put('update-schedule-alert', schedule({ time_zone: 'Mars/Olympus' }));
    expect(errorsOf(zone)).toContain(says(SAFE_HOME_MESSAGES.InvalidTimeZone));
    expect((await put('update-schedule-alert', schedule({ schedule: '{not json' }))).status).toBe(422);
    const twice = await put('update-schedule-alert', schedule({ schedule: [{ week: 1, days: [{ day: 1, time: '18:00' }, { day: 1, time: '19:00' }] }] }));
    expect(errorsOf(twice)).toContain(says(SAFE_HOME_MESSAGES.InvalidSchedule));
    expect((await recordOf(car.imei)).schedule).toBe('[]');
  });

  test('the schema the form shares drops unchecked and time-less days the same way', () => {
    const parsed = updateScheduleSchema.parse(schedule({ schedule: [{ week: 1, days: [{ day: 2, time: null }, { day: 3, time: '06:00', checked: false }] }] }));
    expect(parsed.schedule).toEqual([]);
  });
});

describe('§4 the switch', () => {
  test('0 → 1 needs a schedule and an address: otherwise SafeHomeEnableMsg and no change', async () => {
    const bare = await put('toggle-status', { imei: car.imei, status: 1 });
    expect(bare.status).toBe(422);
    expect(errorsOf(bare)).toContain(says(SAFE_HOME_MESSAGES.SafeHomeEnableMsg));
    expect((await recordOf(car.imei)).status).toBe(0);

    await put('update-schedule-alert', schedule());
    const noAddress = await put('toggle-status', { imei: car.imei, status: 1 });
    expect(errorsOf(noAddress)).toContain(says(SAFE_HOME_MESSAGES.SafeHomeEnableMsg));

    await app.database.rows(sql`delete from safe_homes`);
    await put('set-geofence', geofence());
    const noSchedule = await put('toggle-status', { imei: car.imei, status: 1 });
    expect(errorsOf(noSchedule)).toContain(says(SAFE_HOME_MESSAGES.SafeHomeEnableMsg));
    // A schedule whose every day is unchecked is empty.
    await put('update-schedule-alert', schedule({ schedule: [{ week: 1, days: [{ day: 1, time: '18:00', checked: false }] }] }));
    expect((await put('toggle-status', { imei: car.imei, status: 1 })).status).toBe(422);
    expect((await recordOf(car.imei)).status).toBe(0);

    await put('update-schedule-alert', schedule());
    expect((await put('toggle-status', { imei: car.imei, status: 1 })).status).toBe(200);
    expect((await recordOf(car.imei)).status).toBe(1);
  });

  test('switched on, the next check is queued at the next scheduled time; emptying the schedule switches it off', async () => {
    await put('set-geofence', geofence());
    await put('update-schedule-alert', schedule());
    await put('toggle-status', { imei: car.imei, status: 1 });
    // Monday 2 March 2026 18:00 in Stockholm (CET) is 17:00 UTC.
    const queued = await app.database.rows<{ unique_key: string; run_at: string }>(
      sql`select unique_key, to_char(run_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as run_at from job_queue where name = 'safe-home.check'`,
    );
    expect(queued).toEqual([{ unique_key: `${car.id}:2026-03-02T17:00:00.000Z`, run_at: '2026-03-02 17:00' }]);
    const emptied = await put('update-schedule-alert', schedule({ schedule: [] }));
    expect(emptied.body.data!.record.status).toBe(0);
    expect(emptied.body.data!.record.schedule).toBe('[]');
  });

  test('an invalid status is refused', async () => {
    expect((await put('toggle-status', { imei: car.imei, status: 2 })).status).toBe(422);
  });
});

describe('§6 roles, EnableSafeReturnHome and accounts', () => {
  test('an ordinary user is refused every call', async () => {
    const calls = [
      app.call('GET', `${BASE}/list`, { token: userToken }),
      app.call('GET', `${BASE}/tracker/latest-position?imei=${car.imei}`, { token: userToken }),
      put('toggle-status', { imei: car.imei, status: 0 }, userToken),
      put('set-geofence', geofence(), userToken),
      put('update-schedule-alert', schedule(), userToken),
    ];
    for (const result of await Promise.all(calls)) expect(result.status).toBe(403);
  });

  test('without a session every call is 401', async () => {
    expect((await app.call('GET', `${BASE}/list`)).status).toBe(401);
    expect((await app.call('PUT', `${BASE}/toggle-status`, { body: { imei: car.imei, status: 1 } })).status).toBe(401);
  });

  test('EnableSafeReturnHome off: every call answers 403 safeHome.disabled', async () => {
    const other = await app.createAccount({ subsiteId: 1 });
    const token = await app.login(other);
    const imei = nextImei('3583');
    await addUnit(app, other.accountId, imei, 'Brand car');
    const calls = [
      app.call('GET', `${BASE}/list`, { token }),
      app.call('GET', `${BASE}/tracker/latest-position?imei=${imei}`, { token }),
      put('toggle-status', { imei, status: 0 }, token),
      put('set-geofence', geofence({ imei }), token),
      put('update-schedule-alert', schedule({ imei }), token),
    ];
    for (const result of await Promise.all(calls)) {
      expect(result.status).toBe(403);
      expect(errorsOf(result)).toContain(says(SAFE_HOME_MESSAGES.Disabled));
    }
  });

  test("another account's vehicle is not found and stays untouched", async () => {
    const calls = [
      app.call('GET', `${BASE}/tracker/latest-position?imei=${otherImei}`, { token: admin.token }),
      put('toggle-status', { imei: otherImei, status: 1 }),
      put('set-geofence', geofence({ imei: otherImei })),
      put('update-schedule-alert', schedule({ imei: otherImei })),
    ];
    for (const result of await Promise.all(calls)) {
      expect(result.status).toBe(404);
      expect(errorsOf(result)).toContain(says(SAFE_HOME_MESSAGES.NotFound));
    }
    expect(await app.database.rows(sql`select unit_id from safe_homes`)).toEqual([]);
  });

  test('a vehicle of the Basic subscription is not listed and every call naming it is not found; off Basic it is listed', async () => {
    expect((await list()).map((record) => record.imei)).not.toContain(scooter.imei);
    const calls = [
      app.call('GET', `${BASE}/tracker/latest-position?imei=${scooter.imei}`, { token: admin.token }),
      put('toggle-status', { imei: scooter.imei, status: 1 }),
      put('set-geofence', geofence({ imei: scooter.imei })),
      put('update-schedule-alert', schedule({ imei: scooter.imei })),
    ];
    for (const result of await Promise.all(calls)) {
      expect(result.status).toBe(404);
      expect(errorsOf(result)).toContain(says(SAFE_HOME_MESSAGES.NotFound));
    }
    expect(await app.database.rows(sql`select unit_id from safe_homes`)).toEqual([]);
    // The subscription's name in any case is Basic; another subscription lists it again.
    await app.database.rows(sql`update units set subscription_type = 'BAS' where id = ${scooter.id}`);
    expect((await list()).map((record) => record.imei)).not.toContain(scooter.imei);
    await app.database.rows(sql`update units set subscription_type = 'standard' where id = ${scooter.id}`);
    try {
      expect((await list()).map((record) => record.name)).toEqual(['Basic scooter', 'Family car', 'Work van']);
      expect((await put('set-geofence', geofence({ imei: scooter.imei }))).status).toBe(200);
    } finally {
      await app.database.rows(sql`update units set subscription_type = 'Bas' where id = ${scooter.id}`);
    }
  });

  test('messages exist in Swedish, English and Norwegian', () => {
    for (const key of Object.values(SAFE_HOME_MESSAGES)) {
      for (const language of ['sv', 'en', 'no'] as const) expect({ key, language, text: translate(language, key) }).not.toMatchObject({ text: key });
    }
    expect(translate('sv', SAFE_HOME_MESSAGES.GeocodeFailed)).not.toBe(translate('en', SAFE_HOME_MESSAGES.GeocodeFailed));
  });
});
