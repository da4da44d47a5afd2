import { addToDay, startOfDay } from '../../lib/time';
import type { FuelType } from '../accounts/model';
import { tripCo2 } from './co2';
import { type FleetSource, type ReportPeriod, type ResolvedScope, reportHeader, round, entry } from './fleet-source';
import { energyUnitOf, type Market, quantityOf, readFuelUse } from './fuel';
import type { Co2Factor, EnvironmentGroup, EnvironmentPeriod, EnvironmentReport } from './model';

/**
 * The environmental report (issue point 7): the company's summary of a period (by default the year) per fuel type and
 * vehicle class: distance, energy (litres or kWh) and CO2, the electric share of the distance, against the same days
 * a year earlier.
 */
async function periodFigures(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  market: Market,
  factors: Map<string, Co2Factor>,
): Promise<EnvironmentPeriod> {
  // Summed in the database per unit, driver and month: a trip's energy and CO2 are its distance times figures of its unit and year.
  const [{ sums, use }, known] = await Promise.all([readFuelUse(source, accountId, scope, period), source.co2Factors()]);
  const unitById = new Map(scope.units.map((unit) => [unit.id, unit]));
  const groups = new Map<string, EnvironmentGroup & { unitIds: Set<number> }>();
  let distanceM = 0;
  let electricM = 0;
  let kg = 0;
  for (const part of sums) {
    const unit = unitById.get(part.unitId);
    const fuelType: FuelType | null = unit?.fuelType ?? null;
    const vehicleType = unit?.vehicleType ?? 'passenger_car';
    const co2 = tripCo2(part, unit, use, market, Number(part.month.slice(0, 4)), known);
    if (co2.factor) factors.set(`${co2.factor.fuelType}:${co2.factor.country}:${co2.factor.year}`, co2.factor);
    const key = `${fuelType ?? ''}|${vehicleType}`;
    const group = entry(groups, key, () => ({ fuelType, vehicleType, vehicles: 0, distanceKm: 0, energy: 0, energyUnit: energyUnitOf(fuelType), co2Kg: 0, unitIds: new Set<number>() }));
    group.unitIds.add(part.unitId);
    group.distanceKm += part.distanceM / 1000;
    group.energy += quantityOf(use, part) ?? 0;
    group.co2Kg += co2.kg;
    distanceM += part.distanceM;
    if (fuelType === 'electricity') electricM += part.distanceM;
    kg += co2.kg;
  }
  return {
    from: period.from,
    to: period.to,
    distanceKm: round(distanceM / 1000, 1),
    electricDistanceKm: round(electricM / 1000, 1),
    electricShare: distanceM > 0 ? round(electricM / distanceM, 4) : 0,
    co2Kg: round(kg, 1),
    groups: [...groups.values()]
      .map(({ unitIds, ...group }) => ({
        ...group,
        vehicles: unitIds.size,
        distanceKm: round(group.distanceKm, 1),
        energy: round(group.energy, 1),
        co2Kg: round(group.co2Kg, 1),
      }))
      .sort((a, b) => (a.fuelType ?? '~').localeCompare(b.fuelType ?? '~') || a.vehicleType.localeCompare(b.vehicleType)),
  };
}

/** The same days a year earlier. */
export function previousPeriod(period: ReportPeriod): ReportPeriod {
  const from = addToDay(period.from, { months: -12 });
  const to = addToDay(period.to, { months: -12 });
  return { from, to, timeZone: period.timeZone, start: startOfDay(from, period.timeZone), end: startOfDay(addToDay(to, { days: 1 }), period.timeZone) };
}

export async function environmentReport(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  now: Date,
  market: Market,
): Promise<EnvironmentReport> {
  const currentFactors = new Map<string, Co2Factor>();
  const previousFactors = new Map<string, Co2Factor>();
  const [current, previous] = await Promise.all([
    periodFigures(source, accountId, scope, period, market, currentFactors),
    periodFigures(source, accountId, scope, previousPeriod(period), market, previousFactors),
  ]);
  const factors = new Map([...currentFactors, ...previousFactors]);
  return {
    ...reportHeader('environment', period, scope, now),
    kind: 'environment',
    current,
    previous,
    change: {
      distanceKm: round(current.distanceKm - previous.distanceKm, 1),
      co2Kg: round(current.co2Kg - previous.co2Kg, 1),
      electricShare: round(current.electricShare - previous.electricShare, 4),
    },
    factors: [...factors.values()],
  };
}
