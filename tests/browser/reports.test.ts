import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/password';
import { cordonTrip } from '../../src/modules/reports/testing';
import { IngestWriter } from '../../src/modules/tracking/service';
import { driveRecord } from '../../src/modules/trips/drive';
import { DESKTOP, eventually, expectAccessible, horizontalOverflow, PHONE, screenshot, signIn, startSuite, type Suite } from './support';

setDefaultTimeout(120_000);

/**
 * The reports screen in the built app (server clock: 2 March 2026). A fleet of two cars driven in February through
 * the ingest pipeline: the fleet summary with its chart, its PDF and CSV exports, in Swedish, accessible, and at phone
 * width. Then a locked benefit car seen by an administrator who has no access to it: only benefit value and summary
 * are offered, the benefit report shows its value without its distances, and the other reports say why they are not shown.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

async function drive(unitId: number, accountId: number, starts: string[]) {
  const server = suite.server;
  const writer = new IngestWriter(server.database, server.platform.events, server.platform.log, { maxDelayMs: 1 });
  for (const [index, start] of starts.entries()) {
    const positions = cordonTrip(start, index % 2 === 0 ? 'in-out' : 'back');
    for (let i = 0; i < positions.length; i += 25) {
      await writer.submit({ unitId, accountId, protocol: 'teltonika', deviceId: 'test', records: positions.slice(i, i + 25).map(driveRecord), receivedAt: new Date() });
    }
  }
  await writer.drain();
  await suite.server.services.trips.idle();
}

async function addUnit(accountId: number, imei: string, name: string, extra: { carUsage?: 'benefit' | 'private'; lockedBy?: number } = {}) {
  const [unit] = await suite.server.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number, car_usage, locked_by, locked_at)
    values (${accountId}, ${imei}, ${name}, ${`ABC${imei.slice(-3)}`}, ${extra.carUsage ?? 'none'}, ${extra.lockedBy ?? null}, ${extra.lockedBy ? new Date().toISOString() : null})
    returning id`);
  return unit!.id;
}

/** Chooses the period by typing its days, as a user may. */
async function choosePeriod(page: Page, from: string, to: string) {
  await page.getByLabel('Från').fill(from);
  await page.getByLabel('Till').fill(to);
}

const tabNames = (page: Page) => page.getByTestId('report-tabs').getByRole('link').allTextContents();

