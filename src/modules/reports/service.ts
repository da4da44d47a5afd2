import type { Clock } from '../../lib/clock';
import { fieldError } from '../../lib/http';
import { addToDay, dayOf, startOfDay } from '../../lib/time';
import type { Actor } from '../auth/model';
import type { TrackingService } from '../tracking/service';
import type { TripLogEntry, TripType } from '../trips/model';
import type { TripService } from '../trips/service';
import type { UnitService } from '../units/service';
import { computeCharges } from './congestion';
import { createFleetReports, type FleetReportDeps } from './fleet-reports';
import {
  CONGESTION_TIME_ZONE,
  type CongestionDay,
  type CongestionPassage,
  type CongestionQuery,
  type CongestionReport,
  type CongestionTripTotal,
  REPORT_MAX_MONTHS,
} from './model';
import { type DetectedPassage, PassageDetector, type Station } from './passages';

export interface ReportDeps {
  clock: Clock;
  units: Pick<UnitService, 'get'>;
  tracking: Pick<TrackingService, 'track'>;
  trips: Pick<TripService, 'list'>;
  /** Payment stations; default: the shipped control points. */
  stations?: Station[];
  /** The fleet reports (summary, eco, fuel, CO2, environmental); without them only the congestion tax is offered. */
  fleet?: Omit<FleetReportDeps, 'clock'>;
}

/** The report's days: this month by default; `to` defaults to the end of the month of `from`. At most 12 months. */
export function resolveReportRange(query: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const today = dayOf(now, CONGESTION_TIME_ZONE);
  const from = query.from ?? `${today.slice(0, 8)}01`;
  const to = query.to ?? addToDay(`${from.slice(0, 8)}01`, { months: 1, days: -1 });
  if (to < from) throw fieldError('to', 'validation.dateRange.order');
  if (to >= addToDay(from, { months: REPORT_MAX_MONTHS })) throw fieldError('to', 'validation.dateRange.tooLong');
  return { from, to };
}

/** Reports over a unit's track and trip log (spec §1 "Reports"): the congestion-tax report. */
export function createReportService(deps: ReportDeps) {
  const { clock, units, tracking, trips } = deps;

  /** The trips of a unit overlapping [from, to), read through the trip log a month at a time (it caps its periods). */
  async function tripsOverlapping(actor: Actor, unitId: number, from: Date, to: Date): Promise<TripLogEntry[]> {
    const out = new Map<number, TripLogEntry>();
    // A trip that began the evening before still counts.
    let start = new Date(from.getTime() - 86_400_000);
    while (start < to) {
      const end = new Date(Math.min(to.getTime(), start.getTime() + 180 * 86_400_000));
      const list = await trips.list(actor, { unitId, from: start.toISOString(), to: end.toISOString() });
      for (const trip of list.trips) out.set(trip.id, trip);
      start = end;
    }
    return [...out.values()].sort((a, b) => a.startTime.localeCompare(b.startTime));
  }

  const fleet = deps.fleet ? createFleetReports({ ...deps.fleet, clock }) : null;
  const fleetReports = () => {
    if (!fleet) throw new Error('fleet reports are not configured');
    return fleet;
  };

  return {
    /** The fleet reports (fleet-reports.ts). */
    get fleet() {
      return fleetReports();
    },

    /**
     * Spec §1/§2 congestion charge: the unit's passages through Stockholm and Göteborg payment stations in a
     * period of Swedish days, what each costs and each day's total under the daily maximum, with the trip
     * (and whether it was private) of each passage. Another account's unit is a 404.
     */
    async congestion(actor: Actor, query: CongestionQuery): Promise<CongestionReport> {
      const unit = await units.get(actor, query.unitId);
      const range = resolveReportRange(query, clock.now());
      const start = startOfDay(range.from, CONGESTION_TIME_ZONE);
      const end = startOfDay(addToDay(range.to, { days: 1 }), CONGESTION_TIME_ZONE);

      // The track a month at a time; the detector carries a passage in progress across the seam.
      const detector = new PassageDetector(deps.stations);
      let day = range.from;
      const last = addToDay(range.to, { days: 1 });
      while (day < last) {
        const next = addToDay(`${day.slice(0, 8)}01`, { months: 1 });
        // Days as YYYY-MM-DD compare as text.
        let until = next;
        if (last < until) until = last;
        detector.push(await tracking.track(unit.ID, startOfDay(day, CONGESTION_TIME_ZONE), startOfDay(until, CONGESTION_TIME_ZONE)));
        day = until;
      }
      const detected: DetectedPassage[] = detector.finish();
      const charges = computeCharges(detected);
      const tripList = detected.length === 0 ? [] : await tripsOverlapping(actor, unit.ID, start, end);

      const tripOf = (time: Date): TripLogEntry | null => {
        const t = time.getTime();
        for (const trip of tripList) {
          if (Date.parse(trip.startTime) <= t && t <= Date.parse(trip.stopTime)) return trip;
        }
        return null;
      };

      const totals: Record<TripType | 'none', number> = { business: 0, private: 0, other: 0, none: 0 };
      const perTrip = new Map<number, CongestionTripTotal>();
      const days = new Map<string, CongestionDay>();
      for (const day of charges.days) days.set(day.date, { date: day.date, total: day.total, cities: day.cities, passages: [] });
      for (const charged of charges.passages) {
        const trip = tripOf(charged.time);
        const passage: CongestionPassage = {
          time: charged.time.toISOString(),
          localTime: charged.localTime,
          city: charged.station.city,
          zone: charged.station.zone,
          station: charged.station.name,
          controlPoint: charged.input.controlPoint,
          tariff: charged.tariff,
          amount: charged.charged,
          reason: charged.reason,
          tripId: trip?.id ?? null,
          tripType: trip?.type ?? null,
          private: trip?.type === 'private',
        };
        days.get(charged.date)!.passages.push(passage);
        totals[trip?.type ?? 'none'] += charged.charged;
        if (trip) {
          let entry = perTrip.get(trip.id);
          if (!entry) {
            entry = { tripId: trip.id, type: trip.type, startTime: trip.startTime, stopTime: trip.stopTime, passages: 0, amount: 0 };
            perTrip.set(trip.id, entry);
          }
          entry.passages += 1;
          entry.amount += charged.charged;
        }
      }

      return {
        unitId: unit.ID,
        unitName: unit.Name,
        from: range.from,
        to: range.to,
        timeZone: CONGESTION_TIME_ZONE,
        days: [...days.values()],
        trips: [...perTrip.values()],
        total: charges.total,
        totals,
        passageCount: charges.passages.length,
      };
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;

/** Spec §6 for every report: which units a report may show (a locked car without access: benefit value and summary only). */
export { fleetReportUnits, REPORTS_WITHOUT_ACCESS, reportShowsUnit, reportUnits } from './benefit-access';
