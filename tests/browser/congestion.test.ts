import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { cordonTrip } from '../../src/modules/reports/testing';
import { IngestWriter } from '../../src/modules/tracking/service';
import { driveRecord } from '../../src/modules/trips/drive';
import type { TripList } from '../../src/modules/trips/model';
import { login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

setDefaultTimeout(90_000);

/**
 * The congestion-tax report in the built app. The server's clock is 2 March 2026, so the default month
 * (March) has no passages; February holds a drive in over Danvikstull and out over Skansbron in the
 * morning and the same back in the afternoon (a private trip), stored through the ingest pipeline.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

describe('congestion report', () => {
  test('a month without passages, then the month with the drive: passages, daily maximum, totals, chart and CSV', async () => {
    const server = suite.server;
    const account = await server.createAccount();
    const [unit] = await server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name) values (${account.accountId}, '358100000095001', 'Volvo V90') returning id`);
    const unitId = unit!.id;
    const writer = new IngestWriter(server.database, server.platform.events, server.platform.log, { maxDelayMs: 1 });
    const positions = [...cordonTrip('2026-02-24T06:05:00Z'), ...cordonTrip('2026-02-24T15:05:00Z', 'back')];
    for (let i = 0; i < positions.length; i += 25) {
      await writer.submit({ unitId, accountId: account.accountId, protocol: 'teltonika', deviceId: 'test', records: positions.slice(i, i + 25).map(driveRecord), receivedAt: new Date() });
    }
    await writer.drain();
    await server.services.trips.idle();
    const token = await server.login(account);
    const trips = await server.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-02-24&to=2026-02-24`, { token });
    expect(trips.body.data!.trips.length).toBe(2);
    await server.call('POST', `/api/trips/${trips.body.data!.trips[1]!.id}`, { token, body: { type: 'private' } });

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/create-triplog/congestionreportnew');
    await page.getByRole('heading', { name: 'Trängselskatt', level: 1 }).waitFor();
    // The trip log's views as tabs, this one current; the other leads back to the trips and its tabs are the same.
    const views = page.getByRole('navigation', { name: 'Körjournalens vyer' });
    expect(await views.getByRole('link').allTextContents()).toEqual(['Resor', 'Trängselskatt', 'Rapporter']);
    expect(await views.getByRole('link', { name: 'Trängselskatt' }).getAttribute('aria-current')).toBe('page');
    await views.getByRole('link', { name: 'Resor' }).click();
    await page.waitForURL((url) => url.pathname === '/user/create-triplog');
    await page.getByTestId('purposes-open').waitFor();
    expect(await views.getByRole('link', { name: 'Resor' }).getAttribute('aria-current')).toBe('page');
    await views.getByRole('link', { name: 'Trängselskatt' }).click();
    await page.getByRole('heading', { name: 'Trängselskatt', level: 1 }).waitFor();

    // This month (March 2026): nothing to show, said plainly.
    await page.getByTestId('congestion-no-data').waitFor();
    expect(await page.getByTestId('congestion-no-data').textContent()).toContain('Inga passager av betalstationer under vald period.');
    expect(await page.getByLabel('Från').inputValue()).toBe('2026-03-01');
    expect(await page.getByLabel('Till').inputValue()).toBe('2026-03-31');
    expect(await page.getByTestId('congestion-total').textContent()).toBe('0 kr');
    expect(await page.getByTestId('congestion-csv').isDisabled()).toBe(true);

    // February.
    await page.getByLabel('Månad').fill('2026-02');
    await page.getByTestId('congestion-table').waitFor();
    expect(await page.getByLabel('Från').inputValue()).toBe('2026-02-01');
    expect(await page.getByLabel('Till').inputValue()).toBe('2026-02-28');
    const rows = page.getByTestId('congestion-passage');
    expect(await rows.count()).toBe(4);
    const texts = (await rows.allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    expect(texts[0]).toMatch(/^07:0\d ?Danvikstull ?Stockholm ?Tjänst ?35 kr ?35 kr/);
    expect(texts[1]).toContain('Skansbron');
    expect(texts[2]).toMatch(/^16:0\d ?Skansbron ?Stockholm ?Privat ?35 kr ?35 kr/);
    expect(texts[3]).toMatch(/Danvikstull ?Stockholm ?Privat ?35 kr ?0 kr ?Maxbeloppet per dag är nått/);
    expect(await page.getByTestId('congestion-day-total-2026-02-24').textContent()).toBe('105 kr');
    expect(await page.getByTestId('congestion-table-total').textContent()).toBe('105 kr');
    expect(await page.getByTestId('congestion-total').textContent()).toBe('105 kr');
    expect(await page.getByTestId('congestion-total-business').textContent()).toContain('70 kr');
    expect(await page.getByTestId('congestion-total-private').textContent()).toContain('35 kr');
    expect(await page.getByTestId('congestion-totals').textContent()).toContain('4 passager');
    await page.getByTestId('congestion-bar-2026-02-24').waitFor();
    expect(await page.locator('[data-testid^="congestion-bar-"]').count()).toBe(1);

    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await screenshot(page, 'congestion-report');
    await page.getByTestId('congestion-table-total').scrollIntoViewIfNeeded();
    await screenshot(page, 'congestion-report-table');

    // CSV of the table.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('congestion-csv').click()]);
    expect(download.suggestedFilename()).toBe('trangselskatt-Volvo_V90-2026-02-01-2026-02-28.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Datum;Tid;Stad;Betalstation;Resa;Taxa;Belopp;Anmärkning');
    expect(lines.length).toBe(1 + 4 + 1 + 1);
    expect(lines[4]).toMatch(/^2026-02-24;16:0\d;Stockholm;Danvikstull;Privat;35;0;Maxbeloppet per dag är nått$/);
    expect(lines.at(-1)).toBe('2026-02-01 – 2026-02-28;;;;;;105;Summa för perioden');

    // An end before the start is refused in place.
    await page.getByLabel('Till').fill('2026-01-15');
    expect(await page.getByRole('alert').textContent()).toBe('Slutdatumet får inte vara före startdatumet.');
  });
});
