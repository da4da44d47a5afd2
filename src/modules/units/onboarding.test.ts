import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { CarInfoPending, UnitDetail } from './model';
import { addUnit, nextImei } from './testing';

/** Car info onboarding (spec §2): the guided form after registration and for units added later; skippable and resumable. */
setDefaultTimeout(30_000);

let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let userToken: string;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  token = await app.login(admin);
  const email = `plain-onboarding-${admin.userId}@example.com`;
  await app.database.rows(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${admin.accountId}, ${email}, (select password_hash from users where id = ${admin.userId}), 'Pia', 'Plain', 'user')`);
  userToken = await app.login({ email, password: admin.password, subsiteId: 0 });
}, 180_000);
afterAll(async () => {
  await app?.close();
});

const pending = (as = token) => app.call<CarInfoPending[]>('GET', '/api/units/car-info', { token: as });
const info = {
  registrationNumber: 'abc 123',
  model: 'Volvo V60 D4',
  fuelType: 'diesel',
  fuelConsumptionPer10Km: 0.55,
  co2GPerKm: 119,
  carUsage: 'benefit',
  fuelPayer: 'company',
  odometerKm: 45210,
};

describe('car info onboarding', () => {
  test('new trip-log units wait for it; skipping keeps them listed (resumable); saving sets every field and the odometer', async () => {
    const car = await addUnit(app, admin.accountId, nextImei('35900001'), 'New car');
    await addUnit(app, admin.accountId, nextImei('35900001'), 'Trailer tag', { deviceKind: 'battery', model: 'TAT100' });
    expect((await pending()).body.data!.map((unit) => [unit.id, unit.skipped])).toEqual([[car, false]]);
    expect((await app.call('POST', `/api/units/${car}/car-info/skip`, { token })).status).toBe(200);
    expect((await pending()).body.data!.map((unit) => [unit.id, unit.skipped])).toEqual([[car, true]]);

    const saved = await app.call<UnitDetail>('POST', `/api/units/${car}/car-info`, { token, body: info });
    expect(saved.status).toBe(200);
    expect(saved.body.data!.RegistrationNumber).toBe('ABC123');
    expect(saved.body.data!.Model).toBe('Volvo V60 D4');
    expect(saved.body.data!.OdometerKm).toBe(45210);
    const [row] = await app.database.query<{ fuel_type: string; fuel_consumption_per_10km: string; co2_g_per_km: string; car_usage: string; fuel_payer: string }>(
      'SELECT fuel_type, fuel_consumption_per_10km, co2_g_per_km, car_usage, fuel_payer FROM units WHERE id = $1',
      [car],
    );
    expect([row!.fuel_type, Number(row!.fuel_consumption_per_10km), Number(row!.co2_g_per_km), row!.car_usage, row!.fuel_payer]).toEqual(['diesel', 0.55, 119, 'benefit', 'company']);
    expect((await pending()).body.data).toEqual([]);
    // Done stays done: a late skip does not bring it back.
    await app.call('POST', `/api/units/${car}/car-info/skip`, { token });
    expect((await pending()).body.data).toEqual([]);
  });

  test('§5 rules: registration number letters and digits; a benefit car needs consumption and CO2; the fuel payer; nothing half-written', async () => {
    const car = await addUnit(app, admin.accountId, nextImei('35900002'), 'Second car');
    const bad = async (body: Record<string, unknown>) => {
      const answer = await app.call('POST', `/api/units/${car}/car-info`, { token, body: { ...info, ...body }, headers: { 'x-lang': 'en' } });
      expect(answer.status).toBe(422);
      return answer.body.errors as Record<string, string[]>;
    };
    expect(Object.keys(await bad({ registrationNumber: '' }))).toEqual(['registrationNumber']);
    expect(await bad({ fuelConsumptionPer10Km: null, co2GPerKm: null })).toEqual({
      fuelConsumptionPer10Km: ['Fuel consumption is required for benefit cars.'],
      co2GPerKm: ['CO2 emission is required for benefit cars.'],
    });
    expect(Object.keys(await bad({ carUsage: 'private', fuelPayer: null }))).toEqual(['fuelPayer']);
    expect(Object.keys(await bad({ odometerKm: -1 }))).toEqual(['odometerKm']);
    const [row] = await app.database.query<{ registration_number: string }>('SELECT registration_number FROM units WHERE id = $1', [car]);
    expect(row!.registration_number).toBe('');
    expect((await pending()).body.data!.map((unit) => unit.id)).toContain(car);
  });

  test('administrators only', async () => {
    const car = await addUnit(app, admin.accountId, nextImei('35900003'), 'Third car');
    expect((await pending(userToken)).status).toBe(403);
    expect((await app.call('POST', `/api/units/${car}/car-info/skip`, { token: userToken })).status).toBe(403);
    expect((await app.call('POST', `/api/units/${car}/car-info`, { token: userToken, body: info })).status).toBe(403);
  });
});
