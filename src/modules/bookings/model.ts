import { joinQueryValue, z } from '../../lib/validation';

/**
 * Car booking schedule (spec §2 car schedule, §3 Booking / Vehicle schedule entry / Driver option, §4, §5, §6, §7,
 * §8, §9). Zod schemas, wire types and pure date helpers shared with the web app: no server-only imports here.
 *
 * Routes (all need a session; every one answers 404 `bookings.disabled` when the brand's EnableCarSchedule is off,
 * and every query is scoped to the caller's account and the vehicles the caller may see):
 *
 *   GET  /api/car-schedule/enabled                      (brands module) → data.EnableCarSchedule
 *   GET  /api/car-schedule/week?week_day=YYYY-MM-DD&Imeis=
 *        → data: ScheduleAnswer for the Monday-first week holding week_day (7 days)
 *   GET  /api/car-schedule/month?month=YYYY-MM&Imeis=[&mine=true]
 *        → data: ScheduleAnswer for the month's 42-cell Monday-first grid (monthGrid(month)); mine=true keeps only
 *          bookings whose driver is the caller (My Booking)
 *        Imeis: empty = every visible vehicle; else comma-separated IMEIs to narrow to.
 *        ScheduleAnswer = { BookingSchedules: VehicleSchedule[], OldestBooking: LocalDateTime | null, From, To, TimeZone }
 *   POST /api/car-schedule/drivers   { imei }                                    → data.members: DriverOption[]
 *   POST /api/car-schedule/save      { imei, start_date, end_date, purpose, driver_id? }
 *        → data: BookingSaved { Booking, messageKey: bookings.NewBookingSuccessMsg, message (translated) }
 *   POST /api/car-schedule/update    { id, imei, start_date, end_date, purpose, driver_id? }
 *        → data: BookingSaved { Booking, messageKey: bookings.UpdateSuccessMsg, message }
 *   POST /api/car-schedule/delete    { id } → data: BookingDeleted { id, messageKey: bookings.DeleteMsg, message }
 *   An overlap is 409 bookings.AlreadyBooked; a rule of §5 422 with the field's key (or 400 for the time rules);
 *   someone else's booking for an ordinary user 403 bookings.CannotEditOthersBooking; unknown id/vehicle 404.
 *   GET  /api/car-schedule/units/:unitId/bookings?from=YYYY-MM-DD → data: VehicleSchedule (the unit page: its bookings
 *        from that day, default today, for 90 days)
 *
 * Dates on the wire are the account's wall-clock time, `YYYY-MM-DDTHH:mm:ss` (a space instead of `T` is accepted),
 * seconds always :00, minutes in 15-minute steps. The server reads them in the account's time zone and checks the
 * time-dependent rules ("not in the past") there; the client checks the rest with the same schemas below.
 * Errors are 4xx with one of the message keys in BOOKING_MESSAGES (translated in sv, en, no).
 */

/** Spec §8 keys (namespaced under `bookings.`), and the rules that produce them. */
export const BOOKING_MESSAGES = {
  /** The start date lies before today. */
  ErrPastDateMsg: 'bookings.ErrPastDateMsg',
  /** A new booking's start time has passed. */
  ErrSavePastDateMsg: 'bookings.ErrSavePastDateMsg',
  /** An edit of a booking that has ended, or a changed start that has passed or of a running booking. */
  ErrEditPastDateMsg: 'bookings.ErrEditPastDateMsg',
  EndDateMustBeAfterStart: 'bookings.EndDateMustBeAfterStart',
  StartTimeAndEndTimeCannotBeSame: 'bookings.StartTimeAndEndTimeCannotBeSame',
  /** End less than BOOKING_MIN_MINUTES after start. */
  MinimumDuration: 'bookings.MinimumDuration',
  /** Minutes not in 15-minute steps, or seconds not :00. */
  TimeStep: 'bookings.TimeStep',
  SelectDriver: 'bookings.SelectDriver',
  SelectImei: 'bookings.SelectImei',
  SpecifyPurpose: 'bookings.SpecifyPurpose',
  PurposeLength: 'bookings.PurposeLength',
  CannotEditOthersBooking: 'bookings.CannotEditOthersBooking',
  /** The vehicle already has a booking overlapping this time. */
  AlreadyBooked: 'bookings.AlreadyBooked',
  /** Client notices when it moves a past time (spec §5). */
  SetToCurrentTime: 'bookings.SetToCurrentTime',
  SetToOneHourAhead: 'bookings.SetToOneHourAhead',
  NewBookingSuccessMsg: 'bookings.NewBookingSuccessMsg',
  UpdateSuccessMsg: 'bookings.UpdateSuccessMsg',
  DeleteMsg: 'bookings.DeleteMsg',
  NotFound: 'bookings.notFound',
  /** The brand's EnableCarSchedule is off. */
  Disabled: 'bookings.disabled',
  /** The driver is not one of the account's users (or an ordinary user booked for someone else). */
  DriverNotFound: 'bookings.driverNotFound',
} as const;
export type BookingMessageKey = (typeof BOOKING_MESSAGES)[keyof typeof BOOKING_MESSAGES];

