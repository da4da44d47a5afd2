import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { TripList } from './model';
import { resolveRange } from './service';

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let unitId: number;
let otherUnitId: number;

async function addUnit(accountId: number, imei: string, name: string): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return row!.id;
}

async function addTrip(unit: number, accountId: number, start: string, minutes: number, km: number, type = 'business', extra: { purpose?: string } = {}) {
  const stop = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  const [row] = await app.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, purpose, detection)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             'Stockholm, SE', 'Solna, SE', 1000, $5, 'gps', $6, 88.25, $7, $8, $9, 'ignition')
     RETURNING id`,
    [unit, accountId, start, stop, 1000 + km * 1000, km * 1000, (km / minutes) * 60, type, extra.purpose ?? null],
  );
  return Number(row!.id);
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  unitId = await addUnit(owner.accountId, '356307042490001', 'Company car');
  const other = await app.createAccount();
  otherUnitId = await addUnit(other.accountId, '356307042490002', 'Not yours');
  await addTrip(otherUnitId, other.accountId, '2026-03-01T10:00:00Z', 30, 25);
  // February (Stockholm time), then March: one trip starts 00:30 on 1 March in Stockholm, still 28 February in London.
  await addTrip(unitId, owner.accountId, '2026-02-20T07:00:00Z', 20, 12);
  await addTrip(unitId, owner.accountId, '2026-02-28T23:30:00Z', 30, 20, 'private');
  await addTrip(unitId, owner.accountId, '2026-03-01T08:00:00Z', 60, 50, 'business', { purpose: 'Customer visit' });
  await addTrip(unitId, owner.accountId, '2026-03-01T17:00:00Z', 10, 4, 'other');
  await addTrip(unitId, owner.accountId, '2026-03-02T07:00:00Z', 45, 31.5);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('GET /api/trips', () => {
  test('needs a login', async () => {
    const result = await app.call('GET', `/api/trips?unitId=${unitId}`);
    expect(result.status).toBe(401);
    expect(result.body.errors).toBe('Unauthenticated.');
  });

  test("defaults to this month in the user's time zone, with totals per type", async () => {
    const result = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}`, { token });
    expect(result.status).toBe(200);
    const list = result.body.data!;
    expect({ from: list.from, to: list.to, timeZone: list.timeZone }).toEqual({
      from: '2026-02-28T23:00:00.000Z',
      // March ends on summer time.
      to: '2026-03-31T22:00:00.000Z',
      timeZone: 'Europe/Stockholm',
    });
    expect(list.trips.map((trip) => trip.startTime)).toEqual([
      '2026-02-28T23:30:00.000Z',
      '2026-03-01T08:00:00.000Z',
      '2026-03-01T17:00:00.000Z',
      '2026-03-02T07:00:00.000Z',
    ]);
    expect(list.totals).toEqual({
      business: { trips: 2, distanceM: 81_500, durationS: 6300 },
      private: { trips: 1, distanceM: 20_000, durationS: 1800 },
      other: { trips: 1, distanceM: 4_000, durationS: 600 },
      all: { trips: 4, distanceM: 105_500, durationS: 8700 },
    });
    expect(list.trips[1]).toEqual({
      id: expect.any(Number),
      unitId,
      startTime: '2026-03-01T08:00:00.000Z',
      stopTime: '2026-03-01T09:00:00.000Z',
      durationS: 3600,
      startLat: 59.3293,
      startLon: 18.0686,
      stopLat: 59.36,
      stopLon: 18.0009,
      startAddress: 'Stockholm, SE',
      stopAddress: 'Solna, SE',
      odometerStartM: 1000,
      odometerStopM: 51_000,
      odometerSource: 'gps',
      distanceM: 50_000,
      maxSpeedKmh: 88.3,
      avgSpeedKmh: 50,
      driverKey: null,
      driverUserId: null,
      driverName: null,
      driverSource: null,
      harshBraking: 0,
      harshAcceleration: 0,
      harshCornering: 0,
      type: 'business',
      purpose: 'Customer visit',
      note: null,
      passengers: null,
      detection: 'ignition',
      merged: false,
    });
  });

  test("days are taken in the request's time zone (x-timezone)", async () => {
    const london = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-02-01&to=2026-02-28`, {
      token,
      headers: { 'x-timezone': 'Europe/London' },
    });
    expect(london.body.data!.trips.map((trip) => trip.startTime)).toEqual(['2026-02-20T07:00:00.000Z', '2026-02-28T23:30:00.000Z']);
    const stockholm = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-02-01&to=2026-02-28`, { token });
    expect(stockholm.body.data!.trips.map((trip) => trip.startTime)).toEqual(['2026-02-20T07:00:00.000Z']);
    // An unknown zone falls back to the user's.
    const bogus = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-02-01&to=2026-02-28`, {
      token,
      headers: { 'x-timezone': 'Mars/Olympus' },
    });
    expect(bogus.body.data!.timeZone).toBe('Europe/Stockholm');
  });

  test('instants with an offset are taken as they are (upper bound exclusive)', async () => {
    const result = await app.call<TripList>(
      'GET',
      `/api/trips?unitId=${unitId}&from=${encodeURIComponent('2026-03-01T08:00:00Z')}&to=${encodeURIComponent('2026-03-01T19:00:00+02:00')}`,
      { token },
    );
    expect(result.body.data!.trips.map((trip) => trip.startTime)).toEqual(['2026-03-01T08:00:00.000Z']);
  });

  test('a period of exactly 12 months is allowed; one day more, or an end before the start, is refused in the caller’s language', async () => {
    const year = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2025-03-01&to=2026-02-28`, { token });
    expect(year.status).toBe(200);
    expect(year.body.data!.trips).toHaveLength(1);

    const tooLong = await app.call('GET', `/api/trips?unitId=${unitId}&from=2025-03-01&to=2026-03-01`, { token });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toMatchObject({ success: false, data: null, errors: { to: ['The period can be at most 12 months.'] } });

    const reversed = await app.call('GET', `/api/trips?unitId=${unitId}&from=2026-03-02&to=2026-03-01`, { token, headers: { 'x-lang': 'sv' } });
    expect(reversed.status).toBe(422);
    expect(reversed.body.errors).toEqual({ to: ['Slutdatumet måste vara efter startdatumet.'] });

    const sameDay = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-03-01&to=2026-03-01`, { token });
    expect(sameDay.body.data!.trips).toHaveLength(3);

    const badFormat = await app.call('GET', `/api/trips?unitId=${unitId}&from=2026-02-30&to=yesterday`, { token, headers: { 'x-lang': 'no' } });
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.errors).toEqual({
      from: ['Angi en dato som ÅÅÅÅ-MM-DD, eller dato og klokkeslett med tidssone.'],
      to: ['Angi en dato som ÅÅÅÅ-MM-DD, eller dato og klokkeslett med tidssone.'],
    });

    const noUnit = await app.call('GET', '/api/trips', { token });
    expect(noUnit.status).toBe(422);
    expect(noUnit.body.errors).toEqual({ unitId: ['This field is required.'] });
  });

  test("another account's unit is not found, and none of its trips show", async () => {
    const result = await app.call('GET', `/api/trips?unitId=${otherUnitId}&from=2026-03-01&to=2026-03-31`, { token });
    expect(result.status).toBe(404);
    expect(result.body).toMatchObject({ success: false, data: null, errors: 'The unit is not registered or was not found.' });
    expect(JSON.stringify(result.body)).not.toContain('Not yours');
  });

  test('an ordinary user of the account sees its units’ trips', async () => {
    const email = `driver-${owner.userId}@example.com`;
    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, role)
      values (${owner.accountId}, ${email}, (select password_hash from users where id = ${owner.userId}), 'user') returning id`);
    // Spec §6: an ordinary user sees the units given to them.
    await app.grantUnits(user!.id);
    const userToken = await app.login({ email, password: owner.password, subsiteId: 0 });
    const result = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-03-01&to=2026-03-31`, { token: userToken });
    expect(result.status).toBe(200);
    expect(result.body.data!.totals.all.trips).toBe(4);
  });

  test('an ordinary user cannot read or change the trips of a unit not given to them (spec §6)', async () => {
    const email = `outsider-${owner.userId}@example.com`;
    await app.database.rows(sql`
      insert into users (account_id, email, password_hash, role)
      values (${owner.accountId}, ${email}, (select password_hash from users where id = ${owner.userId}), 'user')`);
    const userToken = await app.login({ email, password: owner.password, subsiteId: 0 });
    expect((await app.call('GET', `/api/trips?unitId=${unitId}&from=2026-03-01&to=2026-03-31`, { token: userToken })).status).toBe(403);
    const [trip] = await app.database.rows<{ id: string; type: string; purpose: string | null }>(
      sql`select id, type, purpose from trips where unit_id = ${unitId} order by start_time limit 1`,
    );
    const id = Number(trip!.id);
    const attempts = [
      await app.call('POST', '/api/trips/type', { token: userToken, body: { tripIds: [id], type: 'private' } }),
      await app.call('POST', `/api/trips/${id}`, { token: userToken, body: { purpose: 'Not mine to write' } }),
      await app.call('POST', `/api/trips/${id}/split`, { token: userToken }),
      await app.call('POST', `/api/trips/${id}/check-out`, { token: userToken }),
    ];
    expect(attempts.map((attempt) => attempt.status)).toEqual([403, 403, 403, 403]);
    const [after] = await app.database.rows<{ type: string; purpose: string | null }>(sql`select type, purpose from trips where id = ${id}`);
    expect(after).toEqual({ type: trip!.type, purpose: trip!.purpose });
  });

  test('the endpoint is in the OpenAPI document', async () => {
    const response = await app.api.handle(new Request('http://localhost/api/docs/json'));
    const document = (await response.json()) as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> };
    expect(document.paths['/api/trips']?.get?.parameters?.map((parameter) => parameter.name)).toEqual(['unitId', 'from', 'to']);
  });
});

describe('resolveRange', () => {
  test('month ends, leap years and DST', () => {
    const now = new Date('2028-02-10T12:00:00Z');
    expect(resolveRange({}, 'Europe/Oslo', now)).toEqual({ from: new Date('2028-01-31T23:00:00Z'), to: new Date('2028-02-29T23:00:00Z') });
    expect(resolveRange({ from: '2026-10-25', to: '2026-10-25' }, 'Europe/Stockholm', now)).toEqual({
      from: new Date('2026-10-24T22:00:00Z'),
      to: new Date('2026-10-25T23:00:00Z'),
    });
    expect(() => resolveRange({ from: '2024-02-29', to: '2025-02-28' }, 'Europe/London', now)).not.toThrow();
    expect(() => resolveRange({ from: '2024-02-29', to: '2025-03-01' }, 'Europe/London', now)).toThrow();
  });
});
