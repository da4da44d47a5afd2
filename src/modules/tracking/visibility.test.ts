import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { Actor } from '../auth/model';
import { IngestWriter } from './ingest';
import { LiveHub, type LiveSocket } from './live';
import { decodeUnitList, type LiveMessage, type UnitAccess, visibleOnMap, type WeeklyHours, withinWorkingHours } from './model';
import { createTrackingService } from './service';

/**
 * Spec §6 on the map: a locked benefit or private car is seen by users with access; an administrator
 * without access sees it only within its working hours (when set); other users without access never.
 * Enforced on the server for the unit list, the history and the live socket alike.
 */
let app: TestApp;
let writer: IngestWriter;
let accountId: number;
let admin: Actor;
let user: Actor;
let openCar: number;
let lockedCar: number;
/** Working hours of the locked car: Monday to Friday 07:00-17:00 Stockholm time. */
const WEEKDAYS: WeeklyHours = { 1: [[420, 1020]], 2: [[420, 1020]], 3: [[420, 1020]], 4: [[420, 1020]], 5: [[420, 1020]] };
let hours: WeeklyHours | null = WEEKDAYS;

// Monday 2 March 2026: 08:00 UTC is 09:00 in Stockholm (working hours); 18:00 UTC is 19:00 (not).
const IN_HOURS = '2026-03-02T08:00:00Z';
const AFTER_HOURS = '2026-03-02T18:00:00Z';

function unitAccess(actor: Actor): Promise<Map<number, UnitAccess>> {
  return Promise.resolve(
    new Map([[lockedCar, { locked: true, hasAccess: actor.userId === -1, workingHours: hours, timeZone: 'Europe/Stockholm' }]]),
  );
}

function tracking() {
  return createTrackingService({ database: app.database, clock: app.clock, units: app.services.units }, { unitAccess: (actor) => unitAccess(actor) });
}

async function addUnit(name: string, imei: string): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return row!.id;
}

async function fix(unitId: number, at: string, latitude: number) {
  await writer.submit({
    unitId,
    accountId,
    protocol: 'teltonika',
    deviceId: 'x',
    receivedAt: new Date(at),
    records: [
      {
        protocol: 'teltonika',
        deviceId: 'x',
        time: new Date(at),
        latitude,
        longitude: 18.07,
        altitude: 0,
        speedKmh: 30,
        course: 90,
        satellites: 8,
        valid: true,
        priority: 0,
        eventId: 0,
        io: {},
        normalized: { ignition: true },
      },
    ],
  });
}

