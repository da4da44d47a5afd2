import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { UnitAccessUser, UnitDetail, UnitView, UserUnitAccess } from './model';
import { addUnit, nextImei, setState } from './testing';
import { decodeUnitList, type TrackedUnitList } from '../tracking/model';

/**
 * Spec §6 unit access: ordinary users see only the units given to them; administrators give access; a
 * department change resets it; a locked benefit or private car's trips and positions are for its locker
 * and the users given access (an administrator without access sees it on the map in working hours only).
 */
// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

interface Company {
  admin: Awaited<ReturnType<TestApp['createAccount']>>;
  adminToken: string;
  userId: number;
  userToken: string;
  secondUserId: number;
  secondToken: string;
}

async function company(): Promise<Company> {
  const admin = await app.createAccount();
  const ids: number[] = [];
  const tokens: string[] = [];
  for (const name of ['Olle', 'Pia']) {
    const email = `${name.toLowerCase()}-${admin.userId}@example.com`;
    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role)
      values (${admin.accountId}, ${email}, (select password_hash from users where id = ${admin.userId}), ${name}, 'Plain', 'user') returning id`);
    ids.push(user!.id);
    tokens.push(await app.login({ email, password: admin.password, subsiteId: 0 }));
  }
  return { admin, adminToken: await app.login(admin), userId: ids[0]!, userToken: tokens[0]!, secondUserId: ids[1]!, secondToken: tokens[1]! };
}

const listIds = async (token: string) => (await app.call<UnitView[]>('GET', '/api/units', { token })).body.data!.map((unit) => unit.ID);
const mapIds = async (token: string) =>
  decodeUnitList((await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token })).body.data!).units.map((unit) => unit.id);

describe('unit access (administrators give units to users)', () => {
  test("a unit's users: read and set; the user then sees exactly those units, in the list, the map and the edit page", async () => {
    const c = await company();
    const van = await addUnit(app, c.admin.accountId, nextImei('35630704250'), 'Van', { grant: false });
    const truck = await addUnit(app, c.admin.accountId, nextImei('35630704250'), 'Truck', { grant: false });
    expect(await listIds(c.userToken)).toEqual([]);
    expect(await mapIds(c.userToken)).toEqual([]);

    const before = await app.call<UnitAccessUser[]>('GET', `/api/admin/units/${van}/users`, { token: c.adminToken });
    expect(before.status).toBe(200);
    expect(before.body.data!.map((user) => [user.id, user.seesAll, user.hasAccess])).toEqual([
      [c.userId, false, false],
      [c.secondUserId, false, false],
      [c.admin.userId, true, false],
    ]);

    const set = await app.call<UnitAccessUser[]>('POST', `/api/admin/units/${van}/users`, { token: c.adminToken, body: { userIds: [c.userId] } });
    expect(set.status).toBe(200);
    expect(set.body.data!.filter((user) => user.hasAccess).map((user) => user.id)).toEqual([c.userId]);
    expect(await listIds(c.userToken)).toEqual([van]);
    expect(await mapIds(c.userToken)).toEqual([van]);
    expect((await app.call<UnitDetail>('GET', `/api/units/${van}`, { token: c.userToken })).status).toBe(200);
    const denied = await app.call('GET', `/api/units/${truck}`, { token: c.userToken });
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toBe('You have no access to this tracker.');
    // Sections, bulk tasks and addresses follow the same rule.
    expect((await app.call('POST', `/api/units/${truck}/name`, { token: c.userToken, body: { name: 'Mine now' } })).status).toBe(403);
    expect((await app.call('POST', '/api/units/bulk', { token: c.userToken, body: { unitIds: [van, truck], task: { kind: 'department', departmentId: null } } })).status).toBe(404);
    const addresses = await app.call<{ addresses: Array<{ unitId: number; lat: number | null }> }>('GET', `/api/tracking/addresses?unitIds=${truck}`, { token: c.userToken });
    expect(addresses.body.data?.addresses.every((entry) => entry.lat === null) ?? true).toBe(true);
    // The other user still sees nothing; the administrator sees every unit.
    expect(await listIds(c.secondToken)).toEqual([]);
    expect(await listIds(c.adminToken)).toEqual([truck, van]);

    // Setting the list replaces it.
    await app.call('POST', `/api/admin/units/${van}/users`, { token: c.adminToken, body: { userIds: [c.secondUserId] } });
    expect(await listIds(c.userToken)).toEqual([]);
    expect(await listIds(c.secondToken)).toEqual([van]);
  });

  test("a user's units: read and set, replacing the previous set", async () => {
    const c = await company();
    const a = await addUnit(app, c.admin.accountId, nextImei('35630704251'), 'A car', { grant: false });
    const b = await addUnit(app, c.admin.accountId, nextImei('35630704251'), 'B car', { grant: false });
    const set = await app.call<UserUnitAccess>('POST', `/api/admin/users/${c.userId}/units`, { token: c.adminToken, body: { unitIds: [b, a, a] } });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ userId: c.userId, unitIds: [a, b].sort((x, y) => x - y) });
    expect(await listIds(c.userToken)).toEqual([a, b]);
    await app.call('POST', `/api/admin/users/${c.userId}/units`, { token: c.adminToken, body: { unitIds: [b] } });
    expect((await app.call<UserUnitAccess>('GET', `/api/admin/users/${c.userId}/units`, { token: c.adminToken })).body.data).toEqual({ userId: c.userId, unitIds: [b] });
    expect(await listIds(c.userToken)).toEqual([b]);
    await app.call('POST', `/api/admin/users/${c.userId}/units`, { token: c.adminToken, body: { unitIds: [] } });
    expect(await listIds(c.userToken)).toEqual([]);
  });

  test('only administrators manage access; bad input is 422 and changes nothing', async () => {
    const c = await company();
    const van = await addUnit(app, c.admin.accountId, nextImei('35630704252'), 'Van', { grant: false });
    await app.grantUnits(c.userId, [van]);
    for (const [method, path, body] of [
      ['GET', `/api/admin/units/${van}/users`, undefined],
      ['POST', `/api/admin/units/${van}/users`, { userIds: [c.userId, c.secondUserId] }],
      ['GET', `/api/admin/users/${c.userId}/units`, undefined],
      ['POST', `/api/admin/users/${c.secondUserId}/units`, { unitIds: [van] }],
    ] as const) {
      const result = await app.call(method, path, { token: c.userToken, body });
      expect({ path, status: result.status }).toEqual({ path, status: 403 });
    }
    expect(await listIds(c.secondToken)).toEqual([]);
    const bad = await app.call('POST', `/api/admin/units/${van}/users`, { token: c.adminToken, body: { userIds: ['x'] } });
    expect(bad.status).toBe(422);
    const missing = await app.call('POST', `/api/admin/units/${van}/users`, { token: c.adminToken, body: { userIds: [c.userId, 2_000_000_000] } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ userIds: ['Invalid user ID.'] });
    expect(await listIds(c.userToken)).toEqual([van]);
  });

  test("changing a user's department resets their unit access (spec §6)", async () => {
    const c = await company();
    const van = await addUnit(app, c.admin.accountId, nextImei('35630704253'), 'Van', { grant: false });
    await app.grantUnits(c.userId, [van]);
    await app.grantUnits(c.secondUserId, [van]);
    // Published durably in the transaction of the change; the units module's subscriber resets the access.
    await app.database.transaction((tx) =>
      app.platform.outbox.publish(tx, 'user.department_changed', { accountId: c.admin.accountId, userId: c.userId, departmentId: null }),
    );
    await app.platform.outbox.drain();
    expect(await listIds(c.userToken)).toEqual([]);
    expect(await listIds(c.secondToken)).toEqual([van]);
    // The same through the service, inside a caller's transaction.
    await app.services.units.resetUserAccess(c.secondUserId);
    expect(await listIds(c.secondToken)).toEqual([]);
  });
});

describe('locked benefit and private cars (spec §6)', () => {
  test('without access: the list shows the car without its whereabouts, and its trips and history are refused', async () => {
    const c = await company();
    const car = await addUnit(app, c.admin.accountId, nextImei('35630704254'), 'Benefit car', { grant: false });
    await app.grantUnits(c.userId, [car]);
    await setState(app, car, { lat: 59.4, lon: 18.1, speed: 40, ignition: true });
    await app.database.rows(sql`update units set car_usage = 'benefit', fuel_consumption_per_10km = 0.6, co2_g_per_km = 120 where id = ${car}`);
    // The driver locks their car.
    expect((await app.call('POST', `/api/units/${car}/lock`, { token: c.userToken })).status).toBe(200);

    // The locker keeps everything.
    const mine = await app.call<UnitDetail>('GET', `/api/units/${car}`, { token: c.userToken });
    expect(mine.body.data!.HasAccess).toBe(true);
    expect(mine.body.data!.Position).toEqual({ lat: 59.4, lon: 18.1, time: expect.any(String) });
    expect((await app.call('GET', `/api/trips?unitId=${car}`, { token: c.userToken })).status).toBe(200);
    expect((await app.call('GET', `/api/tracking/history?unitId=${car}&date=2026-03-02`, { token: c.userToken })).status).toBe(200);

    // The administrator without access: the unit, its benefit data, no position, no trips.
    const list = await app.call<UnitView[]>('GET', '/api/units', { token: c.adminToken });
    const row = list.body.data!.find((unit) => unit.ID === car)!;
    expect(row).toMatchObject({ isLocked: true, HasAccess: false, LastSeen: null, CarUsage: 'benefit', Status: 'offline' });
    const detail = await app.call<UnitDetail>('GET', `/api/units/${car}`, { token: c.adminToken });
    expect(detail.body.data).toMatchObject({ HasAccess: false, Position: null, FuelConsumptionPer10Km: 0.6, Co2GPerKm: 120 });
    const trips = await app.call('GET', `/api/trips?unitId=${car}`, { token: c.adminToken });
    expect(trips.status).toBe(403);
    expect(trips.body.errors).toBe('The car is locked by its user: you have no access to its trips and positions.');
    expect(await app.services.units.canReadTracks(await actorOf(c.adminToken), car)).toBe(false);
    expect(await app.services.units.canReadTracks(await actorOf(c.userToken), car)).toBe(true);
    const first = await app.call<{ Position: unknown; LastSeen: unknown }>('GET', `/api/admin/units/${car}/first-position`, { token: c.adminToken });
    expect(first.body.data).toMatchObject({ Position: null, LastSeen: null });

    // No working hours set: the administrator sees it on the map (always); with working hours only within them.
    expect(await mapIds(c.adminToken)).toContain(car);
    await app.database.rows(sql`update units set working_hours = ${JSON.stringify({ enabled: true, days: [{ day: 1, start: '07:00', end: '17:00' }] })}::jsonb where id = ${car}`);
    app.clock.set('2026-03-02T08:00:00Z'); // Monday 09:00 in Stockholm
    expect(await mapIds(c.adminToken)).toContain(car);
    app.clock.set('2026-03-02T18:00:00Z'); // Monday 19:00
    expect(await mapIds(c.adminToken)).not.toContain(car);
    app.clock.set('2026-03-02T08:00:00Z');

    // Given access, the administrator reads it all.
    await app.call('POST', `/api/admin/units/${car}/users`, { token: c.adminToken, body: { userIds: [c.userId, c.admin.userId] } });
    expect((await app.call('GET', `/api/trips?unitId=${car}`, { token: c.adminToken })).status).toBe(200);
    expect((await app.call<UnitDetail>('GET', `/api/units/${car}`, { token: c.adminToken })).body.data!.HasAccess).toBe(true);
    const users = await app.call<UnitAccessUser[]>('GET', `/api/admin/units/${car}/users`, { token: c.adminToken });
    expect(users.body.data!.find((user) => user.id === c.userId)).toMatchObject({ isLocker: true, hasAccess: true });

    // Unlocked, everyone who sees the unit reads it again.
    await app.call('POST', `/api/admin/units/${car}/users`, { token: c.adminToken, body: { userIds: [c.userId] } });
    expect((await app.call('POST', `/api/units/${car}/unlock`, { token: c.userToken })).status).toBe(200);
    expect((await app.call('GET', `/api/trips?unitId=${car}`, { token: c.adminToken })).status).toBe(200);
  });
});

describe('tracker replacement', () => {
  test('emits unit.tracker_replaced with the old and the new IMEI', async () => {
    const c = await company();
    const oldImei = nextImei('35630704255');
    const newImei = nextImei('35630704255');
    const car = await addUnit(app, c.admin.accountId, oldImei, 'Car', { grant: false });
    await app.services.units.addStock({ imeis: [newImei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const seen: unknown[] = [];
    const off = app.platform.events.on('unit.tracker_replaced', (payload) => {
      seen.push(payload);
    });
    const result = await app.call('POST', `/api/units/${car}/replace-tracker`, { token: c.adminToken, body: { imei: newImei, confirm: true } });
    off();
    expect(result.status).toBe(200);
    expect(seen).toEqual([{ unitId: car, accountId: c.admin.accountId, oldImei, newImei }]);
    expect(await app.services.units.findUnitByImei(oldImei)).toBeNull();
  });
});

async function actorOf(token: string) {
  return (await app.services.auth.authenticate(`Bearer ${token}`))!;
}
