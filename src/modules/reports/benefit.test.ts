import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { AppError } from '../../lib/http';
import { hashPassword } from '../../lib/password';
import { addUnit, rawCall, readPdf } from '../units/testing';
import type { BenefitCarView, BenefitParameterUsed, BenefitReport } from './model';
import { reportUnits } from './service';

/**
 * GET /api/reports/benefit and its export, the car's valuation details, §5 and §6, over the seeded parameters
 * (migration 0400) and trips in the trip log. The test clock is 2 March 2026.
 */
// The machine running the suite may be busy: a report reads several units' trip logs.
setDefaultTimeout(30_000);

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let secondAdmin: { userId: number; token: string };
let ordinaryToken: string;
let kiaId: number;
let privateCarId: number;
let lockedCarId: number;
let legacyCarId: number;
let norwayCarId: number;

async function addTrip(unitId: number, start: string, km: number, type: 'business' | 'private' | 'other', driverUserId: number | null = null) {
  const stop = new Date(Date.parse(start) + 30 * 60_000).toISOString();
  await app.database.query(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m, odometer_source,
                        distance_m, max_speed_kmh, avg_speed_kmh, type, detection, driver_user_id)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             0, $5, 'device', $5, 90, 50, $6, 'ignition', $7)`,
    [unitId, owner.accountId, start, stop, km * 1000, type, driverUserId],
  );
}

async function addUser(role: 'admin' | 'user', name: string): Promise<{ userId: number; token: string }> {
  const email = `${name.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${owner.accountId}, ${email}, ${await hashPassword('Secret-123!')}, ${name}, 'Tester', ${role}) returning id`);
  return { userId: user!.id, token: await app.login({ email, password: 'Secret-123!', subsiteId: 0 }) };
}

async function setUnit(unitId: number, values: { usage: string; fuelType?: string; consumption?: number | null; co2?: number | null; payer?: string | null; reimbursement?: number | null }) {
  await app.database.rows(sql`
    update units set car_usage = ${values.usage}, fuel_type = ${values.fuelType ?? 'petrol'}, fuel_consumption_per_10km = ${values.consumption ?? null},
      co2_g_per_km = ${values.co2 ?? null}, fuel_payer = ${values.payer ?? null}, reimbursement_per_10km = ${values.reimbursement ?? null}
    where id = ${unitId}`);
}

async function report(query: string, as = token) {
  return app.call<BenefitReport>('GET', `/api/reports/benefit?${query}`, { token: as });
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  await app.database.rows(sql`update accounts set country = 'Sverige' where id = ${owner.accountId}`);
  token = await app.login(owner);
  secondAdmin = await addUser('admin', 'Second');

  kiaId = await addUnit(app, owner.accountId, '356307042498001', 'Kia EV6', { registrationNumber: 'EV6001' });
  await setUnit(kiaId, { usage: 'benefit', fuelType: 'electricity', consumption: 1.8, co2: 0, payer: 'company' });
  privateCarId = await addUnit(app, owner.accountId, '356307042498002', 'Own Volvo', { registrationNumber: 'OWN001' });
  await setUnit(privateCarId, { usage: 'private', consumption: 0.7, co2: 160, payer: 'private', reimbursement: 30 });
  lockedCarId = await addUnit(app, owner.accountId, '356307042498003', 'Locked Golf', { registrationNumber: 'LCK001' });
  await setUnit(lockedCarId, { usage: 'benefit', consumption: 0.6, co2: 120, payer: 'company' });
  await app.database.rows(sql`update units set locked_by = ${owner.userId}, locked_at = now() where id = ${lockedCarId}`);
  // A benefit car from before the §5 rule: no CO2 and no consumption.
  legacyCarId = await addUnit(app, owner.accountId, '356307042498004', 'Old Saab', { registrationNumber: 'OLD001' });
  await setUnit(legacyCarId, { usage: 'benefit', payer: 'company' });
  norwayCarId = await addUnit(app, owner.accountId, '356307042498005', 'Oslo van', { registrationNumber: 'NO1234' });
  await setUnit(norwayCarId, { usage: 'benefit', fuelType: 'diesel', consumption: 0.8, co2: 180, payer: 'company' });
  ordinaryToken = (await addUser('user', 'Ordinary')).token;

  const put = async (unitId: number, body: Record<string, unknown>) => {
    const result = await app.call<BenefitCarView>('PUT', `/api/reports/benefit/cars/${unitId}`, { token, body });
    expect(result.status).toBe(200);
  };
  await put(kiaId, { listPrice: 639_900, powertrain: 'electric', firstRegistered: '2024-01-15', vehicleTax: 360, holderUserId: owner.userId });
  await put(lockedCarId, { listPrice: 350_000, extraEquipment: 15_000, firstRegistered: '2022-03-01', vehicleTax: 1_800 });
  await put(privateCarId, {});
  await put(norwayCarId, { country: 'NO', vehicleClass: 'van', listPrice: 400_000, firstRegistered: '2021-01-01' });

  await addTrip(privateCarId, '2026-01-10T08:00:00Z', 150, 'business', owner.userId);
  await addTrip(privateCarId, '2026-01-11T08:00:00Z', 20, 'private', owner.userId);
  await addTrip(lockedCarId, '2026-01-12T08:00:00Z', 80, 'business', owner.userId);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe('GET /api/reports/benefit', () => {
  test("domain.md's worked example over 2024: 12 × 5 636.49, 67 637.88 a year, with the employer contributions and the parameters used", async () => {
    const result = await report(`unitIds=${kiaId}&from=2024-01-01&to=2024-12-31`);
    expect(result.status).toBe(200);
    const data = result.body.data!;
    expect({ from: data.from, to: data.to }).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    const car = data.cars[0]!;
    expect(car.months.length).toBe(12);
    expect(car.months.every((month) => month.value === 5_636.49 && month.annualValue === 67_637.88)).toBe(true);
    expect(car.benefitValue).toBe(67_637.88);
    expect(car.employerContributionBasis).toBe(67_637.88);
    expect(car.employerContributionRate).toBe(0.3142);
    expect(car.employerContributions).toBe(21_251.82);
    expect(car.valuation).toMatchObject({ country: 'SE', model: 'from2021', reduction: 319_950, reductionCapped: true, priceUsed: 319_950, sixYearRule: false });
    expect(car.holder?.id).toBe(owner.userId);
    expect(car.problems).toEqual([]);
    const used = new Map(data.parameters.map((parameter) => [`${parameter.country} ${parameter.year} ${parameter.key}`, parameter]));
    expect(used.get('SE 2024 pbb')).toMatchObject({ value: 57_300, verified: true });
    expect(used.get('SE 2024 slr')).toMatchObject({ value: 0.0262, verified: true });
    expect(data.totals).toEqual([
      { currency: 'SEK', benefitValue: 67_637.88, employerContributionBasis: 67_637.88, employerContributions: 21_251.82, reimbursementPaid: 0, reimbursementTaxFree: 0, reimbursementTaxable: 0 },
    ]);
  });

  test('2026 shows that its SLR is unverified; months before the car was available are left out', async () => {
    await app.call('PUT', `/api/reports/benefit/cars/${kiaId}`, {
      token,
      body: { listPrice: 639_900, powertrain: 'electric', firstRegistered: '2024-01-15', vehicleTax: 360, holderUserId: owner.userId, availableFrom: '2026-02-20' },
    });
    const data = (await report(`unitIds=${kiaId}&from=2026-01-01&to=2026-02-28`)).body.data!;
    const car = data.cars[0]!;
    expect(car.months.map((month) => month.month)).toEqual(['2026-02']);
    expect(data.parameters.find((parameter) => parameter.key === 'slr')).toMatchObject({ year: 2026, value: 0.0255, verified: false });
    expect(data.parameters.find((parameter) => parameter.key === 'reduction.electric')).toMatchObject({ year: 2026, verified: false });
  });

  test('mileage allowance of a private car from the trip log: 25 kr/mil tax free, the rest of 30 kr/mil taxable; per driver too', async () => {
    const data = (await report(`unitIds=${privateCarId}&from=2026-01-01&to=2026-01-31`)).body.data!;
    expect(data.cars[0]!.distanceKm).toEqual({ business: 150, private: 20, other: 0 });
    expect(data.cars[0]!.months).toEqual([]);
    expect(data.reimbursements).toEqual([
      {
        unitId: privateCarId,
        unitName: 'Own Volvo',
        driverId: null,
        driverName: null,
        kind: 'ownCar',
        country: 'SE',
        currency: 'SEK',
        businessKm: 150,
        businessMiles: null,
        milesBeforePeriod: null,
        paid: 450,
        taxFree: 375,
        taxable: 75,
      },
    ]);
    const byDriver = (await report(`unitIds=${privateCarId}&from=2026-01-01&to=2026-01-31&groupBy=driver`)).body.data!;
    expect(byDriver.reimbursements.map((row) => ({ driverId: row.driverId, unitId: row.unitId, paid: row.paid }))).toEqual([{ driverId: owner.userId, unitId: null, paid: 450 }]);
  });

  test('Norway: a van under the standard rule, its age reduction and the van deduction, in NOK', async () => {
    const car = (await report(`unitIds=${norwayCarId}&from=2025-01-01&to=2025-12-31`)).body.data!.cars[0]!;
    expect(car.currency).toBe('NOK');
    expect(car.valuation).toMatchObject({ model: 'van', baseFactor: 0.75, reduction: 150_000, priceUsed: 150_000 });
    expect(car.benefitValue).toBe(45_000);
    expect(car.employerContributions).toBe(6_345);
  });

  test('UK: AMAP across the 10 000-mile step counts the miles earlier in the tax year; a benefit car pro-rated by days across 6 April', async () => {
    const own = await addUnit(app, owner.accountId, '356307042498006', 'London Ford', { registrationNumber: 'LD25ABC' });
    await setUnit(own, { usage: 'private', consumption: 0.6, co2: 130, payer: 'private' });
    await app.call('PUT', `/api/reports/benefit/cars/${own}`, { token, body: { country: 'GB' } });
    await addTrip(own, '2025-05-01T08:00:00Z', 9_000 * 1.609344, 'business', secondAdmin.userId);
    await addTrip(own, '2026-01-20T08:00:00Z', 2_000 * 1.609344, 'business', secondAdmin.userId);
    const data = (await report(`unitIds=${own}&from=2026-01-01&to=2026-01-31`)).body.data!;
    expect(data.reimbursements).toEqual([
      expect.objectContaining({ kind: 'ownCar', country: 'GB', currency: 'GBP', businessMiles: 2_000, milesBeforePeriod: 9_000, paid: 700, taxFree: 700, taxable: 0 }),
    ]);

    const company = await addUnit(app, owner.accountId, '356307042498007', 'London Golf', { registrationNumber: 'LD25XYZ' });
    await setUnit(company, { usage: 'benefit', consumption: 0.6, co2: 120, payer: 'company' });
    await app.call('PUT', `/api/reports/benefit/cars/${company}`, { token, body: { country: 'GB', listPrice: 40_000 } });
    const car = (await report(`unitIds=${company}&from=2026-03-01&to=2026-04-30`)).body.data!;
    const row = car.cars[0]!;
    // 30 % in 2025/26; 2026/27 keeps 2025/26's percentage from 75 g (the frozen bands): 40 000 × 30 % × 61 / 365.
    expect(row.months.map((month) => month.value)).toEqual([1_019.18, 986.3]);
    expect(row.benefitValue).toBe(2_005.48);
    expect(row.employerContributions).toBe(300.82);
    expect(car.parameters.find((parameter) => parameter.year === 2026 && parameter.key === 'ap.frozenFromG')).toMatchObject({ verified: false });
  });

  test('the fleet: every benefit and private car, narrowed by a driver', async () => {
    const fleet = (await report('from=2026-01-01&to=2026-01-31')).body.data!;
    expect(fleet.cars.map((car) => car.unitName).sort()).toEqual(['Kia EV6', 'Locked Golf', 'London Ford', 'London Golf', 'Old Saab', 'Oslo van', 'Own Volvo']);
    const driver = (await report(`from=2026-01-01&to=2026-01-31&driverId=${owner.userId}`)).body.data!;
    expect(driver.cars.map((car) => car.unitName).sort()).toEqual(['Kia EV6', 'Locked Golf', 'Own Volvo']);
  });

  test('spec §5: a benefit car without consumption and CO2 is reported with what is missing; a period over 12 months is refused', async () => {
    const data = (await report(`unitIds=${legacyCarId}&from=2026-01-01&to=2026-01-31`)).body.data!;
    expect(data.cars[0]!.problems).toEqual(expect.arrayContaining(['units.benefit.fuelRequired', 'units.benefit.co2Required', 'reports.benefit.carDetailsMissing']));
    expect(data.cars[0]!.months).toEqual([]);
    const tooLong = await report('from=2025-01-01&to=2026-01-31');
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.message).toBe('The period can be at most 12 months.');
    const reversed = await report('from=2026-03-01&to=2026-01-31');
    expect(reversed.status).toBe(422);
  });

  test('spec §5: the valuation details are checked (negative amounts, a holder from another account)', async () => {
    const negative = await app.call('PUT', `/api/reports/benefit/cars/${kiaId}`, { token, body: { listPrice: -1 } });
    expect(negative.status).toBe(422);
    expect(negative.body.errors).toEqual({ listPrice: ['The amount cannot be negative.'] });
    const other = await app.createAccount();
    const stranger = await app.call('PUT', `/api/reports/benefit/cars/${kiaId}`, { token, body: { holderUserId: other.userId } });
    expect(stranger.status).toBe(422);
    const ordinary = await app.call('PUT', `/api/reports/benefit/cars/${privateCarId}`, { token: ordinaryToken, body: {} });
    expect(ordinary.status).toBe(403);
  });

  test('spec §6: a user without access to a locked car gets its benefit value only; every other report answers 403', async () => {
    const mine = (await report(`unitIds=${lockedCarId}&from=2026-01-01&to=2026-01-31`)).body.data!.cars[0]!;
    expect(mine.hasAccess).toBe(true);
    expect(mine.distanceKm?.business).toBe(80);

    const result = await report(`unitIds=${lockedCarId}&from=2026-01-01&to=2026-01-31`, secondAdmin.token);
    expect(result.status).toBe(200);
    const theirs = result.body.data!.cars[0]!;
    expect(theirs.hasAccess).toBe(false);
    expect(theirs.distanceKm).toBeNull();
    expect(theirs.benefitValue).toBe(mine.benefitValue);
    expect(theirs.benefitValue).toBeGreaterThan(0);
    // In the fleet too, without distances.
    const fleet = (await report('from=2026-01-01&to=2026-01-31', secondAdmin.token)).body.data!;
    expect(fleet.cars.find((car) => car.unitId === lockedCarId)?.distanceKm).toBeNull();

    expect((await app.call('GET', `/api/reports/congestion?unitId=${lockedCarId}&from=2026-01-01&to=2026-01-31`, { token: secondAdmin.token })).status).toBe(403);
    const actor = { userId: secondAdmin.userId, accountId: owner.accountId, parentAccountId: owner.accountId, subsiteId: 0, role: 'admin' as const, language: 'en' as const, timezone: 'Europe/Stockholm', sessionId: 's', realtimeMap: true, basicOnly: false };
    for (const kind of ['eco', 'fuel', 'co2', 'environment']) {
      const refused = await reportUnits(app.services.units, actor, kind, [lockedCarId]).catch((error: unknown) => error);
      expect(refused instanceof AppError && refused.status === 403 && refused.key === 'reports.access.locked').toBe(true);
    }
    expect((await reportUnits(app.services.units, actor, 'summary', [lockedCarId])).map((unit) => unit.ID)).toEqual([lockedCarId]);
  });

  test('another account names this account’s car: 404', async () => {
    const other = await app.createAccount();
    const otherToken = await app.login(other);
    expect((await report(`unitIds=${kiaId}`, otherToken)).status).toBe(404);
    expect((await app.call('GET', `/api/reports/benefit/cars/${kiaId}`, { token: otherToken })).status).toBe(404);
  });

  test('the parameters list marks the unverified ones', async () => {
    const result = await app.call<BenefitParameterUsed[]>('GET', '/api/reports/benefit/parameters', { token });
    const list = result.body.data!;
    expect(list.find((row) => row.country === 'NO' && row.year === 2026 && row.key === 'threshold')).toMatchObject({ verified: false });
    expect(list.find((row) => row.country === 'GB' && row.year === 2025 && row.key === 'class1aNic')).toMatchObject({ value: 0.15, verified: true });
  });
});

describe('GET /api/reports/benefit/export', () => {
  const query = () => `unitIds=${kiaId},${privateCarId}&from=2026-01-01&to=2026-01-31`;

  test('CSV: the columns, a row per benefit car and reimbursement, the totals', async () => {
    const response = await rawCall(app, 'GET', `/api/reports/benefit/export?${query()}&format=csv`, { token, lang: 'en' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain('benefit-2026-01-01-2026-01-31.csv');
    const body = await response.text();
    const lines = body.split('\r\n');
    expect(lines.some((line) => line.startsWith('Kind,Vehicle,Reg. no.,Driver,Currency,Months,Business distance (km),Benefit value'))).toBe(true);
    expect(lines.some((line) => line.startsWith('Mileage allowance, own car') || line.startsWith('"Mileage allowance, own car"'))).toBe(true);
    expect(lines.some((line) => line.includes('Own Volvo') && line.includes('450.00') && line.includes('375.00') && line.includes('75.00'))).toBe(true);
    expect(lines.some((line) => line.includes('Reimbursement paid, total') && line.includes('450.00'))).toBe(true);
  });

  test('XLSX holds the rows and totals; PDF has the title and the total', async () => {
    const xlsx = await rawCall(app, 'GET', `/api/reports/benefit/export?${query()}&format=xlsx`, { token, lang: 'sv' });
    expect(xlsx.status).toBe(200);
    const sheet = strFromU8(unzipSync(new Uint8Array(await xlsx.arrayBuffer()))['xl/worksheets/sheet1.xml']!);
    expect(sheet).toContain('Förmånsbil');
    expect(sheet).toContain('Own Volvo');
    expect(sheet).toContain('<v>450</v>');
    const pdf = await rawCall(app, 'GET', `/api/reports/benefit/export?${query()}&format=pdf`, { token, lang: 'en' });
    expect(pdf.status).toBe(200);
    const read = await readPdf(new Uint8Array(await pdf.arrayBuffer()));
    expect(read.text).toContain('Benefit value and reimbursement');
    expect(read.text.replace(/\u00a0/g, ' ')).toContain('Parameters used:');
  });
});
