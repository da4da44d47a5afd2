import { z } from '../../lib/validation';

/**
 * Safe return home (spec §1, §2, §3 Safe home record, §4, §5, §7, §8, §9). Zod schemas, wire types and pure schedule
 * helpers shared with the web app: no server-only imports here.
 *
 * Routes (administrators and support only; every one answers 403 `safeHome.disabled` when the brand's
 * EnableSafeReturnHome is off; every query is scoped to the caller's account):
 *
 *   GET /api/admin/safe-home/config                         (brands module) → data.EnableSafeReturnHome
 *   GET /api/admin/safe-home/list                           → data: SafeHomeRecord[] (every vehicle of the account)
 *   GET /api/admin/safe-home/tracker/latest-position?imei=  → data: LatestPosition ({ Latitude, Longitude }, both
 *       null when the vehicle has no valid position)
 *   PUT /api/admin/safe-home/toggle-status          { imei, status }                        → data: SafeHomeSaved
 *       0 → 1 only with a non-empty schedule and an address, else 422 `safeHome.SafeHomeEnableMsg` and no change.
 *   PUT /api/admin/safe-home/set-geofence           { imei, radius, centerLng, centerLat, address } → data: SafeHomeSaved
 *       radius ≥ 300 (422 `safeHome.RadiusLessThan300`), address required (422 `safeHome.SafeReturnHomeAddrEmpty`) and
 *       must geocode (422 `safeHome.GeocodeFailed`, "An error occurred while fetching location."); coordinates are
 *       kept to 6 decimals. Success message `safeHome.HomeAddressUpdateMsg`.
 *   PUT /api/admin/safe-home/update-schedule-alert  { imei, schedule, frequency, start_date, time_zone } → data: SafeHomeSaved
 *       only checked days with a time are kept, empty weeks dropped. Success message `safeHome.AlertScheduleUpdated`.
 *       A schedule that ends up empty switches the vehicle off.
 *
 * An unknown or other account's imei is 404 `safeHome.notFound`; a bad field 422 with the field's key.
 */

/**
 * Vehicles of the Basic subscription ("Bas") have no safe return home: the Basic subscription hides the feature (spec
 * §2), so the list leaves them out and the calls naming one answer as for a vehicle that is not the caller's.
 */
export const BASIC_SUBSCRIPTION_TYPE = 'Bas';
export const isBasicSubscription = (subscriptionType: string | null | undefined) =>
  (subscriptionType ?? '').trim().toLowerCase() === BASIC_SUBSCRIPTION_TYPE.toLowerCase();

export const SAFE_HOME_MESSAGES = {
  /** The switch cannot go on: no schedule or no address (spec §4). */
  SafeHomeEnableMsg: 'safeHome.SafeHomeEnableMsg',
  RadiusLessThan300: 'safeHome.RadiusLessThan300',
  SafeReturnHomeAddrEmpty: 'safeHome.SafeReturnHomeAddrEmpty',
  /** "An error occurred while fetching location." */
  GeocodeFailed: 'safeHome.GeocodeFailed',
  HomeAddressUpdateMsg: 'safeHome.HomeAddressUpdateMsg',
  AlertScheduleUpdated: 'safeHome.AlertScheduleUpdated',
  /** Switch changed. */
  StatusUpdated: 'safeHome.StatusUpdated',
  /** A schedule time not in 15-minute steps / not HH:mm. */
  TimeStep: 'safeHome.TimeStep',
  /** A week number outside 1..frequency, or a day id outside 0..6, or a day twice in a week. */
  InvalidSchedule: 'safeHome.InvalidSchedule',
  InvalidTimeZone: 'safeHome.InvalidTimeZone',
  NotFound: 'safeHome.notFound',
  /** The brand's EnableSafeReturnHome is off. */
  Disabled: 'safeHome.disabled',
} as const;
export type SafeHomeMessageKey = (typeof SAFE_HOME_MESSAGES)[keyof typeof SAFE_HOME_MESSAGES];

/** Spec §5/§9. */
export const HOME_RADIUS_MIN = 300;
export const HOME_RADIUS_DEFAULT = 300;
export const HOME_RADIUS_MAX = 9999;
export const ADDRESS_MAX = 50;
export const DEFAULT_ALERT_TIME = '18:00';
export const SCHEDULE_STEP_MINUTES = 15;
export const FREQUENCIES = [1, 2, 3] as const;
export type Frequency = (typeof FREQUENCIES)[number];
/** Spec §9: day ids 1-6 Monday-Saturday, 0 Sunday; listed Monday first. */
export const SCHEDULE_DAY_IDS = [1, 2, 3, 4, 5, 6, 0] as const;
/** Coordinates are kept (and sent) with 6 decimals. */
export const COORDINATE_DECIMALS = 6;

