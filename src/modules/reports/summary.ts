import type { TripType } from '../trips/model';
import { daysOf, type FleetSource, grouping, type ReportPeriod, type ReportTrip, type ResolvedScope, reportHeader, round, entry } from './fleet-source';
import type { SummaryDay, SummaryFigures, SummaryReport, SummaryRow } from './model';

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

function add(acc: Acc, trip: ReportTrip) {
  acc.trips += 1;
  acc.distanceM += trip.distanceM;
  acc.byType[trip.type] += trip.distanceM;
  acc.drivingS += Math.max(0, (trip.stop - trip.start) / 1000);
  acc.idleS += trip.idleS;
  if (trip.maxSpeedKmh > acc.maxSpeedKmh) acc.maxSpeedKmh = trip.maxSpeedKmh;
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
  dayOfInstant: (ms: number) => string,
): Promise<SummaryReport> {
  const trips = await source.trips(accountId, scope.units, period.start, period.end, { driverId: scope.driverId, motion: true });
  const driverIds = [...new Set(trips.flatMap((trip) => (trip.driverUserId === null ? [] : [trip.driverUserId])))];
  const names = await source.driverNames(accountId, driverIds);
  const { keyOf, labelOf, unitById } = grouping(scope, names, texts.noDriver);

  const rows = new Map<number, Acc>();
  const departments = new Map<number | null, { name: string; acc: Acc }>();
  const fleet = emptyAcc();
  const days = new Map<string, SummaryDay>();
  const perDay = new Map<string, Record<TripType, number>>();
  for (const trip of trips) {
    const key = keyOf(trip);
    const acc = entry<number, Acc>(rows, key, () => (emptyAcc()));
    add(acc, trip);
    add(fleet, trip);
    const department = unitById.get(trip.unitId)?.department ?? null;
    const dept = entry(departments, department?.id ?? null, () => ({ name: department?.name ?? texts.noDepartment, acc: emptyAcc() }));
    add(dept.acc, trip);

    const date = dayOfInstant(trip.start);
    const dayKey = `${date}|${key}`;
    const day = days.get(dayKey);
    const start = new Date(trip.start).toISOString();
    const stop = new Date(trip.stop).toISOString();
    if (!day) {
      days.set(dayKey, { date, key, name: labelOf(key).name, firstStart: start, lastStop: stop, trips: 1, distanceKm: trip.distanceM / 1000 });
    } else {
      if (start < day.firstStart) day.firstStart = start;
      if (stop > day.lastStop) day.lastStop = stop;
      day.trips += 1;
      day.distanceKm += trip.distanceM / 1000;
    }
    const distance = entry(perDay, date, () => ({ business: 0, private: 0, other: 0 }));
    distance[trip.type] += trip.distanceM / 1000;
  }

  const summaryRows: SummaryRow[] = [...rows.entries()]
    .map(([key, acc]) => ({ ...labelOf(key), ...summaryFigures(acc) }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.key - b.key);
  return {
    ...reportHeader('summary', period, scope, now),
    kind: 'summary',
    rows: summaryRows,
    days: [...days.values()]
      .map((day) => ({ ...day, distanceKm: round(day.distanceKm, 1) }))
      .sort((a, b) => a.date.localeCompare(b.date) || a.name.localeCompare(b.name)),
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
