import type { FuelType } from '../accounts/model';
import { type DistanceSum, entry, type FleetSource, grouping, type ReportPeriod, type ReportUnit, type ResolvedScope, reportHeader, round } from './fleet-source';
import type { EnergyUnit, FuelReport, FuelRow, RefuelEvent } from './model';

/**
 * Fuel (spec §1, issue point 5): litres (kWh for electricity) from the unit's consumption per 10 km × distance, or
 * measured from the fuel level the tracker reports (the sum of its falls; rises are refuels), cost at the account's
 * market fuel price, and refuel events: a rise in the reported level while standing.
 */

/** A rise of at least this much (litres or kWh) while standing is a refuel; smaller ones are sensor noise or slosh. */
export const REFUEL_MIN_RISE = 5;
/** Readings further apart than this (ms) end a rise being followed. */
const REFUEL_MAX_GAP_MS = 30 * 60_000;
/** A fall between two readings smaller than this is noise (not counted as used). */
const LEVEL_NOISE = 0.3;

export const energyUnitOf = (fuelType: FuelType | null): EnergyUnit => (fuelType === 'electricity' ? 'kWh' : 'l');

export interface FuelLevelReading {
  t: number;
  level: number;
  speedKmh: number;
  lat: number;
  lon: number;
}

/** Refuels in a unit's level readings (time order) and the quantity used (the sum of falls beyond noise). */
export function analyseFuelLevels(readings: FuelLevelReading[]): { used: number; refuels: Array<{ t: number; before: number; after: number; lat: number; lon: number }> } {
  const refuels: Array<{ t: number; before: number; after: number; lat: number; lon: number }> = [];
  let used = 0;
  let rise: { from: FuelLevelReading; top: FuelLevelReading } | null = null;
  const closeRise = () => {
    if (rise && rise.top.level - rise.from.level >= REFUEL_MIN_RISE)
      refuels.push({ t: rise.top.t, before: rise.from.level, after: rise.top.level, lat: rise.top.lat, lon: rise.top.lon });
    rise = null;
  };
  for (let i = 1; i < readings.length; i++) {
    const previous = readings[i - 1]!;
    const current = readings[i]!;
    const delta = current.level - previous.level;
    if (current.t - previous.t > REFUEL_MAX_GAP_MS) closeRise();
    if (delta > LEVEL_NOISE && current.speedKmh < 5) {
      if (!rise) rise = { from: previous, top: current };
      else rise.top = current;
      continue;
    }
    if (delta > 0 && rise && current.level > rise.top.level) {
      rise.top = current;
      continue;
    }
    closeRise();
    if (delta < -LEVEL_NOISE) used += -delta;
  }
  closeRise();
  return { used, refuels };
}

export interface FuelUse {
  /**
   * Litres (kWh) per metre driven of each unit whose use is known: its measured use spread over its distance in the
   * period, else its consumption per 10 km. A unit missing here has no known use.
   */
  perMetre: Map<number, number>;
  sourceOf: Map<number, 'measured' | 'consumption' | 'none'>;
  refuels: RefuelEvent[];
}

/** The quantity a sum of trips used (litres/kWh), or undefined when its unit's use is not known. */
export const quantityOf = (use: FuelUse, part: Pick<DistanceSum, 'unitId' | 'distanceM'>): number | undefined => {
  const perMetre = use.perMetre.get(part.unitId);
  return perMetre === undefined ? undefined : perMetre * part.distanceM;
};

/** The trips' distances summed per unit, driver and month, and the units' fuel use in the period, read side by side. */
export async function readFuelUse(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
): Promise<{ sums: DistanceSum[]; use: FuelUse }> {
  const [sums, levels] = await Promise.all([
    source.distanceSums(accountId, scope.units, period, { driverId: scope.driverId }),
    source.fuelLevels(
      scope.units.map((unit) => unit.id),
      period.start,
      period.end,
    ),
  ]);
  return { sums, use: fuelUse(scope.units, sums, levels) };
}

/** How much the units used. A unit with at least two level readings in the period is measured; otherwise estimated. */
export function fuelUse(units: ReportUnit[], sums: DistanceSum[], levels: Map<number, FuelLevelReading[]>): FuelUse {
  const distanceOf = new Map<number, number>();
  for (const part of sums) distanceOf.set(part.unitId, (distanceOf.get(part.unitId) ?? 0) + part.distanceM);
  const perMetre = new Map<number, number>();
  const refuels: RefuelEvent[] = [];
  const sourceOf = new Map<number, 'measured' | 'consumption' | 'none'>();
  for (const unit of units) {
    const readings = levels.get(unit.id) ?? [];
    if (readings.length >= 2) {
      const analysis = analyseFuelLevels(readings);
      const total = distanceOf.get(unit.id) ?? 0;
      perMetre.set(unit.id, total > 0 ? analysis.used / total : 0);
      sourceOf.set(unit.id, 'measured');
      for (const refuel of analysis.refuels)
        refuels.push({
          unitId: unit.id,
          unitName: unit.name,
          time: new Date(refuel.t).toISOString(),
          before: round(refuel.before, 1),
          after: round(refuel.after, 1),
          added: round(refuel.after - refuel.before, 1),
          energyUnit: energyUnitOf(unit.fuelType),
          lat: refuel.lat,
          lon: refuel.lon,
        });
    } else if (unit.consumptionPer10Km !== null) {
      perMetre.set(unit.id, unit.consumptionPer10Km / 10_000);
      sourceOf.set(unit.id, 'consumption');
    } else sourceOf.set(unit.id, 'none');
  }
  refuels.sort((a, b) => a.time.localeCompare(b.time) || a.unitId - b.unitId);
  return { perMetre, sourceOf, refuels };
}