describe('reports', () => {
  test('a fleet summary with its chart and exports, in Swedish, accessible, at desktop and phone width', async () => {
    const account = await suite.server.createAccount();
    const volvo = await addUnit(account.accountId, '358100000096001', 'Volvo V90');
    const kia = await addUnit(account.accountId, '358100000096002', 'Kia Niro');
    await drive(volvo, account.accountId, ['2026-02-24T06:05:00Z', '2026-02-24T15:05:00Z']);
    await drive(kia, account.accountId, ['2026-02-25T07:05:00Z']);

    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    // Reached from the sidebar.
    await page.locator('#sidebar nav a', { hasText: 'Rapporter' }).click();
    // The screen writes its filters to the address's query string (the server's default period once it has answered).
    await page.waitForURL(/\/user\/reports\/summary(\?|$)/);
    await page.getByRole('heading', { name: 'Rapporter', level: 1 }).waitFor();
    expect(await tabNames(page)).toEqual(['Sammanställning', 'Förmånsvärde och ersättning', 'Sparsam körning', 'Bränsle', 'CO₂', 'Miljörapport', 'Trängselskatt']);
    // The trip log's tabs lead here too, marked as the current view.
    const views = page.getByRole('navigation', { name: 'Körjournalens vyer' });
    expect(await views.getByRole('link').allTextContents()).toEqual(['Resor', 'Trängselskatt', 'Rapporter']);
    expect(await views.getByRole('link', { name: 'Rapporter' }).getAttribute('class')).toContain('active');

    // No vehicle chosen: the whole fleet; February.
    expect(await page.getByTestId('report-scope').textContent()).toContain('Hela flottan');
    await choosePeriod(page, '2026-02-01', '2026-02-28');
    await eventually(() => page.getByTestId('summary-row').count(), 2);
    expect(await page.getByTestId('summary-total-trips').textContent()).toBe('3');
    const rows = (await page.getByTestId('summary-row').allTextContents()).join(' | ');
    expect(rows).toContain('Volvo V90');
    expect(rows).toContain('Kia Niro');
    // The chart: one bar slot per day of February, drawn on a canvas fetched on demand.
    await page.getByTestId('summary-chart-canvas').locator('canvas').waitFor();
    expect(await page.getByTestId('summary-chart-canvas').getAttribute('data-points')).toBe('28');
    expect(await page.getByRole('figure', { name: /^Körsträcka per dag: / }).count()).toBe(1);
    // Every text is Swedish: no key without its text, and the days table's headers.
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/\breports\.[a-z]/);
    expect(text).toContain('Första start och sista stopp per dag');
    expect(text).toContain('Körsträcka per dag');
    await expectAccessible(page, 'reports summary desktop');
    await screenshot(page, 'reports-summary');

    // PDF export, with the download's progress.
    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-export-pdf').click()]);
    expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
    expect(readFileSync((await pdf.path())!).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await page.getByTestId('download-progress').waitFor({ state: 'detached' });
    // CSV: Swedish Excel's separator and the cars' rows.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-export-csv').click()]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const lines = readFileSync((await csv.path())!, 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(lines.some((line) => line.includes('Volvo V90') && line.includes(';'))).toBe(true);
    expect(lines.some((line) => line.includes('Kia Niro'))).toBe(true);

    // Per driver: the trips have no driver, so one row says so.
    await page.getByTestId('report-group').selectOption('driver');
    await eventually(() => page.getByTestId('summary-row').count(), 1);
    expect(await page.getByTestId('summary-row').textContent()).toContain('Ingen förare');

    // One vehicle chosen in the unit picker.
    await page.getByTestId('report-units-open').click();
    await page.getByRole('dialog').getByText('Volvo V90', { exact: true }).click();
    await page.getByRole('button', { name: 'Klar' }).click();
    await page.getByTestId('report-group').selectOption('vehicle');
    // Per vehicle, the one chosen (the table follows the new answer a moment after the choice).
    await eventually(async () => (await page.getByTestId('summary-row').allTextContents()).map((row) => row.includes('Volvo V90')), [true]);
    expect(await page.getByTestId('summary-total-trips').textContent()).toBe('2');
    expect(await page.getByTestId('report-scope').textContent()).toContain('1 fordon');

    // The eco report keeps the choice and draws its weekly trend.
    await page.getByTestId('report-tab-eco').click();
    await page.waitForURL(/\/user\/reports\/eco(\?|$)/);
    await page.getByTestId('eco-ranking').waitFor();
    expect(await page.getByTestId('eco-row').count()).toBe(1);
    await page.getByTestId('eco-chart').waitFor();

    // The report, its vehicle and its period are kept in the address: a reload, or the link opened by someone else,
    // shows the same report over the same days.
    await eventually(async () => Object.fromEntries(new URL(page.url()).searchParams), { unitIds: String(volvo), from: '2026-02-01', to: '2026-02-28' });
    const address = new URL(page.url());
    await page.reload();
    await page.getByTestId('eco-ranking').waitFor();
    await eventually(async () => (await page.getByTestId('eco-row').allTextContents()).map((row) => row.includes('Volvo V90')), [true]);
    expect(await page.getByLabel('Från').inputValue()).toBe('2026-02-01');
    expect(await page.getByLabel('Till').inputValue()).toBe('2026-02-28');
    expect(await page.getByTestId('report-scope').textContent()).toContain('1 fordon · 2026-02-01 – 2026-02-28');
    expect(new URL(page.url()).search).toBe(address.search);
    const shared = await suite.newPage(DESKTOP);
    await signIn(shared, account);
    await shared.goto(`${address.pathname}${address.search}`);
    await shared.getByTestId('eco-ranking').waitFor();
    await eventually(async () => (await shared.getByTestId('eco-row').allTextContents()).map((row) => row.includes('Volvo V90')), [true]);
    expect(await shared.getByTestId('report-scope').textContent()).toContain('2026-02-01 – 2026-02-28');
    await shared.close();

    // Schedule the eco report monthly to an address: a wrong address is refused in place, a right one saved and listed.
    await page.getByTestId('report-schedule').click();
    const dialog = page.getByRole('dialog', { name: 'Schemalägg Sparsam körning' });
    await dialog.getByTestId('schedule-emails').fill('chef@example');
    await dialog.getByTestId('schedule-save').click();
    expect(await dialog.getByTestId('schedule-error').textContent()).toBe('Ogiltig e-postadress: chef@example');
    await dialog.getByTestId('schedule-emails').fill('chef@example.com');
    await dialog.getByTestId('schedule-save').click();
    expect(await dialog.getByTestId('schedule-saved').textContent()).toBe('Rapporten skickas varje månad.');
    await eventually(() => dialog.getByTestId('schedule-list').getByRole('listitem').count(), 1);
    const [schedule] = await suite.server.database.rows<{ kind: string; frequency: string }>(sql`select kind, frequency from report_schedules where account_id = ${account.accountId}`);
    expect(schedule).toEqual({ kind: 'eco', frequency: 'monthly' });
    await expectAccessible(page, 'reports schedule dialog');
    await dialog.getByRole('button', { name: 'Stäng' }).click();

    // Phone width: nothing sticks out sideways, the chart fits, and the screen stays accessible.
    const phone = await suite.newPage(PHONE);
    await signIn(phone, account);
    await phone.goto('/user/reports/summary');
    await choosePeriod(phone, '2026-02-01', '2026-02-28');
    await phone.getByTestId('summary-chart-canvas').locator('canvas').waitFor();
    await eventually(() => horizontalOverflow(phone), []);
    const width = await phone.getByTestId('summary-chart-canvas').evaluate((element) => element.getBoundingClientRect().width);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(phone, 'reports summary phone');
    await screenshot(phone, 'reports-summary-phone');
  });

  test('a locked benefit car seen by a user without access: only benefit value and summary are offered', async () => {
    const server = suite.server;
    const owner = await server.createAccount();
    const email = `colleague-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const password = 'Secret-123!';
    await server.database.rows(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role)
      values (${owner.accountId}, ${email}, ${await hashPassword(password)}, 'Kim', 'Kollega', 'admin')`);
    const colleague = { email, password, subsiteId: owner.subsiteId };
    const tesla = await addUnit(owner.accountId, '358100000097001', 'Tesla Model 3', { carUsage: 'benefit', lockedBy: owner.userId });
    await addUnit(owner.accountId, '358100000097002', 'Ford Transit');
    await server.database.rows(sql`
      insert into benefit_cars (unit_id, account_id, powertrain, list_price, first_registered, holder_user_id)
      values (${tesla}, ${owner.accountId}, 'electric', 500000, '2025-01-15', ${owner.userId})`);
    await drive(tesla, owner.accountId, ['2026-02-24T06:05:00Z']);

    const page = await suite.newPage(DESKTOP);
    await signIn(page, colleague);
    await page.goto('/user/reports/eco');
    await page.getByRole('heading', { name: 'Rapporter', level: 1 }).waitFor();
    expect(await tabNames(page)).toContain('Sparsam körning');
    // The whole fleet's eco report leaves the locked car out, and says so.
    await page.getByTestId('eco-ranking').waitFor();
    expect(await page.getByTestId('report-excluded').textContent()).toBe('1 låst förmåns- eller privatbil som du inte har åtkomst till ingår inte i rapporten.');

    // Choosing the locked car narrows the reports to the two the colleague may see, and says why.
    await page.getByTestId('report-units-open').click();
    await page.getByRole('dialog').getByText('Tesla Model 3', { exact: true }).click();
    await page.getByRole('button', { name: 'Klar' }).click();
    await page.getByTestId('report-locked').waitFor();
    expect(await page.getByTestId('report-locked').textContent()).toContain('Tesla Model 3 är en låst förmåns- eller privatbil som du inte har åtkomst till.');
    expect(await tabNames(page)).toEqual(['Sammanställning', 'Förmånsvärde och ersättning']);
    expect(await page.getByTestId('report-export-pdf').isDisabled()).toBe(true);
    await expectAccessible(page, 'reports locked message');

    // The server agrees: the eco report of the locked car is refused.
    const token = await server.login(colleague);
    expect((await server.call('GET', `/api/reports/eco?unitIds=${tesla}&from=2026-02-01&to=2026-02-28`, { token })).status).toBe(403);

    // Benefit value: shown, with the car's distances left out.
    await page.getByTestId('report-tab-benefit').click();
    await page.waitForURL(/\/user\/reports\/benefit(\?|$)/);
    await choosePeriod(page, '2026-02-01', '2026-02-28');
    await page.getByTestId('benefit-car').first().waitFor();
    const car = (await page.getByTestId('benefit-car').first().textContent()) ?? '';
    expect(car).toContain('Tesla Model 3');
    expect(car).toContain('Låst');
    expect(car).toContain('Dold (låst bil)');
    expect(await page.getByTestId(`benefit-value-${tesla}`).textContent()).toMatch(/\d/);
    await expectAccessible(page, 'reports benefit locked car');
    await screenshot(page, 'reports-benefit-locked');

    // Summary: offered too.
    await page.getByTestId('report-tab-summary').click();
    await page.waitForURL(/\/user\/reports\/summary(\?|$)/);
    await page.getByTestId('summary-table').waitFor();
    expect(await page.getByTestId('report-locked').count()).toBe(0);
  });
});
