import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { eventually, horizontalOverflow, login, PHONE, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

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

async function addTrip(unitId: number, accountId: number, start: string, minutes: number, km: number, driverUserId: number | null = null): Promise<number> {
  const stop = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  const [row] = await suite.server.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, detection, driver_user_id)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             'Stockholm', 'Solna', 0, $5, 'gps', $5, 80, 40, 'business', 'ignition', $6)
     RETURNING id`,
    [unitId, accountId, start, stop, km * 1000, driverUserId],
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
    await page.waitForURL((url) => url.pathname === '/user/create-triplog');
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

  test('attest a month: its trips are read-only; the administrator attests for another user, sees the history and unattests', async () => {
    const account = await suite.server.createAccount();
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000090002', 'Audi A6') returning id`);
    const unitId = unit!.id;
    const [pia] = await suite.server.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role)
      values (${account.accountId}, ${`pia-${account.userId}@example.com`}, 'x', 'Pia', 'Plain', 'user') returning id`);
    const mine = await addTrip(unitId, account.accountId, '2026-02-10T08:00:00Z', 30, 20, account.userId);
    const hers = await addTrip(unitId, account.accountId, '2026-02-11T08:00:00Z', 30, 12, pia!.id);

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/create-triplog');
    await page.getByRole('heading', { name: 'Körjournal', level: 1 }).waitFor();
    // This month (March) has no trips: the empty state says so.
    await page.getByTestId('triplog-no-data').waitFor();
    expect(await page.getByTestId('triplog-no-data').textContent()).toContain('Ingen data för vald period.');

    // Spec §5: at most 12 months.
    await page.getByLabel('Från').fill('2025-02-01');
    await page.getByTestId('triplog-range-error').waitFor();
    expect(await page.getByTestId('triplog-range-error').textContent()).toBe('Perioden får vara högst 12 månader.');
    await page.getByLabel('Från').fill('2026-02-01');
    await page.getByLabel('Till').fill('2026-02-28');
    await page.getByTestId(`trip-row-${mine}`).waitFor();
    expect(await page.getByTestId('triplog-range-error').count()).toBe(0);

    // The attest month follows the period: February, not attested.
    const panel = page.getByTestId('attest-panel');
    expect(await panel.getByTestId('attest-month').inputValue()).toBe('2026-02');
    await eventually(() => panel.getByTestId('attest-status').textContent(), 'Ej attesterad');
    await panel.getByTestId('attest-note').fill('Kontrollerat mot kalendern');
    expect(await panel.getByText('26 av 100 tecken').count()).toBe(1);
    await panel.getByRole('button', { name: 'Attestera februari 2026', exact: true }).click();
    await eventually(() => panel.getByTestId('attest-status').textContent(), 'Attesterad');

    // My trip is read-only with a marker; Pia's trip is still editable.
    await page.getByTestId(`trip-locked-${mine}`).waitFor();
    expect(await page.getByTestId(`trip-locked-${mine}`).textContent()).toBe('Attesterad');
    expect(await page.getByTestId(`trip-purpose-${mine}`).evaluate((node) => node.tagName)).toBe('SPAN');
    expect(await page.getByTestId(`trip-type-${mine}`).evaluate((node) => node.tagName)).toBe('SPAN');
    expect(await page.getByTestId(`trip-purpose-${hers}`).evaluate((node) => node.tagName)).toBe('INPUT');
    expect(await page.getByTestId(`trip-locked-${hers}`).count()).toBe(0);
    expect(await panel.getByTestId('attest-summary').textContent()).toContain('Kontrollerat mot kalendern');

    // Spec §6: the administrator attests Pia's month for her.
    await panel.getByTestId('attest-user').selectOption({ label: 'Pia Plain' });
    await eventually(() => panel.getByTestId('attest-status').textContent(), 'Ej attesterad');
    await panel.getByRole('button', { name: 'Attestera februari 2026 för Pia Plain' }).click();
    await page.getByTestId(`trip-locked-${hers}`).waitFor();
    const attests = () =>
      suite.server.database
        .query<{ user_id: number; status: string; attested_by: number }>('SELECT user_id, status, attested_by FROM trip_attests WHERE account_id = $1 ORDER BY user_id', [
          account.accountId,
        ])
        .then((rows) => rows.map((row) => [row.user_id, row.status, row.attested_by]));
    await eventually(attests, [
      [account.userId, 'attested', account.userId],
      [pia!.id, 'attested', account.userId],
    ]);
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
    await screenshot(page, 'triplog-attested');

    // Back to my own month: withdraw the attest (confirmed); the trip is editable again and the history shows both steps.
    await panel.getByTestId('attest-user').selectOption({ value: String(account.userId) });
    await eventually(() => panel.getByTestId('attest-status').textContent(), 'Attesterad');
    await panel.getByRole('button', { name: 'Återkalla attest' }).click();
    const confirm = page.getByRole('dialog', { name: 'Bekräfta' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'OK' }).click();
    await eventually(() => panel.getByTestId('attest-status').textContent(), 'Attest återkallad');
    await eventually(attests, [
      [account.userId, 'unattested', account.userId],
      [pia!.id, 'attested', account.userId],
    ]);
    await eventually(() => page.getByTestId(`trip-locked-${mine}`).count(), 0);
    expect(await page.getByTestId(`trip-purpose-${mine}`).evaluate((node) => node.tagName)).toBe('INPUT');
    await panel.getByText('Attesthistorik (2)').click();
    const history = panel.getByTestId('attest-history').getByRole('listitem');
    expect(await history.count()).toBe(2);
    expect(await history.nth(0).textContent()).toContain('Attest återkallad');
    expect(await history.nth(1).textContent()).toContain('Kontrollerat mot kalendern');
    await screenshot(page, 'triplog-unattested');

    // Phone width: the same screen stacks.
    await page.setViewportSize(PHONE);
    await page.getByTestId('attest-panel').scrollIntoViewIfNeeded();
    await screenshot(page, 'triplog-phone');
    await page.getByTestId(`trip-row-${mine}`).scrollIntoViewIfNeeded();
    await screenshot(page, 'triplog-phone-table');
  });

  test('the purpose picker offers default purposes; pairwise summaries need an even selection', async () => {
    const account = await suite.server.createAccount();
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000090003', 'Kia Ceed') returning id`);
    const unitId = unit!.id;
    const out1 = await addTrip(unitId, account.accountId, '2026-03-01T07:00:00Z', 30, 21);
    const back1 = await addTrip(unitId, account.accountId, '2026-03-01T15:00:00Z', 40, 22);
    const out2 = await addTrip(unitId, account.accountId, '2026-03-02T07:00:00Z', 10, 4);
    const back2 = await addTrip(unitId, account.accountId, '2026-03-02T08:00:00Z', 20, 5);

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/create-triplog');
    await page.getByTestId(`trip-row-${out1}`).waitFor();

    // Account settings: the administrator adds a default purpose and lets users create them.
    await page.getByTestId('purposes-open').click();
    const dialog = page.getByRole('dialog', { name: 'Standardändamål' });
    await dialog.waitFor();
    expect(await dialog.getByText('Kontot har inga standardändamål ännu.').count()).toBe(1);
    await dialog.getByTestId('purpose-name').fill('Kundbesök');
    await dialog.getByTestId('purpose-description').fill('Besök hos kund');
    await dialog.getByRole('button', { name: 'Lägg till standardändamål' }).click();
    await dialog.getByTestId('purpose-list').getByText('Kundbesök').waitFor();
    // Names are unique: the server's message under the field.
    await dialog.getByTestId('purpose-name').fill('KUNDBESÖK');
    await dialog.getByRole('button', { name: 'Lägg till standardändamål' }).click();
    await dialog.getByText('Det finns redan ett standardändamål med det namnet.').waitFor();
    await dialog.getByTestId('purpose-name').fill('Leverans');
    await dialog.getByRole('button', { name: 'Lägg till standardändamål' }).click();
    await dialog.getByTestId('purpose-list').getByText('Leverans').waitFor();
    // Rename in place: a taken name is refused under the field, then a free one is saved with its description.
    await dialog.getByRole('button', { name: 'Ändra standardändamålet Leverans' }).click();
    const editName = dialog.getByTestId('purpose-edit-name');
    expect(await editName.inputValue()).toBe('Leverans');
    await editName.fill('kundbesök');
    await dialog.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByText('Det finns redan ett standardändamål med det namnet.').waitFor();
    await editName.fill('Leverans till kund');
    await dialog.getByTestId('purpose-edit-description').fill('Varor levererade');
    await dialog.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByTestId('purpose-list').getByText('Leverans till kund').waitFor();
    expect(
      await suite.server.database.query<{ name: string; description: string }>('SELECT name, description FROM purposes WHERE account_id = $1 ORDER BY name', [
        account.accountId,
      ]),
    ).toEqual([
      { name: 'Kundbesök', description: 'Besök hos kund' },
      { name: 'Leverans till kund', description: 'Varor levererade' },
    ]);
    // Cancel leaves it as it was.
    await dialog.getByRole('button', { name: 'Ändra standardändamålet Kundbesök' }).click();
    await dialog.getByTestId('purpose-edit-name').fill('Något annat');
    await dialog.getByRole('button', { name: 'Avbryt' }).click();
    await dialog.getByTestId('purpose-list').getByText('Kundbesök', { exact: true }).waitFor();
    await dialog.getByText('Användare får skapa standardändamål').click();
    await eventually(
      async () => (await suite.server.database.query<{ users_may_create: boolean }>('SELECT users_may_create FROM purpose_settings WHERE account_id = $1', [account.accountId]))[0]?.users_may_create,
      true,
    );
    await screenshot(page, 'triplog-purposes');
    await dialog.getByRole('button', { name: 'Stäng' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Closing the dialog gives focus back to its button.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'purposes-open');

    // The picker offers them: pick one for the first trip.
    // (A scroll closes an open list, as it should: scroll first, then open.)
    const showPurposes = page.getByTestId(`trip-row-${out1}`).getByRole('button', { name: 'Visa standardändamål' });
    await showPurposes.scrollIntoViewIfNeeded();
    await Bun.sleep(300);
    await showPurposes.click();
    const option = page.getByRole('option', { name: /^Kundbesök/ });
    await option.waitFor();
    expect(await page.getByRole('option').count()).toBe(2);
    await screenshot(page, 'triplog-purpose-picker');
    await option.click();
    await eventually(async () => (await tripsOf(unitId)).map((trip) => trip.purpose), ['Kundbesök', null, null, null]);
    // Free text stays possible; typing narrows the list to matching purposes, so this text closes it.
    // (The pointer is moved off where the list opens: a hovered option is a chosen one, as in any combobox.)
    await page.mouse.move(0, 0);
    await page.getByTestId(`trip-purpose-${back1}`).fill('Hem från kund');
    await eventually(async () => page.locator('.triplog-popover').count(), 0);
    // Leaving the field saves the typed text (whether or not the list of default purposes is still open).
    await page.getByTestId(`trip-purpose-${back1}`).press('Tab');
    await eventually(async () => (await tripsOf(unitId)).map((trip) => trip.purpose), ['Kundbesök', 'Hem från kund', null, null]);

    // Pairwise: three trips is odd; the rule is shown. Four make two pairs, out and back.
    for (const id of [out1, back1, out2]) await page.getByTestId(`trip-row-${id}`).getByRole('checkbox').check();
    await page.getByTestId('pairs-open').click();
    const summary = page.getByTestId('pair-summary');
    await summary.getByTestId('pair-rule').waitFor();
    expect(await summary.getByTestId('pair-rule').textContent()).toBe('Ett jämnt antal resor krävs för parvisa sammanställningar. 3 resor är valda.');
    await page.getByTestId(`trip-row-${back2}`).getByRole('checkbox').check();
    await summary.getByTestId('pair-1').waitFor();
    expect(await summary.getByTestId('pair-rule').count()).toBe(0);
    const cells = async (testId: string) => summary.getByTestId(testId).locator('th, td').allTextContents();
    // 1 March: out 07:00-07:30, back 15:00-15:40 (Stockholm: +1 h).
    expect(await cells('pair-1')).toEqual(['1', '2026-03-01 08:00Stockholm → Solna', '2026-03-01 16:00Stockholm → Solna', '43,0 km', '1:10 h', '8:40 h']);
    expect(await cells('pair-2')).toEqual(['2', '2026-03-02 08:00Stockholm → Solna', '2026-03-02 09:00Stockholm → Solna', '9,0 km', '0:30 h', '1:20 h']);
    expect(await cells('pair-total')).toEqual(['Totalt, 2 par', '52,0 km', '1:40 h', '']);
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
    await screenshot(page, 'triplog-pairs');

    // Export menu: PDF, CSV or Excel in the Swedish, Norwegian or UK layout of the period shown.
    await page.getByTestId('triplog-export').click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').count()).toBe(9);
    await screenshot(page, 'triplog-export-menu');
    const download = page.waitForEvent('download');
    await menu.getByRole('menuitem', { name: 'CSV (Excel) – Sverige (körjournal enligt Skatteverket)' }).click();
    expect((await download).suggestedFilename()).toMatch(/\.csv$/);
  });
});

