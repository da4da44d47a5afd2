import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { translate } from '../../lib/i18n';
import {
  BOOKING_MESSAGES,
  type BookingDeleted,
  type BookingSaved,
  correctPastEnd,
  correctPastStart,
  defaultWindow,
  type DriverListAnswer,
  monthGrid,
  saveBookingSchema,
  type ScheduleAnswer,
  type VehicleSchedule,
  weekDays,
} from './model';

/**
 * The car schedule's API (spec §5 booking rules, §6 who books and edits, §7 shapes, §8 keys). The test clock starts
 * Monday 2026-03-02 08:00 UTC, 09:00 in the account's time zone (Europe/Stockholm).
 */
let app: TestApp;
let admin: { accountId: number; userId: number; token: string };
let user: { userId: number; token: string };
let colleague: { userId: number; token: string };
let car: { id: number; imei: string };
let van: { id: number; imei: string };
let basCar: { id: number; imei: string };
let hiddenCar: { id: number; imei: string };

const START = '2026-03-02T08:00:00Z';

async function addUser(accountId: number, firstName: string, role: 'admin' | 'user'): Promise<{ userId: number; token: string }> {
  const email = `${firstName.toLowerCase()}-${accountId}@example.com`;
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${accountId}, ${email}, (select password_hash from users where id = ${admin.userId}), ${firstName}, 'Driver', ${role}) returning id`);
  return { userId: row!.id, token: await app.login({ email, password: 'Secret-123!', subsiteId: 0 }) };
}

async function addUnit(accountId: number, imei: string, name: string, subscription = 'standard') {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number, model, subscription_type)
    values (${accountId}, ${imei}, ${name}, ${`REG${imei.slice(-3)}`}, 'FMB920', ${subscription}) returning id`);
  return { id: row!.id, imei };
}

const body = (overrides: Record<string, unknown> = {}) => ({
  imei: car.imei,
  start_date: '2026-03-03 10:00:00',
  end_date: '2026-03-03 11:00:00',
  purpose: 'Customer visit',
  driver_id: user.userId,
  ...overrides,
});

const save = (token: string, overrides: Record<string, unknown> = {}) =>
  app.call<BookingSaved>('POST', '/api/car-schedule/save', { token, body: body(overrides) });

/** The error key of a refused call: the field's key (422) or the message key. */
function keyOf(result: { status: number; body: { errors: unknown } }): string {
  return JSON.stringify(result.body.errors);
}

/** What a refusal with the key says (the calls ask in English). */
const says = (key: string) => translate('en', key);

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  admin = { accountId: account.accountId, userId: account.userId, token: await app.login(account) };
  user = await addUser(account.accountId, 'Ulla', 'user');
  colleague = await addUser(account.accountId, 'Cecilia', 'user');
  car = await addUnit(account.accountId, '356307042481001', 'Pool car');
  van = await addUnit(account.accountId, '356307042481002', 'Service van');
  basCar = await addUnit(account.accountId, '356307042481003', 'Basic car', 'Bas');
  hiddenCar = await addUnit(account.accountId, '356307042481004', 'Manager car');
  await app.grantUnits(user.userId, [car.id, van.id, basCar.id]);
  await app.grantUnits(colleague.userId, [car.id, van.id]);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

beforeEach(async () => {
  app.clock.set(START);
  await app.database.rows(sql`delete from bookings`);
  await app.database.rows(sql`delete from job_queue`);
  await app.database.rows(sql`delete from account_settings`);
  app.smtp.inbox.splice(0);
});