export type Market = 'SE' | 'NO';
export const marketCurrency = (market: Market): 'SEK' | 'NOK' => (market === 'NO' ? 'NOK' : 'SEK');

export async function fuelReport(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  now: Date,
  pricing: { market: Market; prices: Array<{ market: Market; fuelType: FuelType; price: number }> },
  texts: { noDriver: string },
): Promise<FuelReport> {
  // Summed in the database per unit, driver and month: each trip's fuel is its distance times its unit's use per metre.
  const { sums, use } = await readFuelUse(source, accountId, scope, period);
  const driverIds = [...new Set(sums.flatMap((part) => (part.driverUserId === null ? [] : [part.driverUserId])))];
  const { keyOf, labelOf, unitById } = grouping(scope, await source.driverNames(accountId, driverIds), texts.noDriver);
  const priceOf = (fuelType: FuelType | null): number | null =>
    fuelType === null ? null : (pricing.prices.find((price) => price.market === pricing.market && price.fuelType === fuelType)?.price ?? null);
  const currency = marketCurrency(pricing.market);

  interface Acc {
    distanceM: number;
    quantity: number;
    cost: number | null;
    fuelTypes: Set<FuelType | null>;
    sources: Set<'measured' | 'consumption' | 'none'>;
  }
  const rows = new Map<number, Acc>();
  const types = new Map<FuelType | null, { distanceM: number; quantity: number; cost: number | null }>();
  const months = new Map<string, { quantity: number; cost: number }>();
  const addCost = (current: number | null, value: number | null) => (value === null ? current : (current ?? 0) + value);
  for (const part of sums) {
    const unit = unitById.get(part.unitId);
    const fuelType = unit?.fuelType ?? null;
    const quantity = quantityOf(use, part) ?? 0;
    const price = priceOf(fuelType);
    const cost = price === null ? null : quantity * price;
    const key = keyOf(part);
    const acc = entry<number, Acc>(rows, key, () => ({ distanceM: 0, quantity: 0, cost: null, fuelTypes: new Set(), sources: new Set() }));
    acc.distanceM += part.distanceM;
    acc.quantity += quantity;
    acc.cost = addCost(acc.cost, cost);
    acc.fuelTypes.add(fuelType);
    acc.sources.add(use.sourceOf.get(part.unitId) ?? 'none');
    const type = entry(types, fuelType, () => ({ distanceM: 0, quantity: 0, cost: null }));
    type.distanceM += part.distanceM;
    type.quantity += quantity;
    type.cost = addCost(type.cost, cost);
    const m = entry(months, part.month, () => ({ quantity: 0, cost: 0 }));
    m.quantity += quantity;
    m.cost += cost ?? 0;
  }
  // Vehicles without trips still show (a measured unit that only idled, or simply no driving) when grouped per vehicle.
  if (scope.groupBy === 'vehicle')
    for (const unit of scope.units)
      if (!rows.has(unit.id)) rows.set(unit.id, { distanceM: 0, quantity: 0, cost: null, fuelTypes: new Set([unit.fuelType]), sources: new Set([use.sourceOf.get(unit.id) ?? 'none']) });

  const refuelsOf = (key: number) => use.refuels.filter((refuel) => (scope.groupBy === 'vehicle' ? refuel.unitId === key : false));
  const fuelRows: FuelRow[] = [...rows.entries()].map(([key, acc]) => {
    const fuelType = acc.fuelTypes.size === 1 ? [...acc.fuelTypes][0]! : null;
    const unit = scope.groupBy === 'vehicle' ? unitById.get(key) : undefined;
    const sourceKind = acc.sources.has('measured') ? 'measured' : acc.sources.has('consumption') ? 'consumption' : 'none';
    const refuels = refuelsOf(key);
    return {
      ...labelOf(key),
      fuelType,
      energyUnit: energyUnitOf(fuelType),
      consumptionPer10Km: unit?.consumptionPer10Km ?? null,
      source: sourceKind,
      distanceKm: round(acc.distanceM / 1000, 1),
      quantity: round(acc.quantity, 2),
      price: priceOf(fuelType),
      currency,
      cost: acc.cost === null ? null : round(acc.cost, 2),
      refuels: refuels.length,
      refuelledQuantity: round(refuels.reduce((sum, refuel) => sum + refuel.added, 0), 1),
    };
  });
  fuelRows.sort((a, b) => b.quantity - a.quantity || a.name.localeCompare(b.name));
  return {
    ...reportHeader('fuel', period, scope, now),
    kind: 'fuel',
    market: pricing.market,
    currency,
    rows: fuelRows,
    fuelTypes: [...types.entries()].map(([fuelType, type]) => ({
      fuelType,
      energyUnit: energyUnitOf(fuelType),
      distanceKm: round(type.distanceM / 1000, 1),
      quantity: round(type.quantity, 2),
      cost: type.cost === null ? null : round(type.cost, 2),
    })),
    refuels: use.refuels,
    months: [...months.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([month, m]) => ({ month, quantity: round(m.quantity, 2), cost: round(m.cost, 2) })),
  };
}
