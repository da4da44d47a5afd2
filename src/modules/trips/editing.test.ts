import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { rawCall } from '../units/testing';
import type { TripCheckInResult, TripList, TripLogEntry } from './model';

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let userToken: string;
let plainUserId: number;
let unitId: number;
let otherAccountId: number;
let otherUnitId: number;
let otherTripId: number;
let otherUserId: number;

async function addUnit(accountId: number, imei: string, name: string): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return row!.id;
}

interface TripSeed {
  type?: string;
  driverUserId?: number | null;
  driverKey?: string | null;
  purpose?: string | null;
}

/** A trip of `minutes` from `start`, `km` long; odometers continue from the unit's previous trip. */
async function addTrip(unit: number, accountId: number, start: string, minutes: number, km: number, seed: TripSeed = {}): Promise<number> {
  const stop = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  const [previous] = await app.database.query<{ odometer_stop_m: number }>(
    'SELECT odometer_stop_m FROM trips WHERE unit_id = $1 AND start_time < $2::timestamptz ORDER BY start_time DESC LIMIT 1',
    [unit, start],
  );
  const odometer = Number(previous?.odometer_stop_m ?? 10_000);
  const [row] = await app.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, purpose,
                        driver_user_id, driver_key, harsh_braking, detection)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             $5, $6, $7, $8, 'gps', $9, $10, $11, $12, $13, $14, $15, 1, 'ignition')
     RETURNING id`,
    [
      unit,
      accountId,
      start,
      stop,
      `From ${start}`,
      `To ${stop}`,
      odometer,
      odometer + km * 1000,
      km * 1000,
      40 + km,
      (km / minutes) * 60,
      seed.type ?? 'business',
      seed.purpose ?? null,
      seed.driverUserId ?? null,
      seed.driverKey ?? null,
    ],
  );
  return Number(row!.id);
}

async function listDay(day: string, as = token): Promise<TripLogEntry[]> {
  const result = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=${day}&to=${day}`, { token: as });
  expect(result.status).toBe(200);
  return result.body.data!.trips;
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  const email = `plain-${owner.userId}@example.com`;
  const [plain] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${owner.accountId}, ${email}, (select password_hash from users where id = ${owner.userId}), 'Pia', 'Plain', 'user')
    returning id`);
  plainUserId = plain!.id;
  userToken = await app.login({ email, password: owner.password, subsiteId: 0 });
  unitId = await addUnit(owner.accountId, '356307042470001', 'Company car');
  // Spec §6: Pia drives the company car, so it is given to her.
  await app.grantUnits(plainUserId, [unitId]);
  const other = await app.createAccount();
  otherAccountId = other.accountId;
  otherUserId = other.userId;
  otherUnitId = await addUnit(other.accountId, '356307042470002', 'Not yours');
  otherTripId = await addTrip(otherUnitId, other.accountId, '2026-03-01T10:00:00Z', 30, 25);
}, 60_000);
afterAll(async () => {
  await app?.close();
});
beforeEach(async () => {
  await app.database.query('DELETE FROM trips WHERE unit_id = $1', [unitId]);
  await app.database.query('DELETE FROM trip_merge_parts WHERE unit_id = $1', [unitId]);
  await app.database.query('DELETE FROM trip_driver_checkins WHERE unit_id = $1', [unitId]);
  await app.database.query('DELETE FROM trip_detector_state WHERE unit_id = $1', [unitId]);
});

describe('trip type, purpose, note and passengers', () => {
  test('one trip at a time; the totals per type follow; a person’s type is kept', async () => {
    const id = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20);
    const result = await app.call('POST', `/api/trips/${id}`, {
      token,
      body: { type: 'private', purpose: '  Visit to Acme AB ', note: 'Parking paid', passengers: 'Anna' },
    });
    expect(result.status).toBe(200);
    const [trip] = await listDay('2026-03-01');
    expect(trip).toMatchObject({ type: 'private', purpose: 'Visit to Acme AB', note: 'Parking paid', passengers: 'Anna' });
    const [row] = await app.database.query<{ type_source: string }>('SELECT type_source FROM trips WHERE id = $1', [id]);
    expect(row!.type_source).toBe('user');
    const list = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-03-01&to=2026-03-01`, { token });
    expect(list.body.data!.totals.private).toEqual({ trips: 1, distanceM: 20_000, durationS: 1800 });

    // Omitted fields stay; empty text clears.
    await app.call('POST', `/api/trips/${id}`, { token, body: { purpose: '' } });
    expect((await listDay('2026-03-01'))[0]).toMatchObject({ type: 'private', purpose: null, note: 'Parking paid' });
  });

  test('purpose at most 100 characters, a known type, translated', async () => {
    const id = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20);
    const long = await app.call('POST', `/api/trips/${id}`, { token, headers: { 'x-lang': 'sv' }, body: { purpose: 'x'.repeat(101) } });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual({ purpose: [expect.stringContaining('100')] });
    const exactly = await app.call('POST', `/api/trips/${id}`, { token, body: { purpose: 'x'.repeat(100) } });
    expect(exactly.status).toBe(200);
    const badType = await app.call('POST', `/api/trips/${id}`, { token, body: { type: 'commute' } });
    expect(badType.status).toBe(422);
    expect(Object.keys(badType.body.errors as object)).toEqual(['type']);
  });

  test('in bulk for the trips of a page; one trip not the account’s refuses all of it', async () => {
    const ids = [
      await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20),
      await addTrip(unitId, owner.accountId, '2026-03-01T10:00:00Z', 30, 20),
      await addTrip(unitId, owner.accountId, '2026-03-02T10:00:00Z', 30, 20),
    ];
    const result = await app.call<{ updated: number }>('POST', '/api/trips/type', { token: userToken, body: { tripIds: ids, type: 'other' } });
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({ updated: 3 });
    const list = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-03-01&to=2026-03-02`, { token });
    expect(list.body.data!.totals.other.trips).toBe(3);

    const mixed = await app.call('POST', '/api/trips/type', { token, body: { tripIds: [ids[0], otherTripId], type: 'private' } });
    expect(mixed.status).toBe(404);
    expect(mixed.body.errors).toBe('The trip was not found.');
    expect((await listDay('2026-03-01'))[0]!.type).toBe('other');
    const [theirs] = await app.database.query<{ type: string }>('SELECT type FROM trips WHERE id = $1', [otherTripId]);
    expect(theirs!.type).toBe('business');

    const none = await app.call('POST', '/api/trips/type', { token, body: { tripIds: [], type: 'private' } });
    expect(none.status).toBe(422);
  });
});

describe('merge and split', () => {
  test('consecutive trips of one day merge into one; a split restores them exactly', async () => {
    const a = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20, { purpose: 'Customer' });
    const b = await addTrip(unitId, owner.accountId, '2026-03-01T08:40:00Z', 10, 5, { type: 'other' });
    const c = await addTrip(unitId, owner.accountId, '2026-03-01T09:00:00Z', 20, 10);
    const before = await listDay('2026-03-01');

    const merged = await app.call<{ id: number }>('POST', '/api/trips/merge', { token, body: { tripIds: [c, a, b] } });
    expect(merged.status).toBe(200);
    expect(merged.body.data).toEqual({ id: a });
    const [trip, ...rest] = await listDay('2026-03-01');
    expect(rest).toEqual([]);
    expect(trip).toMatchObject({
      id: a,
      merged: true,
      startTime: '2026-03-01T08:00:00.000Z',
      stopTime: '2026-03-01T09:20:00.000Z',
      distanceM: 35_000,
      odometerStartM: before[0]!.odometerStartM,
      odometerStopM: before[2]!.odometerStopM,
      startAddress: before[0]!.startAddress,
      stopAddress: before[2]!.stopAddress,
      maxSpeedKmh: 60,
      harshBraking: 3,
      type: 'business',
      purpose: 'Customer',
    });

    const again = await app.call('POST', '/api/trips/merge', { token, body: { tripIds: [a, await addTrip(unitId, owner.accountId, '2026-03-01T10:00:00Z', 5, 1)] } });
    expect(again.status).toBe(422);
    expect(again.body.errors).toBe('Trips that are already merged cannot be merged again.');

    const split = await app.call<{ ids: number[] }>('POST', `/api/trips/${a}/split`, { token: userToken });
    expect(split.status).toBe(200);
    expect(split.body.data!.ids).toEqual([a, b, c]);
    expect((await listDay('2026-03-01')).slice(0, 3)).toEqual(before);

    const notMerged = await app.call('POST', `/api/trips/${a}/split`, { token, headers: { 'x-lang': 'no' } });
    expect(notMerged.status).toBe(422);
    expect(notMerged.body.errors).toBe('Turen kunne ikke deles. Bare en sammenslått tur kan deles.');
  });

  test('each rule of §4 refuses with its translated §8 error', async () => {
    const morning = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20);
    const privateTrip = await addTrip(unitId, owner.accountId, '2026-03-01T09:00:00Z', 30, 20, { type: 'private' });
    const otherDriver = await addTrip(unitId, owner.accountId, '2026-03-01T10:00:00Z', 30, 20, { driverUserId: plainUserId });
    const lateEvening = await addTrip(unitId, owner.accountId, '2026-03-01T21:00:00Z', 30, 20);
    // 23:30 UTC on 1 March is 00:30 on 2 March in Stockholm.
    const nextDay = await addTrip(unitId, owner.accountId, '2026-03-01T23:30:00Z', 20, 10);
    const keyed = await addTrip(unitId, owner.accountId, '2026-03-02T08:00:00Z', 20, 10, { driverKey: 'ibutton-1' });
    const unkeyed = await addTrip(unitId, owner.accountId, '2026-03-02T09:00:00Z', 20, 10);
    const merge = (tripIds: number[], lang = 'en', timeZone?: string) =>
      app.call('POST', '/api/trips/merge', { token, body: { tripIds }, headers: { 'x-lang': lang, ...(timeZone ? { 'x-timezone': timeZone } : {}) } });

    const type = await merge([morning, privateTrip], 'sv');
    expect(type.status).toBe(422);
    expect(type.body.errors).toBe('En privatresa kan inte slås samman med en tjänsteresa.');

    const driver = await merge([privateTrip, otherDriver]);
    expect(driver.status).toBe(422);
    expect(driver.body.errors).toBe('Trips with different drivers cannot be merged.');
    expect((await merge([keyed, unkeyed])).body.errors).toBe('Trips with different drivers cannot be merged.');

    // Not consecutive: a trip lies between.
    const gap = await merge([morning, lateEvening]);
    expect(gap.status).toBe(422);
    expect(gap.body.errors).toBe('The trips could not be merged. Choose consecutive trips of one unit.');

    const date = await merge([lateEvening, nextDay], 'no');
    expect(date.status).toBe(422);
    expect(date.body.errors).toBe('Turer med ulike datoer kan ikke slås sammen.');
    // In London both start on 1 March.
    expect((await merge([lateEvening, nextDay], 'en', 'Europe/London')).status).toBe(200);

    // Another account's trip is not found; a single trip is not a merge.
    expect((await merge([morning, otherTripId])).status).toBe(404);
    expect((await merge([morning])).status).toBe(422);
    // A trip still in progress (provisional until detection closes it) cannot be merged yet.
    await app.database.query('INSERT INTO trip_detector_state (unit_id, open_since) VALUES ($1, $2::timestamptz)', [unitId, '2026-03-02T09:00:00Z']);
    const inProgress = await addTrip(unitId, owner.accountId, '2026-03-02T09:30:00Z', 10, 1);
    const provisional = await merge([unkeyed, inProgress]);
    expect(provisional.status).toBe(422);
    expect(provisional.body.errors).toBe('The trips could not be merged. Choose consecutive trips of one unit.');
    await app.database.query('UPDATE trip_detector_state SET open_since = NULL WHERE unit_id = $1', [unitId]);
    expect((await merge([unkeyed, inProgress])).status).toBe(200);
    // Other merges with private or business and takes their type.
    const otherTrip = await addTrip(unitId, owner.accountId, '2026-03-01T09:40:00Z', 10, 2, { type: 'other' });
    const ok = await merge([privateTrip, otherTrip]);
    expect(ok.status).toBe(200);
    expect((await listDay('2026-03-01')).find((trip) => trip.id === privateTrip)).toMatchObject({ type: 'private', merged: true, distanceM: 22_000 });
    // Nothing else changed.
    expect((await listDay('2026-03-01')).map((trip) => trip.id)).toEqual([morning, privateTrip, otherDriver, lateEvening]);
  });
});

describe('driver check-in and check-out', () => {
  test('check-in from a trip applies to it and later trips, and to trips detected later; the previous driver is checked out first', async () => {
    const first = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20);
    const second = await addTrip(unitId, owner.accountId, '2026-03-01T10:00:00Z', 30, 20);
    const third = await addTrip(unitId, owner.accountId, '2026-03-01T12:00:00Z', 30, 20);

    const drivers = await app.call<Array<{ id: number; name: string }>>('GET', '/api/trips/drivers', { token });
    expect(drivers.body.data!.map((driver) => driver.id)).toContain(plainUserId);
    expect(drivers.body.data!.find((driver) => driver.id === plainUserId)!.name).toBe('Pia Plain');
    const own = await app.call<Array<{ id: number }>>('GET', '/api/trips/drivers', { token: userToken });
    expect(own.body.data!.map((driver) => driver.id)).toEqual([plainUserId]);

    const checkIn = await app.call<TripCheckInResult>('POST', `/api/trips/${second}/check-in`, { token, body: { driverUserId: owner.userId } });
    expect(checkIn.status).toBe(200);
    expect(checkIn.body.data).toEqual({ updated: 2, checkedOutUserId: null });
    expect((await listDay('2026-03-01')).map((trip) => trip.driverUserId)).toEqual([null, owner.userId, owner.userId]);

    const switched = await app.call<TripCheckInResult>('POST', `/api/trips/${third}/check-in`, { token: userToken, body: { driverUserId: plainUserId } });
    expect(switched.body.data).toEqual({ updated: 1, checkedOutUserId: owner.userId });
    const trips = await listDay('2026-03-01');
    expect(trips.map((trip) => trip.driverUserId)).toEqual([null, owner.userId, plainUserId]);
    expect(trips[2]!.driverName).toBe('Pia Plain');
    const checkins = await app.database.query<{ user_id: number; open: boolean }>(
      'SELECT user_id, checked_out_at IS NULL AS open FROM trip_driver_checkins WHERE unit_id = $1 ORDER BY checked_in_at',
      [unitId],
    );
    expect(checkins).toEqual([
      { user_id: owner.userId, open: false },
      { user_id: plainUserId, open: true },
    ]);

    // A trip detected later gets the checked-in driver.
    const base = Date.parse('2026-03-01T14:00:00Z');
    for (let i = 0; i <= 40; i++) {
      await app.database.query(
        `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, ignition, valid, flags)
         VALUES ($1, $2::timestamptz, $2::timestamptz, ST_SetSRID(ST_MakePoint($3, 59.33), 4326), $4, $5, true, 0)`,
        [unitId, new Date(base + i * 30_000).toISOString(), 18 + Math.min(i, 30) * 0.004, i < 30 ? 50 : 0, i < 30],
      );
    }
    await app.services.trips.redetect(unitId, new Date(base), new Date(base + 40 * 30_000));
    const detected = (await listDay('2026-03-01')).filter((trip) => trip.startTime >= '2026-03-01T13:00:00Z');
    expect(detected.length).toBeGreaterThan(0);
    expect(detected.every((trip) => trip.driverUserId === plainUserId)).toBe(true);

    // Check-out after the first trip: later trips with that driver lose it.
    const out = await app.call<{ updated: number }>('POST', `/api/trips/${first}/check-out`, { token });
    expect(out.status).toBe(200);
    expect((await listDay('2026-03-01')).map((trip) => trip.driverUserId).slice(0, 3)).toEqual([null, owner.userId, null]);
    const none = await app.call('POST', `/api/trips/${first}/check-out`, { token, headers: { 'x-lang': 'sv' } });
    expect(none.status).toBe(422);
    expect(none.body.errors).toBe('Ingen förare är incheckad på enheten.');
  });

  test("'No driver' cannot be checked in; the driver must be of the account; an ordinary user checks in only themself", async () => {
    const trip = await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 30, 20);
    for (const driverUserId of [null, 0]) {
      const result = await app.call('POST', `/api/trips/${trip}/check-in`, { token, body: { driverUserId } });
      expect(result.status).toBe(422);
      expect(result.body.errors).toEqual({ driverUserId: ["'No driver' cannot be checked in. Choose a driver."] });
    }
    const stranger = await app.call('POST', `/api/trips/${trip}/check-in`, { token, body: { driverUserId: otherUserId } });
    expect(stranger.status).toBe(422);
    expect(stranger.body.errors).toEqual({ driverUserId: ['Choose a driver from your account.'] });
    const forOther = await app.call('POST', `/api/trips/${trip}/check-in`, { token: userToken, body: { driverUserId: owner.userId } });
    expect(forOther.status).toBe(403);
    expect(await app.database.query('SELECT 1 FROM trip_driver_checkins WHERE unit_id = $1', [unitId])).toEqual([]);
    expect(otherAccountId).toBeGreaterThan(0);
  });

  test('a trip started during a booking gets the booked driver, named as booked; a check-in wins over the booking', async () => {
    const pool = await addUnit(owner.accountId, '356307040000991', 'Poolbil');
    await app.database.query(
      `INSERT INTO bookings (account_id, unit_id, driver_id, starts_at, ends_at, purpose)
       VALUES ($1, $2, $3, '2026-03-02T08:00:00Z', '2026-03-02T12:00:00Z', 'Kundbesök')`,
      [owner.accountId, pool, plainUserId],
    );
    /** A 15-minute drive from `start` (positions every 30 s), then detection over it. */
    const drive = async (start: string) => {
      const base = Date.parse(start);
      for (let i = 0; i <= 40; i++) {
        await app.database.query(
          `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, ignition, valid, flags)
           VALUES ($1, $2::timestamptz, $2::timestamptz, ST_SetSRID(ST_MakePoint($3, 59.33), 4326), $4, $5, true, 0)`,
          [pool, new Date(base + i * 30_000).toISOString(), 18 + Math.min(i, 30) * 0.004, i < 30 ? 50 : 0, i < 30],
        );
      }
      await app.services.trips.redetect(pool, new Date(base), new Date(base + 40 * 30_000));
    };
    const poolDay = async () => {
      const result = await app.call<TripList>('GET', `/api/trips?unitId=${pool}&from=2026-03-02&to=2026-03-02`, { token });
      return result.body.data!.trips.map((trip) => ({ start: trip.startTime.slice(11, 16), driver: trip.driverName, source: trip.driverSource }));
    };
    await drive('2026-03-02T09:00:00Z'); // in the booking
    await drive('2026-03-02T13:00:00Z'); // after it
    expect(await poolDay()).toEqual([
      { start: '09:00', driver: 'Pia Plain', source: 'booking' },
      { start: '13:00', driver: null, source: null },
    ]);
    // Found again (new positions of the same drive), the trip keeps its booked driver.
    await app.services.trips.redetect(pool, new Date('2026-03-02T08:30:00Z'), new Date('2026-03-02T10:00:00Z'));
    expect((await poolDay())[0]).toEqual({ start: '09:00', driver: 'Pia Plain', source: 'booking' });

    const exported = await rawCall(app, 'GET', `/api/trips/export?unitId=${pool}&from=2026-03-02&to=2026-03-02&format=csv`, { token, lang: 'sv' });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain('Pia Plain (bokad)');

    // The owner checks in from the booked trip: the check-in names the driver from then on.
    const [booked] = await app.database.query<{ id: string }>("SELECT id FROM trips WHERE unit_id = $1 AND start_time = '2026-03-02T09:00:00Z'", [pool]);
    expect((await app.call('POST', `/api/trips/${booked!.id}/check-in`, { token, body: { driverUserId: owner.userId } })).status).toBe(200);
    expect((await poolDay()).map((trip) => trip.source)).toEqual(['checkin', 'checkin']);
    await drive('2026-03-02T15:00:00Z');
    expect((await poolDay()).at(-1)).toMatchObject({ start: '15:00', source: 'checkin' });
  });
});

describe('isolation', () => {
  test("another account's trip is not found by any endpoint and stays as it was", async () => {
    const before = await app.database.query('SELECT * FROM trips WHERE id = $1', [otherTripId]);
    const calls: Array<[string, unknown]> = [
      [`/api/trips/${otherTripId}`, { type: 'private', purpose: 'hijack' }],
      [`/api/trips/${otherTripId}/split`, undefined],
      [`/api/trips/${otherTripId}/check-in`, { driverUserId: owner.userId }],
      [`/api/trips/${otherTripId}/check-out`, undefined],
      ['/api/trips/type', { tripIds: [otherTripId], type: 'private' }],
      ['/api/trips/merge', { tripIds: [otherTripId, otherTripId + 1] }],
    ];
    for (const [path, body] of calls) {
      for (const as of [token, userToken]) {
        const result = await app.call('POST', path, { token: as, body });
        expect({ path, status: result.status, data: result.body.data }).toEqual({ path, status: 404, data: null });
      }
    }
    expect(await app.database.query('SELECT * FROM trips WHERE id = $1', [otherTripId])).toEqual(before);
    expect(await app.database.query('SELECT 1 FROM trip_driver_checkins WHERE unit_id = $1', [otherUnitId])).toEqual([]);
  });
});