describe('§7 shapes', () => {
  test('save answers the booking and the success key; week and month answer BookingSchedules and OldestBooking', async () => {
    const saved = await save(admin.token);
    expect(saved.status).toBe(200);
    expect(saved.body.data!.messageKey).toBe(BOOKING_MESSAGES.NewBookingSuccessMsg);
    expect(saved.body.data!.message).toBe('The booking has been saved.');
    expect(saved.body.data!.Booking).toMatchObject({
      Imei: car.imei,
      StartDate: '2026-03-03T10:00:00',
      EndDate: '2026-03-03T11:00:00',
      StartTime: '10:00',
      EndTime: '11:00',
      Purpose: 'Customer visit',
      DriverId: user.userId,
      DriverName: 'Ulla Driver',
      BookedBy: admin.userId,
      Mine: false,
      Editable: true,
      Started: false,
    });
    // Stored in the account's time zone: 10:00 in Stockholm is 09:00 UTC.
    const [stored] = await app.database.rows<{ starts_at: string }>(sql`select to_char(starts_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as starts_at from bookings`);
    expect(stored!.starts_at).toBe('2026-03-03 09:00');

    const week = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/week?week_day=2026-03-04&Imeis=', { token: admin.token });
    expect(week.status).toBe(200);
    const data = week.body.data!;
    expect(data.From).toBe('2026-03-02');
    expect(data.To).toBe('2026-03-09');
    expect(data.TimeZone).toBe('Europe/Stockholm');
    expect(data.Now).toBe('2026-03-02T09:00:00');
    expect(data.OldestBooking).toBe('2026-03-03T10:00:00');
    // Bas-subscription vehicles are hidden (spec §2).
    expect(data.BookingSchedules.map((vehicle) => vehicle.Name)).toEqual(['Manager car', 'Pool car', 'Service van']);
    const pool = data.BookingSchedules.find((vehicle) => vehicle.ID === car.id)!;
    expect(Object.keys(pool).sort()).toEqual(['ID', 'Imei', 'Model', 'Name', 'RegistrationNumber', 'Schedule', 'SubscriptionType']);
    expect(pool).toMatchObject({ Imei: car.imei, RegistrationNumber: 'REG001', Model: 'FMB920', SubscriptionType: 'standard' });
    expect(pool.Schedule.map((booking) => booking.ID)).toEqual([saved.body.data!.Booking.ID]);

    const nextWeek = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/week?week_day=2026-03-09&Imeis=', { token: admin.token });
    expect(nextWeek.body.data!.BookingSchedules.flatMap((vehicle) => vehicle.Schedule)).toEqual([]);
    const narrowed = await app.call<ScheduleAnswer>('GET', `/api/car-schedule/week?week_day=2026-03-04&Imeis=${van.imei}`, { token: admin.token });
    expect(narrowed.body.data!.BookingSchedules.map((vehicle) => vehicle.ID)).toEqual([van.id]);

    const month = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/month?month=2026-03&Imeis=', { token: user.token });
    expect(month.status).toBe(200);
    expect(month.body.data!.From).toBe('2026-02-23');
    expect(month.body.data!.To).toBe('2026-04-06');
    // The user sees only the units given to them, the Bas car hidden.
    expect(month.body.data!.BookingSchedules.map((vehicle) => vehicle.ID)).toEqual([car.id, van.id]);
    expect(month.body.data!.BookingSchedules[0]!.Schedule[0]).toMatchObject({ Mine: true, Editable: true });
    const colleagueMine = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/month?month=2026-03&Imeis=&mine=true', { token: colleague.token });
    expect(colleagueMine.body.data!.BookingSchedules.flatMap((vehicle) => vehicle.Schedule)).toEqual([]);
    expect(colleagueMine.body.data!.OldestBooking).toBeNull();

    const bad = await app.call('GET', '/api/car-schedule/week?week_day=2026-02-30', { token: admin.token });
    expect(bad.status).toBe(422);
  });

  test('driver list: administrators choose among the account users, a user only themselves', async () => {
    const forAdmin = await app.call<DriverListAnswer>('POST', '/api/car-schedule/drivers', { token: admin.token, body: { imei: car.imei } });
    expect(forAdmin.status).toBe(200);
    expect(forAdmin.body.data!.members.map((member) => member.FirstName)).toEqual(['Cecilia Driver', 'Test User 1', 'Ulla Driver'].sort((a, b) => a.localeCompare(b)));
    expect(Object.keys(forAdmin.body.data!.members[0]!).sort()).toEqual(['FirstName', 'ID']);
    const forUser = await app.call<DriverListAnswer>('POST', '/api/car-schedule/drivers', { token: user.token, body: { imei: car.imei } });
    expect(forUser.body.data!.members).toEqual([{ ID: user.userId, FirstName: 'Ulla Driver' }]);
    const notGiven = await app.call('POST', '/api/car-schedule/drivers', { token: user.token, body: { imei: hiddenCar.imei } });
    expect(notGiven.status).toBe(404);
    const bas = await app.call('POST', '/api/car-schedule/drivers', { token: admin.token, body: { imei: basCar.imei } });
    expect(bas.status).toBe(404);
  });

  test("a vehicle's bookings for its unit page", async () => {
    await save(admin.token);
    await save(admin.token, { imei: van.imei });
    const result = await app.call<VehicleSchedule>('GET', `/api/car-schedule/units/${car.id}/bookings`, { token: admin.token });
    expect(result.status).toBe(200);
    expect(result.body.data!.ID).toBe(car.id);
    expect(result.body.data!.Schedule.map((booking) => booking.Imei)).toEqual([car.imei]);
    expect((await app.call('GET', `/api/car-schedule/units/${hiddenCar.id}/bookings`, { token: user.token })).status).toBe(404);
    const later = await app.call<VehicleSchedule>('GET', `/api/car-schedule/units/${car.id}/bookings?from=2026-03-04`, { token: admin.token });
    expect(later.body.data!.Schedule).toEqual([]);
  });
});

