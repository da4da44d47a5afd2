import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { addUnit, readPdf } from '../units/testing';
import { ECO_CAPS } from './eco';
import type { Co2Report, EcoReport, EnvironmentReport, FuelReport, SummaryReport } from './model';
import { insertFleetTrip, insertPositions } from './testing';

/**
 * The fleet reports over the API: summary, eco driving, fuel, CO2 and environmental, their exports, spec §5 (12 months)
 * and §6 (a locked benefit car without access: only the summary). Trips are written straight into the trip log's table
 * (detection has its own tests); positions with speed, ignition and fuel level likewise. Test clock: 2 March 2026.
 */
let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let colleagueToken: string;
let otherToken: string;
let petrol: number;
let diesel: number;
let electric: number;
let locked: number;
let sales: number;

async function raw(path: string, authToken: string): Promise<Response> {
  return app.api.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${authToken}`, 'x-lang': 'en' } }));
}

beforeAll(async () => {
  app = await createTestApp();
  const q = app.database.query;
  owner = await app.createAccount();
  token = await app.login(owner);
  const other = await app.createAccount();
  otherToken = await app.login(other);
  // A second administrator of the same account, not given the locked car.
  const colleagueEmail = `colleague-${Date.now()}@example.com`;
  const [owners] = await q<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [owner.userId]);
  await q(`INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Col', 'League', 'admin')`, [
    owner.accountId,
    colleagueEmail,
    owners!.password_hash,
  ]);
  colleagueToken = await app.login({ email: colleagueEmail, password: owner.password, subsiteId: 0 });

  const [department] = await q<{ id: number }>(`INSERT INTO departments (account_id, name) VALUES ($1, 'Sales') RETURNING id`, [owner.accountId]);
  sales = Number(department!.id);
  petrol = await addUnit(app, owner.accountId, '356307042491001', 'Petrol car');
  diesel = await addUnit(app, owner.accountId, '356307042491002', 'Diesel van', { vehicleType: 'lorry' });
  electric = await addUnit(app, owner.accountId, '356307042491003', 'Electric car');
  locked = await addUnit(app, owner.accountId, '356307042491004', 'Benefit car');
  await q(`UPDATE units SET fuel_type = 'petrol', fuel_consumption_per_10km = 0.7, department_id = $2 WHERE id = $1`, [petrol, sales]);
  await q(`UPDATE units SET fuel_type = 'diesel', co2_g_per_km = 150, department_id = $2 WHERE id = $1`, [diesel, sales]);
  await q(`UPDATE units SET fuel_type = 'electricity', fuel_consumption_per_10km = 1.8 WHERE id = $1`, [electric]);
  await q(`UPDATE units SET car_usage = 'benefit', locked_by = $2, locked_at = now() WHERE id = $1`, [locked, owner.userId]);
  await q(`INSERT INTO account_fuel_prices (account_id, market, fuel_type, price) VALUES ($1, 'SE', 'petrol', 20)`, [owner.accountId]);

  const a = owner.accountId;
  await insertFleetTrip(q, { unitId: petrol, accountId: a, start: '2026-02-10T07:00:00Z', minutes: 30, km: 20, harshAcceleration: 1, driverUserId: owner.userId, maxSpeedKmh: 130 });
  await insertFleetTrip(q, { unitId: petrol, accountId: a, start: '2026-02-10T15:00:00Z', minutes: 20, km: 10, type: 'private', driverUserId: owner.userId });
  await insertFleetTrip(q, { unitId: diesel, accountId: a, start: '2026-02-11T08:00:00Z', minutes: 60, km: 60, harshBraking: 3 });
  await insertFleetTrip(q, { unitId: electric, accountId: a, start: '2026-02-12T10:00:00Z', minutes: 30, km: 30 });
  await insertFleetTrip(q, { unitId: locked, accountId: a, start: '2026-02-12T12:00:00Z', minutes: 30, km: 15, type: 'private' });
  // A year earlier, for the environmental report's comparison.
  await insertFleetTrip(q, { unitId: petrol, accountId: a, start: '2025-02-10T07:00:00Z', minutes: 30, km: 20 });
  // Someone else's trip in the same period never shows.
  const foreign = await addUnit(app, other.accountId, '356307042491009', 'Foreign car');
  await insertFleetTrip(q, { unitId: foreign, accountId: other.accountId, start: '2026-02-10T07:00:00Z', minutes: 30, km: 99 });

  // The petrol car's first trip: two minutes idling, a minute over 110 km/h; fuel falls 4 l; a refuel of 20 l at noon; 4 l more.
  const at = (hhmmss: string) => `2026-02-10T${hhmmss}Z`;
  await insertPositions(q, petrol, [
    { time: at('07:00:00'), speedKmh: 0, ignition: true, fuel: 40 },
    { time: at('07:00:30'), speedKmh: 0, ignition: true, fuel: 40 },
    { time: at('07:01:00'), speedKmh: 0, ignition: true, fuel: 40 },
    { time: at('07:01:30'), speedKmh: 0, ignition: true, fuel: 40 },
    { time: at('07:02:00'), speedKmh: 130, ignition: true, fuel: 39 },
    { time: at('07:02:30'), speedKmh: 130, ignition: true, fuel: 38 },
    { time: at('07:03:00'), speedKmh: 50, ignition: true, fuel: 37 },
    { time: at('07:03:30'), speedKmh: 50, ignition: true, fuel: 36 },
    { time: at('12:00:00'), speedKmh: 0, ignition: false, fuel: 36 },
    { time: at('12:00:30'), speedKmh: 0, ignition: false, fuel: 46 },
    { time: at('12:01:00'), speedKmh: 0, ignition: false, fuel: 56 },
    { time: at('15:00:00'), speedKmh: 40, ignition: true, fuel: 54 },
    { time: at('15:20:00'), speedKmh: 0, ignition: false, fuel: 52 },
  ]);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const FEB = 'from=2026-02-01&to=2026-02-28';