export function roundCoordinate(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

// ---------------------------------------------------------------------------------------------------------------
// The schedule: JSON text holding, per week of the cycle, a list of day and time.

/** One alert: day id (0 Sunday … 6 Saturday) and wall-clock `HH:mm` in the record's time zone. */
export interface ScheduleDay {
  day: number;
  time: string;
}
/** Week `week` (1..frequency) of the cycle counted from the start date's week. */
export interface ScheduleWeek {
  week: number;
  days: ScheduleDay[];
}
/** Stored and answered as JSON text (`JSON.stringify(Schedule)`); `[]` is the empty schedule. */
export type Schedule = ScheduleWeek[];

const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isScheduleTime(value: string): boolean {
  const match = TIME_RE.exec(value);
  return match !== null && Number(match[2]) % SCHEDULE_STEP_MINUTES === 0;
}

export function isLocalDate(value: string): boolean {
  const match = DATE_RE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.getUTCFullYear() === Number(match[1]) && date.getUTCMonth() === Number(match[2]) - 1 && date.getUTCDate() === Number(match[3]);
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value.length > 0 && value.length <= 64;
  } catch {
    return false;
  }
}

/**
 * A day as the form sends it: `checked` false or an empty time means "not chosen" and is dropped (spec §5); a day
 * without `checked` counts as checked.
 */
export const scheduleDayInputSchema = z.object({
  day: z.coerce.number<unknown>().int().min(0, SAFE_HOME_MESSAGES.InvalidSchedule).max(6, SAFE_HOME_MESSAGES.InvalidSchedule),
  time: z.string().trim().nullish(),
  checked: z.boolean().optional(),
});
export const scheduleWeekInputSchema = z.object({
  week: z.coerce.number<unknown>().int().min(1, SAFE_HOME_MESSAGES.InvalidSchedule).max(3, SAFE_HOME_MESSAGES.InvalidSchedule),
  days: z.array(scheduleDayInputSchema).max(7, SAFE_HOME_MESSAGES.InvalidSchedule),
});
export type ScheduleWeekInput = z.input<typeof scheduleWeekInputSchema>;

/**
 * Spec §5: keeps only checked days with a time, drops empty weeks, sorts weeks and days (Monday first). Returns the
 * message key of the first broken rule instead when a kept time is off the 15-minute grid or a day repeats.
 */
export function normalizeSchedule(weeks: z.output<typeof scheduleWeekInputSchema>[]): Schedule | SafeHomeMessageKey {
  const byWeek = new Map<number, ScheduleDay[]>();
  for (const week of weeks) {
    const days = byWeek.get(week.week) ?? [];
    for (const entry of week.days) {
      if (entry.checked === false) continue;
      const time = entry.time?.trim() ?? '';
      if (time === '') continue;
      if (!isScheduleTime(time)) return SAFE_HOME_MESSAGES.TimeStep;
      if (days.some((day) => day.day === entry.day)) return SAFE_HOME_MESSAGES.InvalidSchedule;
      days.push({ day: entry.day, time });
    }
    byWeek.set(week.week, days);
  }
  const order = (day: number) => (day + 6) % 7;
  return [...byWeek.entries()]
    .filter(([, days]) => days.length > 0)
    .sort(([a], [b]) => a - b)
    .map(([week, days]) => ({ week, days: days.sort((a, b) => order(a.day) - order(b.day)) }));
}

/** Reads stored schedule JSON text; anything unreadable is the empty schedule. */
export function parseSchedule(text: string | null | undefined): Schedule {
  if (!text) return [];
  try {
    const value = JSON.parse(text) as unknown;
    const parsed = z.array(scheduleWeekInputSchema).safeParse(value);
    if (!parsed.success) return [];
    const normalized = normalizeSchedule(parsed.data);
    return typeof normalized === 'string' ? [] : normalized;
  } catch {
    return [];
  }
}