describe('trip log, the first minutes', () => {
  test('opens on the latest trips, keeps unit and period in the URL, fits 1280 px, draws the selected trip and confirms a save', async () => {
    const account = await suite.server.createAccount();
    const [first] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000090004', 'Audi Q4') returning id`);
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000090005', 'Volvo XC40') returning id`);
    const unitId = unit!.id;
    await addTrip(first!.id, account.accountId, '2026-03-01T06:00:00Z', 20, 12);
    // 55 trips on 1 and 2 March: two pages; the latest trips are on the second.
    const ids: number[] = [];
    for (let i = 0; i < 55; i++) {
      const start = new Date(Date.parse('2026-03-01T05:00:00Z') + i * 30 * 60_000).toISOString();
      ids.push(await addTrip(unitId, account.accountId, start, 20, 3 + (i % 5)));
    }
    const latest = ids[ids.length - 1]!;
    const earlier = ids[ids.length - 2]!;
    // The positions of the latest trip (05:00 + 54 × 30 min = 2 March 08:00 UTC): a drive north-west.
    for (let i = 0; i <= 10; i++) {
      const time = Date.parse('2026-03-02T08:00:00Z') + i * 120_000;
      await suite.server.database.exec(
        `insert into positions (unit_id, time, received_at, geom, speed_kmh, course, valid, ignition)
         values (${unitId}, to_timestamp(${time / 1000}), now(), ST_SetSRID(ST_MakePoint(${18.0686 - i * 0.0068}, ${59.3293 + i * 0.0031}), 4326), 50, 300, true, true)`,
      );
    }

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/create-triplog');
    const trigger = page.getByTestId('triplog-unit-open');
    await eventually(() => trigger.textContent(), 'Audi Q4▾');
    await trigger.click();
    await page.getByTestId('unit-picker-list').getByLabel('Volvo XC40').click();
    // The unit and this month's period go to the address.
    await page.waitForURL((url) => url.searchParams.get('unit') === String(unitId) && url.searchParams.get('from') === '2026-03-01');
    expect(new URL(page.url()).searchParams.get('to')).toBe('2026-03-31');

    // The latest trips are in view: the last page, its latest trip shown on the map.
    const latestRow = page.getByTestId(`trip-row-${latest}`);
    await latestRow.waitFor();
    const inWindow = async () => {
      const box = await latestRow.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 800.5;
    };
    await eventually(inWindow, true);
    expect(await page.getByText('Sida 2 av 2').count()).toBe(1);
    // Without a GPU (as here) the trip's map opens when asked for (a reload below opens it by itself: the trip asked for
    // on the map is in the address).
    expect(await page.getByTestId('triplog-map-closed').textContent()).toContain('utan grafikkort');
    await page.getByTestId('triplog-map-closed').evaluate((box) => box.scrollIntoView({ block: 'center' }));
    await screenshot(page, 'triplog-map-closed');
    await page.getByRole('button', { name: 'Visa på kartan' }).click();
    const tripMap = page.getByTestId('triplog-map');
    await eventually(() => tripMap.getAttribute('data-trip'), String(latest));
    await page.waitForFunction(() => document.querySelector('[data-testid="triplog-map"]')?.getAttribute('data-sources')?.includes('trip'));
    await eventually(() => tripMap.getAttribute('data-points'), '11');

    // 1280 px: nothing scrolls sideways, neither the page nor the table.
    expect(await horizontalOverflow(page)).toEqual([]);
    const tableScroll = page.getByTestId('triplog-table').locator('.data-table-scroll');
    expect(await tableScroll.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0);
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
    await screenshot(page, 'triplog-latest');

    // Another trip on the map: without positions, its start and stop.
    await page.getByTestId(`trip-show-${earlier}`).click();
    await eventually(() => tripMap.getAttribute('data-trip'), String(earlier));
    await eventually(() => tripMap.getAttribute('data-points'), '0');
    expect(await page.getByTestId(`trip-show-${earlier}`).getAttribute('aria-pressed')).toBe('true');

    // A save is confirmed.
    await page.getByTestId(`trip-purpose-${latest}`).fill('Leverans');
    await page.getByTestId(`trip-purpose-${latest}`).press('Enter');
    await eventually(() => page.getByTestId('triplog-saved').textContent(), 'Sparat');
    expect((await tripsOf(unitId)).at(-1)!.purpose).toBe('Leverans');

    // A reload keeps the unit, the period and the trip shown.
    await page.getByLabel('Från').fill('2026-03-02');
    await page.waitForURL((url) => url.searchParams.get('from') === '2026-03-02');
    await page.reload();
    await eventually(() => trigger.textContent(), 'Volvo XC40▾');
    expect(await page.getByLabel('Från').inputValue()).toBe('2026-03-02');
    await page.getByTestId(`trip-row-${latest}`).waitFor();
    await eventually(() => tripMap.getAttribute('data-trip'), String(earlier));

    // A phone shows the trips as cards, and nothing scrolls sideways.
    await page.setViewportSize(PHONE);
    await page.locator('.triplog-table.data-table--cards').waitFor();
    await eventually(() => horizontalOverflow(page), []);
    await screenshot(page, 'triplog-cards-phone');
  });
});
