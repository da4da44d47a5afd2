import type { Querier } from '../../lib/db/client';
import { conflict, fieldError, forbidden, notFound } from '../../lib/http';
import { isLanguage, type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { zoneOffsetMs } from '../../lib/time';
import { requireFullSubscription } from '../auth';
import type { Actor } from '../auth/model';
import type { BrandService } from '../brands/service';
import type { NotificationService } from '../notifications/service';
import type { UnitService } from '../units/service';
import { bookingCalendar } from './ics';
import {
  addDays,
  BOOKING_MESSAGES,
  type BookingDeleted,
  type BookingEntry,
  type BookingMessageKey,
  type BookingSaved,
  type DriverListAnswer,
  formatLocalDateTime,
  HIDDEN_SUBSCRIPTION_TYPE,
  type LocalDate,
  type LocalDateTime,
  monthGrid,
  naiveMs,
  type SaveBookingInput,
  type ScheduleAnswer,
  timeOfDay,
  UNIT_BOOKINGS_DAYS,
  type UpdateBookingInput,
  type VehicleSchedule,
  weekStart,
} from './model';

/** The queued job that reminds the driver an hour before the booking starts. */
export const REMINDER_JOB = 'bookings.reminder';
const REMINDER_LEAD_MS = 3_600_000;

export interface BookingServiceDeps {
  units: UnitService;
  brands: BrandService;
  /** The account settings service: the account's time zone, which every booking time is read in. */
  accountSettings: { defaults(accountId: number): Promise<{ timezone: string }> };
  notifications: NotificationService;
}

type ScheduleUnit = Awaited<ReturnType<UnitService['scheduleUnits']>>[number];

interface BookingRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  unit_id: number;
  driver_id: number;
  starts_at: Date | string;
  ends_at: Date | string;
  purpose: string;
  created_by: number | null;
  updated_at: Date | string;
  driver_name: string | null;
}

/** Administrators (and support or reseller staff working in the account) book for anyone and edit any booking (spec §6). */
const isAdministrator = (actor: Actor) => actor.role !== 'user';