/** Spec §5/§9. */
export const BOOKING_MIN_MINUTES = 10;
export const BOOKING_STEP_MINUTES = 15;
export const BOOKING_PURPOSE_MAX = 100;
/** At most two bookings per grid cell / calendar day; the rest behind "+N more" (a scroll list above 4). */
export const BOOKINGS_PER_CELL = 2;
export const MORE_LIST_SCROLL_ABOVE = 4;
/** Spec §9: day ids 1-6 Monday-Saturday, 0 Sunday; weeks listed Monday first. */
export const WEEK_DAY_IDS = [1, 2, 3, 4, 5, 6, 0] as const;
/** Subscription type whose vehicles the car schedule hides (spec §2). */
export const HIDDEN_SUBSCRIPTION_TYPE = 'Bas';
export const MONTH_GRID_DAYS = 42;
/** How far the unit page's booking list looks ahead. */
export const UNIT_BOOKINGS_DAYS = 90;

// ---------------------------------------------------------------------------------------------------------------
// Wall-clock date helpers: a LocalDateTime is `YYYY-MM-DDTHH:mm:ss` in the account's time zone. Arithmetic is done
// on the naive value (as if UTC), which is what a calendar grid needs.

export type LocalDate = string;
export type LocalDateTime = string;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_RE = /^(\d{4})-(\d{2})$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Naive epoch ms of a LocalDateTime or LocalDate (read as UTC), or NaN when not a real calendar time. */
export function naiveMs(value: string): number {
  const match = DATE_TIME_RE.exec(value) ?? DATE_RE.exec(value);
  if (!match) return Number.NaN;
  const [year, month, day, hour = '0', minute = '0', second = '0'] = match.slice(1).map((part) => part ?? '0');
  const ms = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const back = new Date(ms);
  if (back.getUTCFullYear() !== Number(year) || back.getUTCMonth() !== Number(month) - 1 || back.getUTCDate() !== Number(day)) {
    return Number.NaN;
  }
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return Number.NaN;
  return ms;
}

const pad = (value: number) => String(value).padStart(2, '0');

