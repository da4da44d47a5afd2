import { z } from '../../lib/validation';
import type { TripType } from '../trips/model';
import type { City, ExemptReason, Zone } from './congestion';

/**
 * Reports: schemas and wire types. Shared with the web app: no server-only imports here (the imports above
 * other than `z` are types and disappear in the bundle).
 */

/** Spec §5: a report covers at most 12 months. */
export const REPORT_MAX_MONTHS = 12;
/** The congestion tax is set by Swedish local time, so its days are Swedish days. */
export const CONGESTION_TIME_ZONE = 'Europe/Stockholm';

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export function isReportDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}
const reportDate = z.string().trim().min(1, { abort: true }).refine(isReportDate, 'validation.dateRange.format');

export const congestionQuerySchema = z.object({
  unitId: z.string().trim().min(1, { abort: true }).pipe(z.coerce.number<string>().int().positive().max(2_147_483_647)),
  /** First day (YYYY-MM-DD, Swedish time); default: the first day of this month. */
  from: reportDate.optional(),
  /** Last day, inclusive (YYYY-MM-DD); default: the last day of the month of `from` (or of this month). */
  to: reportDate.optional(),
});
export type CongestionQuery = z.output<typeof congestionQuerySchema>;

export interface CongestionPassage {
  /** Instant of the passage (ISO, UTC), and its Swedish local time HH:MM (what the tariff reads). */
  time: string;
  localTime: string;
  city: City;
  zone: Zone;
  station: string;
  controlPoint: string;
  /** Tariff amount at that time (SEK) and what the passage costs after the day rules, the single-charge rule and the daily maximum. */
  tariff: number;
  amount: number;
  /** Why it costs less than the tariff, or null. */
  reason: ExemptReason | null;
  /** The trip the passage belongs to (null: outside any detected trip). */
  tripId: number | null;
  tripType: TripType | null;
  /** On a private trip: a benefit-car user sees which passages were business. */
  private: boolean;
}

export interface CongestionCityDay {
  city: City;
  total: number;
  /** Daily maximum that applied, and whether it cut the day. */
  cap: number;
  capped: boolean;
}

export interface CongestionDay {
  /** Swedish calendar day. */
  date: string;
  total: number;
  cities: CongestionCityDay[];
  passages: CongestionPassage[];
}

export interface CongestionTripTotal {
  tripId: number;
  type: TripType;
  startTime: string;
  stopTime: string;
  passages: number;
  amount: number;
}

export interface CongestionReport {
  unitId: number;
  unitName: string;
  /** The period read: days, both inclusive, in `timeZone`. */
  from: string;
  to: string;
  timeZone: string;
  /** Days with at least one passage, in order. */
  days: CongestionDay[];
  /** Trips with passages, in order. */
  trips: CongestionTripTotal[];
  /** Amount (SEK) of the period, and split by the type of the trip (none: outside detected trips). */
  total: number;
  totals: Record<TripType | 'none', number>;
  passageCount: number;
}