/** The exclusion constraint refused an overlapping booking (23P01). */
function exclusionViolation(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if ((current as { code?: unknown }).code === '23P01') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A wall-clock time of the zone as the instant it names (DST-aware, as `startOfDay`). */
function instantOf(local: LocalDateTime | LocalDate, timeZone: string): Date {
  const wall = naiveMs(local);
  let instant = wall - zoneOffsetMs(wall, timeZone);
  instant = wall - zoneOffsetMs(instant, timeZone);
  return new Date(instant);
}

/**
 * The zone's offset at an instant, remembered per zone and quarter hour (offsets change at most on quarter hours):
 * a week of a few thousand vehicles converts thousands of times, and each `Intl` look-up costs tens of microseconds.
 */
const offsets = new Map<string, Map<number, number>>();
function cachedOffset(ms: number, timeZone: string): number {
  let zone = offsets.get(timeZone);
  if (!zone) {
    zone = new Map();
    offsets.set(timeZone, zone);
  }
  const quarter = Math.floor(ms / 900_000);
  let offset = zone.get(quarter);
  if (offset === undefined) {
    offset = zoneOffsetMs(quarter * 900_000, timeZone);
    if (zone.size > 50_000) zone.clear();
    zone.set(quarter, offset);
  }
  return offset;
}

function localOf(instant: Date | string, timeZone: string): LocalDateTime {
  const ms = new Date(instant).getTime();
  return formatLocalDateTime(ms + cachedOffset(ms, timeZone));
}

const SELECT_BOOKING = `
  SELECT b.id, b.account_id, b.unit_id, b.driver_id, b.starts_at, b.ends_at, b.purpose, b.created_by, b.updated_at,
         nullif(trim(concat_ws(' ', d.first_name, d.last_name)), '') AS driver_name
  FROM bookings b LEFT JOIN user_directory d ON d.id = b.driver_id`;

/**
 * The car booking schedule (spec §2 car schedule, §5, §6, §7): the week and month views of the vehicles the caller
 * sees, and booking, moving and cancelling a vehicle. Every time rule is checked in the account's time zone; an
 * overlap is refused by the database's exclusion constraint (migration 0350), so concurrent bookings of one car
 * give one booking. The driver gets a confirmation with an iCalendar invitation and a reminder an hour before,
 * both queued in the booking's transaction.
 */
export function createBookingService(platform: Platform, deps: BookingServiceDeps) {
  const { database, clock, queue, config } = platform;
  const { units, brands, accountSettings, notifications } = deps;

  async function requireEnabled(actor: Actor): Promise<void> {
    requireFullSubscription(actor);
    const brand = await brands.get(actor.subsiteId);
    if (!brand.features.EnableCarSchedule) throw notFound(BOOKING_MESSAGES.Disabled);
  }

  async function timeZoneOf(accountId: number): Promise<string> {
    return (await accountSettings.defaults(accountId)).timezone;
  }

  /** Vehicles of the car schedule: those the caller sees, without the Bas subscription (spec §2). */
  async function scheduleUnits(actor: Actor, filter: { imeis?: string[]; unitId?: number } = {}): Promise<ScheduleUnit[]> {
    const rows = await units.scheduleUnits(actor, filter);
    return rows.filter((unit) => unit.subscriptionType.toLowerCase() !== HIDDEN_SUBSCRIPTION_TYPE.toLowerCase());
  }

  async function unitByImei(actor: Actor, imei: string): Promise<ScheduleUnit> {
    const [unit] = await scheduleUnits(actor, { imeis: [imei] });
    if (!unit) throw notFound('errors.unitNotFound');
    return unit;
  }

  function entryOf(actor: Actor, row: BookingRow, unit: { imei: string }, timeZone: string, now: Date): BookingEntry {
    const start = localOf(row.starts_at, timeZone);
    const end = localOf(row.ends_at, timeZone);
    const mine = row.driver_id === actor.userId;
    return {
      ID: row.id,
      Imei: unit.imei,
      StartDate: start,
      EndDate: end,
      StartTime: timeOfDay(start),
      EndTime: timeOfDay(end),
      Purpose: row.purpose,
      DriverId: row.driver_id,
      DriverName: row.driver_name ?? '',
      BookedBy: row.created_by ?? row.driver_id,
      Mine: mine,
      Editable: (isAdministrator(actor) || mine) && new Date(row.ends_at).getTime() > now.getTime(),
      Started: new Date(row.starts_at).getTime() <= now.getTime(),
    };
  }

  async function schedule(actor: Actor, from: LocalDate, to: LocalDate, imeis: string[], onlyMine: boolean): Promise<ScheduleAnswer> {
    const [, timeZone] = await Promise.all([requireEnabled(actor), timeZoneOf(actor.accountId)]);
    const now = clock.now();
    const fromInstant = instantOf(from, timeZone).toISOString();
    const toInstant = instantOf(to, timeZone).toISOString();
    const driver = onlyMine ? actor.userId : null;
    const bookingsOf = (ids: number[] | null) =>
      Promise.all([
        database.query<BookingRow>(
          `${SELECT_BOOKING}
           WHERE b.account_id = $1 AND ($2::int[] IS NULL OR b.unit_id = ANY($2::int[])) AND b.starts_at < $4 AND b.ends_at > $3 AND ($5::int IS NULL OR b.driver_id = $5)
           ORDER BY b.starts_at, b.id`,
          [actor.accountId, ids, fromInstant, toInstant, driver],
        ),
        database.query<{ oldest: Date | string | null }>(
          'SELECT min(starts_at) AS oldest FROM bookings WHERE account_id = $1 AND ($2::int[] IS NULL OR unit_id = ANY($2::int[])) AND ($3::int IS NULL OR driver_id = $3)',
          [actor.accountId, ids, driver],
        ),
      ]);
    // Callers who see every vehicle of the account read its bookings beside the vehicles, without a list of thousands
    // of ids in the query; the bookings of vehicles not listed (Bas) are left out below.
    const everyVehicle = isAdministrator(actor) && imeis.length === 0;
    let vehicles: ScheduleUnit[];
    let rows: BookingRow[];
    let oldest: Array<{ oldest: Date | string | null }>;
    if (everyVehicle) {
      [vehicles, [rows, oldest]] = await Promise.all([scheduleUnits(actor), bookingsOf(null)]);
    } else {
      vehicles = await scheduleUnits(actor, { imeis });
      // Naming a vehicle the caller does not see (another account's) is refused, not answered with an empty row.
      const found = new Set(vehicles.map((unit) => unit.imei));
      if (imeis.some((imei) => !found.has(imei))) throw notFound('errors.unitNotFound');
      [rows, oldest] = await bookingsOf(vehicles.map((unit) => unit.id));
    }
    const byUnit = new Map<number, BookingRow[]>();
    for (const row of rows) {
      const list = byUnit.get(row.unit_id);
      if (list) list.push(row);
      else byUnit.set(row.unit_id, [row]);
    }
    const BookingSchedules: VehicleSchedule[] = vehicles.map((unit) => ({
      ID: unit.id,
      Imei: unit.imei,
      Name: unit.name,
      RegistrationNumber: unit.registrationNumber,
      Model: unit.model,
      SubscriptionType: unit.subscriptionType,
      Schedule: (byUnit.get(unit.id) ?? []).map((row) => entryOf(actor, row, unit, timeZone, now)),
    }));
    const oldestAt = oldest[0]?.oldest ?? null;
    return {
      BookingSchedules,
      OldestBooking: oldestAt === null ? null : localOf(oldestAt, timeZone),
      From: from,
      To: to,
      TimeZone: timeZone,
      Now: localOf(now, timeZone),
    };
  }

  /** The driver of a new or changed booking: administrators must choose one of the account's users; users book for themselves. */
  async function driverOf(actor: Actor, driverId: number | null | undefined, query: Querier): Promise<number> {
    if (!isAdministrator(actor)) {
      if (driverId && driverId !== actor.userId) throw forbidden(BOOKING_MESSAGES.DriverNotFound);
      return actor.userId;
    }
    if (!driverId) throw fieldError('driver_id', BOOKING_MESSAGES.SelectDriver);
    const [user] = await query<{ id: number }>(
      "SELECT id FROM user_directory WHERE id = $1 AND account_id = $2 AND role IN ('admin', 'user')",
      [driverId, actor.accountId],
    );
    if (!user) throw fieldError('driver_id', BOOKING_MESSAGES.DriverNotFound);
    return user.id;
  }

  /** Spec §5 time rules that depend on the account's clock, for a new booking or a changed start. */
  function checkFutureStart(start: LocalDateTime, nowLocal: LocalDateTime, pastKey: BookingMessageKey): void {
    if (start.slice(0, 10) < nowLocal.slice(0, 10)) throw fieldError('start_date', BOOKING_MESSAGES.ErrPastDateMsg);
    if (start < nowLocal) throw fieldError('start_date', pastKey);
  }

  /**
   * The vehicle of a booking of the caller's account that the caller sees; a booking of a vehicle the caller does not
   * see is as unknown as another account's. Asked before the transaction (the units service reads outside it).
   */
  async function bookedUnit(actor: Actor, id: number): Promise<number> {
    const [row] = await database.query<{ unit_id: number }>('SELECT unit_id FROM bookings WHERE id = $1 AND account_id = $2', [id, actor.accountId]);
    if (!row) throw notFound(BOOKING_MESSAGES.NotFound);
    const [visible] = await scheduleUnits(actor, { unitId: row.unit_id });
    if (!visible) throw notFound(BOOKING_MESSAGES.NotFound);
    return row.unit_id;
  }

  /** The booking, locked for the change; gone or moved to another vehicle since `bookedUnit`: not found. */
  async function lockBooking(query: Querier, actor: Actor, id: number, unitId: number): Promise<BookingRow> {
    const [row] = await query<BookingRow>(`${SELECT_BOOKING} WHERE b.id = $1 AND b.account_id = $2 AND b.unit_id = $3 FOR UPDATE OF b`, [
      id,
      actor.accountId,
      unitId,
    ]);
    if (!row) throw notFound(BOOKING_MESSAGES.NotFound);
    return row;
  }

  function mayChange(actor: Actor, row: BookingRow): void {
    if (!isAdministrator(actor) && row.driver_id !== actor.userId) throw forbidden(BOOKING_MESSAGES.CannotEditOthersBooking);
  }

  /** Writes the booking, turning the exclusion constraint's refusal into "already booked". */
  async function write<T>(work: (query: Querier) => Promise<T>): Promise<T> {
    try {
      return await database.transaction(work);
    } catch (error) {
      if (exclusionViolation(error)) throw conflict(BOOKING_MESSAGES.AlreadyBooked);
      throw error;
    }
  }

  interface MailContext {
    row: BookingRow;
    unit: { imei: string; name: string; registrationNumber: string };
    timeZone: string;
    kind: 'confirm' | 'update' | 'cancel' | 'reminder';
  }

  /** The driver's mail about a booking, with the invitation (or its cancellation) attached; queued in `query`'s transaction. */
  async function mailDriver(query: Querier | null, context: MailContext, key: string): Promise<void> {
    const { row, unit, timeZone, kind } = context;
    const [driver] = await (query ?? database.query)<{ email: string; language: string; first_name: string | null }>(
      'SELECT email, language, first_name FROM user_directory WHERE id = $1',
      [row.driver_id],
    );
    if (!driver?.email) return;
    const language: Language = isLanguage(driver.language) ? driver.language : 'sv';
    const start = localOf(row.starts_at, timeZone).replace('T', ' ').slice(0, 16);
    const end = localOf(row.ends_at, timeZone).replace('T', ' ').slice(0, 16);
    const vehicle = unit.registrationNumber ? `${unit.name} (${unit.registrationNumber})` : unit.name;
    const params = { vehicle, start, end, purpose: row.purpose, name: driver.first_name ?? '' };
    const summary = translate(language, 'bookings.mail.summary', params);
    const stamp = new Date(row.updated_at);
    const calendar = bookingCalendar({
      uid: `booking-${row.id}@${new URL(config.PUBLIC_URL).hostname}`,
      start: new Date(row.starts_at),
      end: new Date(row.ends_at),
      summary,
      description: row.purpose,
      sequence: Math.floor(stamp.getTime() / 1000) - 1_700_000_000,
      stamp: clock.now(),
      organizer: config.MAIL_FROM.match(/<([^>]+)>/)?.[1] ?? config.MAIL_FROM,
      attendee: driver.email,
      cancelled: kind === 'cancel',
    });
    await notifications.send(query, {
      accountId: row.account_id,
      channel: 'email',
      to: driver.email,
      key,
      message: {
        title: translate(language, `bookings.mail.${kind}.subject`, params),
        body: translate(language, `bookings.mail.${kind}.body`, params),
        url: '/user/car-schedule',
        attachments: [{ filename: 'booking.ics', contentType: `text/calendar; charset=utf-8; method=${kind === 'cancel' ? 'CANCEL' : 'REQUEST'}`, content: calendar }],
      },
    });
  }

  /** The reminder an hour before the start, keyed by booking and start: once per start; a moved or deleted booking's is ignored. */
  async function queueReminder(query: Querier, row: BookingRow): Promise<void> {
    const startsAt = new Date(row.starts_at);
    const runAt = new Date(startsAt.getTime() - REMINDER_LEAD_MS);
    if (startsAt.getTime() <= clock.now().getTime()) return;
    await queue.enqueue(query, REMINDER_JOB, { bookingId: row.id, startsAt: startsAt.toISOString() }, {
      runAt: runAt.getTime() < clock.now().getTime() ? clock.now() : runAt,
      uniqueKey: `${row.id}:${startsAt.toISOString()}`,
    });
  }

  queue.define<{ bookingId: number; startsAt: string }>(REMINDER_JOB, async (payload) => {
    const [row] = await database.query<BookingRow>(`${SELECT_BOOKING} WHERE b.id = $1`, [payload.bookingId]);
    // Deleted, or moved to another start (whose own reminder is queued): nothing to send.
    if (!row || new Date(row.starts_at).toISOString() !== payload.startsAt) return;
    if (new Date(row.starts_at).getTime() <= clock.now().getTime()) return;
    const [unit] = await database.query<{ imei: string; name: string; registration_number: string }>(
      'SELECT imei, name, registration_number FROM unit_directory WHERE id = $1',
      [row.unit_id],
    );
    if (!unit) return;
    const timeZone = await timeZoneOf(row.account_id);
    await mailDriver(
      null,
      { row, unit: { imei: unit.imei, name: unit.name, registrationNumber: unit.registration_number }, timeZone, kind: 'reminder' },
      `booking-reminder:${row.id}:${payload.startsAt}`,
    );
  });

  function saved(actor: Actor, row: BookingRow, unit: ScheduleUnit, timeZone: string, key: BookingMessageKey, language: Language): BookingSaved {
    return { Booking: entryOf(actor, row, unit, timeZone, clock.now()), messageKey: key, message: translate(language, key) };
  }

  return {
    /** GET week: the Monday-first week holding `weekDay`. */
    async week(actor: Actor, input: { week_day: string; Imeis: string[] }): Promise<ScheduleAnswer> {
      const monday = weekStart(input.week_day);
      return schedule(actor, monday, addDays(monday, 7), input.Imeis, false);
    },

    /** GET month: the 42 cells of the month's calendar; `mine` keeps the caller's own bookings (My Booking). */
    async month(actor: Actor, input: { month: string; Imeis: string[]; mine: boolean }): Promise<ScheduleAnswer> {
      const grid = monthGrid(input.month);
      return schedule(actor, grid[0]!, addDays(grid[grid.length - 1]!, 1), input.Imeis, input.mine);
    },

    /** A vehicle's bookings from a day (default today) on, for its unit page. */
    async unitBookings(actor: Actor, unitId: number, from?: string): Promise<VehicleSchedule> {
      await requireEnabled(actor);
      const [unit] = await scheduleUnits(actor, { unitId });
      if (!unit) throw notFound('errors.unitNotFound');
      const timeZone = await timeZoneOf(actor.accountId);
      const first = from ?? localOf(clock.now(), timeZone).slice(0, 10);
      const answer = await schedule(actor, first, addDays(first, UNIT_BOOKINGS_DAYS), [unit.imei], false);
      const entry = answer.BookingSchedules.find((vehicle) => vehicle.ID === unit.id);
      if (!entry) throw notFound('errors.unitNotFound');
      return entry;
    },

    /** Spec §7 driver list: administrators choose among the account's users; an ordinary user is the only choice. */
    async drivers(actor: Actor, input: { imei: string }): Promise<DriverListAnswer> {
      await requireEnabled(actor);
      await unitByImei(actor, input.imei);
      const rows = await database.query<{ id: number; first_name: string | null; last_name: string | null; email: string }>(
        isAdministrator(actor)
          ? "SELECT id, first_name, last_name, email FROM user_directory WHERE account_id = $1 AND role IN ('admin', 'user') ORDER BY lower(first_name), lower(last_name), id"
          : 'SELECT id, first_name, last_name, email FROM user_directory WHERE account_id = $1 AND id = $2',
        isAdministrator(actor) ? [actor.accountId] : [actor.accountId, actor.userId],
      );
      return {
        members: rows.map((row) => ({ ID: row.id, FirstName: [row.first_name, row.last_name].filter(Boolean).join(' ').trim() || row.email })),
      };
    },

    async save(actor: Actor, input: SaveBookingInput, language: Language = actor.language): Promise<BookingSaved> {
      await requireEnabled(actor);
      const unit = await unitByImei(actor, input.imei);
      const timeZone = await timeZoneOf(actor.accountId);
      checkFutureStart(input.start_date, localOf(clock.now(), timeZone), BOOKING_MESSAGES.ErrSavePastDateMsg);
      const row = await write(async (query) => {
        const driverId = await driverOf(actor, input.driver_id, query);
        const [inserted] = await query<{ id: number }>(
          `INSERT INTO bookings (account_id, unit_id, driver_id, starts_at, ends_at, purpose, created_by, created_at, updated_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7, $8) RETURNING id`,
          [
            actor.accountId,
            unit.id,
            driverId,
            instantOf(input.start_date, timeZone).toISOString(),
            instantOf(input.end_date, timeZone).toISOString(),
            input.purpose,
            actor.userId,
            clock.now().toISOString(),
          ],
        );
        const [row] = await query<BookingRow>(`${SELECT_BOOKING} WHERE b.id = $1`, [inserted!.id]);
        await mailDriver(query, { row: row!, unit, timeZone, kind: 'confirm' }, `booking:${row!.id}:confirm`);
        await queueReminder(query, row!);
        return row!;
      });
      return saved(actor, row, unit, timeZone, BOOKING_MESSAGES.NewBookingSuccessMsg, language);
    },

    async update(actor: Actor, input: UpdateBookingInput, language: Language = actor.language): Promise<BookingSaved> {
      await requireEnabled(actor);
      const unit = await unitByImei(actor, input.imei);
      const timeZone = await timeZoneOf(actor.accountId);
      const bookedUnitId = await bookedUnit(actor, input.id);
      const row = await write(async (query) => {
        const current = await lockBooking(query, actor, input.id, bookedUnitId);
        mayChange(actor, current);
        const now = clock.now();
        const nowLocal = localOf(now, timeZone);
        // Only future bookings are changed; a running one keeps its start and its vehicle (spec §5).
        if (new Date(current.ends_at).getTime() <= now.getTime()) throw fieldError('start_date', BOOKING_MESSAGES.ErrEditPastDateMsg);
        const started = new Date(current.starts_at).getTime() <= now.getTime();
        const newStart = instantOf(input.start_date, timeZone);
        const newEnd = instantOf(input.end_date, timeZone);
        if (started) {
          if (newStart.getTime() !== new Date(current.starts_at).getTime() || unit.id !== current.unit_id) {
            throw fieldError('start_date', BOOKING_MESSAGES.ErrEditPastDateMsg);
          }
          if (newEnd.getTime() <= now.getTime()) throw fieldError('end_date', BOOKING_MESSAGES.ErrEditPastDateMsg);
        } else {
          checkFutureStart(input.start_date, nowLocal, BOOKING_MESSAGES.ErrEditPastDateMsg);
        }
        const driverId = await driverOf(actor, input.driver_id ?? (isAdministrator(actor) ? null : current.driver_id), query);
        await query(
          `UPDATE bookings SET unit_id = $2, driver_id = $3, starts_at = $4, ends_at = $5, purpose = $6, updated_by = $7, updated_at = $8
           WHERE id = $1`,
          [current.id, unit.id, driverId, newStart.toISOString(), newEnd.toISOString(), input.purpose, actor.userId, now.toISOString()],
        );
        const [row] = await query<BookingRow>(`${SELECT_BOOKING} WHERE b.id = $1`, [current.id]);
        await mailDriver(query, { row: row!, unit, timeZone, kind: 'update' }, `booking:${row!.id}:update:${now.toISOString()}`);
        if (row!.driver_id !== current.driver_id) {
          const [oldUnit] = await query<{ imei: string; name: string; registration_number: string }>(
            'SELECT imei, name, registration_number FROM unit_directory WHERE id = $1',
            [current.unit_id],
          );
          await mailDriver(
            query,
            { row: current, unit: { imei: oldUnit!.imei, name: oldUnit!.name, registrationNumber: oldUnit!.registration_number }, timeZone, kind: 'cancel' },
            `booking:${current.id}:cancel:${now.toISOString()}`,
          );
        }
        await queueReminder(query, row!);
        return row!;
      });
      return saved(actor, row, unit, timeZone, BOOKING_MESSAGES.UpdateSuccessMsg, language);
    },

    async remove(actor: Actor, input: { id: number }, language: Language = actor.language): Promise<BookingDeleted> {
      await requireEnabled(actor);
      const timeZone = await timeZoneOf(actor.accountId);
      const bookedUnitId = await bookedUnit(actor, input.id);
      await write(async (query) => {
        const current = await lockBooking(query, actor, input.id, bookedUnitId);
        mayChange(actor, current);
        // Only future bookings are deleted (spec §5): a running or past one is part of what happened.
        if (new Date(current.starts_at).getTime() <= clock.now().getTime()) throw fieldError('id', BOOKING_MESSAGES.ErrEditPastDateMsg);
        const [unit] = await query<{ imei: string; name: string; registration_number: string }>(
          'SELECT imei, name, registration_number FROM unit_directory WHERE id = $1',
          [current.unit_id],
        );
        await query('DELETE FROM bookings WHERE id = $1', [current.id]);
        await mailDriver(
          query,
          { row: current, unit: { imei: unit!.imei, name: unit!.name, registrationNumber: unit!.registration_number }, timeZone, kind: 'cancel' },
          `booking:${current.id}:cancel`,
        );
      });
      return { id: input.id, messageKey: BOOKING_MESSAGES.DeleteMsg, message: translate(language, BOOKING_MESSAGES.DeleteMsg) };
    },
  };
}

export type BookingService = ReturnType<typeof createBookingService>;