export function scheduleIsEmpty(schedule: Schedule): boolean {
  return schedule.every((week) => week.days.length === 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Schemas of the calls

export const imeiSchema = z.string(SAFE_HOME_MESSAGES.NotFound).trim().min(1, SAFE_HOME_MESSAGES.NotFound).max(32, SAFE_HOME_MESSAGES.NotFound);

/** GET /api/admin/safe-home/tracker/latest-position. */
export const latestPositionQuerySchema = z.object({ imei: imeiSchema });

/** PUT /api/admin/safe-home/toggle-status. */
export const toggleStatusSchema = z.object({
  imei: imeiSchema,
  status: z.coerce.number<unknown>().int().pipe(z.union([z.literal(0), z.literal(1)])),
});
export type ToggleStatusInput = z.output<typeof toggleStatusSchema>;

const coordinate = (limit: number) =>
  z.coerce
    .number<unknown>()
    .refine(Number.isFinite, 'validation.invalidType')
    .pipe(z.number().min(-limit).max(limit))
    .transform(roundCoordinate);

/** PUT /api/admin/safe-home/set-geofence. */
export const setGeofenceSchema = z.object({
  imei: imeiSchema,
  radius: z.coerce
    .number<unknown>(SAFE_HOME_MESSAGES.RadiusLessThan300)
    .refine(Number.isFinite, SAFE_HOME_MESSAGES.RadiusLessThan300)
    .pipe(z.number().min(HOME_RADIUS_MIN, SAFE_HOME_MESSAGES.RadiusLessThan300).max(HOME_RADIUS_MAX))
    .transform((value) => Math.round(value)),
  centerLng: coordinate(180),
  centerLat: coordinate(90),
  address: z
    .string(SAFE_HOME_MESSAGES.SafeReturnHomeAddrEmpty)
    .transform((value) => value.trim())
    .pipe(z.string().min(1, SAFE_HOME_MESSAGES.SafeReturnHomeAddrEmpty).max(ADDRESS_MAX)),
});
export type SetGeofenceInput = z.output<typeof setGeofenceSchema>;

/** The schedule as JSON text (what §3 stores) or as the array itself. */
const scheduleFieldSchema = z
  .union([z.string().max(20_000), z.array(z.unknown()).max(3)])
  .transform((value, context) => {
    if (typeof value !== 'string') return value;
    if (value.trim() === '') return [];
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: SAFE_HOME_MESSAGES.InvalidSchedule });
      return z.NEVER;
    }
  })
  .pipe(z.array(scheduleWeekInputSchema).max(3, SAFE_HOME_MESSAGES.InvalidSchedule));

/** PUT /api/admin/safe-home/update-schedule-alert. */
export const updateScheduleSchema = z
  .object({
    imei: imeiSchema,
    schedule: scheduleFieldSchema,
    frequency: z.coerce.number<unknown>().int().pipe(z.union([z.literal(1), z.literal(2), z.literal(3)])),
    start_date: z.string().trim().refine(isLocalDate, 'validation.invalidFormat'),
    time_zone: z.string().trim().refine(isTimeZone, SAFE_HOME_MESSAGES.InvalidTimeZone),
  })
  .transform((value, context) => {
    if (value.schedule.some((week) => week.week > value.frequency)) {
      context.addIssue({ code: 'custom', path: ['schedule'], message: SAFE_HOME_MESSAGES.InvalidSchedule });
      return z.NEVER;
    }
    const schedule = normalizeSchedule(value.schedule);
    if (typeof schedule === 'string') {
      context.addIssue({ code: 'custom', path: ['schedule'], message: schedule });
      return z.NEVER;
    }
    return { ...value, schedule };
  });
export type UpdateScheduleInput = z.output<typeof updateScheduleSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Wire types

/** Spec §3 Safe home record, one per vehicle of the account (a vehicle never set up has the defaults). */
export interface SafeHomeRecord {
  imei: string;
  name: string;
  RegistrationNumber: string;
  /** The switch: 1 on, 0 off. */
  status: 0 | 1;
  /** JSON text of `Schedule` (`[]` when none). */
  schedule: string;
  /** Every 1, 2 or 3 weeks. */
  frequency: Frequency;
  /** `YYYY-MM-DD`, or null when no schedule was saved. */
  start_date: string | null;
  /** IANA time zone the schedule's times are in (the account's when none was saved). */
  time_zone: string;
  /** Home address, null when no home. */
  address: string | null;
  /** Metres (HOME_RADIUS_DEFAULT when no home). */
  radius: number;
  centerLat: number | null;
  centerLng: number | null;
}

/** Spec §7: the tracker's latest valid position; both null when it has none. */
export interface LatestPosition {
  Latitude: number | null;
  Longitude: number | null;
}

export interface SafeHomeSaved {
  record: SafeHomeRecord;
  messageKey: SafeHomeMessageKey;
  message: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Form helpers (web)

/** An empty weekly list for the schedule modal: every day unchecked at the default time. */
export function emptyWeek(week: number): { week: number; days: { day: number; time: string; checked: boolean }[] } {
  return { week, days: SCHEDULE_DAY_IDS.map((day) => ({ day, time: DEFAULT_ALERT_TIME, checked: false })) };
}

/** All 15-minute times of a day, `00:00` … `23:45`. */
export function scheduleTimes(): string[] {
  return Array.from({ length: (24 * 60) / SCHEDULE_STEP_MINUTES }, (_, index) => {
    const minutes = index * SCHEDULE_STEP_MINUTES;
    return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  });
}
