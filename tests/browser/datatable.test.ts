import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { addUnit } from '../../src/modules/units/testing';
import { DESKTOP, eventually, expectAccessible, horizontalOverflow, PHONE, screenshot, signIn, startSuite, type Suite } from './support';

setDefaultTimeout(90_000);

/**
 * The shared web pieces in the built app: the data table (sorting, the filter, the column choice kept over a reload,
 * selection, thousands of rows virtualised, cards on a phone) and the period picker's calendar with its 12-month limit.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

const placeLabels = (page: Page) => page.locator('[data-testid^="place-row-"] .places-link').allTextContents();
const headers = (page: Page) => page.locator('[role="columnheader"]').allTextContents();

describe('data table', () => {
  test('places: sort by a header, filter, choose columns that survive a reload; cards on a phone', async () => {
    const account = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, account.accountId, '358100000096001', 'Volvo V60');
    const token = await suite.server.login(account);
    for (const [label, radiusM] of [
      ['Kontoret', 300],
      ['Lagret', 100],
      ['Hemma', 200],
    ] as const) {
      const saved = await suite.server.call('POST', '/api/places', {
        token,
        body: { label, address: `${label}gatan 1, Stockholm`, latitude: 59.33, longitude: 18.06, radiusM, units: [unitId], rules: [] },
      });
      expect(saved.status).toBe(200);
    }

    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.goto('/user/places');
    await eventually(() => placeLabels(page), ['Hemma', 'Kontoret', 'Lagret']);
    expect(await headers(page)).toEqual(['Namn▲', 'Adress', 'Radie', 'Enheter', 'Regler', 'Åtgärder']);

    // Sorting: a header press sorts ascending, a second descending; the arrow and aria-sort follow.
    await page.getByRole('button', { name: 'Radie' }).click();
    await eventually(() => placeLabels(page), ['Lagret', 'Hemma', 'Kontoret']);
    await page.getByRole('button', { name: 'Radie' }).click();
    await eventually(() => placeLabels(page), ['Kontoret', 'Hemma', 'Lagret']);
    expect(await page.locator('[role="columnheader"][aria-sort="descending"]').textContent()).toBe('Radie▼');

    // The filter narrows the rows as one types and the count follows.
    await page.getByTestId('place-search').fill('lag');
    await eventually(() => placeLabels(page), ['Lagret']);
    expect(await page.getByTestId('place-count').textContent()).toBe('1 plats');
    await page.getByTestId('place-search').fill('');
    await eventually(() => placeLabels(page), ['Kontoret', 'Hemma', 'Lagret']);

    // Column choice: hide the address and the rules; after a reload the choice and the sort are still there.
    await page.getByTestId('place-columns').click();
    const chooser = page.getByRole('dialog', { name: 'Kolumner' });
    await chooser.getByText('Adress', { exact: true }).click();
    await chooser.getByText('Regler', { exact: true }).click();
    await chooser.getByRole('button', { name: 'Spara' }).click();
    await eventually(() => headers(page), ['Namn', 'Radie▼', 'Enheter', 'Åtgärder']);
    await Bun.sleep(300);
    await page.reload();
    await eventually(() => placeLabels(page), ['Kontoret', 'Hemma', 'Lagret']);
    expect(await headers(page)).toEqual(['Namn', 'Radie▼', 'Enheter', 'Åtgärder']);
    await expectAccessible(page, 'places table');
    await screenshot(page, 'datatable-places-desktop');

    // Another user of the same account still has the defaults: the choice is per user.
    const colleagueEmail = `colleague-${account.userId}@example.com`;
    await suite.server.database.rows(sql`
      insert into users (account_id, email, password_hash, first_name, role)
      values (${account.accountId}, ${colleagueEmail}, (select password_hash from users where id = ${account.userId}), 'Cole', 'admin')`);
    const colleague = await suite.newPage(DESKTOP);
    await signIn(colleague, { email: colleagueEmail, password: account.password, subsiteId: account.subsiteId });
    await colleague.goto('/user/places');
    await eventually(() => placeLabels(colleague), ['Hemma', 'Kontoret', 'Lagret']);
    expect(await headers(colleague)).toEqual(['Namn▲', 'Adress', 'Radie', 'Enheter', 'Regler', 'Åtgärder']);

    // A phone: the rows are cards with their fields named, no header row, nothing wider than the screen.
    await page.setViewportSize(PHONE);
    await page.getByRole('list', { name: 'Platser' }).waitFor();
    expect(await page.locator('[role="columnheader"]').count()).toBe(0);
    expect(await page.locator('[data-testid^="place-row-"]').count()).toBe(3);
    expect(await page.locator('[data-testid^="place-row-"]').first().locator('dt').allTextContents()).toEqual(['Radie', 'Enheter', 'Åtgärder']);
    // Once the layout has settled for the new width (the desktop table's measurements are dropped a frame later).
    await eventually(() => horizontalOverflow(page), []);
    // Sorting on a phone: the column and the direction.
    await page.getByLabel('Sortera efter').selectOption({ label: 'Namn' });
    await eventually(() => placeLabels(page), ['Hemma', 'Kontoret', 'Lagret']);
    await page.getByRole('button', { name: 'Omvänd ordning' }).click();
    await eventually(() => placeLabels(page), ['Lagret', 'Kontoret', 'Hemma']);
    await expectAccessible(page, 'places cards');
    await screenshot(page, 'datatable-places-phone');
  });

  test('units: thousands of rows are virtualised; selection and select-all feed the bulk action; cards on a phone', async () => {
    const account = await suite.server.createAccount();
    await suite.server.database.rows(sql`
      insert into units (account_id, imei, name)
      select ${account.accountId}, '3581000001' || lpad(n::text, 5, '0'), 'Bil ' || lpad(n::text, 4, '0')
      from generate_series(1, 2000) as n`);
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.goto('/user/edit-terminal-list');
    await page.getByTestId('unit-count').filter({ hasText: '2000 enheter' }).waitFor();
    await page.getByText('Bil 0001', { exact: true }).waitFor();
    const rendered = await page.locator('.unit-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(100);
    // The header stays in view while the rows scroll to the last unit.
    await page.locator('.data-table-scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await page.getByText('Bil 2000', { exact: true }).waitFor();
    expect(await page.locator('[role="columnheader"]', { hasText: 'Namn' }).isVisible()).toBe(true);
    const headerBox = await page.locator('.data-table-head').boundingBox();
    const scrollBox = await page.locator('.data-table-scroll').boundingBox();
    expect(Math.abs(headerBox!.y - scrollBox!.y)).toBeLessThan(3);
    await screenshot(page, 'datatable-units-scrolled');

    // Selection: one row, then all 2,000 with the header's checkbox (also those not drawn), then none.
    await page.getByRole('checkbox', { name: 'Välj Bil 2000' }).check();
    await page.getByRole('button', { name: 'Massåtgärd (1 valda)' }).waitFor();
    await page.getByRole('checkbox', { name: 'Välj alla' }).check();
    await page.getByRole('button', { name: 'Massåtgärd (2000 valda)' }).waitFor();
    await page.getByRole('checkbox', { name: 'Välj alla' }).uncheck();
    expect(await page.getByRole('button', { name: /^Massåtgärd/ }).isDisabled()).toBe(true);
    // Keyboard: Tab reaches a header's sort button, Enter sorts.
    await page.locator('.data-table-scroll').evaluate((element) => element.scrollTo(0, 0));
    await page.getByRole('button', { name: 'Registreringsnummer' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('[role="columnheader"]', { hasText: 'Registreringsnummer▲' }).waitFor();

    await page.setViewportSize(PHONE);
    await page.getByRole('list', { name: 'Enheter' }).waitFor();
    expect(await page.locator('.unit-row').count()).toBeLessThan(40);
    // Once the layout has settled for the new width (the desktop table's measurements are dropped a frame later).
    await eventually(() => horizontalOverflow(page), []);
    await page.locator('.data-table-card-tools').scrollIntoViewIfNeeded();
    await page.locator('.data-table-card-tools').evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'datatable-units-phone');
  });
});

describe('period picker', () => {
  test('a calendar in Swedish from Monday; presets; no day more than 12 months from the first one pressed', async () => {
    const account = await suite.server.createAccount();
    await addUnit(suite.server, account.accountId, '358100000097001', 'Poolbil');
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.goto('/user/create-triplog');
    await page.getByTestId('triplog-totals').waitFor();
    await page.getByLabel('Från').fill('2025-01-15');
    await page.getByLabel('Till').fill('2025-01-20');
    await page.getByTestId('period-open').click();
    const calendar = page.getByTestId('period-calendar');
    await calendar.waitFor();
    // Weeks from Monday (1 January 2024 was a Monday), day names in Swedish.
    const narrow = new Intl.DateTimeFormat('sv-SE', { weekday: 'narrow', timeZone: 'UTC' });
    const week = Array.from({ length: 7 }, (_, day) => narrow.format(new Date(Date.UTC(2024, 0, 1 + day))));
    expect(await calendar.locator('th').allTextContents()).toEqual(week);
    expect(await calendar.getByRole('heading').textContent()).toBe('januari 2025');
    await expectAccessible(page, 'period picker');

    // The first day pressed: 3 January 2025. 2 January 2026 is the last day it may reach; 3 January 2026 is closed off.
    await calendar.getByRole('button', { name: /\b3 januari 2025/ }).click();
    for (let month = 0; month < 12; month += 1) await calendar.getByRole('button', { name: 'Nästa månad' }).click();
    expect(await calendar.getByRole('heading').textContent()).toBe('januari 2026');
    const day = (n: number) => calendar.getByRole('button', { name: new RegExp(`\\b${n} januari 2026`) });
    expect(await day(2).getAttribute('data-unavailable')).toBeNull();
    expect(await day(3).getAttribute('data-unavailable')).toBe('true');
    await screenshot(page, 'period-picker-limit');
    await day(2).click();
    await eventually(() => page.getByLabel('Från').inputValue(), '2025-01-03');
    expect(await page.getByLabel('Till').inputValue()).toBe('2026-01-02');
    expect(await page.getByTestId('triplog-range-error').count()).toBe(0);

    // A preset fills both days: last month, from its first to its last day.
    await page.getByTestId('period-open').click();
    await page.getByTestId('period-preset-lastMonth').click();
    await page.getByTestId('period-calendar').waitFor({ state: 'detached' });
    const from = await page.getByLabel('Från').inputValue();
    const to = await page.getByLabel('Till').inputValue();
    expect(from).toMatch(/^\d{4}-\d{2}-01$/);
    expect(to.slice(0, 7)).toBe(from.slice(0, 7));
    expect(new Date(`${to}T00:00:00Z`).getUTCDate()).toBe(new Date(Date.UTC(Number(from.slice(0, 4)), Number(from.slice(5, 7)), 0)).getUTCDate());

    // A phone: the calendar fits the screen.
    await page.setViewportSize(PHONE);
    await page.getByTestId('period-open').click();
    await calendar.waitFor();
    const box = await page.locator('.period-popover').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'period-picker-phone');
  });
});

describe('unit picker', () => {
  test('one unit in the trip log by search, department and tag; several units of a place, all shown at once', async () => {
    const account = await suite.server.createAccount();
    const volvo = await addUnit(suite.server, account.accountId, '358100000098001', 'Volvo V60', { registrationNumber: 'ABC123' });
    const scania = await addUnit(suite.server, account.accountId, '358100000098002', 'Scania R450');
    await addUnit(suite.server, account.accountId, '358100000098003', 'Buster');
    const [north] = await suite.server.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${account.accountId}, 'Norr') returning id`);
    const [south] = await suite.server.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${account.accountId}, 'Söder') returning id`);
    const [pool] = await suite.server.database.rows<{ id: number }>(sql`insert into tags (account_id, name) values (${account.accountId}, 'Pool') returning id`);
    await suite.server.database.rows(sql`update units set department_id = ${north!.id} where id = ${volvo}`);
    await suite.server.database.rows(sql`update units set department_id = ${south!.id} where id = ${scania}`);
    await suite.server.database.rows(sql`insert into unit_tags (unit_id, tag_id, account_id) select id, ${pool!.id}, account_id from units where id = ${volvo}`);

    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.goto('/user/create-triplog');
    const trigger = page.getByTestId('triplog-unit-open');
    await eventually(() => trigger.textContent(), 'Buster▾');
    await trigger.click();
    const list = page.getByTestId('unit-picker-list');
    const options = () => list.locator('.unit-choice-name').allTextContents();
    await eventually(options, ['Buster', 'Scania R450', 'Volvo V60']);
    await page.getByTestId('unit-picker-search').fill('abc1');
    await eventually(options, ['Volvo V60']);
    await page.getByTestId('unit-picker-search').fill('');
    await page.getByTestId('unit-picker-department').selectOption({ label: 'Söder' });
    await eventually(options, ['Scania R450']);
    await page.getByTestId('unit-picker-department').selectOption({ label: 'Alla' });
    await page.getByTestId('unit-picker-tag').selectOption({ label: 'Pool' });
    await eventually(options, ['Volvo V60']);
    await expectAccessible(page, 'unit picker');
    await screenshot(page, 'unit-picker-single');
    await list.getByLabel('Volvo V60').click();
    await list.waitFor({ state: 'detached' });
    await eventually(() => trigger.textContent(), 'Volvo V60▾');

    // Several units of a place: the department's units at once, one more by hand, then none.
    await page.goto('/user/places/add-edit-places');
    const picker = page.getByTestId('place-units');
    await picker.getByTestId('unit-picker-department').selectOption({ label: 'Söder' });
    await picker.getByRole('button', { name: 'Välj alla visade' }).click();
    await picker.getByText('1 enhet vald').waitFor();
    await picker.getByTestId('unit-picker-department').selectOption({ label: 'Alla' });
    await picker.getByLabel('Volvo V60').check();
    await picker.getByText('2 enheter valda').waitFor();
    expect(await picker.getByLabel('Scania R450').isChecked()).toBe(true);
    expect(await picker.getByLabel('Buster').isChecked()).toBe(false);
    await page.setViewportSize(PHONE);
    await picker.scrollIntoViewIfNeeded();
    await screenshot(page, 'unit-picker-multiple-phone');
    await picker.getByRole('button', { name: 'Rensa' }).click();
    await picker.getByText('0 enheter valda').waitFor();
  });
});
