import type { FuelType } from '../accounts/model';
import { type DistanceSum, entry, type FleetSource, grouping, type ReportPeriod, type ReportUnit, type ResolvedScope, reportHeader, round } from './fleet-source';
import { energyUnitOf, type FuelUse, type Market, quantityOf, readFuelUse } from './fuel';
import type { Co2Factor, Co2Report, Co2Row } from './model';

/**
 * CO2 (issue point 6): from the unit's g/km when set, else the fuel used × a factor per fuel, country and year, and
 * the report names the factor (basis, source and whether it is verified). The factors are data: the `co2_factors`
 * table (migration 0460, seeded from domain.md §6: Sweden the common fleet defaults 2.31 / 2.68 fossil tank-to-wheel,
 * Norway Miljødirektoratet NIR 2021, the UK DESNZ/DEFRA 2025 diesel blend), which an operator corrects. Electricity
 * has no tailpipe CO2 (0 kg/kWh tank-to-wheel). A fuel without a factor (gas, "other") counts only with the unit's
 * g/km. A factor applies from its year on until a later one for the same fuel and country.
 */

/** The factor for a fuel in a country and year: the newest from that year or before, else the oldest known. */
export function co2Factor(fuelType: FuelType | null, country: string, year: number, factors: Co2Factor[]): Co2Factor | null {
  if (fuelType === null) return null;
  const candidates = factors.filter((factor) => factor.fuelType === fuelType && factor.country === country).sort((a, b) => a.year - b.year);
  if (candidates.length === 0) return null;
  return candidates.filter((factor) => factor.year <= year).at(-1) ?? candidates[0]!;
}

/** kg CO2 of trips of one unit in one year (their summed distance) and how it was found. */
export function tripCo2(
  part: Pick<DistanceSum, 'unitId' | 'distanceM'>,
  unit: ReportUnit | undefined,
  use: FuelUse,
  market: Market,
  year: number,
  factors: Co2Factor[],
): { kg: number; method: Co2Row['method']; factor: Co2Factor | null } {
  if (unit?.co2GPerKm != null) return { kg: (unit.co2GPerKm * part.distanceM) / 1_000_000, method: 'gPerKm', factor: null };
  const factor = co2Factor(unit?.fuelType ?? null, market, year, factors);
  const quantity = quantityOf(use, part);
  if (factor && quantity !== undefined) return { kg: quantity * factor.kgPerUnit, method: 'fuelFactor', factor };
  return { kg: 0, method: 'none', factor: null };
}

export async function co2Report(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  now: Date,
  market: Market,
  texts: { noDriver: string; noDepartment: string },
): Promise<Co2Report> {
  // Summed in the database per unit, driver and month (oldest first): a trip's CO2 is its distance times a figure of
  // its unit and year.
  const [{ sums, use }, factors] = await Promise.all([readFuelUse(source, accountId, scope, period), source.co2Factors()]);
  const driverIds = [...new Set(sums.flatMap((part) => (part.driverUserId === null ? [] : [part.driverUserId])))];
  const { keyOf, labelOf, unitById } = grouping(scope, await source.driverNames(accountId, driverIds), texts.noDriver);

  interface Acc {
    distanceM: number;
    kg: number;
    quantity: number;
    methods: Set<Co2Row['method']>;
    factor: Co2Factor | null;
    fuelTypes: Set<FuelType | null>;
  }
  const rows = new Map<number, Acc>();
  const departments = new Map<number | null, { name: string; distanceM: number; kg: number }>();
  const months = new Map<string, { distanceM: number; kg: number }>();
  const used = new Map<string, Co2Factor>();
  let total = 0;
  for (const part of sums) {
    const unit = unitById.get(part.unitId);
    const year = Number(part.month.slice(0, 4));
    const co2 = tripCo2(part, unit, use, market, year, factors);
    if (co2.factor) used.set(`${co2.factor.fuelType}:${co2.factor.country}:${co2.factor.year}`, co2.factor);
    total += co2.kg;
    const key = keyOf(part);
    const acc = entry<number, Acc>(rows, key, () => ({ distanceM: 0, kg: 0, quantity: 0, methods: new Set(), factor: null, fuelTypes: new Set() }));
    acc.distanceM += part.distanceM;
    acc.kg += co2.kg;
    acc.quantity += quantityOf(use, part) ?? 0;
    acc.methods.add(co2.method);
    acc.factor = co2.factor ?? acc.factor;
    acc.fuelTypes.add(unit?.fuelType ?? null);
    const department = unit?.department ?? null;
    const dept = entry(departments, department?.id ?? null, () => ({ name: department?.name ?? texts.noDepartment, distanceM: 0, kg: 0 }));
    dept.distanceM += part.distanceM;
    dept.kg += co2.kg;
    const m = entry(months, part.month, () => ({ distanceM: 0, kg: 0 }));
    m.distanceM += part.distanceM;
    m.kg += co2.kg;
  }
  const co2Rows: Co2Row[] = [...rows.entries()].map(([key, acc]) => {
    const unit = scope.groupBy === 'vehicle' ? unitById.get(key) : undefined;
    const method: Co2Row['method'] = acc.methods.size === 1 ? [...acc.methods][0]! : acc.methods.has('fuelFactor') ? 'fuelFactor' : 'gPerKm';
    return {
      ...labelOf(key),
      distanceKm: round(acc.distanceM / 1000, 1),
      fuelType: acc.fuelTypes.size === 1 ? [...acc.fuelTypes][0]! : null,
      method,
      gPerKm: unit?.co2GPerKm ?? null,
      fuelQuantity: method === 'fuelFactor' ? round(acc.quantity, 2) : null,
      factor: method === 'fuelFactor' ? acc.factor : null,
      co2Kg: round(acc.kg, 1),
    };
  });
  co2Rows.sort((a, b) => b.co2Kg - a.co2Kg || a.name.localeCompare(b.name));
  return {
    ...reportHeader('co2', period, scope, now),
    kind: 'co2',
    rows: co2Rows,
    departments: [...departments.entries()].map(([id, dept]) => ({ id, name: dept.name, distanceKm: round(dept.distanceM / 1000, 1), co2Kg: round(dept.kg, 1) })),
    months: [...months.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([month, m]) => ({ month, distanceKm: round(m.distanceM / 1000, 1), co2Kg: round(m.kg, 1) })),
    totalKg: round(total, 1),
    factors: [...used.values()],
  };
}

export { energyUnitOf };
