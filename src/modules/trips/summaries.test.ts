import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { TripLockState } from './model';

/** The trip log's read-only markers: which listed trips lie in an attested period of their driver (spec §4). */
let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let unitId: number;
let otherDriverId: number;

async function addTrip(start: string, driverUserId: number | null): Promise<number> {
  const stop = new Date(Date.parse(start) + 30 * 60_000).toISOString();
  const [row] = await app.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m,
                        odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, driver_user_id, detection)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             0, 20000, 'gps', 20000, 60, 40, 'business', $5, 'ignition')
     RETURNING id`,
    [unitId, owner.accountId, start, stop, driverUserId],
  );
  return Number(row!.id);
}

const attested = (query: string, as = token) => app.call<TripLockState>('GET', `/api/trips/attested?${query}`, { token: as, headers: { 'x-timezone': 'Europe/Stockholm' } });

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  const [unit] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${owner.accountId}, '356307042479301', 'Pool car') returning id`);
  unitId = unit!.id;
  const [other] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${owner.accountId}, ${`other-driver-${owner.userId}@example.com`}, 'x', 'Olle', 'user') returning id`);
  otherDriverId = other!.id;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('attested trips of a period', () => {
  test("only the trips in an attested month of their own driver are read-only; an unattest frees them", async () => {
    const mine = await addTrip('2026-02-10T08:00:00Z', owner.userId);
    const othersTrip = await addTrip('2026-02-11T08:00:00Z', otherDriverId);
    const noDriver = await addTrip('2026-02-12T08:00:00Z', null);
    // 1 March 00:30 in Stockholm: March, outside the attested February.
    const march = await addTrip('2026-02-28T23:30:00Z', owner.userId);
    const done = await app.call<{ record: { id: number } }>('POST', '/api/trips/attests', { token, body: { period: '2026-02', note: 'ok' } });
    expect(done.status).toBe(200);

    const read = await attested(`unitId=${unitId}&from=2026-02-01&to=2026-03-31`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ unitId, from: '2026-01-31T23:00:00.000Z', to: '2026-03-31T22:00:00.000Z', attestedTripIds: [mine] });
    expect([othersTrip, noDriver, march]).not.toContain(mine);

    // The other driver attests too (an administrator for them).
    expect((await app.call('POST', '/api/trips/attests', { token, body: { userId: otherDriverId, period: '2026-02' } })).status).toBe(200);
    expect((await attested(`unitId=${unitId}&from=2026-02-01&to=2026-02-28`)).body.data!.attestedTripIds).toEqual([mine, othersTrip]);

    const unattested = await app.call('POST', `/api/trips/attests/${done.body.data!.record.id}/unattest`, { token });
    expect(unattested.status).toBe(200);
    expect((await attested(`unitId=${unitId}&from=2026-02-01&to=2026-02-28`)).body.data!.attestedTripIds).toEqual([othersTrip]);
  });

  test('the period follows the trip list rules (at most 12 months, order) and another unit is 404', async () => {
    const tooLong = await attested(`unitId=${unitId}&from=2025-01-01&to=2026-02-28`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({ to: ['The period can be at most 12 months.'] });
    expect((await attested(`unitId=${unitId}&from=2026-03-01&to=2026-02-01`)).status).toBe(422);
    expect((await attested('unitId=999999&from=2026-02-01&to=2026-02-28')).status).toBe(404);
    expect((await app.call('GET', `/api/trips/attested?unitId=${unitId}`)).status).toBe(401);
  });
});
