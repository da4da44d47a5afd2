import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { addUnit } from '../../src/modules/units/testing';
import { waitFor } from '../support/wait';
import { screenshot, seriousA11yViolations, signIn, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine.
setDefaultTimeout(120_000);

/**
 * Account settings in the built app (spec §2 account settings): the round trip of company details, a market fuel price
 * typed with a decimal comma, language, time zone and a switch; a §5 limit shown under its field; and a bulk task on the
 * unit list with one failing unit, reported while the others are done.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

let imeiSequence = 0;
const imei = () => `35820000000${String(++imeiSequence).padStart(4, '0')}`;

describe('account settings', () => {
  test('the round trip: company details, a fuel price with a decimal comma, language, time zone and a switch survive a reload', async () => {
    const admin = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, admin);
    // The sidebar names the screen; it opens at its path.
    expect(await page.getByRole('link', { name: 'Kontoinställningar', exact: true }).getAttribute('href')).toBe('/administration/account-settings');
    await page.goto('/administration/account-settings');
    await page.getByRole('heading', { name: 'Kontoinställningar', level: 1 }).waitFor();

    // A §5 limit: the postal code is at most 7 characters; the error shows under the field and nothing is saved.
    await page.getByTestId('settings-postalCode').fill('12345678');
    await page.getByTestId('settings-save').click();
    await page.getByText('Högst 7 tecken.').waitFor();

    await page.getByTestId('settings-postalCode').fill('831 30');
    await page.getByTestId('settings-companyName').fill('Fjällfrakt AB');
    await page.getByTestId('settings-city').fill('Östersund');
    await page.getByTestId('settings-phone').fill('+46 63 123 456');
    await page.getByTestId('settings-price-SE-diesel').fill('19,85');
    await page.getByTestId('settings-timezone').selectOption('Europe/Oslo');
    await page.getByText('QR-incheckning utan åtkomst till enheten').click();
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings-saved').waitFor();
    await screenshot(page, 'account-settings');

    // Stored as the server reads it, and shown again after a reload in the Swedish convention.
    expect(await suite.server.services.accountSettings.fuelPrice(admin.accountId, 'SE', 'diesel')).toBe(19.85);
    expect(await suite.server.services.accountSettings.qrCheckinWithoutAccess(admin.accountId)).toBe(true);
    expect((await suite.server.services.accountSettings.defaults(admin.accountId)).timezone).toBe('Europe/Oslo');
    await page.reload();
    await page.getByTestId('settings-companyName').waitFor();
    expect(await page.getByTestId('settings-companyName').inputValue()).toBe('Fjällfrakt AB');
    expect(await page.getByTestId('settings-city').inputValue()).toBe('Östersund');
    expect(await page.getByTestId('settings-postalCode').inputValue()).toBe('831 30');
    expect(await page.getByTestId('settings-price-SE-diesel').inputValue()).toBe('19,85');
    expect(await page.getByTestId('settings-timezone').inputValue()).toBe('Europe/Oslo');
    expect(await page.getByRole('checkbox', { name: 'QR-incheckning utan åtkomst till enheten' }).isChecked()).toBe(true);
  });

  test('the catalogues are kept on the screen itself: a department, a tag and a default purpose, audited', async () => {
    const admin = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto('/administration/account-settings');
    const catalogues = page.getByTestId('settings-catalogues');
    await catalogues.getByRole('heading', { name: 'Avdelningar, projekt, taggar och funktionsprofiler' }).waitFor();
    await catalogues.getByRole('button', { name: 'Ny avdelning' }).click();
    await catalogues.getByTestId('catalog-name').fill('Lager');
    await catalogues.getByRole('button', { name: 'Spara' }).click();
    await catalogues.getByTestId('catalog-list-departments').getByText('Lager').waitFor();
    // §5 names are unique: the same name again is refused under its field.
    await catalogues.getByRole('button', { name: 'Ny avdelning' }).click();
    await catalogues.getByTestId('catalog-name').fill('lager');
    await catalogues.getByRole('button', { name: 'Spara' }).click();
    await catalogues.getByText('Namnet används redan.').waitFor();
    await catalogues.getByRole('button', { name: 'Avbryt' }).click();
    await catalogues.getByRole('tab', { name: 'Taggar' }).click();
    await catalogues.getByRole('button', { name: 'Ny tagg' }).click();
    await catalogues.getByTestId('catalog-name').fill('Kyl');
    await catalogues.getByRole('button', { name: 'Spara' }).click();
    await catalogues.getByTestId('catalog-list-tags').getByText('Kyl').waitFor();

    const purposes = page.getByTestId('settings-purposes');
    await purposes.getByTestId('purpose-name').fill('Kundbesök');
    await purposes.getByRole('button', { name: 'Lägg till standardändamål' }).click();
    await purposes.getByTestId('purpose-list').getByText('Kundbesök').waitFor();
    await screenshot(page, 'account-settings-catalogues');

    const db = suite.server.database;
    expect(await db.query('SELECT name FROM departments WHERE account_id = $1', [admin.accountId])).toEqual([{ name: 'Lager' }]);
    expect(await db.query('SELECT name FROM tags WHERE account_id = $1', [admin.accountId])).toEqual([{ name: 'Kyl' }]);
    await suite.server.platform.outbox.drain();
    const audited = await db.query<{ action: string; target_kind: string; target_label: string }>(
      "SELECT action, target_kind, target_label FROM audit_entries WHERE account_id = $1 AND action LIKE 'catalog.%' ORDER BY id",
      [admin.accountId],
    );
    expect(audited).toEqual([
      { action: 'catalog.created', target_kind: 'department', target_label: 'Lager' },
      { action: 'catalog.created', target_kind: 'tag', target_label: 'Kyl' },
    ]);
  });

  test('a bulk task with one failing unit: the others are done and the failure is reported', async () => {
    const admin = await suite.server.createAccount();
    const car = await addUnit(suite.server, admin.accountId, imei(), 'Volvo V60');
    const van = await addUnit(suite.server, admin.accountId, imei(), 'VW Crafter');
    await addUnit(suite.server, admin.accountId, imei(), 'Släpkärra', { deviceKind: 'battery', model: 'TAT100' });
    await suite.server.database.query(`INSERT INTO feature_profiles (account_id, name) VALUES ($1, 'Säljare')`, [admin.accountId]);

    const page = await suite.newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByTestId(`unit-row-${car}`).waitFor();
    // A click on each row's box as a user makes it (the table may lay out wider than the window meanwhile).
    for (const name of ['Volvo V60', 'VW Crafter', 'Släpkärra']) {
      const box = page.getByRole('checkbox', { name: `Välj ${name}` });
      await box.evaluate((element) => (element as HTMLInputElement).click());
      expect(await box.isChecked()).toBe(true);
    }
    await page.getByRole('button', { name: 'Massåtgärd (3 valda)' }).click();
    const bulk = page.getByRole('dialog', { name: 'Massåtgärd för 3 enheter' });
    await bulk.getByLabel('Åtgärd').selectOption('featureProfile');
    await bulk.getByLabel('Värde').selectOption({ label: 'Säljare' });
    await bulk.getByRole('button', { name: 'Kör' }).click();
    // An administrator's task is a queued job on the server (this suite runs no worker: the test hands it on).
    await waitFor('the bulk job', async () => (await suite.server.database.query('SELECT id FROM bulk_jobs WHERE account_id = $1', [admin.accountId])).length === 1);
    await suite.server.platform.queue.drain();
    await bulk.getByTestId('bulk-summary').waitFor();
    expect(await bulk.getByTestId('bulk-summary').textContent()).toBe('1 enhet kunde inte ändras.');
    expect(await bulk.getByTestId('bulk-progress').getAttribute('value')).toBe('100');
    expect((await bulk.getByTestId('bulk-results').locator('li').allTextContents()).sort()).toEqual([
      'Släpkärra: Funktioner finns endast för körjournalsenheter.',
      'VW Crafter: Klart',
      'Volvo V60: Klart',
    ]);
    await screenshot(page, 'account-settings-bulk-failure');
    const rows = await suite.server.database.query<{ id: number; feature_profile_id: number | null }>(
      'SELECT id, feature_profile_id FROM units WHERE account_id = $1 ORDER BY id',
      [admin.accountId],
    );
    expect(rows.filter((row) => row.feature_profile_id !== null).map((row) => row.id)).toEqual([car, van]);
  });

  test('car info onboarding from the unit list: skipped, resumed, saved', async () => {
    const admin = await suite.server.createAccount();
    const car = await addUnit(suite.server, admin.accountId, imei(), 'Ny bil');
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByTestId(`unit-row-${car}`).waitFor();
    await page.getByRole('button', { name: 'Bilinformation (1 väntar)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Bilinformation' });
    await dialog.getByText('Ny bil: 1 av 1').waitFor();
    await dialog.getByTestId('car-info-skip').click();
    await dialog.waitFor({ state: 'detached' });
    // Skipped, not gone: the list offers it again.
    await page.getByRole('button', { name: 'Bilinformation (1 väntar)' }).click();
    await dialog.getByTestId('car-info-registration').fill('abc 123');
    await dialog.getByLabel('Bränsletyp').selectOption('diesel');
    await dialog.getByLabel('Bränsleförbrukning per mil (liter eller kWh)').fill('0,62');
    await dialog.getByLabel('Mätarställning (km)').fill('12345');
    await dialog.getByTestId('car-info-save').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Bilinformation (1 väntar)' }).waitFor({ state: 'detached' });
    const [row] = await suite.server.database.query<{ registration_number: string; fuel_type: string; fuel_consumption_per_10km: string }>(
      'SELECT registration_number, fuel_type, fuel_consumption_per_10km FROM units WHERE id = $1',
      [car],
    );
    expect([row!.registration_number, row!.fuel_type, Number(row!.fuel_consumption_per_10km)]).toEqual(['ABC123', 'diesel', 0.62]);
  });
});
