import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(90_000);

/**
 * The trip log screen in the built app (the server's clock is 2 March 2026, so this month is March):
 * type one by one and in bulk per page, purpose, merge refused with its error dialog, merge and split.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

async function addTrip(unitId: number, accountId: number, start: string, minutes: number, km: number): Promise<number> {
  const stop = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  const [row] = await suite.server.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, detection)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             'Stockholm', 'Solna', 0, $5, 'gps', $5, 80, 40, 'business', 'ignition')
     RETURNING id`,
    [unitId, accountId, start, stop, km * 1000],
  );
  return Number(row!.id);
}

async function tripsOf(unitId: number) {
  return suite.server.database.query<{ id: string | number; type: string; purpose: string | null; merged: boolean }>(
    'SELECT id, type, purpose, merged FROM trips WHERE unit_id = $1 ORDER BY start_time',
    [unitId],
  );
}

/** Polls until `read` answers `expected`, else fails with the last answer. */
async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await Bun.sleep(100);
    last = await read();
  }
  expect(last).toEqual(expected);
}

const rowCount = (page: Page) => page.locator('[data-testid^="trip-row-"]').count();

describe('trip log', () => {
  test('type one by one and per page, purpose, a refused merge, merge and split', async () => {
    const account = await suite.server.createAccount();
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000090001', 'Volvo V60') returning id`);
    const unitId = unit!.id;
    const first = await addTrip(unitId, account.accountId, '2026-03-01T08:00:00Z', 30, 20);
    const second = await addTrip(unitId, account.accountId, '2026-03-01T09:00:00Z', 30, 10);
    const third = await addTrip(unitId, account.accountId, '2026-03-02T07:00:00Z', 15, 5);
    // February: outside this month.
    await addTrip(unitId, account.accountId, '2026-02-10T08:00:00Z', 30, 7);

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.getByRole('link', { name: 'Körjournal' }).click();
    await page.waitForURL('**/user/create-triplog');
    await page.getByRole('heading', { name: 'Körjournal', level: 1 }).waitFor();
    await page.getByTestId(`trip-row-${first}`).waitFor();
    expect(await rowCount(page)).toBe(3);
    expect(await page.getByLabel('Från').inputValue()).toBe('2026-03-01');
    expect(await page.getByLabel('Till').inputValue()).toBe('2026-03-31');
    expect(await page.getByTestId('triplog-total-business').textContent()).toContain('3 resor');
    expect(await page.getByTestId('triplog-total-all').textContent()).toContain('35,0 km');
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);

    // One by one.
    await page.getByTestId(`trip-type-${second}`).selectOption('private');
    await eventually(async () => (await tripsOf(unitId)).map((trip) => trip.type), ['business', 'business', 'private', 'business']);
    await eventually(() => page.getByTestId('triplog-total-private').textContent(), 'Privat1 resa10,0 km0:30 h');

    // Purpose, saved when the field is left.
    await page.getByTestId(`trip-purpose-${first}`).fill('Kundbesök Acme AB');
    await page.getByTestId(`trip-purpose-${first}`).press('Enter');
    await eventually(async () => (await tripsOf(unitId))[1]!.purpose, 'Kundbesök Acme AB');

    // Private with business cannot be merged: the error dialog says why.
    await page.getByLabel(/^Välj resan/).nth(0).check();
    await page.getByLabel(/^Välj resan/).nth(1).check();
    await page.getByRole('button', { name: 'Slå samman valda resor' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('message-dialog-text').textContent()).toBe('En privatresa kan inte slås samman med en tjänsteresa.');
    await screenshot(page, 'triplog-merge-refused');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // In bulk for the page: every trip becomes business; then the two trips of 1 March merge.
    await page.getByTestId('triplog-bulk-type').selectOption('business');
    await page.getByRole('button', { name: 'Använd på sidan' }).click();
    await eventually(async () => (await tripsOf(unitId)).map((trip) => trip.type), ['business', 'business', 'business', 'business']);
    await eventually(() => page.getByTestId('triplog-total-business').textContent(), 'Tjänst3 resor35,0 km1:15 h');
    await page.getByRole('button', { name: 'Slå samman valda resor' }).click();
    await eventually(() => rowCount(page), 2);
    expect((await tripsOf(unitId)).map((trip) => Number(trip.id))).toEqual([expect.any(Number), first, third]);

    // Merging the merged trip with the next one (another day) is refused.
    await page.getByLabel(/^Välj resan/).nth(0).check();
    await page.getByLabel(/^Välj resan/).nth(1).check();
    await page.getByRole('button', { name: 'Slå samman valda resor' }).click();
    await dialog.waitFor();
    expect(await dialog.getByTestId('message-dialog-text').textContent()).toBe('Resor som redan är sammanslagna kan inte slås samman igen.');
    await dialog.getByRole('button', { name: 'OK' }).click();

    // Split restores both trips.
    await page.getByRole('button', { name: /^Dela resan/ }).click();
    await eventually(() => rowCount(page), 3);
    expect((await tripsOf(unitId)).map((trip) => Number(trip.id)).slice(1)).toEqual([first, second, third]);
    await page.getByTestId(`trip-row-${second}`).waitFor();

    // Driver check-in from the second trip: 'No driver' is refused; a driver applies to that trip and the later ones.
    await page.getByTestId(`trip-driver-${second}`).click();
    const driverDialog = page.getByRole('dialog', { name: /^Förare för resan/ });
    await driverDialog.waitFor();
    await driverDialog.getByRole('button', { name: 'Checka in' }).click();
    await dialog.waitFor();
    expect(await dialog.getByTestId('message-dialog-text').textContent()).toBe("'Ingen förare' kan inte checkas in. Välj en förare.");
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const [driver] = await suite.server.database.rows<{ name: string }>(sql`select trim(first_name || ' ' || last_name) as name from users where id = ${account.userId}`);
    await driverDialog.getByTestId('triplog-driver').selectOption({ label: driver!.name });
    await driverDialog.getByRole('button', { name: 'Checka in' }).click();
    await driverDialog.waitFor({ state: 'hidden' });
    const drivers = () =>
      suite.server.database
        .query<{ driver_user_id: number | null }>('SELECT driver_user_id FROM trips WHERE unit_id = $1 ORDER BY start_time', [unitId])
        .then((rows) => rows.map((row) => row.driver_user_id));
    await eventually(drivers, [null, null, account.userId, account.userId]);
    await eventually(async () => (await page.getByTestId(`trip-driver-${third}`).textContent())?.startsWith(driver!.name), true);
    await screenshot(page, 'triplog');
  });
});
