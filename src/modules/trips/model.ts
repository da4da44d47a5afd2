import { EXPORT_FORMATS } from '../../lib/export/formats';
import { z } from '../../lib/validation';

/**
 * Trip log: schemas and wire types. Shared with the web app: no server-only imports here.
 */

/** Spec §3/§4: every trip is business, private or other. */
export const TRIP_TYPES = ['business', 'private', 'other'] as const;
export type TripType = (typeof TRIP_TYPES)[number];
/** A unit without its own default records trips as business trips. */
export const DEFAULT_TRIP_TYPE: TripType = 'business';
/** Standing still this long ends a trip unless the unit has its own setting (the unit edit page shows it). */
export const DEFAULT_TIME_TILL_PARKED_S = 300;

/** Spec §5: a date range spans at most 12 months. */
export const MAX_RANGE_MONTHS = 12;
/** Spec §5: purpose (and the attest note) at most 100 characters. */
export const PURPOSE_MAX = 100;
export const NOTE_MAX = 500;
export const PASSENGERS_MAX = 200;
/** Trips typed at once (a page of the trip log). */
export const BULK_MAX = 500;
/** Trips merged at once. */
export const MERGE_MAX = 50;

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

const dbId = () => z.coerce.number<unknown>().int().positive().max(Number.MAX_SAFE_INTEGER);
/** Free text of a trip: trimmed, empty clears it. */
const tripText = (max: number) =>
  z
    .string()
    .transform((value) => value.trim())
    .pipe(z.string().max(max))
    .nullable();

export const tripIdParamsSchema = z.object({ id: dbId() });

/** Spec §4/§5: one trip's type, purpose (default purpose or free text, at most 100), note and passengers. Omitted fields stay. */
export const tripUpdateSchema = z.object({
  type: z.enum(TRIP_TYPES).optional(),
  purpose: tripText(PURPOSE_MAX).optional(),
  note: tripText(NOTE_MAX).optional(),
  passengers: tripText(PASSENGERS_MAX).optional(),
});
export type TripUpdateInput = z.output<typeof tripUpdateSchema>;

/** Spec §4: the type of several trips at once (the trips of a page). */
export const tripBulkTypeSchema = z.object({
  tripIds: z.array(dbId()).min(1).max(BULK_MAX),
  type: z.enum(TRIP_TYPES),
});
export type TripBulkTypeInput = z.output<typeof tripBulkTypeSchema>;

/** Spec §4: consecutive trips of one unit merged into one. */
export const tripMergeSchema = z.object({
  tripIds: z.array(dbId()).min(2).max(MERGE_MAX),
});
export type TripMergeInput = z.output<typeof tripMergeSchema>;

/** Spec §4: a driver checked in from a trip; "No driver" (null) cannot be checked in. */
export const tripCheckInSchema = z.object({
  driverUserId: z.number().int().min(0).max(2_147_483_647).nullable(),
});
export type TripCheckInInput = z.output<typeof tripCheckInSchema>;

/** A user of the account who can be a trip's driver. */
export interface TripDriver {
  id: number;
  name: string;
}

export interface TripBulkResult {
  updated: number;
}

export interface TripCheckInResult {
  /** The trips (this one and later) that now have the driver. */
  updated: number;
  /** The driver checked out first, if one was checked in. */
  checkedOutUserId: number | null;
}

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

/** A trip as the trip log lists it: the trip plus what the log shows about it. */
export interface TripLogEntry extends TripView {
  /**
   * Set when the trip starts (stops) in a place assigned to its unit: the place's label, which is then also what
   * startAddress (stopAddress) shows; the stored address stays in the database.
   */
  startPlace?: string;
  stopPlace?: string;
  /** The driver user's name. */
  driverName: string | null;
  /** Where the driver came from: checked in on the unit, or the booking the trip started in (null: no driver). */
  driverSource: 'checkin' | 'booking' | null;
  /** Made by merging trips; a split restores them. */
  merged: boolean;
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
  trips: TripLogEntry[];
  totals: Record<TripType, TripTotal> & { all: TripTotal };
}