describe('§5 rules and §8 keys', () => {
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['end equals start', { end_date: '2026-03-03 10:00:00' }, 422, BOOKING_MESSAGES.StartTimeAndEndTimeCannotBeSame],
    ['end before start', { end_date: '2026-03-03 09:00:00' }, 422, BOOKING_MESSAGES.EndDateMustBeAfterStart],
    ['end before start on an earlier day', { end_date: '2026-03-02 23:00:00' }, 422, BOOKING_MESSAGES.EndDateMustBeAfterStart],
    ['minutes off the 15-minute step', { start_date: '2026-03-03 10:05:00' }, 422, BOOKING_MESSAGES.TimeStep],
    ['seconds other than :00', { end_date: '2026-03-03 11:00:30' }, 422, BOOKING_MESSAGES.TimeStep],
    ['no purpose', { purpose: '   ' }, 422, BOOKING_MESSAGES.SpecifyPurpose],
    ['purpose over 100', { purpose: 'x'.repeat(101) }, 422, BOOKING_MESSAGES.PurposeLength],
    ['no vehicle', { imei: '' }, 422, BOOKING_MESSAGES.SelectImei],
    ['an earlier day', { start_date: '2026-03-01 10:00:00', end_date: '2026-03-03 11:00:00' }, 422, BOOKING_MESSAGES.ErrPastDateMsg],
    ['a passed time today', { start_date: '2026-03-02 08:45:00', end_date: '2026-03-02 10:00:00' }, 422, BOOKING_MESSAGES.ErrSavePastDateMsg],
    ['no driver chosen by an administrator', { driver_id: null }, 422, BOOKING_MESSAGES.SelectDriver],
    ['a driver of another account', { driver_id: 999_999 }, 422, BOOKING_MESSAGES.DriverNotFound],
  ];
  for (const [name, overrides, status, key] of cases) {
    test(`refused: ${name} → ${key}`, async () => {
      const result = await save(admin.token, overrides);
      expect(result.status).toBe(status);
      expect(keyOf(result)).toContain(says(key));
      expect(await app.database.rows(sql`select id from bookings`)).toEqual([]);
    });
  }

  test('at least 10 minutes: the shared schema refuses a shorter window', () => {
    const parsed = saveBookingSchema.safeParse({ ...body(), start_date: '2026-03-03T10:00:00', end_date: '2026-03-03T10:05:00' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toContain(BOOKING_MESSAGES.TimeStep);
    // 15 minutes, the shortest booking in steps, is allowed; the 10-minute minimum holds for any end.
    expect(saveBookingSchema.safeParse({ ...body(), end_date: '2026-03-03T10:15:00' }).success).toBe(true);
  });

  test("the account's time zone decides what has passed: 09:15 Stockholm is still ahead at 08:00 UTC", async () => {
    const result = await save(admin.token, { start_date: '2026-03-02 09:15', end_date: '2026-03-02 10:00' });
    expect(result.status).toBe(200);
    await app.database.rows(sql`insert into account_settings (account_id, timezone) values (${admin.accountId}, 'Atlantic/Azores') on conflict (account_id) do update set timezone = 'Atlantic/Azores'`);
    // In the Azores it is 07:00: 07:15 is ahead, 06:45 has passed.
    expect((await save(admin.token, { imei: van.imei, start_date: '2026-03-02 07:15', end_date: '2026-03-02 08:00' })).status).toBe(200);
    const passed = await save(admin.token, { imei: van.imei, start_date: '2026-03-02 06:45', end_date: '2026-03-02 07:00' });
    expect(keyOf(passed)).toContain(says(BOOKING_MESSAGES.ErrSavePastDateMsg));
  });

  test('no overlap: already booked; back to back is fine', async () => {
    expect((await save(admin.token)).status).toBe(200);
    const overlap = await save(admin.token, { start_date: '2026-03-03 10:45', end_date: '2026-03-03 12:00', driver_id: colleague.userId });
    expect(overlap.status).toBe(409);
    expect(keyOf(overlap)).toContain(says(BOOKING_MESSAGES.AlreadyBooked));
    expect((await save(admin.token, { start_date: '2026-03-03 11:00', end_date: '2026-03-03 12:00' })).status).toBe(200);
    expect((await save(admin.token, { imei: van.imei })).status).toBe(200);
  });

  test('client helpers: default window, past start and end today', () => {
    expect(defaultWindow('2026-03-02T09:20:00')).toEqual({ start: '2026-03-02T10:00:00', end: '2026-03-02T11:00:00' });
    expect(correctPastStart('2026-03-02T08:00:00', '2026-03-02T09:20:00')).toEqual({ value: '2026-03-02T09:30:00', notice: BOOKING_MESSAGES.SetToCurrentTime });
    expect(correctPastStart('2026-03-03T08:00:00', '2026-03-02T09:20:00').notice).toBeNull();
    expect(correctPastEnd('2026-03-02T09:00:00', '2026-03-02T09:20:00')).toEqual({ value: '2026-03-02T10:30:00', notice: BOOKING_MESSAGES.SetToOneHourAhead });
    expect(monthGrid('2026-03')).toHaveLength(42);
    expect(monthGrid('2026-03')[0]).toBe('2026-02-23');
    expect(weekDays('2026-03-08')).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08']);
  });
});

describe('§6 permissions and only future bookings', () => {
  test('an ordinary user books for themselves only and cannot change or delete another user’s booking', async () => {
    const own = await save(user.token, { driver_id: undefined });
    expect(own.status).toBe(200);
    expect(own.body.data!.Booking.DriverId).toBe(user.userId);
    const forOther = await save(user.token, { imei: van.imei, driver_id: colleague.userId });
    expect(forOther.status).toBe(403);
    const id = own.body.data!.Booking.ID;
    const edit = await app.call('POST', '/api/car-schedule/update', { token: colleague.token, body: { ...body({ driver_id: undefined }), id, purpose: 'Mine now' } });
    expect(edit.status).toBe(403);
    expect(keyOf(edit)).toContain(says(BOOKING_MESSAGES.CannotEditOthersBooking));
    const remove = await app.call('POST', '/api/car-schedule/delete', { token: colleague.token, body: { id } });
    expect(remove.status).toBe(403);
    const seen = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/week?week_day=2026-03-03', { token: colleague.token });
    expect(seen.body.data!.BookingSchedules[0]!.Schedule[0]).toMatchObject({ ID: id, Mine: false, Editable: false });
    // The owner edits it; an administrator edits anyone's and may give it to another driver.
    const byOwner = await app.call<BookingSaved>('POST', '/api/car-schedule/update', { token: user.token, body: { ...body({ driver_id: undefined }), id, purpose: 'Changed' } });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.data!.messageKey).toBe(BOOKING_MESSAGES.UpdateSuccessMsg);
    const byAdmin = await app.call<BookingSaved>('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ driver_id: colleague.userId }), id, end_date: '2026-03-03 12:30' },
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data!.Booking).toMatchObject({ DriverId: colleague.userId, EndDate: '2026-03-03T12:30:00', Purpose: 'Customer visit' });
    const deleted = await app.call<BookingDeleted>('POST', '/api/car-schedule/delete', { token: admin.token, body: { id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, messageKey: BOOKING_MESSAGES.DeleteMsg, message: 'The booking has been deleted.' });
    expect((await app.call('POST', '/api/car-schedule/delete', { token: admin.token, body: { id } })).status).toBe(404);
  });

  test('a user cannot book or see a unit not given to them', async () => {
    const result = await save(user.token, { imei: hiddenCar.imei, driver_id: undefined });
    expect(result.status).toBe(404);
    const adminBooking = await save(admin.token, { imei: hiddenCar.imei });
    const id = adminBooking.body.data!.Booking.ID;
    expect((await app.call('POST', '/api/car-schedule/delete', { token: user.token, body: { id } })).status).toBe(404);
  });

  test('a running booking keeps its start; an ended one is not changed; only future bookings are deleted', async () => {
    const booked = await save(admin.token, { start_date: '2026-03-02 10:00', end_date: '2026-03-02 12:00' });
    const id = booked.body.data!.Booking.ID;
    app.clock.set('2026-03-02T09:30:00Z'); // 10:30 in Stockholm: running
    const running = await app.call<ScheduleAnswer>('GET', '/api/car-schedule/week?week_day=2026-03-02', { token: admin.token });
    expect(running.body.data!.BookingSchedules.find((v) => v.ID === car.id)!.Schedule[0]).toMatchObject({ Started: true, Editable: true });
    const moveStart = await app.call('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ start_date: '2026-03-02 11:00', end_date: '2026-03-02 12:00' }), id },
    });
    expect(moveStart.status).toBe(422);
    expect(keyOf(moveStart)).toContain(says(BOOKING_MESSAGES.ErrEditPastDateMsg));
    const extend = await app.call<BookingSaved>('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ start_date: '2026-03-02 10:00', end_date: '2026-03-02 13:00' }), id },
    });
    expect(extend.status).toBe(200);
    const remove = await app.call('POST', '/api/car-schedule/delete', { token: admin.token, body: { id } });
    expect(remove.status).toBe(422);
    expect(keyOf(remove)).toContain(says(BOOKING_MESSAGES.ErrEditPastDateMsg));
    app.clock.set('2026-03-02T13:00:00Z');
    const ended = await app.call('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ start_date: '2026-03-02 10:00', end_date: '2026-03-02 15:00' }), id },
    });
    expect(keyOf(ended)).toContain(says(BOOKING_MESSAGES.ErrEditPastDateMsg));
    // Moving a future booking into the past today is refused as an edit of the past.
    const future = await save(admin.token, { imei: van.imei, start_date: '2026-03-02 16:00', end_date: '2026-03-02 17:00' });
    const intoPast = await app.call('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ imei: van.imei, start_date: '2026-03-02 13:00', end_date: '2026-03-02 17:00' }), id: future.body.data!.Booking.ID },
    });
    expect(keyOf(intoPast)).toContain(says(BOOKING_MESSAGES.ErrEditPastDateMsg));
  });

  test('EnableCarSchedule off: every route answers 404 bookings.disabled', async () => {
    const other = await app.createAccount({ subsiteId: 2 });
    const token = await app.login(other);
    const calls = [
      app.call('GET', '/api/car-schedule/week?week_day=2026-03-03', { token }),
      app.call('GET', '/api/car-schedule/month?month=2026-03', { token }),
      app.call('POST', '/api/car-schedule/drivers', { token, body: { imei: car.imei } }),
      app.call('POST', '/api/car-schedule/save', { token, body: body() }),
      app.call('POST', '/api/car-schedule/update', { token, body: { ...body(), id: 1 } }),
      app.call('POST', '/api/car-schedule/delete', { token, body: { id: 1 } }),
      app.call('GET', `/api/car-schedule/units/${car.id}/bookings`, { token }),
    ];
    for (const result of await Promise.all(calls)) {
      expect(result.status).toBe(404);
      expect(keyOf(result)).toContain(says('bookings.disabled'));
    }
    expect((await app.call('GET', '/api/car-schedule/week?week_day=2026-03-03')).status).toBe(401);
  });
});