describe('GET /api/reports/summary', () => {
  test('per vehicle: trips, distance per type, driving and idle time, speeds; days; departments and fleet; distance per day', async () => {
    const result = await app.call<SummaryReport>('GET', `/api/reports/summary?${FEB}`, { token });
    expect(result.status).toBe(200);
    const report = result.body.data!;
    expect(report.units.map((unit) => unit.name)).toEqual(['Benefit car', 'Diesel van', 'Electric car', 'Petrol car']);
    const car = report.rows.find((row) => row.key === petrol)!;
    expect(car).toMatchObject({
      name: 'Petrol car',
      department: { id: sales, name: 'Sales' },
      trips: 2,
      distanceKm: 30,
      distanceByType: { business: 20, private: 10, other: 0 },
      drivingS: 3000,
      idleS: 120,
      stops: 2,
      avgSpeedKmh: 36,
      maxSpeedKmh: 130,
    });
    expect(report.fleet).toMatchObject({ trips: 5, distanceKm: 135, distanceByType: { business: 110, private: 25, other: 0 }, drivingS: 10_200, idleS: 120 });
    const salesTotal = report.departments.find((department) => department.id === sales)!;
    expect(salesTotal).toMatchObject({ name: 'Sales', trips: 3, distanceKm: 90 });
    expect(report.departments.find((department) => department.id === null)).toMatchObject({ name: 'No department', trips: 2, distanceKm: 45 });
    expect(report.days.find((day) => day.key === petrol)).toEqual({
      date: '2026-02-10',
      key: petrol,
      name: 'Petrol car',
      firstStart: '2026-02-10T07:00:00.000Z',
      lastStop: '2026-02-10T15:20:00.000Z',
      trips: 2,
      distanceKm: 30,
    });
    expect(report.distancePerDay.length).toBe(28);
    expect(report.distancePerDay.find((day) => day.date === '2026-02-10')).toEqual({ date: '2026-02-10', distanceKm: 30, business: 20, private: 10, other: 0 });
  });

  test('per driver, and one driver only', async () => {
    const byDriver = (await app.call<SummaryReport>('GET', `/api/reports/summary?${FEB}&groupBy=driver`, { token })).body.data!;
    expect(byDriver.rows.map((row) => [row.key, row.trips])).toEqual([
      [0, 3],
      [owner.userId, 2],
    ]);
    const one = (await app.call<SummaryReport>('GET', `/api/reports/summary?${FEB}&driverId=${owner.userId}`, { token })).body.data!;
    expect(one.fleet.trips).toBe(2);
  });

  test('§5: at most 12 months, and the end not before the start', async () => {
    expect((await app.call('GET', '/api/reports/summary?from=2025-01-01&to=2026-01-01', { token })).status).toBe(422);
    expect((await app.call('GET', '/api/reports/summary?from=2025-01-02&to=2026-01-01', { token })).status).toBe(200);
    expect((await app.call('GET', '/api/reports/summary?from=2026-02-10&to=2026-02-01', { token })).status).toBe(422);
    expect((await app.call('GET', '/api/reports/eco?from=2026-02-30', { token })).status).toBe(422);
  });

  test("another account's units, departments and drivers are 404; nobody else's trips are counted", async () => {
    expect((await app.call('GET', `/api/reports/summary?unitIds=${petrol}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('GET', `/api/reports/eco?departmentId=${sales}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('GET', `/api/reports/fuel?driverId=${owner.userId}`, { token: otherToken })).status).toBe(404);
    const theirs = (await app.call<SummaryReport>('GET', `/api/reports/summary?${FEB}`, { token: otherToken })).body.data!;
    expect(theirs.fleet.distanceKm).toBe(99);
  });
});

describe('§6: a locked benefit car without access', () => {
  test('the summary includes it; every other report answers 403 for it and leaves it out of the fleet', async () => {
    const summary = await app.call<SummaryReport>('GET', `/api/reports/summary?${FEB}&unitIds=${locked}`, { token: colleagueToken });
    expect(summary.status).toBe(200);
    expect(summary.body.data!.fleet.distanceKm).toBe(15);
    for (const kind of ['eco', 'fuel', 'co2', 'environment']) {
      const named = await app.call('GET', `/api/reports/${kind}?unitIds=${locked}`, { token: colleagueToken });
      expect([kind, named.status]).toEqual([kind, 403]);
    }
    const eco = (await app.call<EcoReport>('GET', `/api/reports/eco?${FEB}`, { token: colleagueToken })).body.data!;
    expect(eco.excludedLockedUnits).toBe(1);
    expect(eco.rows.map((row) => row.name)).not.toContain('Benefit car');
    // Its locker has access.
    expect((await app.call('GET', `/api/reports/eco?${FEB}&unitIds=${locked}`, { token })).status).toBe(200);
  });
});

describe('GET /api/reports/eco', () => {
  test('scores from harsh events per 100 km, time over the threshold and idle share; ranking and weekly trend', async () => {
    const report = (await app.call<EcoReport>('GET', `/api/reports/eco?${FEB}`, { token })).body.data!;
    const car = report.rows.find((row) => row.key === petrol)!;
    // 1 harsh acceleration in 30 km: 3.33/100 km of the normal 10 → a third of 15; 60 s over 110 km/h of 2,880 s moving
    // (3,000 s less 120 s idle) of the normal 20 % → 30 × 0.0208/0.2; idle 120 of 3,000 s of the normal 30 % → 15 × 0.04/0.3.
    const expected = 100 - ECO_CAPS.acceleration / 3 - (ECO_CAPS.speeding * (60 / 2880)) / 0.2 - (ECO_CAPS.idling * 0.04) / 0.3;
    expect(car.score).toBe(Math.round(expected * 10) / 10);
    expect(car).toMatchObject({ harshAcceleration: 1, overspeedS: 60, idleS: 120, sensitivity: 'normal', overspeedKmh: 110 });
    // 3 harsh brakes in 60 km: 5/100 km of 10 → half of 20.
    expect(report.rows.find((row) => row.key === diesel)!.score).toBe(90);
    expect(report.rows[0]!.rank).toBe(1);
    expect(report.rows[0]!.score).toBe(100);
    expect(report.rows.map((row) => row.score)).toEqual([...report.rows.map((row) => row.score)].sort((x, y) => y - x));
    expect(report.trips.length).toBe(5);
    expect(report.trend.map((week) => week.week)).toEqual(['2026-02-09']);
  });

  test("the feature profile's sensitivity chooses the thresholds", async () => {
    const [profile] = await app.database.query<{ id: number }>(`INSERT INTO feature_profiles (account_id, name, green_driving) VALUES ($1, 'Strict', 'sensitive') RETURNING id`, [
      owner.accountId,
    ]);
    await app.database.query('UPDATE units SET feature_profile_id = $2 WHERE id = $1', [diesel, profile!.id]);
    const report = (await app.call<EcoReport>('GET', `/api/reports/eco?${FEB}&unitIds=${diesel}`, { token })).body.data!;
    // 5/100 km against the sensitive 5: the whole braking cap.
    expect(report.rows[0]).toMatchObject({ sensitivity: 'sensitive', score: 100 - ECO_CAPS.braking });
    await app.database.query('UPDATE units SET feature_profile_id = NULL WHERE id = $1', [diesel]);
  });
});

describe('GET /api/reports/fuel and co2', () => {
  test('measured from the fuel level where reported, else consumption × distance; cost at the market price; refuels', async () => {
    const report = (await app.call<FuelReport>('GET', `/api/reports/fuel?${FEB}`, { token })).body.data!;
    expect(report.currency).toBe('SEK');
    const car = report.rows.find((row) => row.key === petrol)!;
    expect(car).toMatchObject({ source: 'measured', quantity: 8, price: 20, cost: 160, refuels: 1, refuelledQuantity: 20, energyUnit: 'l' });
    expect(report.rows.find((row) => row.key === electric)).toMatchObject({ source: 'consumption', quantity: 5.4, energyUnit: 'kWh', cost: null });
    expect(report.rows.find((row) => row.key === diesel)).toMatchObject({ source: 'none', quantity: 0 });
    expect(report.refuels).toEqual([
      { unitId: petrol, unitName: 'Petrol car', time: '2026-02-10T12:01:00.000Z', before: 36, after: 56, added: 20, energyUnit: 'l', lat: 59.33, lon: 18.06 },
    ]);
  });

  test('per driver: the measured use follows the trips; totals per fuel type and month', async () => {
    const report = (await app.call<FuelReport>('GET', `/api/reports/fuel?${FEB}&groupBy=driver`, { token })).body.data!;
    // The petrol car's trips were the owner's: its measured 8 l at 20 kr; the rest had no driver (5.4 kWh, no price).
    expect(report.rows.map((row) => [row.key, row.distanceKm, row.quantity, row.cost, row.refuels])).toEqual([
      [owner.userId, 30, 8, 160, 0],
      [0, 105, 5.4, null, 0],
    ]);
    const types = Object.fromEntries(report.fuelTypes.map((type) => [String(type.fuelType), [type.distanceKm, type.quantity, type.cost]]));
    expect(types).toEqual({ petrol: [30, 8, 160], diesel: [60, 0, null], electricity: [30, 5.4, null], null: [15, 0, null] });
    expect(report.months).toEqual([{ month: '2026-02', quantity: 13.4, cost: 160 }]);
    // One driver: only their trips.
    const one = (await app.call<FuelReport>('GET', `/api/reports/fuel?${FEB}&driverId=${owner.userId}`, { token })).body.data!;
    expect(one.rows.find((row) => row.key === petrol)).toMatchObject({ distanceKm: 30, quantity: 8 });
    expect(one.rows.find((row) => row.key === diesel)).toMatchObject({ distanceKm: 0, quantity: 0 });
  });

  test("CO2 from the unit's g/km, else fuel × the stated factor; per department and month", async () => {
    const report = (await app.call<Co2Report>('GET', `/api/reports/co2?${FEB}`, { token })).body.data!;
    expect(report.rows.find((row) => row.key === diesel)).toMatchObject({ method: 'gPerKm', gPerKm: 150, co2Kg: 9 });
    const car = report.rows.find((row) => row.key === petrol)!;
    expect(car).toMatchObject({ method: 'fuelFactor', fuelQuantity: 8, co2Kg: 18.5 });
    expect(car.factor).toMatchObject({ fuelType: 'petrol', country: 'SE', kgPerUnit: 2.31, basis: 'ttw-fossil' });
    expect(report.rows.find((row) => row.key === electric)).toMatchObject({ method: 'fuelFactor', co2Kg: 0 });
    expect(report.rows.find((row) => row.key === locked)).toMatchObject({ method: 'none', co2Kg: 0 });
    expect(report.totalKg).toBe(27.5);
    expect(report.departments.find((department) => department.id === sales)).toMatchObject({ co2Kg: 27.5, distanceKm: 90 });
    expect(report.months).toEqual([{ month: '2026-02', distanceKm: 135, co2Kg: 27.5 }]);
    expect(report.factors.map((factor) => factor.fuelType).sort()).toEqual(['electricity', 'petrol']);
    expect(report.factors.find((factor) => factor.fuelType === 'petrol')).toMatchObject({ year: 2016, verified: true, energyUnit: 'l' });
  });

  test('the factors are data: a factor the operator adds for a later year is used and named, with its basis', async () => {
    await app.database.query(
      `INSERT INTO co2_factors (fuel_type, country, year, kg_per_unit, energy_unit, basis, verified, source) VALUES ('petrol', 'SE', 2026, 2.0, 'l', 'ttw-blend', false, 'Operator: blend 2026')`,
    );
    try {
      const report = (await app.call<Co2Report>('GET', `/api/reports/co2?${FEB}`, { token })).body.data!;
      const car = report.rows.find((row) => row.key === petrol)!;
      // 8 l × 2.0 kg/l.
      expect(car).toMatchObject({ method: 'fuelFactor', fuelQuantity: 8, co2Kg: 16 });
      expect(car.factor).toMatchObject({ year: 2026, kgPerUnit: 2, basis: 'ttw-blend', verified: false, source: 'Operator: blend 2026' });
      const csv = await (await raw(`/api/reports/co2?${FEB}&format=csv`, token)).text();
      expect(csv).toContain('Operator: blend 2026');
    } finally {
      await app.database.query(`DELETE FROM co2_factors WHERE fuel_type = 'petrol' AND country = 'SE' AND year = 2026`);
    }
  });
});

describe("months of the account's time zone", () => {
  test('a trip starting just after midnight on the 1st, Stockholm time, counts in that month', async () => {
    // 00:30 on 1 February in Stockholm is 23:30 on 31 January in UTC: it is February's trip (the period says so too).
    const night = await app.createAccount();
    const nightToken = await app.login(night);
    const van = await addUnit(app, night.accountId, '356307042491010', 'Night van');
    await app.database.query('UPDATE units SET fuel_type = $2, co2_g_per_km = 100 WHERE id = $1', [van, 'diesel']);
    await insertFleetTrip(app.database.query, { unitId: van, accountId: night.accountId, start: '2026-01-31T23:30:00Z', minutes: 20, km: 10 });
    await insertFleetTrip(app.database.query, { unitId: van, accountId: night.accountId, start: '2026-02-28T23:30:00Z', minutes: 20, km: 5 });
    const february = (await app.call<Co2Report>('GET', `/api/reports/co2?${FEB}`, { token: nightToken })).body.data!;
    expect(february.months).toEqual([{ month: '2026-02', distanceKm: 10, co2Kg: 1 }]);
    const march = (await app.call<Co2Report>('GET', '/api/reports/co2?from=2026-03-01&to=2026-03-01', { token: nightToken })).body.data!;
    expect(march.months).toEqual([{ month: '2026-03', distanceKm: 5, co2Kg: 0.5 }]);
  });
});

describe('GET /api/reports/environment', () => {
  test('the year per fuel type and vehicle class, electric share, against the year before', async () => {
    const report = (await app.call<EnvironmentReport>('GET', '/api/reports/environment', { token })).body.data!;
    expect({ from: report.from, to: report.to }).toEqual({ from: '2026-01-01', to: '2026-12-31' });
    expect(report.current).toMatchObject({ distanceKm: 135, electricDistanceKm: 30, electricShare: Math.round((30 / 135) * 10_000) / 10_000, co2Kg: 27.5 });
    expect(report.current.groups.find((group) => group.fuelType === 'diesel')).toMatchObject({ vehicleType: 'lorry', vehicles: 1, distanceKm: 60, co2Kg: 9 });
    // 2025: the petrol car's 20 km at 0.7 l/10 km (no fuel level then): 1.4 l × 2.31.
    expect(report.previous).toMatchObject({ from: '2025-01-01', to: '2025-12-31', distanceKm: 20, electricShare: 0, co2Kg: 3.2 });
    expect(report.change).toMatchObject({ distanceKm: 115, co2Kg: 24.3 });
  });
});

describe('exports', () => {
  test('CSV holds the columns, rows and totals', async () => {
    const response = await raw(`/api/reports/summary?${FEB}&format=csv`, token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    const csv = await response.text();
    expect(csv).toContain('Name');
    expect(csv).toContain('Distance (km)');
    expect(csv).toContain('Petrol car');
    expect(csv).toContain('135');
  });

  test('PDF and XLSX of every report', async () => {
    for (const kind of ['summary', 'eco', 'fuel', 'co2', 'environment']) {
      const pdf = await raw(`/api/reports/${kind}?${FEB}&format=pdf`, token);
      expect([kind, pdf.status]).toEqual([kind, 200]);
      const parsed = await readPdf(new Uint8Array(await pdf.arrayBuffer()));
      expect(parsed.text).toContain(kind === 'environment' ? 'Environmental report' : 'Petrol car');
      const xlsx = await raw(`/api/reports/${kind}?${FEB}&format=xlsx`, token);
      expect(xlsx.status).toBe(200);
      const bytes = new Uint8Array(await xlsx.arrayBuffer());
      expect(String.fromCharCode(bytes[0]!, bytes[1]!)).toBe('PK');
    }
  }, 30_000);
});
