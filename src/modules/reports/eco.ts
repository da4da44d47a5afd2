import type { FleetSource, ReportPeriod, ReportTrip, ResolvedScope, TripAggregate } from './fleet-source';
import { entry, grouping, reportHeader, round } from './fleet-source';
import {
  ECO_SENSITIVITIES,
  ECO_TRIP_LIMIT,
  type EcoFigures,
  type EcoReport,
  type EcoRow,
  type EcoScoreParts,
  type EcoSensitivity,
  type EcoThresholds,
  type EcoTrip,
} from './model';

/**
 * Eco-driving scores (domain.md §6). Like Digital Matter's driver scorecard a score starts at 100 and loses points per
 * category up to the category's cap; the caps sum to 100. Digital Matter's caps are acceleration 15, braking 25,
 * cornering 30 and speeding 30; idling is a category here too (the spec scores idle share), so braking and cornering
 * give up 5 points each to it: acceleration 15, braking 20, cornering 20, speeding 30, idling 15.
 *
 * A category's deduction grows linearly with its rate and reaches the cap at the threshold of the unit's feature
 * profile sensitivity (harsh events per 100 km; share of time in motion over the speed threshold; share of engine-on
 * time standing). "normal" is the middle; "sensitive" halves the thresholds (the same driving costs twice as much),
 * "insensitive" doubles them. What counts as a harsh event at all (the g-force) is set in the tracker: the documented
 * passenger-car defaults are about 0.2–0.45 g (domain.md §6 table).
 */
export const ECO_CAPS = { acceleration: 15, braking: 20, cornering: 20, speeding: 30, idling: 15 } as const;

export const ECO_THRESHOLDS: Record<EcoSensitivity, EcoThresholds> = {
  sensitive: { accelerationPer100Km: 5, brakingPer100Km: 5, corneringPer100Km: 5, overspeedShare: 0.1, idleShare: 0.15 },
  normal: { accelerationPer100Km: 10, brakingPer100Km: 10, corneringPer100Km: 10, overspeedShare: 0.2, idleShare: 0.3 },
  insensitive: { accelerationPer100Km: 20, brakingPer100Km: 20, corneringPer100Km: 20, overspeedShare: 0.4, idleShare: 0.6 },
};

export interface EcoInput {
  distanceKm: number;
  harshAcceleration: number;
  harshBraking: number;
  harshCornering: number;
  /** Engine-on (trip) time, time standing with the engine on, and time over the speed threshold, seconds. */
  drivingS: number;
  idleS: number;
  overspeedS: number;
}

const part = (rate: number, threshold: number, cap: number): number => (threshold <= 0 ? 0 : Math.min(cap, (cap * rate) / threshold));

/** The score of a trip, driver or vehicle from its totals. Without distance there are no event rates (nothing deducted for them). */
export function ecoScore(input: EcoInput, thresholds: EcoThresholds): EcoScoreParts {
  const per100 = (events: number) => (input.distanceKm > 0 ? (events * 100) / input.distanceKm : 0);
  const accelerationPer100Km = per100(input.harshAcceleration);
  const brakingPer100Km = per100(input.harshBraking);
  const corneringPer100Km = per100(input.harshCornering);
  const moving = Math.max(0, input.drivingS - input.idleS);
  const overspeedShare = moving > 0 ? Math.min(1, input.overspeedS / moving) : 0;
  const idleShare = input.drivingS > 0 ? Math.min(1, input.idleS / input.drivingS) : 0;
  const deductions = {
    acceleration: part(accelerationPer100Km, thresholds.accelerationPer100Km, ECO_CAPS.acceleration),
    braking: part(brakingPer100Km, thresholds.brakingPer100Km, ECO_CAPS.braking),
    cornering: part(corneringPer100Km, thresholds.corneringPer100Km, ECO_CAPS.cornering),
    speeding: part(overspeedShare, thresholds.overspeedShare, ECO_CAPS.speeding),
    idling: part(idleShare, thresholds.idleShare, ECO_CAPS.idling),
  };
  const lost = deductions.acceleration + deductions.braking + deductions.cornering + deductions.speeding + deductions.idling;
  return {
    accelerationPer100Km: round(accelerationPer100Km, 2),
    brakingPer100Km: round(brakingPer100Km, 2),
    corneringPer100Km: round(corneringPer100Km, 2),
    overspeedShare: round(overspeedShare, 4),
    idleShare: round(idleShare, 4),
    deductions: {
      acceleration: round(deductions.acceleration, 2),
      braking: round(deductions.braking, 2),
      cornering: round(deductions.cornering, 2),
      speeding: round(deductions.speeding, 2),
      idling: round(deductions.idling, 2),
    },
    score: round(Math.max(0, 100 - lost), 1),
  };
}

