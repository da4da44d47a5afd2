import type { TripType } from '../trips/model';
import { daysOf, entry, type FleetSource, grouping, type ReportPeriod, type ResolvedScope, reportHeader, round, type TripAggregate } from './fleet-source';
import { SUMMARY_DAY_LIMIT, type SummaryDay, type SummaryFigures, type SummaryReport, type SummaryRow } from './model';

/**
 * The summary report (spec §1): per vehicle or driver the trips, distance per trip type, driving time, idle time
 * (engine on while standing, from the trips' stored positions), stops, average and top speed; first start and last stop
 * per local day; totals per department and for the fleet; distance per day for the chart.
 */

interface Acc {
  trips: number;
  distanceM: number;
  byType: Record<TripType, number>;
  drivingS: number;
  idleS: number;
  maxSpeedKmh: number;
}

const emptyAcc = (): Acc => ({ trips: 0, distanceM: 0, byType: { business: 0, private: 0, other: 0 }, drivingS: 0, idleS: 0, maxSpeedKmh: 0 });

function add(acc: Acc, part: TripAggregate) {
  acc.trips += part.trips;
  acc.distanceM += part.distanceM;
  acc.byType.business += part.byType.business;
  acc.byType.private += part.byType.private;
  acc.byType.other += part.byType.other;
  acc.drivingS += part.drivingS;
  acc.idleS += part.idleS;
  if (part.maxSpeedKmh > acc.maxSpeedKmh) acc.maxSpeedKmh = part.maxSpeedKmh;
}

export function summaryFigures(acc: Acc): SummaryFigures {
  return {
    trips: acc.trips,
    distanceKm: round(acc.distanceM / 1000, 1),
    distanceByType: { business: round(acc.byType.business / 1000, 1), private: round(acc.byType.private / 1000, 1), other: round(acc.byType.other / 1000, 1) },
    drivingS: Math.round(acc.drivingS),
    idleS: Math.round(acc.idleS),
    stops: acc.trips,
    avgSpeedKmh: acc.drivingS > 0 ? round(acc.distanceM / 1000 / (acc.drivingS / 3600), 1) : 0,
    maxSpeedKmh: round(acc.maxSpeedKmh, 1),
  };
}

export async function summaryReport(
  source: FleetSource,
  accountId: number,
  scope: ResolvedScope,
  period: ReportPeriod,
  now: Date,
  texts: { noDriver: string; noDepartment: string },
): Promise<SummaryReport> {
  // Summed in the database per unit and driver and per day; the per-day rows of each vehicle or driver are capped.
  const [{ perUnitDriver, perDay: dayTotals }, dayRows] = await Promise.all([
    source.aggregates(accountId, scope.units, period, { driverId: scope.driverId, motion: true }),
    source.dayRows(accountId, scope.units, period, { driverId: scope.driverId, groupBy: scope.groupBy, limit: SUMMARY_DAY_LIMIT }),
  ]);
  const driverIds = [...new Set(perUnitDriver.flatMap((part) => (part.driverUserId === null ? [] : [part.driverUserId])))];
  const names = await source.driverNames(accountId, driverIds);
  const { labelOf, unitById } = grouping(scope, names, texts.noDriver);
  const keyOf = (part: TripAggregate): number => (scope.groupBy === 'vehicle' ? part.unitId! : (part.driverUserId ?? 0));

  const rows = new Map<number, Acc>();
  const departments = new Map<number | null, { name: string; acc: Acc }>();
  const fleet = emptyAcc();
  for (const part of perUnitDriver) {
    const acc = entry<number, Acc>(rows, keyOf(part), () => emptyAcc());
    add(acc, part);
    add(fleet, part);
    const department = unitById.get(part.unitId!)?.department ?? null;
    const dept = entry(departments, department?.id ?? null, () => ({ name: department?.name ?? texts.noDepartment, acc: emptyAcc() }));
    add(dept.acc, part);
  }
  const perDay = new Map<string, Record<TripType, number>>();
  for (const part of dayTotals) perDay.set(part.day!, { business: part.byType.business / 1000, private: part.byType.private / 1000, other: part.byType.other / 1000 });
  const days: SummaryDay[] = dayRows.rows.map((row) => ({
    date: row.day,
    key: row.key,
    name: labelOf(row.key).name,
    firstStart: new Date(row.firstStart).toISOString(),
    lastStop: new Date(row.lastStop).toISOString(),
    trips: row.trips,
    distanceKm: row.distanceM / 1000,
  }));

  const summaryRows: SummaryRow[] = [...rows.entries()]
    .map(([key, acc]) => ({ ...labelOf(key), ...summaryFigures(acc) }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.key - b.key);
  return {
    ...reportHeader('summary', period, scope, now),
    kind: 'summary',
    rows: summaryRows,
    days: days.map((day) => ({ ...day, distanceKm: round(day.distanceKm, 1) })).sort((a, b) => a.date.localeCompare(b.date) || a.name.localeCompare(b.name)),
    daysTotal: dayRows.total,
    departments: [...departments.entries()]
      .map(([id, dept]) => ({ id, name: dept.name, ...summaryFigures(dept.acc) }))
      .sort((a, b) => (a.id === null ? 1 : b.id === null ? -1 : a.name.localeCompare(b.name))),
    fleet: summaryFigures(fleet),
    distancePerDay: daysOf(period.from, period.to).map((date) => {
      const distance = perDay.get(date) ?? { business: 0, private: 0, other: 0 };
      return {
        date,
        distanceKm: round(distance.business + distance.private + distance.other, 1),
        business: round(distance.business, 1),
        private: round(distance.private, 1),
        other: round(distance.other, 1),
      };
    }),
  };
}