beforeAll(async () => {
  app = await createTestApp();
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log);
  const adminAccount = await app.createAccount();
  accountId = adminAccount.accountId;
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${accountId}, ${`plain-${Date.now()}@example.com`}, 'x', 'Plain', 'User', 'user') returning id`);
  const adminActor = await app.services.auth.authenticate(`Bearer ${await app.login(adminAccount)}`);
  admin = adminActor!;
  user = { ...admin, userId: row!.id, role: 'user' };
  openCar = await addUnit('Pool car', '356307042499001');
  lockedCar = await addUnit('Benefit car', '356307042499002');
  // Spec §6: the ordinary user sees the units given to them; both are (the locked car's access is the map's rule here).
  await app.grantUnits(user.userId);
  app.clock.set(IN_HOURS);
  await fix(openCar, '2026-03-02T07:30:00Z', 59.3);
  await fix(lockedCar, '2026-03-02T07:30:00Z', 59.31);
  await fix(lockedCar, '2026-03-02T17:30:00Z', 59.32);
  await writer.drain();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('locked cars on the map (spec §6)', () => {
  test('the rule: access sees always, an administrator within working hours (always when none are set), others never', () => {
    const locked: UnitAccess = { locked: true, hasAccess: false, workingHours: WEEKDAYS, timeZone: 'Europe/Stockholm' };
    expect(withinWorkingHours(WEEKDAYS, new Date(IN_HOURS), 'Europe/Stockholm')).toBe(true);
    expect(withinWorkingHours(WEEKDAYS, new Date(AFTER_HOURS), 'Europe/Stockholm')).toBe(false);
    expect(withinWorkingHours(WEEKDAYS, new Date('2026-03-07T10:00:00Z'), 'Europe/Stockholm')).toBe(false); // Saturday
    expect(visibleOnMap(undefined, 'user', new Date())).toBe(true);
    expect(visibleOnMap({ ...locked, locked: false }, 'user', new Date())).toBe(true);
    expect(visibleOnMap({ ...locked, hasAccess: true }, 'user', new Date(AFTER_HOURS))).toBe(true);
    expect(visibleOnMap(locked, 'user', new Date(IN_HOURS))).toBe(false);
    expect(visibleOnMap(locked, 'admin', new Date(IN_HOURS))).toBe(true);
    expect(visibleOnMap(locked, 'admin', new Date(AFTER_HOURS))).toBe(false);
    expect(visibleOnMap({ ...locked, workingHours: null }, 'admin', new Date(AFTER_HOURS))).toBe(true);
  });

  test('the unit list and the history leave the locked car out for whoever may not see it', async () => {
    const service = tracking();
    app.clock.set(IN_HOURS);
    expect(decodeUnitList(JSON.parse(await service.listUnitsJson(admin))).units.map((unit) => unit.id)).toEqual([lockedCar, openCar]);
    expect(decodeUnitList(JSON.parse(await service.listUnitsJson(user))).units.map((unit) => unit.id)).toEqual([openCar]);
    app.clock.set(AFTER_HOURS);
    expect(decodeUnitList(JSON.parse(await service.listUnitsJson(admin))).units.map((unit) => unit.id)).toEqual([openCar]);

    // History: the user gets 404 as for a missing unit; the administrator only the working hours' positions.
    await expect(service.history(user, { unitId: lockedCar, date: '2026-03-02' }, 'Europe/Stockholm')).rejects.toMatchObject({ status: 404 });
    const day = await service.history(admin, { unitId: lockedCar, date: '2026-03-02' }, 'Europe/Stockholm');
    expect(day.positions.map(([, lat]) => lat)).toEqual([59.31]);
    expect((await service.history(admin, { unitId: openCar, date: '2026-03-02' }, 'Europe/Stockholm')).positions).toHaveLength(1);
  });

  test('the live socket sends each user only what they may see, and asks for a reload when working hours end', async () => {
    const service = tracking();
    const hub = new LiveHub({ tracking: service, auth: app.services.auth, events: app.platform.events, clock: app.clock, log: app.platform.log }, { batchMs: 10 });
    const socket = () => {
      const messages: LiveMessage[] = [];
      const raw: LiveSocket = {
        send: (text) => {
          messages.push(JSON.parse(text) as LiveMessage);
          return text.length;
        },
        close: () => {},
      };
      return { raw, messages, ids: () => messages.flatMap((m) => (m.type === 'update' || m.type === 'catchup' ? m.units.map((u) => u.id) : [])) };
    };
    app.clock.set(IN_HOURS);
    const adminSocket = socket();
    const userSocket = socket();
    const token = 'not-checked-here';
    await hub.open(adminSocket.raw, admin, token, null);
    await hub.open(userSocket.raw, user, token, null);
    hub.markChanged([openCar, lockedCar]);
    await hub.flushNow();
    expect(adminSocket.ids().sort()).toEqual([openCar, lockedCar].sort());
    expect(userSocket.ids()).toEqual([openCar]);

    // Working hours end: the administrator's map reloads its list (without the locked car) and gets no more of it.
    app.clock.set(AFTER_HOURS);
    const visibility = await service.visibility(admin);
    expect(visibility!(lockedCar, new Date(AFTER_HOURS))).toBe(false);
    hub.stop();
  });

  test('without locked cars nothing is filtered', async () => {
    hours = null;
    const service = createTrackingService({ database: app.database, clock: app.clock, units: app.services.units });
    expect(await service.visibility(user)).toBeNull();
    expect(decodeUnitList(JSON.parse(await service.listUnitsJson(user))).units).toHaveLength(2);
    hours = WEEKDAYS;
  });
});