interface Totals extends EcoInput {
  trips: number;
  /** Sum of each trip's deductions weighted by its distance is not used: a group is scored from its totals. */
  sensitivity: EcoSensitivity;
}

const emptyTotals = (sensitivity: EcoSensitivity): Totals => ({
  trips: 0,
  distanceKm: 0,
  harshAcceleration: 0,
  harshBraking: 0,
  harshCornering: 0,
  drivingS: 0,
  idleS: 0,
  overspeedS: 0,
  sensitivity,
});

function addPart(totals: Totals, part: TripAggregate) {
  totals.trips += part.trips;
  totals.distanceKm += part.distanceM / 1000;
  totals.harshAcceleration += part.harshAcceleration;
  totals.harshBraking += part.harshBraking;
  totals.harshCornering += part.harshCornering;
  totals.drivingS += part.drivingS;
  totals.idleS += part.idleS;
  totals.overspeedS += part.overspeedS;
}

function add(totals: Totals, trip: ReportTrip) {
  totals.trips += 1;
  totals.distanceKm += trip.distanceM / 1000;
  totals.harshAcceleration += trip.harshAcceleration;
  totals.harshBraking += trip.harshBraking;
  totals.harshCornering += trip.harshCornering;
  totals.drivingS += Math.max(0, (trip.stop - trip.start) / 1000);
  totals.idleS += trip.idleS;
  totals.overspeedS += trip.overspeedS;
}

function figures(totals: Totals): EcoFigures {
  return {
    trips: totals.trips,
    distanceKm: round(totals.distanceKm, 1),
    drivingS: Math.round(totals.drivingS),
    idleS: Math.round(totals.idleS),
    overspeedS: Math.round(totals.overspeedS),
    harshAcceleration: totals.harshAcceleration,
    harshBraking: totals.harshBraking,
    harshCornering: totals.harshCornering,
    ...ecoScore(totals, ECO_THRESHOLDS[totals.sensitivity]),
  };
}

/** Monday (YYYY-MM-DD) of the ISO week of a local day. */
export function weekOf(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const weekday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - weekday * 86_400_000).toISOString().slice(0, 10);
}

/** The most common sensitivity of a set of units (a driver's trips may be in several), each counted `weight` times. */
function dominant(sensitivities: Array<EcoSensitivity | { sensitivity: EcoSensitivity; weight: number }>): EcoSensitivity {
  const counts = new Map<EcoSensitivity, number>();
  for (const s of sensitivities) {
    const [key, weight] = typeof s === 'string' ? [s, 1] : [s.sensitivity, s.weight];
    counts.set(key, (counts.get(key) ?? 0) + weight);
  }
  let best: EcoSensitivity = 'normal';
  let most = 0;
  for (const s of ECO_SENSITIVITIES) {
    if ((counts.get(s) ?? 0) > most) {
      best = s;
      most = counts.get(s)!;
    }
  }
  return best;
}

