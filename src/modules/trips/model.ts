import { z } from '../../lib/validation';

/**
 * Trip log: schemas and wire types. Shared with the web app: no server-only imports here.
 */

/** Spec §3/§4: every trip is business, private or other. */
export const TRIP_TYPES = ['business', 'private', 'other'] as const;
export type TripType = (typeof TRIP_TYPES)[number];
/** A unit without its own default records trips as business trips. */
export const DEFAULT_TRIP_TYPE: TripType = 'business';

/** Spec §5: a date range spans at most 12 months. */
export const MAX_RANGE_MONTHS = 12;
/** Spec §5: purpose (and the attest note) at most 100 characters. */
export const PURPOSE_MAX = 100;
export const NOTE_MAX = 500;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

const isoDateTime = z.iso.datetime({ offset: true });
/** A date (a whole day in the caller's time zone) or an instant with its offset. */
export function isRangeBound(value: string): boolean {
  return isCalendarDate(value) || isoDateTime.safeParse(value).success;
}
const rangeBound = z.string().trim().min(1, { abort: true }).refine(isRangeBound, 'validation.dateRange.format');

export const tripListQuerySchema = z.object({
  unitId: z.string().trim().min(1, { abort: true }).pipe(z.coerce.number<string>().int().positive().max(2_147_483_647)),
  /** First day (YYYY-MM-DD, in the caller's time zone) or instant; default: the first day of this month. */
  from: rangeBound.optional(),
  /** Last day, inclusive (YYYY-MM-DD), or an exclusive instant; default: the last day of this month. */
  to: rangeBound.optional(),
});
export type TripListQuery = z.output<typeof tripListQuerySchema>;

/** Per-unit overrides of trip detection; null restores the default. */
export const tripSettingsSchema = z.object({
  detection: z.enum(['auto', 'ignition', 'motion']).nullish(),
  minDistanceM: z.number().int().min(0).max(100_000).nullish(),
  minDurationS: z.number().int().min(0).max(86_400).nullish(),
  timeTillParkedS: z.number().int().min(30).max(86_400).nullish(),
  maxGapS: z.number().int().min(60).max(604_800).nullish(),
  movingSpeedKmh: z.number().positive().max(100).nullish(),
  defaultTripType: z.enum(TRIP_TYPES).nullish(),
});
export type TripSettingsInput = z.output<typeof tripSettingsSchema>;

/** One trip as the API returns it. Coordinates WGS 84 with 6 decimals; times ISO 8601 UTC. */
export interface TripView {
  id: number;
  unitId: number;
  startTime: string;
  stopTime: string;
  durationS: number;
  startLat: number;
  startLon: number;
  stopLat: number;
  stopLon: number;
  startAddress: string | null;
  stopAddress: string | null;
  odometerStartM: number;
  odometerStopM: number;
  /** device: the tracker's odometer; gps: distance accumulated from trip to trip. */
  odometerSource: 'device' | 'gps';
  distanceM: number;
  maxSpeedKmh: number;
  avgSpeedKmh: number;
  /** Driver as the tracker identified it (iButton or beacon id). */
  driverKey: string | null;
  driverUserId: number | null;
  harshBraking: number;
  harshAcceleration: number;
  harshCornering: number;
  type: TripType;
  purpose: string | null;
  note: string | null;
  passengers: string | null;
  detection: 'ignition' | 'motion';
}

export interface TripTotal {
  trips: number;
  distanceM: number;
  durationS: number;
}

export interface TripList {
  unitId: number;
  /** The period read, as instants (from inclusive, to exclusive), and the zone its days were taken in. */
  from: string;
  to: string;
  timeZone: string;
  /** Trips that start in the period, oldest first. */
  trips: TripView[];
  totals: Record<TripType, TripTotal> & { all: TripTotal };
}
