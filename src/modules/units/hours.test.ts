import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { NormalizedIo } from '../../lib/tracker-record';
import { IngestWriter } from '../tracking/service';
import type { UnitDetail, UnitView } from './model';
import { addUnit, nextImei } from './testing';

/**
 * Spec §3 operating hours counted from the tracker (ignition-on time, or the tracker's own engine-hours IO),
 * calibrated like the odometer; and the checked-in driver in the unit list.
 */
// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

let app: TestApp;
let writer: IngestWriter;
let accountId: number;
let token: string;
beforeAll(async () => {
  app = await createTestApp();
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log);
  const admin = await app.createAccount();
  accountId = admin.accountId;
  token = await app.login(admin);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function report(unitId: number, records: Array<[string, NormalizedIo]>) {
  await writer.submit({
    unitId,
    accountId,
    protocol: 'teltonika',
    deviceId: 'x',
    receivedAt: new Date(records.at(-1)![0]),
    records: records.map(([at, normalized]) => ({
      protocol: 'teltonika' as const,
      deviceId: 'x',
      time: new Date(at),
      latitude: 59.3,
      longitude: 18.07,
      altitude: 0,
      speedKmh: 20,
      course: 90,
      satellites: 8,
      valid: true,
      priority: 0,
      eventId: 0,
      io: {},
      normalized,
    })),
  });
  // The unit's state and the events after it are written behind the positions: wait for them.
  await writer.drain();
  await app.services.units.engineHoursSettled();
}

const hoursOf = async (unitId: number) => (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!.OperatingHours;

describe('operating hours from the tracker', () => {
  test('ignition-on time counts; off time, late records and long silences do not', async () => {
    const unit = await addUnit(app, accountId, nextImei('35630704260'), 'Excavator');
    expect(await hoursOf(unit)).toBeNull();
    await report(unit, [
      ['2026-03-02T06:00:00Z', { ignition: true }],
      ['2026-03-02T06:30:00Z', { ignition: true }],
      ['2026-03-02T07:00:00Z', { ignition: false }], // 1 h on
      ['2026-03-02T09:00:00Z', { ignition: true }], // 2 h off
    ]);
    expect(await hoursOf(unit)).toBe(1);
    // A record older than the newest counted (arriving late) changes nothing.
    await report(unit, [['2026-03-02T08:00:00Z', { ignition: true }]]);
    expect(await hoursOf(unit)).toBe(1);
    // On from 09:00; the tracker is silent for 5 h: at most 30 minutes of that gap count.
    await report(unit, [['2026-03-02T14:00:00Z', { ignition: false }]]);
    expect(await hoursOf(unit)).toBe(1.5);
  });

  test("the tracker's engine-hours IO wins where its model reports one; calibration adds what is counted after it", async () => {
    const unit = await addUnit(app, accountId, nextImei('35630704260'), 'Tractor');
    await report(unit, [['2026-03-02T06:00:00Z', { ignition: true, engineSeconds: 36_000 }]]);
    expect(await hoursOf(unit)).toBe(10);
    // Calibrated to today's reading on the machine's own meter.
    const calibrated = await app.call<UnitDetail>('POST', `/api/units/${unit}/meters`, { token, body: { odometerKm: 0, operatingHours: 1250 } });
    expect(calibrated.status).toBe(200);
    expect(calibrated.body.data!.OperatingHours).toBe(1250);
    await report(unit, [['2026-03-02T08:30:00Z', { ignition: true, engineSeconds: 36_000 + 2.5 * 3600 }]]);
    expect(await hoursOf(unit)).toBe(1252.5);
    const history = await app.call<Array<{ kind: string; value: number }>>('GET', `/api/units/${unit}/meters/history`, { token });
    expect(history.body.data!.filter((entry) => entry.kind === 'hours').map((entry) => entry.value)).toEqual([1250]);
    // The list shows the same value.
    const list = await app.call<UnitView[]>('GET', '/api/units', { token });
    expect(list.body.data!.find((entry) => entry.ID === unit)!.OperatingHours).toBe(1252.5);
  });
});

describe('checked-in driver in the unit list', () => {
  test("the driver checked in now (trip log), by name; checked out shows none", async () => {
    const unit = await addUnit(app, accountId, nextImei('35630704261'), 'Pool car');
    const [driver] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role)
      values (${accountId}, ${`driver-${unit}@example.com`}, 'x', 'Dora', 'Driver', 'user') returning id`);
    const row = async () => (await app.call<UnitView[]>('GET', '/api/units', { token })).body.data!.find((entry) => entry.ID === unit)!;
    expect((await row()).CheckedInDriver).toBeNull();
    await app.database.rows(sql`insert into trip_driver_checkins (unit_id, account_id, user_id, checked_in_at) select id, account_id, ${driver!.id}, now() from units where id = ${unit}`);
    expect((await row()).CheckedInDriver).toEqual({ id: driver!.id, name: 'Dora Driver' });
    await app.database.rows(sql`update trip_driver_checkins set checked_out_at = now() where unit_id = ${unit}`);
    expect((await row()).CheckedInDriver).toBeNull();
  });
});

describe("the unit screens show tracking's latest state", () => {
  test('position, last contact, status, odometer, inputs and outputs as tracking reports them; a record without a fix keeps the last fix', async () => {
    const unit = await addUnit(app, accountId, nextImei('35630704262'), 'Service van');
    const detail = async () => (await app.call<UnitDetail>('GET', `/api/units/${unit}`, { token })).body.data!;
    expect(await detail()).toMatchObject({ Position: null, LastSeen: null, Status: 'offline', OdometerKm: null, Outputs: { dout1: null }, Inputs: { din2: null } });
    const record = (at: string, valid: boolean, latitude: number, normalized: NormalizedIo) => ({
      protocol: 'teltonika' as const,
      deviceId: 'x',
      time: new Date(at),
      latitude,
      longitude: 18.123_456_78,
      altitude: 0,
      speedKmh: 33.33,
      course: 90,
      satellites: 8,
      valid,
      priority: 0,
      eventId: 0,
      io: {},
      normalized,
    });
    const submit = async (records: ReturnType<typeof record>[]) => {
      await writer.submit({ unitId: unit, accountId, protocol: 'teltonika', deviceId: 'x', receivedAt: records.at(-1)!.time, records });
      await writer.drain();
    };
    await submit([record('2026-03-02T07:58:00Z', true, 59.123_456_78, { ignition: true, odometerM: 12_345.6, dout1: true, din2: false })]);
    const [live] = await app.services.tracking.liveStates([unit]);
    const shown = await detail();
    expect(shown.Position).toEqual({ lat: live!.lat!, lon: live!.lon!, time: live!.time });
    expect(shown.Position).toEqual({ lat: 59.123457, lon: 18.123457, time: '2026-03-02T07:58:00.000Z' });
    expect(shown).toMatchObject({
      LastSeen: live!.lastSeen,
      Status: live!.status,
      OdometerKm: 12.3,
      Outputs: { dout1: true, dout2: null, dout3: null },
      Inputs: { din2: false, din3: null },
    });
    // The newest record has no fix: the unit is shown where it last had one, with the newest contact and IO.
    await submit([record('2026-03-02T07:59:00Z', false, 0, { ignition: true, dout1: false })]);
    const [later] = await app.services.tracking.liveStates([unit]);
    const again = await detail();
    expect(again.Position).toEqual({ lat: later!.lat!, lon: later!.lon!, time: later!.time });
    expect(again.Position!.lat).toBe(59.123457);
    expect(again).toMatchObject({ LastSeen: later!.lastSeen, Status: later!.status, Outputs: { dout1: false } });
    const list = await app.call<UnitView[]>('GET', '/api/units', { token });
    expect(list.body.data!.find((entry) => entry.ID === unit)).toMatchObject({ LastSeen: later!.lastSeen, Status: later!.status, Outputs: { dout1: false } });
  });
});
