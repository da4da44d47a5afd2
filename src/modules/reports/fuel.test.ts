import { describe, expect, test } from 'bun:test';
import { co2Factor } from './co2';
import type { Co2Factor } from './model';

/** The seeded rows of migration 0460 this test relies on (the API test reads the table itself). */
const CO2_FACTORS: Co2Factor[] = [
  { fuelType: 'petrol', country: 'SE', year: 2016, kgPerUnit: 2.31, energyUnit: 'l', basis: 'ttw-fossil', source: 'fleet default', verified: true },
  { fuelType: 'diesel', country: 'SE', year: 2016, kgPerUnit: 2.68, energyUnit: 'l', basis: 'ttw-fossil', source: 'fleet default', verified: true },
  { fuelType: 'petrol', country: 'NO', year: 2021, kgPerUnit: 2.32, energyUnit: 'l', basis: 'ttw-fossil', source: 'NIR 2021', verified: true },
  { fuelType: 'diesel', country: 'NO', year: 2021, kgPerUnit: 2.66, energyUnit: 'l', basis: 'ttw-fossil', source: 'NIR 2021', verified: true },
];
import { analyseFuelLevels, REFUEL_MIN_RISE } from './fuel';

const reading = (minute: number, level: number, speedKmh = 0) => ({ t: minute * 60_000, level, speedKmh, lat: 59, lon: 18 });

describe('analyseFuelLevels', () => {
  test('falls are used fuel; a rise while standing is a refuel', () => {
    const result = analyseFuelLevels([reading(0, 50, 60), reading(10, 45, 60), reading(20, 40, 0), reading(21, 55), reading(22, 70), reading(30, 68, 50)]);
    expect(result.used).toBe(12);
    expect(result.refuels).toEqual([{ t: 22 * 60_000, before: 40, after: 70, lat: 59, lon: 18 }]);
  });

  test('a rise below the minimum, or while driving, is no refuel; sensor noise is not counted as use', () => {
    const small = analyseFuelLevels([reading(0, 40), reading(1, 40 + REFUEL_MIN_RISE - 1), reading(2, 44.2)]);
    expect(small.refuels).toEqual([]);
    const driving = analyseFuelLevels([reading(0, 40, 80), reading(1, 50, 80)]);
    expect(driving.refuels).toEqual([]);
    expect(analyseFuelLevels([reading(0, 40), reading(1, 39.9), reading(2, 40), reading(3, 39.8)]).used).toBe(0);
  });
});

describe('co2Factor', () => {
  test('per fuel, country and year, the newest not after the year; none for gas', () => {
    expect(co2Factor('diesel', 'NO', 2026, CO2_FACTORS)).toMatchObject({ kgPerUnit: 2.66, year: 2021, basis: 'ttw-fossil' });
    expect(co2Factor('petrol', 'SE', 2026, CO2_FACTORS)).toMatchObject({ kgPerUnit: 2.31 });
    // Before the first year known: the oldest factor.
    expect(co2Factor('petrol', 'NO', 2019, CO2_FACTORS)).toMatchObject({ year: 2021 });
    expect(co2Factor('gas', 'SE', 2026, CO2_FACTORS)).toBeNull();
    expect(co2Factor(null, 'SE', 2026, CO2_FACTORS)).toBeNull();
    const later = [...CO2_FACTORS, { ...CO2_FACTORS[0]!, year: 2026, kgPerUnit: 2.1, basis: 'ttw-blend' as const }];
    expect(co2Factor('petrol', 'SE', 2026, later)).toMatchObject({ kgPerUnit: 2.1, basis: 'ttw-blend' });
    expect(co2Factor('petrol', 'SE', 2025, later)).toMatchObject({ kgPerUnit: 2.31 });
  });
});