/** The eco-driving report: trips scored, the ranking per vehicle or driver, the fleet and the weekly trend. */
export async function ecoReport(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  now: Date,
  texts: { noDriver: string },
): Promise<EcoReport> {
  // The ranking, the fleet and the trend from totals summed in the database; only the newest trips are read one by one.
  const [{ perUnitDriver, perDay }, newest] = await Promise.all([
    source.aggregates(accountId, scope.units, period, { driverId: scope.driverId, motion: true }),
    source.trips(accountId, scope.units, period.start, period.end, { driverId: scope.driverId, motion: true, newest: ECO_TRIP_LIMIT + 1 }),
  ]);
  const driverIds = [
    ...new Set([...perUnitDriver.map((part) => part.driverUserId), ...newest.map((trip) => trip.driverUserId)].filter((id): id is number => id !== null)),
  ];
  const names = await source.driverNames(accountId, driverIds);
  const { labelOf, unitById } = grouping(scope, names, texts.noDriver);
  const sensitivityOf = (unitId: number): EcoSensitivity => unitById.get(unitId)?.sensitivity ?? 'normal';
  const keyOf = (part: TripAggregate): number => (scope.groupBy === 'vehicle' ? part.unitId! : (part.driverUserId ?? 0));

  const groups = new Map<number, { totals: Totals; sensitivities: Array<{ sensitivity: EcoSensitivity; weight: number }> }>();
  const fleet = emptyTotals(dominant(scope.units.map((unit) => unit.sensitivity)));
  for (const part of perUnitDriver) {
    const group = entry(groups, keyOf(part), () => ({ totals: emptyTotals('normal'), sensitivities: [] }));
    addPart(group.totals, part);
    group.sensitivities.push({ sensitivity: sensitivityOf(part.unitId!), weight: part.trips });
    addPart(fleet, part);
  }
  const weeks = new Map<string, Totals>();
  for (const part of perDay) addPart(entry(weeks, weekOf(part.day!), () => emptyTotals(fleet.sensitivity)), part);
  const scored: EcoTrip[] = newest.slice(0, ECO_TRIP_LIMIT).map((trip) => {
    const own = emptyTotals(sensitivityOf(trip.unitId));
    add(own, trip);
    return {
      tripId: trip.id,
      unitId: trip.unitId,
      unitName: unitById.get(trip.unitId)?.name ?? String(trip.unitId),
      driverUserId: trip.driverUserId,
      driverName: trip.driverUserId === null ? null : (names.get(trip.driverUserId) ?? null),
      startTime: new Date(trip.start).toISOString(),
      stopTime: new Date(trip.stop).toISOString(),
      distanceKm: round(trip.distanceM / 1000, 1),
      harshAcceleration: trip.harshAcceleration,
      harshBraking: trip.harshBraking,
      harshCornering: trip.harshCornering,
      overspeedS: trip.overspeedS,
      idleS: trip.idleS,
      score: ecoScore(own, ECO_THRESHOLDS[own.sensitivity]).score,
    };
  });

  const rows: EcoRow[] = [...groups.entries()].map(([key, group]) => {
    group.totals.sensitivity = scope.groupBy === 'vehicle' ? sensitivityOf(key) : dominant(group.sensitivities);
    const label = labelOf(key);
    return {
      ...label,
      ...figures(group.totals),
      rank: 0,
      sensitivity: group.totals.sensitivity,
      overspeedKmh: scope.groupBy === 'vehicle' ? (unitById.get(key)?.overspeedKmh ?? 0) : 0,
    };
  });
  rows.sort((a, b) => b.score - a.score || b.distanceKm - a.distanceKm || a.name.localeCompare(b.name));
  rows.forEach((row, index) => {
    row.rank = index > 0 && rows[index - 1]!.score === row.score ? rows[index - 1]!.rank : index + 1;
  });
  if (scope.groupBy === 'driver') for (const row of rows) row.overspeedKmh = unitOverspeedOfDriver(perUnitDriver, row.key, unitById);

  return {
    ...reportHeader('eco', period, scope, now),
    kind: 'eco',
    rows,
    trips: scored,
    tripsTruncated: newest.length > ECO_TRIP_LIMIT,
    fleet: figures(fleet),
    trend: [...weeks.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([week, totals]) => ({ week, score: figures(totals).score, distanceKm: round(totals.distanceKm, 1), trips: totals.trips })),
    thresholds: ECO_THRESHOLDS,
  };
}

/** A driver row's speed threshold: the one of the unit the driver drove most (km/h). */
function unitOverspeedOfDriver(parts: TripAggregate[], driverKey: number, unitById: Map<number, { overspeedKmh: number }>): number {
  const distance = new Map<number, number>();
  for (const part of parts) if ((part.driverUserId ?? 0) === driverKey) distance.set(part.unitId!, (distance.get(part.unitId!) ?? 0) + part.distanceM);
  let best = 0;
  let most = -1;
  for (const [unitId, metres] of distance) {
    if (metres > most) {
      most = metres;
      best = unitById.get(unitId)?.overspeedKmh ?? 0;
    }
  }
  return best;
}
