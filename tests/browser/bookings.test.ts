import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import svMessages from '../../src/lib/i18n/messages/sv.json';
import { hashPassword } from '../../src/lib/password';
import { addDays, addMonths, type BookingEntry, type BookingSaved, weekStart } from '../../src/modules/bookings/model';
import { nowInZone } from '../../src/web/features/bookings/time';
import { login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

setDefaultTimeout(120_000);

/**
 * The car schedule in the built app (spec §2): booking from the week grid and from My Booking, the refused overlap,
 * edit and delete, an ordinary user who cannot edit another's booking, "+N more" with five bookings in a cell, and
 * week and month navigation. The server runs on real time; the booked days lie next week and next month.
 */
let suite: Suite;
let admin: { accountId: number; userId: number; email: string; password: string; subsiteId: number };
let driver: { userId: number; email: string; password: string };
let adminToken: string;
const VOLVO = '358100000230001';
const KIA = '358100000230002';
const BASIC = '358100000230003';

const message = (key: string) => (svMessages as Record<string, string>)[key] ?? key;
const today = () => nowInZone('Europe/Stockholm').slice(0, 10);
/** Wednesday next week: always in the future. */
const nextWednesday = () => addDays(weekStart(today()), 9);

beforeAll(async () => {
  suite = await startSuite();
  // The form's "not in the past" rules compare with the server's clock: run it on real time.
  suite.server.clock.set(new Date());
  admin = await suite.server.createAccount();
  const db = suite.server.database;
  await db.rows(sql`update users set first_name = 'Anna', last_name = 'Admin' where id = ${admin.userId}`);
  const password = 'Secret-123!';
  const [user] = await db.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${admin.accountId}, ${`olle-${admin.accountId}@example.com`}, ${await hashPassword(password)}, 'Olle', 'Ordinary', 'user') returning id`);
  driver = { userId: user!.id, email: `olle-${admin.accountId}@example.com`, password };
  await db.rows(sql`
    insert into units (account_id, imei, name, registration_number, model, subscription_type) values
      (${admin.accountId}, ${VOLVO}, 'Volvo V60', 'ABC123', 'V60', 'standard'),
      (${admin.accountId}, ${KIA}, 'Kia Ceed', 'XYZ789', 'Ceed', 'standard'),
      (${admin.accountId}, ${BASIC}, 'Basbil', 'BAS001', 'Up', 'Bas')`);
  await suite.server.grantUnits(driver.userId);
  adminToken = await suite.server.login(admin);
}, 120_000);

afterAll(async () => {
  await suite?.close();
});

async function signIn(page: Page, account: { email: string; password: string }) {
  await page.goto('/');
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
  await page.getByRole('heading', { level: 1 }).waitFor();
}

async function openSchedule(page: Page, week?: string) {
  await page.goto(week ? `/user/car-schedule?week=${week}` : '/user/car-schedule');
  await page.getByTestId(`vehicle-row-${VOLVO}`).waitFor();
}

/** A booking made through the API as the administrator (for the driver given). */
async function book(imei: string, day: string, from: string, to: string, purpose: string, driverId: number): Promise<BookingEntry> {
  const result = await suite.server.call<BookingSaved>('POST', '/api/car-schedule/save', {
    token: adminToken,
    body: { imei, start_date: `${day}T${from}:00`, end_date: `${day}T${to}:00`, purpose, driver_id: driverId },
  });
  expect(result.status).toBe(200);
  return result.body.data!.Booking;
}

const chips = (page: Page, cell: string) => page.locator(`[data-testid^="${cell}-booking-"]`);

async function closeResult(page: Page, key: string) {
  await expect(page.getByTestId('booking-result').textContent()).resolves.toBe(message(key));
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await page.getByTestId('booking-result').waitFor({ state: 'detached' });
}

describe('week grid', () => {
  test('book from the grid, the overlap refused, edit and delete; week navigation, search and sort', async () => {
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.locator('#sidebar nav a', { hasText: 'Bilbokning' }).click();
    await page.getByTestId(`vehicle-row-${VOLVO}`).waitFor();
    // Bas-subscription vehicles are hidden; two vehicles, sorted by name.
    expect(await page.getByTestId(`vehicle-row-${BASIC}`).count()).toBe(0);
    await expect(page.getByTestId('car-schedule-count').textContent()).resolves.toBe('2 fordon');
    const order = async () => page.locator('[data-testid^="vehicle-row-"]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid')));
    expect(await order()).toEqual([`vehicle-row-${KIA}`, `vehicle-row-${VOLVO}`]);
    await page.getByTestId('sort-name').click();
    expect(await order()).toEqual([`vehicle-row-${VOLVO}`, `vehicle-row-${KIA}`]);
    await page.getByTestId('sort-registrationNumber').click();
    expect(await order()).toEqual([`vehicle-row-${VOLVO}`, `vehicle-row-${KIA}`]);
    await page.getByTestId('sort-registrationNumber').click();
    expect(await order()).toEqual([`vehicle-row-${KIA}`, `vehicle-row-${VOLVO}`]);
    await page.getByTestId('car-schedule-search').fill('abc1');
    expect(await order()).toEqual([`vehicle-row-${VOLVO}`]);
    await page.getByTestId('car-schedule-search').fill(KIA.slice(-6));
    expect(await order()).toEqual([`vehicle-row-${KIA}`]);
    await page.getByTestId('car-schedule-search').fill('');

    // Next week, and back, and forward again.
    const day = nextWednesday();
    const thisWeek = await page.getByTestId('week-label').textContent();
    await page.getByTestId('week-next').click();
    await page.getByTestId(`cell-${VOLVO}-${day}`).waitFor();
    expect(await page.getByTestId('week-label').textContent()).not.toBe(thisWeek);
    await page.getByTestId('week-previous').click();
    await page.getByTestId(`cell-${VOLVO}-${addDays(day, -7)}`).waitFor();
    expect(await page.getByTestId('week-label').textContent()).toBe(thisWeek);
    await page.getByTestId('week-next').click();

    // New Booking from the day cell, by keyboard: arrow keys move between the days, Enter opens it.
    const cell = `cell-${VOLVO}-${day}`;
    await page.getByTestId(`cell-${VOLVO}-${addDays(day, -1)}-new`).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(`${cell}-new`);
    await page.keyboard.press('Enter');
    await page.getByTestId('booking-form').waitFor();
    await expect(page.getByTestId('booking-start-day').inputValue()).resolves.toBe(day);
    await page.getByTestId('booking-start-time').selectOption('10:00');
    await page.getByTestId('booking-end-time').selectOption('11:00');
    // An administrator must choose the driver; the purpose is required.
    await page.getByTestId('booking-save').click();
    await expect(page.getByTestId('booking-form').getByText(message('bookings.SelectDriver')).count()).resolves.toBe(1);
    await expect(page.getByTestId('booking-form').getByText(message('bookings.SpecifyPurpose')).count()).resolves.toBe(1);
    await page.getByTestId('booking-driver').selectOption({ label: 'Anna Admin' });
    await page.getByTestId('booking-purpose').fill('Kundbesök Uppsala');
    await page.getByTestId('booking-save').click();
    await closeResult(page, 'bookings.NewBookingSuccessMsg');
    await expect(chips(page, cell).allTextContents()).resolves.toEqual(['10:00 - 11:00']);

    // An overlapping booking of the same car is refused, and said so in the form.
    await page.getByTestId(`${cell}-new`).press('Enter');
    await page.getByTestId('booking-start-time').selectOption('10:30');
    await page.getByTestId('booking-end-time').selectOption('11:30');
    await page.getByTestId('booking-driver').selectOption({ label: 'Olle Ordinary' });
    await page.getByTestId('booking-purpose').fill('Service');
    await page.getByTestId('booking-save').click();
    await page.getByTestId('booking-form').getByText(message('bookings.AlreadyBooked')).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'car-schedule-already-booked');
    await page.getByTestId('booking-cancel').click();
    await page.getByTestId('booking-form').waitFor({ state: 'detached' });
    await expect(chips(page, cell).count()).resolves.toBe(1);

    // Edit Booking: a later end.
    await chips(page, cell).first().click();
    await page.getByRole('heading', { name: 'Ändra bokning' }).waitFor();
    await expect(page.getByTestId('booking-purpose').inputValue()).resolves.toBe('Kundbesök Uppsala');
    await page.getByTestId('booking-end-time').selectOption('12:00');
    await page.getByTestId('booking-save').click();
    await closeResult(page, 'bookings.UpdateSuccessMsg');
    await expect(chips(page, cell).allTextContents()).resolves.toEqual(['10:00 - 12:00']);
    await screenshot(page, 'car-schedule-week');

    // Delete Booking, after its confirmation.
    await chips(page, cell).first().click();
    await page.getByTestId('booking-delete').click();
    await page.getByRole('heading', { name: 'Ta bort bokning' }).waitFor();
    await page.getByTestId('booking-delete-confirm').click();
    await closeResult(page, 'bookings.DeleteMsg');
    await expect(chips(page, cell).count()).resolves.toBe(0);
  });

  test('"+N more": five bookings in a cell show two and a list of three, a list of five scrolls', async () => {
    const day = addDays(nextWednesday(), 1);
    for (const [from, to] of [
      ['08:00', '08:30'],
      ['09:00', '09:30'],
      ['10:00', '10:30'],
      ['11:00', '11:30'],
      ['12:00', '12:30'],
    ] as const) {
      await book(KIA, day, from, to, `Ärende ${from}`, admin.userId);
    }
    const page = await suite.newPage();
    await signIn(page, admin);
    await openSchedule(page, day);
    const cell = `cell-${KIA}-${day}`;
    await page.getByTestId(`${cell}-more`).waitFor();
    expect(await page.getByTestId(`${cell}-more`).textContent()).toBe('+3 till');
    // Two shown in the cell, the other three in the list that opens on hover.
    await expect(page.getByTestId(cell).locator('.booking-chip').allTextContents()).resolves.toEqual(['08:00 - 08:30', '09:00 - 09:30']);
    await page.getByTestId(`${cell}-more`).hover();
    const list = page.getByTestId(`${cell}-more-list`);
    await list.waitFor();
    await expect(list.locator('.booking-more-time').allTextContents()).resolves.toEqual(['10:00 - 10:30', '11:00 - 11:30', '12:00 - 12:30']);
    expect(await list.evaluate((element) => element.classList.contains('booking-more-list--scroll'))).toBe(false);
    // A booking of the list opens its Edit Booking.
    await list.locator('.booking-more-item').nth(1).click();
    await expect(page.getByTestId('booking-purpose').inputValue()).resolves.toBe('Ärende 11:00');
    await page.getByTestId('booking-cancel').click();

    await book(KIA, day, '13:00', '13:30', 'Ärende 13:00', admin.userId);
    await book(KIA, day, '14:00', '14:30', 'Ärende 14:00', admin.userId);
    await page.reload();
    await page.getByTestId(`${cell}-more`).waitFor();
    expect(await page.getByTestId(`${cell}-more`).textContent()).toBe('+5 till');
    // Keyboard: focus and arrow down open the list.
    await page.getByTestId(`${cell}-more`).focus();
    await page.keyboard.press('ArrowDown');
    await list.waitFor();
    expect(await list.evaluate((element) => element.classList.contains('booking-more-list--scroll'))).toBe(true);
    const scrolls = await list.locator('ul').evaluate((element) => element.scrollHeight > element.clientHeight);
    expect(scrolls).toBe(true);
    await screenshot(page, 'car-schedule-more');

    // The unit page lists the vehicle's coming bookings.
    const [kia] = await suite.server.database.rows<{ id: number }>(sql`select id from units where imei = ${KIA}`);
    await page.goto(`/user/edit-terminal?id=${kia!.id}`);
    const listed = page.getByTestId('unit-bookings');
    await listed.waitFor();
    expect(await listed.locator('li').count()).toBe(7);
    expect(await listed.locator('li').first().textContent()).toContain('Ärende 08:00');
  });

  test("an ordinary user books for themselves and cannot edit another's booking", async () => {
    const day = addDays(nextWednesday(), 2);
    const others = await book(VOLVO, day, '09:00', '10:00', 'Styrelsemöte', admin.userId);
    const page = await suite.newPage();
    await signIn(page, driver);
    await openSchedule(page, day);
    const cell = `cell-${VOLVO}-${day}`;
    await page.getByTestId(`${cell}-booking-${others.ID}`).click();
    await expect(page.getByTestId('booking-readonly').textContent()).resolves.toBe(message('bookings.CannotEditOthersBooking'));
    expect(await page.getByTestId('booking-save').count()).toBe(0);
    expect(await page.getByTestId('booking-delete').count()).toBe(0);
    await page.getByTestId('booking-cancel').click();

    // Their own booking: no driver choice, it is theirs.
    await page.getByTestId(`${cell}-new`).press('Enter');
    expect(await page.getByTestId('booking-driver').count()).toBe(0);
    await page.getByTestId('booking-start-time').selectOption('13:00');
    await page.getByTestId('booking-end-time').selectOption('14:00');
    await page.getByTestId('booking-purpose').fill('Hämta material');
    await page.getByTestId('booking-save').click();
    await closeResult(page, 'bookings.NewBookingSuccessMsg');
    const mine = chips(page, cell).filter({ hasText: '13:00 - 14:00' });
    await mine.click();
    await page.getByTestId('booking-save').waitFor();
    expect(await page.getByTestId('booking-readonly').count()).toBe(0);
    await page.getByTestId('booking-cancel').click();

    // Today: a start that has passed goes to the current time, an end that has passed one hour ahead (spec §5).
    // The server's clock (which the form follows) is set to this morning, 08:20 UTC, 09:20 or 10:20 in Stockholm:
    // late in the evening the next full hour, the form's default start, is already tomorrow, where 00:00 has not passed.
    suite.server.clock.set(new Date(`${today()}T08:20:00Z`));
    await openSchedule(page);
    await page.getByTestId(`cell-${KIA}-${today()}-new`).press('Enter');
    await page.getByTestId('booking-start-time').selectOption('00:00');
    await expect(page.getByTestId('booking-start-notice').textContent()).resolves.toBe(message('bookings.SetToCurrentTime'));
    expect(await page.getByTestId('booking-start-time').inputValue()).not.toBe('00:00');
    await page.getByTestId('booking-end-day').fill(today());
    await page.getByTestId('booking-end-time').selectOption('00:00');
    await expect(page.getByTestId('booking-end-notice').textContent()).resolves.toBe(message('bookings.SetToOneHourAhead'));
    expect(await page.getByTestId('booking-end-time').inputValue()).not.toBe('00:00');
    suite.server.clock.set(new Date());
  });

  test('a few thousand vehicles: only the rows in view are drawn, search and scrolling stay quick', async () => {
    const fleet = await suite.server.createAccount();
    await suite.server.database.rows(sql`
      insert into units (account_id, imei, name, registration_number, model)
      select ${fleet.accountId}, (359000000000000 + n)::text, 'Bil ' || lpad(n::text, 4, '0'), 'REG' || n, 'Model ' || (n % 7)
      from generate_series(1, 3000) as n`);
    const page = await suite.newPage();
    await signIn(page, fleet);
    const started = Date.now();
    await page.goto('/user/car-schedule');
    await page.getByTestId('vehicle-row-359000000000001').waitFor();
    const loaded = Date.now() - started;
    await expect(page.getByTestId('car-schedule-count').textContent()).resolves.toBe('3000 fordon');
    const drawn = await page.locator('[data-testid^="vehicle-row-"]').count();
    expect(drawn).toBeLessThan(40);
    // Scrolled to the end, the last vehicle is drawn.
    await page.getByTestId('car-schedule-grid').evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await page.getByTestId('vehicle-row-359000000003000').waitFor();
    await page.getByTestId('car-schedule-search').fill('REG2999');
    await page.getByTestId('vehicle-row-359000000002999').waitFor();
    await expect(page.getByTestId('car-schedule-count').textContent()).resolves.toBe('1 fordon');
    expect(loaded).toBeLessThan(15_000);
  });
});

describe('My Booking', () => {
  test('the month calendar: navigation, a booking made from a day, shown in its cell', async () => {
    const page = await suite.newPage();
    await signIn(page, admin);
    await openSchedule(page);
    await page.getByTestId('my-booking-open').click();
    await page.getByTestId('my-booking-calendar').waitFor();
    expect(await page.getByTestId('my-booking-calendar').locator('tbody td').count()).toBe(42);
    const thisMonth = today().slice(0, 7);
    const nextMonth = addMonths(thisMonth, 1);
    await expect(page.getByTestId('month-picker').inputValue()).resolves.toBe(thisMonth);
    const label = await page.getByTestId('month-label').textContent();
    await page.getByTestId('month-next').click();
    await expect(page.getByTestId('month-picker').inputValue()).resolves.toBe(nextMonth);
    expect(await page.getByTestId('month-label').textContent()).not.toBe(label);
    await page.getByTestId('month-previous').click();
    await page.getByTestId('month-previous').click();
    await expect(page.getByTestId('month-picker').inputValue()).resolves.toBe(addMonths(thisMonth, -1));
    await page.getByTestId('month-picker').fill(nextMonth);
    await expect(page.getByTestId('month-label').textContent()).resolves.not.toBe(label);
    // The first cell is a Monday.
    const first = await page.getByTestId('my-booking-calendar').locator('tbody td').first().getAttribute('data-testid');
    expect(new Date(`${first!.replace('month-cell-', '')}T00:00:00Z`).getUTCDay()).toBe(1);

    const day = `${nextMonth}-15`;
    await page.getByTestId(`month-cell-${day}-new`).press('Enter');
    await page.getByTestId('booking-form').waitFor();
    // Several vehicles: the vehicle must be chosen (and the driver by an administrator).
    await page.getByTestId('booking-start-time').selectOption('07:00');
    await page.getByTestId('booking-end-time').selectOption('08:15');
    await page.getByTestId('booking-purpose').fill('Mässa i Göteborg');
    await page.getByTestId('booking-save').click();
    await expect(page.getByTestId('booking-form').getByText(message('bookings.SelectImei')).count()).resolves.toBe(1);
    await expect(page.getByTestId('booking-form').getByText(message('bookings.SelectDriver')).count()).resolves.toBe(1);
    await page.getByTestId('booking-vehicle').selectOption({ label: 'Volvo V60 (ABC123)' });
    await page.getByTestId('booking-driver').selectOption({ label: 'Anna Admin' });
    await page.getByTestId('booking-save').click();
    await closeResult(page, 'bookings.NewBookingSuccessMsg');
    await expect(chips(page, `month-cell-${day}`).allTextContents()).resolves.toEqual(['07:00 - 08:15']);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'car-schedule-my-booking');
  });
});