/** Applies the place rules to a unit's trips of a period (days in the caller's time zone, default this month). */
export const tripApplyRulesSchema = z.object({
  unitId: z.coerce.number<unknown>().int().positive().max(2_147_483_647),
  from: rangeBound.optional(),
  to: rangeBound.optional(),
});
export type TripApplyRulesInput = z.output<typeof tripApplyRulesSchema>;

export interface TripApplyRulesResult {
  /** Trips looked at: not attested and not typed by a person. */
  checked: number;
  /** Trips a rule categorizes. */
  categorized: number;
  /** Trips whose type changed. */
  changed: number;
}

/** Spec §3/§4: a month (YYYY-MM) of a user's trips is attested at once. */
const ATTEST_PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const attestPeriod = z.string().trim().regex(ATTEST_PERIOD, 'trips.attest.period');
/** An optional user id: the caller's own when omitted (spec §6: administrators attest for others). */
const optionalUserId = z.coerce.number<unknown>().int().positive().max(2_147_483_647).optional();

/** Spec §3/§5: attest a period for a user, with a note of at most 100 characters. */
export const tripAttestSchema = z.object({
  userId: optionalUserId,
  period: attestPeriod,
  note: tripText(PURPOSE_MAX).optional(),
});
export type TripAttestInput = z.output<typeof tripAttestSchema>;

export const tripAttestQuerySchema = z.object({
  userId: optionalUserId,
  period: attestPeriod,
});
export type TripAttestQuery = z.output<typeof tripAttestQuerySchema>;

export const tripAttestIdParamsSchema = z.object({ id: z.coerce.number<unknown>().int().positive().max(2_147_483_647) });

export type TripAttestStatus = 'attested' | 'unlocked' | 'unattested';

/** One attest record: the user's trips of the period are read-only while its status is attested. */
export interface TripAttestRecord {
  id: number;
  userId: number;
  period: string;
  from: string;
  to: string;
  status: TripAttestStatus;
  note: string | null;
  attestedBy: number | null;
  attestedAt: string;
}

export interface TripAttestHistoryEntry {
  action: 'attested' | 'unlocked' | 'unattested' | 'removed';
  note: string | null;
  byUserId: number | null;
  at: string;
}

/** A user's attest of one period: the record (null when never attested or removed) and its history, oldest first. */
export interface TripAttestView {
  userId: number;
  period: string;
  attested: boolean;
  record: TripAttestRecord | null;
  history: TripAttestHistoryEntry[];
}

/**
 * Trip log exports: query schema and names shared with the web app (no server-only imports here).
 *
 * - se: Swedish körjournal as Skatteverket expects it (domain.md §1).
 * - no: Norwegian kjørebok (Skatteetaten, domain.md §5).
 * - uk: HMRC business mileage log, distances in miles (domain.md §5).
 */
export { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from '../../lib/export/formats';
export const EXPORT_VARIANTS = ['se', 'no', 'uk'] as const;
export type ExportVariant = (typeof EXPORT_VARIANTS)[number];

/** One unit's trips in a period (at most 12 months, spec §5), as a file; the variant follows the account's country unless given. */
export const tripExportQuerySchema = tripListQuerySchema.extend({
  format: z.enum(EXPORT_FORMATS).default('pdf'),
  variant: z.enum(EXPORT_VARIANTS).optional(),
  /** The texts' language; default the X-Lang header, else the user's language. */
  lang: z.enum(['sv', 'en', 'no']).optional(),
});
export type TripExportQuery = z.output<typeof tripExportQuerySchema>;
export type TripExportParams = z.input<typeof tripExportQuerySchema>;

/** Which listed trips lie in an attested period of their driver (spec §4: attested trips are read-only on the trip log). */
export interface TripLockState {
  unitId: number;
  from: string;
  to: string;
  /** Trips of the period that are attested (read-only), oldest first. */
  attestedTripIds: number[];
}