describe('no double booking under concurrency', () => {
  test('many parallel requests for overlapping slots give exactly one booking', async () => {
    const attempts = Array.from({ length: 16 }, (_, index) =>
      save(index % 2 === 0 ? admin.token : user.token, {
        start_date: `2026-03-04 ${String(10 + (index % 3)).padStart(2, '0')}:00`,
        end_date: '2026-03-04 14:00',
        driver_id: index % 2 === 0 ? colleague.userId : undefined,
      }),
    );
    const results = await Promise.all(attempts);
    const statuses = results.map((result) => result.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    for (const result of results.filter((r) => r.status === 409)) expect(keyOf(result)).toContain(says(BOOKING_MESSAGES.AlreadyBooked));
    expect(await app.database.rows(sql`select id from bookings where unit_id = ${car.id}`)).toHaveLength(1);
  }, 60_000);

  test('parallel moves of two bookings into the same slot leave one moved', async () => {
    const first = await save(admin.token, { start_date: '2026-03-05 08:00', end_date: '2026-03-05 09:00' });
    const second = await save(admin.token, { start_date: '2026-03-05 12:00', end_date: '2026-03-05 13:00' });
    const move = (id: number) =>
      app.call('POST', '/api/car-schedule/update', { token: admin.token, body: { ...body({ start_date: '2026-03-05 10:00', end_date: '2026-03-05 11:00' }), id } });
    const results = await Promise.all([move(first.body.data!.Booking.ID), move(second.body.data!.Booking.ID)]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
  });
});

describe('confirmation and reminder mails with an iCalendar invitation', () => {
  test('the driver gets a confirmation with the invitation, and a reminder an hour before the start', async () => {
    const booked = await save(admin.token, { start_date: '2026-03-03 10:00', end_date: '2026-03-03 11:00' });
    const id = booked.body.data!.Booking.ID;
    await app.platform.queue.drain();
    const confirmation = await app.smtp.waitFor('ulla-');
    expect(confirmation.subject).toBe('Bokning bekräftad: Pool car (REG001) 2026-03-03 10:00');
    expect(confirmation.attachments).toHaveLength(1);
    const ics = confirmation.attachments[0]!;
    expect(ics.filename).toBe('booking.ics');
    expect(ics.contentType).toBe('text/calendar');
    expect(ics.content).toContain('METHOD:REQUEST');
    expect(ics.content).toContain(`UID:booking-${id}@portal.test`);
    expect(ics.content).toContain('DTSTART:20260303T090000Z');
    expect(ics.content).toContain('DTEND:20260303T100000Z');
    // The reminder waits for its time, then goes once.
    app.clock.set('2026-03-03T07:59:00Z');
    await app.platform.queue.drain();
    expect(app.smtp.inbox).toEqual([]);
    app.clock.set('2026-03-03T08:00:00Z');
    await app.platform.queue.drain();
    const reminder = await app.smtp.waitFor('ulla-');
    expect(reminder.subject).toBe('Påminnelse: Pool car (REG001) 2026-03-03 10:00');
    app.clock.set('2026-03-03T08:05:00Z');
    await app.platform.queue.drain();
    expect(app.smtp.inbox).toEqual([]);
  });

  test('a moved booking is reminded at its new start only; a deleted one not at all and its driver gets the cancellation', async () => {
    const moved = await save(admin.token, { start_date: '2026-03-03 10:00', end_date: '2026-03-03 11:00' });
    const gone = await save(admin.token, { imei: van.imei, start_date: '2026-03-03 10:00', end_date: '2026-03-03 11:00', driver_id: colleague.userId });
    await app.call('POST', '/api/car-schedule/update', {
      token: admin.token,
      body: { ...body({ start_date: '2026-03-03 14:00', end_date: '2026-03-03 15:00' }), id: moved.body.data!.Booking.ID },
    });
    expect((await app.call('POST', '/api/car-schedule/delete', { token: admin.token, body: { id: gone.body.data!.Booking.ID } })).status).toBe(200);
    await app.platform.queue.drain();
    const toColleague = app.smtp.inbox.filter((mail) => mail.to.includes('cecilia-')).map((mail) => mail.subject);
    expect(toColleague.sort()).toEqual(['Bokning bekräftad: Service van (REG002) 2026-03-03 10:00', 'Bokning borttagen: Service van (REG002) 2026-03-03 10:00']);
    const cancellation = app.smtp.inbox.find((mail) => mail.subject.startsWith('Bokning borttagen'))!;
    expect(cancellation.attachments[0]!.content).toContain('METHOD:CANCEL');
    app.smtp.inbox.splice(0);
    app.clock.set('2026-03-03T08:30:00Z'); // the old reminder time of both
    await app.platform.queue.drain();
    expect(app.smtp.inbox).toEqual([]);
    app.clock.set('2026-03-03T12:00:00Z'); // an hour before the moved start (13:00 UTC)
    await app.platform.queue.drain();
    const reminder = await app.smtp.waitFor('ulla-');
    expect(reminder.subject).toBe('Påminnelse: Pool car (REG001) 2026-03-03 14:00');
  });

  test('a refused booking queues no mail', async () => {
    await save(admin.token);
    await save(admin.token, { driver_id: colleague.userId });
    const jobs = await app.database.rows<{ name: string }>(sql`select name from job_queue order by id`);
    expect(jobs.map((job) => job.name)).toEqual(['notifications.send', 'bookings.reminder']);
  });
});