export function formatLocalDateTime(ms: number): LocalDateTime {
  const date = new Date(ms);
  return `${formatLocalDate(ms)}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

export function formatLocalDate(ms: number): LocalDate {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** `HH:mm` of a LocalDateTime. */
export function timeOfDay(value: LocalDateTime): string {
  return value.slice(11, 16);
}

/** The canonical form (`T`, seconds) of an accepted date-time. */
export function normalizeLocalDateTime(value: string): LocalDateTime {
  return formatLocalDateTime(naiveMs(value));
}

export function addMinutes(value: LocalDateTime, minutes: number): LocalDateTime {
  return formatLocalDateTime(naiveMs(value) + minutes * 60_000);
}

export function addDays(date: LocalDate, days: number): LocalDate {
  return formatLocalDate(naiveMs(date) + days * 86_400_000);
}

/** Spec §9 day id: 1-6 Monday-Saturday, 0 Sunday. */
export function dayId(date: LocalDate): number {
  return new Date(naiveMs(date)).getUTCDay();
}

/** The Monday of the week holding the date. */
export function weekStart(date: LocalDate): LocalDate {
  return addDays(date, -((dayId(date) + 6) % 7));
}

/** The seven days Monday to Sunday of the week holding the date. */
export function weekDays(date: LocalDate): LocalDate[] {
  const monday = weekStart(date);
  return Array.from({ length: 7 }, (_, index) => addDays(monday, index));
}

/** The My Booking calendar's 42 cells: from the Monday on or before the 1st. */
export function monthGrid(month: string): LocalDate[] {
  const first = weekStart(`${month}-01`);
  return Array.from({ length: MONTH_GRID_DAYS }, (_, index) => addDays(first, index));
}

export function addMonths(month: string, months: number): string {
  const match = MONTH_RE.exec(month);
  if (!match) return month;
  const index = Number(match[1]) * 12 + Number(match[2]) - 1 + months;
  return `${Math.floor(index / 12)}-${pad((index % 12) + 1)}`;
}

/** Rounds a wall-clock time up to the next 15-minute step with seconds :00 (a time already on a step stays). */
export function ceilToStep(value: LocalDateTime): LocalDateTime {
  const step = BOOKING_STEP_MINUTES * 60_000;
  return formatLocalDateTime(Math.ceil(naiveMs(value) / step) * step);
}

/** Spec §5: the default window of a new booking, from the next full hour to one hour later (on `day`, or today). */
export function defaultWindow(now: LocalDateTime, day?: LocalDate): { start: LocalDateTime; end: LocalDateTime } {
  const today = now.slice(0, 10);
  const nextHour = Math.floor(naiveMs(now) / 3_600_000) * 3_600_000 + 3_600_000;
  const hour = new Date(nextHour).getUTCHours();
  let start = formatLocalDateTime(nextHour);
  if (day && day !== today) start = `${day}T${pad(hour)}:00:00`;
  return { start, end: addMinutes(start, 60) };
}

export type TimeCorrection = { value: LocalDateTime; notice: BookingMessageKey | null };

/** Spec §5: a start today that has passed is reset to the current time (on the next 15-minute step). */
export function correctPastStart(start: LocalDateTime, now: LocalDateTime): TimeCorrection {
  if (start.slice(0, 10) === now.slice(0, 10) && naiveMs(start) < naiveMs(now)) {
    return { value: ceilToStep(now), notice: BOOKING_MESSAGES.SetToCurrentTime };
  }
  return { value: start, notice: null };
}

/** Spec §5: an end today that has passed is set one hour ahead (on the next 15-minute step). */
export function correctPastEnd(end: LocalDateTime, now: LocalDateTime): TimeCorrection {
  if (end.slice(0, 10) === now.slice(0, 10) && naiveMs(end) < naiveMs(now)) {
    return { value: ceilToStep(addMinutes(now, 60)), notice: BOOKING_MESSAGES.SetToOneHourAhead };
  }
  return { value: end, notice: null };
}

/** Whether two half-open ranges [start, end) overlap (LocalDateTime strings compare as text). */
export function overlaps(a: { start: string; end: string }, b: { start: string; end: string }): boolean {
  return a.start < b.end && b.start < a.end;
}

// ---------------------------------------------------------------------------------------------------------------
// Schemas

export const localDateSchema = z
  .string()
  .trim()
  .refine((value) => DATE_RE.test(value) && !Number.isNaN(naiveMs(value)), 'validation.invalidFormat');

export const monthSchema = z
  .string()
  .trim()
  .refine((value) => MONTH_RE.test(value) && Number(value.slice(5)) >= 1 && Number(value.slice(5)) <= 12, 'validation.invalidFormat');

/** A booking's start or end: a real wall-clock time, minutes in 15-minute steps, seconds :00. */
export const bookingTimeSchema = z
  .string()
  .trim()
  .refine((value) => DATE_TIME_RE.test(value) && !Number.isNaN(naiveMs(value)), 'validation.invalidFormat')
  .refine((value) => {
    const ms = naiveMs(value);
    return Number.isNaN(ms) || ms % (BOOKING_STEP_MINUTES * 60_000) === 0;
  }, BOOKING_MESSAGES.TimeStep)
  .transform((value) => (Number.isNaN(naiveMs(value)) ? value : normalizeLocalDateTime(value)));

const dbId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

export const purposeSchema = z
  .string(BOOKING_MESSAGES.SpecifyPurpose)
  .transform((value) => value.trim())
  .pipe(z.string().min(1, BOOKING_MESSAGES.SpecifyPurpose).max(BOOKING_PURPOSE_MAX, BOOKING_MESSAGES.PurposeLength));

const imeiSchema = z
  .string(BOOKING_MESSAGES.SelectImei)
  .trim()
  .min(1, BOOKING_MESSAGES.SelectImei)
  .max(32, BOOKING_MESSAGES.SelectImei);

/** End after start, not equal, at least 10 minutes (spec §5). Shared by the server's and the form's schemas. */
function checkWindow(value: { start_date: string; end_date: string }, context: z.RefinementCtx) {
  const start = naiveMs(value.start_date);
  const end = naiveMs(value.end_date);
  if (Number.isNaN(start) || Number.isNaN(end)) return;
  if (end === start) {
    context.addIssue({ code: 'custom', path: ['end_date'], message: BOOKING_MESSAGES.StartTimeAndEndTimeCannotBeSame });
  } else if (end < start) {
    context.addIssue({ code: 'custom', path: ['end_date'], message: BOOKING_MESSAGES.EndDateMustBeAfterStart });
  } else if (end - start < BOOKING_MIN_MINUTES * 60_000) {
    context.addIssue({ code: 'custom', path: ['end_date'], message: BOOKING_MESSAGES.MinimumDuration });
  }
}

const bookingFields = {
  imei: imeiSchema,
  start_date: bookingTimeSchema,
  end_date: bookingTimeSchema,
  purpose: purposeSchema,
  /** Administrators must choose (SelectDriver); an ordinary user's booking is always their own. */
  driver_id: dbId().nullish(),
};

/** POST /api/car-schedule/save. */
export const saveBookingSchema = z.object(bookingFields).superRefine(checkWindow);
export type SaveBookingInput = z.output<typeof saveBookingSchema>;

/** POST /api/car-schedule/update. */
export const updateBookingSchema = z.object({ id: dbId(), ...bookingFields }).superRefine(checkWindow);
export type UpdateBookingInput = z.output<typeof updateBookingSchema>;

/** POST /api/car-schedule/delete. */
export const deleteBookingSchema = z.object({ id: dbId() });

/** POST /api/car-schedule/drivers. */
export const driverListSchema = z.object({ imei: imeiSchema });

/**
 * The New/Edit Booking form's schema: the wire rules plus the choices the form must have made, driver for an
 * administrator (SelectDriver) and vehicle when several (SelectImei, My Booking).
 */
export function bookingFormSchema(options: { requireDriver: boolean }) {
  return z
    .object({ ...bookingFields, imei: z.string().trim(), driver_id: z.number().int().positive().nullish() })
    .superRefine((value, context) => {
      checkWindow(value, context);
      if (!value.imei) context.addIssue({ code: 'custom', path: ['imei'], message: BOOKING_MESSAGES.SelectImei });
      if (options.requireDriver && !value.driver_id) {
        context.addIssue({ code: 'custom', path: ['driver_id'], message: BOOKING_MESSAGES.SelectDriver });
      }
    });
}

const imeisParam = z
  .preprocess(joinQueryValue, z.string().trim().max(20_000).optional())
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );

/** GET /api/car-schedule/week. */
export const weekQuerySchema = z.object({ week_day: localDateSchema, Imeis: imeisParam });
/** GET /api/car-schedule/month. */
export const monthQuerySchema = z.object({
  month: monthSchema,
  Imeis: imeisParam,
  mine: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});
/** GET /api/car-schedule/units/:unitId/bookings. */
export const unitBookingsQuerySchema = z.object({ from: localDateSchema.optional() });

// ---------------------------------------------------------------------------------------------------------------
// Wire types

/** Spec §3 Booking. */
export type BookingEntry = {
  ID: number;
  Imei: string;
  /** Wall-clock `YYYY-MM-DDTHH:mm:ss` in the account's time zone. */
  StartDate: LocalDateTime;
  EndDate: LocalDateTime;
  /** `HH:mm`. */
  StartTime: string;
  EndTime: string;
  Purpose: string;
  DriverId: number;
  DriverName: string;
  /** The user who made the booking. */
  BookedBy: number;
  /** The caller is the booking's driver. */
  Mine: boolean;
  /** The caller may edit or delete it: their own or an administrator's right, and it has not ended. */
  Editable: boolean;
  /** It has started (a running booking keeps its start). */
  Started: boolean;
};

/** Spec §3 Vehicle schedule entry. */
export type VehicleSchedule = {
  ID: number;
  Imei: string;
  Name: string;
  RegistrationNumber: string;
  Model: string;
  SubscriptionType: string;
  Schedule: BookingEntry[];
};

export type ScheduleAnswer = {
  BookingSchedules: VehicleSchedule[];
  /** Start of the account's earliest booking, or null. */
  OldestBooking: LocalDateTime | null;
  /** The range answered: first day and the day after the last. */
  From: LocalDate;
  To: LocalDate;
  /** The account's time zone the wall-clock times are in. */
  TimeZone: string;
  /** The account's current wall-clock time (the client's "now" for the §5 corrections). */
  Now: LocalDateTime;
};

export type BookingSaved = { Booking: BookingEntry; messageKey: BookingMessageKey; message: string };
export type BookingDeleted = { id: number; messageKey: BookingMessageKey; message: string };

/** Spec §3 Driver option. */
export type DriverOption = { ID: number; FirstName: string };
export type DriverListAnswer = { members: DriverOption[] };
