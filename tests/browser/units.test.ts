import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { addUnit, pngOfSize, rawCall, readPdf, setState } from '../../src/modules/units/testing';
import { UNIT_LIST_COLUMNS } from '../../src/modules/units/model';
import { waitFor } from '../support/wait';
import { eventually, expectAccessible, horizontalOverflow, login, screenshot, signIn, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(90_000);

/**
 * The unit screens in the built app: the list (columns kept per user, a filter, a bulk task), an edit section
 * that saves and reloads, add terminal with a bad and a good IMEI, lock and unlock, the picture size limit,
 * and the object description and theft report PDFs rendered to PNG (artifacts/pdf).
 */
let suite: Suite;
const PDF_DIR = join(import.meta.dir, '../../artifacts/pdf');

beforeAll(async () => {
  suite = await startSuite();
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

async function department(accountId: number, name: string): Promise<number> {
  const [row] = await suite.server.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${accountId}, ${name}) returning id`);
  return row!.id;
}

let imeiSequence = 0;
const imei = () => `35810000000${String(++imeiSequence).padStart(4, '0')}`;

const headers = (page: Page) => page.locator('[role="columnheader"]').allTextContents();

/** Polls until `read` answers `expected` (the list refetches after a change), else fails with the last answer. */

describe('unit list', () => {
  test('the column choice survives a reload; a filter; a bulk task with progress and a result per unit', async () => {
    const admin = await suite.server.createAccount();
    const north = await department(admin.accountId, 'Norr');
    await department(admin.accountId, 'Söder');
    const volvo = await addUnit(suite.server, admin.accountId, imei(), 'Volvo V60', { registrationNumber: 'ABC123' });
    const scania = await addUnit(suite.server, admin.accountId, imei(), 'Scania R450', { registrationNumber: 'XYZ987', vehicleType: 'lorry' });
    await addUnit(suite.server, admin.accountId, imei(), 'Buster', { vehicleType: 'motorboat' });
    await suite.server.database.rows(sql`update units set department_id = ${north} where id = ${volvo}`);
    await setState(suite.server, volvo, { speed: 40, ignition: true });

    const page = await suite.newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByRole('heading', { name: 'Enheter', level: 1 }).waitFor();
    await page.getByTestId(`unit-row-${volvo}`).waitFor();
    expect((await headers(page)).slice(1)).toEqual(['Namn▲', 'Registreringsnummer', 'IMEI', 'Fordonstyp', 'Avdelning', 'Status', 'Senast sedd']);
    await expectAccessible(page, 'unit list');

    // Columns: add Tags and Odometer, drop IMEI; the choice is the user's and survives a reload.
    await page.getByRole('button', { name: 'Kolumner' }).click();
    const chooser = page.getByRole('dialog', { name: 'Kolumner' });
    await chooser.getByText('Taggar', { exact: true }).click();
    await chooser.getByText('Mätarställning', { exact: true }).click();
    await chooser.getByText('IMEI', { exact: true }).click();
    // The choice shows at once and is saved behind it (the shared preferences store): reload once it is saved.
    const saved = page.waitForResponse((response) => response.url().endsWith('/api/preferences/tables/units') && response.request().method() === 'POST');
    await chooser.getByRole('button', { name: 'Spara' }).click();
    await page.locator('[role="columnheader"]', { hasText: 'Taggar' }).waitFor();
    expect((await saved).status()).toBe(200);
    await page.reload();
    await page.getByTestId(`unit-row-${volvo}`).waitFor();
    expect((await headers(page)).slice(1)).toEqual(['Namn▲', 'Registreringsnummer', 'Fordonstyp', 'Avdelning', 'Taggar', 'Status', 'Senast sedd', 'Mätarställning']);

    // Sorting by a header is kept too.
    await page.locator('[role="columnheader"]', { hasText: 'Registreringsnummer' }).click();
    await page.locator('[role="columnheader"]', { hasText: 'Registreringsnummer▲' }).waitFor();
    await eventually(() => page.locator('.unit-row .unit-link').allTextContents(), ['Volvo V60', 'Scania R450', 'Buster']);

    // A filter.
    await page.getByLabel('Avdelning').selectOption({ label: 'Norr' });
    await eventually(() => page.getByTestId('unit-count').textContent(), '1 enhet');
    await page.getByLabel('Avdelning').selectOption({ label: 'Alla' });
    await page.getByLabel('Status').selectOption({ label: 'I rörelse' });
    await eventually(() => page.getByTestId('unit-count').textContent(), '1 enhet');
    await page.getByLabel('Status').selectOption({ label: 'Alla' });
    await page.getByLabel('Sök', { exact: true }).fill('xyz');
    await page.getByTestId(`unit-row-${volvo}`).waitFor({ state: 'detached' });
    expect(await page.locator('.unit-row').count()).toBe(1);
    await page.getByLabel('Sök', { exact: true }).fill('');
    await page.getByTestId(`unit-row-${volvo}`).waitFor();

    // A bulk task on two selected units: progress, then a result per unit.
    await page.getByRole('checkbox', { name: 'Välj Volvo V60' }).check({ force: true });
    await page.getByRole('checkbox', { name: 'Välj Scania R450' }).check({ force: true });
    await page.getByRole('button', { name: 'Massåtgärd (2 valda)' }).click();
    const bulk = page.getByRole('dialog', { name: 'Massåtgärd för 2 enheter' });
    await bulk.getByLabel('Åtgärd').selectOption('department');
    await bulk.getByLabel('Värde').selectOption({ label: 'Söder' });
    await bulk.getByRole('button', { name: 'Kör' }).click();
    // An administrator's task is a queued job on the server (this suite runs no worker: the test hands it on).
    await waitFor('the bulk job', async () => (await suite.server.database.query('SELECT id FROM bulk_jobs WHERE account_id = $1', [admin.accountId])).length === 1);
    await suite.server.platform.queue.drain();
    await bulk.getByTestId('bulk-summary').waitFor();
    await expect(bulk.getByTestId('bulk-summary').textContent()).resolves.toBe('Klart för alla enheter.');
    expect(await bulk.getByTestId('bulk-progress').getAttribute('value')).toBe('100');
    expect((await bulk.getByTestId('bulk-results').locator('li').allTextContents()).sort()).toEqual(['Scania R450: Klart', 'Volvo V60: Klart']);
    await screenshot(page, 'units-bulk-result');
    await bulk.getByRole('button', { name: 'Stäng' }).click();
    await eventually(async () => (await page.getByTestId(`unit-row-${scania}`).textContent())?.includes('Söder'), true);
    await screenshot(page, 'units-list');
  });
});

describe('unit edit page', () => {
  test('a section saves and reloads; its rule errors show under the field', async () => {
    const admin = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, admin.accountId, imei(), 'Volvo V60', { registrationNumber: 'ABC123' });
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    await page.getByRole('heading', { name: 'Volvo V60', level: 1 }).waitFor();
    // The sidebar's Unit entry is highlighted here too.
    expect(await page.getByRole('link', { name: 'Enheter', exact: true }).getAttribute('class')).toContain('active');

    const nameSection = page.getByTestId('section-name');
    await nameSection.getByLabel('Enhetens namn').fill('');
    await nameSection.getByRole('button', { name: 'Spara' }).click();
    await nameSection.getByText('Ange ett namn på enheten.').waitFor();
    await nameSection.getByLabel('Enhetens namn').fill('Poolbil 1');
    await nameSection.getByRole('button', { name: 'Spara' }).click();
    await nameSection.getByText('Sparat.').waitFor();

    const details = page.getByTestId('section-details');
    await details.getByLabel('Registreringsnummer').fill('AB#12');
    await details.getByRole('button', { name: 'Spara' }).click();
    await details.getByText('Registreringsnumret får bara innehålla bokstäver och siffror.').waitFor();
    await details.getByLabel('Registreringsnummer').fill('xyz 987');
    await details.getByLabel('Hästkrafter').fill('150');
    await details.getByRole('button', { name: 'Spara' }).click();
    await details.getByText('Sparat.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Poolbil 1', level: 1 }).waitFor();
    expect(await page.getByTestId('section-name').getByLabel('Enhetens namn').inputValue()).toBe('Poolbil 1');
    expect(await page.getByTestId('section-details').getByLabel('Registreringsnummer').inputValue()).toBe('XYZ987');
    expect(await page.getByTestId('section-details').getByLabel('Hästkrafter').inputValue()).toBe('150');
    await page.getByTestId('name-history').locator('summary').click();
    await expect(page.getByTestId('name-history').textContent()).resolves.toContain('Volvo V60 → Poolbil 1');
    await screenshot(page, 'unit-edit');
    await expectAccessible(page, 'unit edit');

    // A unit of another account, or none at all, is not found.
    const stranger = await suite.server.createAccount();
    const foreign = await addUnit(suite.server, stranger.accountId, imei(), 'Secret');
    await page.goto(`/user/edit-terminal?id=${foreign}`);
    await page.getByTestId('not-found').waitFor();
    await page.goto('/user/edit-terminal');
    await page.getByTestId('not-found').waitFor();
  });

  test('lock and unlock a private car; the picture size limit', async () => {
    const admin = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, admin.accountId, imei(), 'Egen bil');
    await suite.server.database.rows(sql`update units set car_usage = 'private', fuel_payer = 'private', reimbursement_per_10km = 25 where id = ${unitId}`);
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    const lock = page.getByTestId('section-lock');
    await lock.getByRole('button', { name: 'Lås', exact: true }).click();
    await lock.getByTestId('lock-state').getByText(/^Låst av Test User/).waitFor();
    await lock.getByRole('button', { name: 'Lås upp' }).click();
    await lock.getByTestId('lock-state').getByText('Inte låst').waitFor();
    await lock.getByTestId('lock-log').locator('summary').click();
    expect(await lock.getByTestId('lock-log').locator('li').count()).toBe(2);

    const description = page.getByTestId('section-object-description');
    await description.getByLabel('Tillverkare').fill('Volvo');
    await description.getByRole('button', { name: 'Spara' }).click();
    await description.getByText('Sparat.').waitFor();
    const input = description.getByTestId('picture-input');
    await input.setInputFiles({ name: 'stor.png', mimeType: 'image/png', buffer: Buffer.from(pngOfSize(1024 * 1024 + 10)) });
    await description.getByText('stor.png är större än 1 MB.').waitFor();
    await input.setInputFiles({ name: 'bil.png', mimeType: 'image/png', buffer: Buffer.from(pngOfSize(2000)) });
    await description.getByTestId('picture').waitFor();
    expect(await description.getByTestId('picture').count()).toBe(1);
  });
});

describe('unit edit: sections and unsaved changes', () => {
  test('unsaved unit changes warn', async () => {
    const admin = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, admin.accountId, imei(), 'Volvo V60', { registrationNumber: 'ABC123' });
    const page = await suite.newPage();
    await signIn(page, admin);
    // Reached inside the app, from the unit list.
    await page.goto('/user/edit-terminal-list');
    await page.getByTestId(`unit-row-${unitId}`).getByRole('link', { name: 'Volvo V60' }).click();
    await page.getByRole('heading', { name: 'Volvo V60', level: 1 }).waitFor();

    // The sections are listed at the side; a section is a click away.
    const nav = page.getByRole('navigation', { name: 'Avsnitt' });
    const navBox = await nav.boundingBox();
    const sectionsBox = await page.getByTestId('section-name').boundingBox();
    expect(navBox!.x + navBox!.width).toBeLessThanOrEqual(sectionsBox!.x);
    await nav.getByRole('link', { name: 'Spårsändare' }).click();
    await eventually(() => page.getByTestId('section-tracker').evaluate((element) => element.getBoundingClientRect().top < window.innerHeight / 2), true);
    await eventually(() => nav.getByRole('link', { name: 'Spårsändare' }).getAttribute('aria-current'), 'location');

    // The registration number's stored form shows as it is typed: the dash is dropped, letters in capitals.
    await nav.getByRole('link', { name: 'Fordonsuppgifter' }).click();
    const details = page.getByTestId('section-details');
    await details.getByLabel('Registreringsnummer').fill('xyz-987');
    expect(await details.getByTestId('registration-normal-form').textContent()).toBe('Sparas som XYZ987');
    await details.getByTestId('registration-normal-form').and(page.locator(':visible')).waitFor();
    // The section and its entry in the list say the change is not saved.
    await page.getByTestId('section-unsaved-details').waitFor();
    expect(await page.locator('[data-testid^="section-unsaved-"]').count()).toBe(1);

    // Leaving through a link inside the app asks first; staying keeps the edit.
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    const warning = page.getByRole('alertdialog').or(page.getByRole('dialog'));
    await warning.getByText('Osparade ändringar').waitFor();
    await warning.getByRole('button', { name: 'Stanna kvar' }).click();
    await warning.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe('/user/edit-terminal');
    expect(await details.getByLabel('Registreringsnummer').inputValue()).toBe('xyz-987');

    // A move the app makes itself (a redirect asked for outside the page, as the API client does) asks too.
    await page.evaluate(() => window.dispatchEvent(new CustomEvent('portal:navigate', { detail: '/user/create-triplog' })));
    await warning.getByText('Osparade ändringar').waitFor();
    await warning.getByRole('button', { name: 'Stanna kvar' }).click();
    await warning.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe('/user/edit-terminal');

    // The browser's back button asks too: staying keeps the page, its address and the edit.
    const editUrl = page.url();
    await page.goBack({ waitUntil: 'commit' });
    await warning.getByText('Osparade ändringar').waitFor();
    await eventually(async () => page.url(), editUrl);
    await warning.getByRole('button', { name: 'Stanna kvar' }).click();
    await warning.waitFor({ state: 'hidden' });
    expect(page.url()).toBe(editUrl);
    expect(await details.getByLabel('Registreringsnummer').inputValue()).toBe('xyz-987');
    await page.getByRole('heading', { name: 'Volvo V60', level: 1 }).waitFor();

    // Closing or reloading the tab asks through the browser.
    const beforeUnload = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      });
    });
    await page.close({ runBeforeUnload: true });
    expect(await beforeUnload).toBe('beforeunload');
    expect(page.isClosed()).toBe(false);

    // Leaving anyway by the back button drops the edit and goes back to the unit list it came from.
    await page.goBack({ waitUntil: 'commit' });
    await warning.getByRole('button', { name: 'Lämna sidan' }).click();
    await page.getByRole('heading', { name: 'Enheter', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/user/edit-terminal-list');
    // Forward again to the unit, now without edits: nothing asks on the way out.
    await page.goForward({ waitUntil: 'commit' });
    await page.getByRole('heading', { name: 'Volvo V60', level: 1 }).waitFor();
    expect(await page.locator('[data-testid^="section-unsaved-"]').count()).toBe(0);

    // Leaving anyway through a link drops the edit and goes where the user went.
    await details.getByLabel('Registreringsnummer').fill('xyz-987');
    await page.getByTestId('section-unsaved-details').waitFor();
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await warning.getByRole('button', { name: 'Lämna sidan' }).click();
    await page.getByRole('heading', { name: 'Enheter', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/user/edit-terminal-list');

    // Once saved, nothing is unsaved: the link leaves at once. The stored number is the normal form shown.
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    await details.getByLabel('Registreringsnummer').fill('xyz-987');
    await page.getByTestId('section-unsaved-details').waitFor();
    await details.getByRole('button', { name: 'Spara' }).click();
    await details.getByText('Sparat.').waitFor();
    expect(await page.locator('[data-testid^="section-unsaved-"]').count()).toBe(0);
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByRole('heading', { name: 'Enheter', level: 1 }).waitFor();
    await page.getByTestId(`unit-row-${unitId}`).getByText('XYZ987').waitFor();
    await page.close();

    // On a phone the list is a strip of tabs above the sections, and nothing sticks out sideways.
    const phone = await suite.newPage({ width: 390, height: 844 });
    await signIn(phone, admin);
    await phone.goto(`/user/edit-terminal?id=${unitId}`);
    const strip = phone.getByRole('navigation', { name: 'Avsnitt' });
    await strip.waitFor();
    const stripBox = await strip.boundingBox();
    const firstSection = await phone.getByTestId('section-name').boundingBox();
    expect(stripBox!.y + stripBox!.height).toBeLessThanOrEqual(firstSection!.y);
    expect(stripBox!.height).toBeLessThan(80);
    expect(await horizontalOverflow(phone)).toEqual([]);
    await strip.getByRole('link', { name: 'Spårsändare' }).click();
    await eventually(() => phone.getByTestId('section-tracker').evaluate((element) => element.getBoundingClientRect().top < window.innerHeight / 2), true);
    await screenshot(phone, 'unit-edit-phone');
    await expectAccessible(phone, 'unit edit on a phone');
  }, 300_000);
});

describe('tracker replacement', () => {
  test('is confirmed first, then the unit with its history is under the new IMEI', async () => {
    const admin = await suite.server.createAccount();
    const oldImei = imei();
    const newImei = imei();
    const unitId = await addUnit(suite.server, admin.accountId, oldImei, 'Grävmaskin');
    await suite.server.services.units.addStock({ imeis: [newImei], model: 'FMC130', protocol: 'teltonika', subsiteID: null }, null);
    await suite.server.database.rows(sql`update units set name = 'Grävmaskin 2' where id = ${unitId}`);
    await suite.server.database.rows(sql`insert into unit_name_history (unit_id, account_id, previous_name, name, changed_at) select id, account_id, 'Grävmaskin', 'Grävmaskin 2', now() from units where id = ${unitId}`);
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    await page.getByTestId('tracker-imei').getByText(oldImei).waitFor();
    await page.getByRole('button', { name: 'Byt spårsändare' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Byt spårsändare' });
    await dialog.getByTestId('replace-imei').fill(newImei);
    // Nothing happens before the irreversible step is confirmed.
    expect(await dialog.getByRole('button', { name: 'Byt', exact: true }).isDisabled()).toBe(true);
    await dialog.getByText('Jag förstår att bytet inte kan ångras').click();
    await dialog.getByRole('button', { name: 'Byt', exact: true }).click();
    await page.getByText(`Enheten använder nu spårsändaren ${newImei}.`).waitFor();
    await page.getByRole('button', { name: 'OK' }).click();
    await page.getByTestId('tracker-imei').getByText(newImei).waitFor();
    await expect(page.getByTestId('tracker-history').textContent()).resolves.toContain(`${oldImei} (FMB920) ersatt av ${newImei} (FMC130)`);
    // The unit's history came along: its name history is still there.
    await page.getByTestId('name-history').locator('summary').click();
    await expect(page.getByTestId('name-history').textContent()).resolves.toContain('Grävmaskin → Grävmaskin 2');
    await screenshot(page, 'unit-tracker-replaced');
  });
});

describe('add terminal', () => {
  test('a bad and an unknown IMEI are refused under the field; a good one is added and its first position awaited', async () => {
    const admin = await suite.server.createAccount();
    const good = imei();
    await suite.server.services.units.addStock({ imeis: [good], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Lägg till enhet' }).click();
    await page.getByRole('heading', { name: 'Lägg till enhet', level: 1 }).waitFor();
    const field = page.getByTestId('add-imei');
    await field.fill('12345');
    await page.getByRole('button', { name: 'Lägg till enhet' }).click();
    await page.getByText('IMEI-numret måste bestå av exakt 15 siffror.').waitFor();
    await field.fill('359999999999999');
    await page.getByRole('button', { name: 'Lägg till enhet' }).click();
    await page.getByText('IMEI-numret finns inte registrerat hos oss. Kontrollera numret på spåraren.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('add-imei');
    await expectAccessible(page, 'add terminal error');

    await field.fill(good);
    await page.getByLabel('Enhetens namn').fill('Ny skåpbil');
    await page.getByRole('button', { name: 'Lägg till enhet' }).click();
    await page.getByTestId('terminal-added').waitFor();
    await page.getByText('Väntar på första positionen…').waitFor();
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`select id from units where imei = ${good}`);
    await setState(suite.server, unit!.id, { lat: 59.334591, lon: 18.06324 });
    await page.getByText(/Första positionen: 59\.334591, 18\.063240/).waitFor({ timeout: 15_000 });
    await screenshot(page, 'add-terminal');
    await page.getByRole('link', { name: 'Redigera enheten' }).click();
    await page.getByRole('heading', { name: 'Ny skåpbil', level: 1 }).waitFor();
  });
});

describe('PDFs', () => {
  /** Renders the first page of a PDF with pdf.js inside Chromium and saves it as PNG. */
  async function renderFirstPage(page: Page, pdf: Uint8Array, name: string): Promise<string> {
    const pdfjsDir = join(dirname(require.resolve('pdfjs-dist/package.json')), 'build');
    await page.route('**/__pdfjs/*', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      route.fulfill({ body: readFileSync(join(pdfjsDir, file)), contentType: 'text/javascript' });
    });
    const dataUrl = await page.evaluate(async (base64) => {
      const pdfjs = await import(/* @vite-ignore */ `${location.origin}/__pdfjs/pdf.min.mjs`);
      pdfjs.GlobalWorkerOptions.workerSrc = `${location.origin}/__pdfjs/pdf.worker.min.mjs`;
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const document = await pdfjs.getDocument({ data: bytes }).promise;
      const first = await document.getPage(1);
      const viewport = first.getViewport({ scale: 1.5 });
      const canvas = window.document.createElement('canvas');
      canvas.width = viewport.width;
      canvas.height = viewport.height;
      await first.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
      return canvas.toDataURL('image/png');
    }, Buffer.from(pdf).toString('base64'));
    mkdirSync(PDF_DIR, { recursive: true });
    const path = join(PDF_DIR, `${name}.png`);
    writeFileSync(path, Buffer.from(dataUrl.split(',')[1]!, 'base64'));
    return path;
  }

  test('the object description and theft report download as PDF; their first pages render to PNG', async () => {
    const admin = await suite.server.createAccount({ subsiteId: 5 });
    const token = await suite.server.login(admin);
    const unitId = await addUnit(suite.server, admin.accountId, imei(), 'Sjöstjärnan', { registrationNumber: 'BOAT42', vehicleType: 'motorboat' });
    const call = (path: string, body: unknown) => suite.server.call('POST', `/api/units/${unitId}/${path}`, { token, body });
    await call('object-description', {
      objectType: 'boat',
      manufacturer: 'Buster',
      model: 'Magnum',
      year: 2021,
      hullNumber: 'SEBUS12345F021',
      motor: 'Yamaha F150',
      horsepower: 150,
      insuranceCompany: 'Svedea',
      serialNumber: 'BU-2021-0042',
      skirtType: 'louse_skirt_hd',
      lengthM: 6.5,
      ballastType: 'lead',
    });
    const form = new FormData();
    form.append('file', new File([pngOfSize()], 'a.png', { type: 'image/png' }));
    expect((await rawCall(suite.server, 'POST', `/api/units/${unitId}/images`, { token, body: form })).status).toBe(200);
    await call('theft-report', { theftDate: '2026-02-28', stolenFrom: 'Sandhamn', policeStation: 'Polisen Nacka', recipients: ['polis@example.com'] });

    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    const description = page.getByTestId('section-object-description');
    await description.getByTestId('picture').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), description.getByRole('button', { name: 'Ladda ner PDF' }).click()]);
    expect(download.suggestedFilename()).toBe(`objektbeskrivning-${unitId}.pdf`);
    const downloaded = readFileSync((await download.path())!);
    const parsed = await readPdf(new Uint8Array(downloaded));
    expect(parsed.text).toContain('Objektbeskrivning');
    expect(parsed.text).toContain('Sjöstjärnan');
    expect(parsed.text).toContain('Luskjol HD');
    expect(parsed.images).toBe(1);
    await renderFirstPage(page, new Uint8Array(downloaded), 'object-description');

    const theft = await rawCall(suite.server, 'GET', `/api/units/${unitId}/theft-report/pdf`, { token, lang: 'sv' });
    const theftPdf = new Uint8Array(await theft.arrayBuffer());
    expect((await readPdf(theftPdf)).text).toContain('Polisen Nacka');
    await renderFirstPage(page, theftPdf, 'theft-report');

    // Sending e-mails it to the recipients.
    const section = page.getByTestId('section-theft-report');
    await section.getByRole('button', { name: 'Skicka till mottagarna' }).click();
    await page.getByText('Stöldanmälan skickades till polis@example.com.').waitFor();
    const mail = await suite.server.smtp.waitFor('polis@example.com');
    expect(mail.subject).toBe('Stöldanmälan: Sjöstjärnan (BOAT42)');
  });
});

/** An ordinary user of the account (same password as its administrator). */
async function ordinaryUser(admin: { accountId: number; userId: number; password: string }, firstName: string) {
  const email = `${firstName.toLowerCase()}-${admin.userId}@example.com`;
  const [row] = await suite.server.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${admin.accountId}, ${email}, (select password_hash from users where id = ${admin.userId}), ${firstName}, 'Vanlig', 'user') returning id`);
  return { id: row!.id, email, password: admin.password, subsiteId: 0 };
}

describe('unit access (spec §6)', () => {
  test('the administrator gives a unit to a user in "access and lock"; the user then sees only that unit', async () => {
    const admin = await suite.server.createAccount();
    const olle = await ordinaryUser(admin, 'Olle');
    await ordinaryUser(admin, 'Pia');
    const van = await addUnit(suite.server, admin.accountId, imei(), 'Skåpbil', { grant: false });
    await addUnit(suite.server, admin.accountId, imei(), 'Chefsbil', { grant: false });

    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${van}`);
    const access = page.getByTestId('section-access');
    await access.getByTestId(`access-user-${olle.id}`).waitFor();
    await access.getByTestId('access-count').getByText('0 av 2 användare ser enheten.').waitFor();
    await access.getByTestId(`access-user-${olle.id}`).getByText('Olle Vanlig').click();
    await access.getByRole('button', { name: 'Spara' }).click();
    await access.getByText('Sparat.').waitFor();
    await access.getByTestId('access-count').getByText('1 av 2 användare ser enheten.').waitFor();
    await access.scrollIntoViewIfNeeded();
    await screenshot(page, 'unit-access-picker');
    await expectAccessible(page, 'unit access');

    const userPage = await suite.newPage();
    await signIn(userPage, olle);
    await userPage.goto('/user/edit-terminal-list');
    await userPage.getByTestId(`unit-row-${van}`).waitFor();
    expect(await userPage.locator('[data-testid^="unit-row-"]').count()).toBe(1);
    // Ordinary users have no access picker.
    await userPage.goto(`/user/edit-terminal?id=${van}`);
    await userPage.getByRole('heading', { name: 'Skåpbil', level: 1 }).waitFor();
    expect(await userPage.getByTestId('section-access').count()).toBe(0);
  });

  test('a car its user locked: the administrator without access sees a notice and no whereabouts', async () => {
    const admin = await suite.server.createAccount();
    const olle = await ordinaryUser(admin, 'Olle');
    const car = await addUnit(suite.server, admin.accountId, imei(), 'Förmånsbil');
    await setState(suite.server, car, { speed: 50, ignition: true });
    await suite.server.database.rows(sql`update units set car_usage = 'benefit', fuel_consumption_per_10km = 0.7, co2_g_per_km = 110,
      locked_by = ${olle.id}, locked_at = now() where id = ${car}`);
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto(`/user/edit-terminal?id=${car}`);
    await page.getByTestId('unit-restricted').waitFor();
    await page.getByTestId('section-lock').getByText(/^Låst av Olle Vanlig/).waitFor();
    await page.getByTestId(`access-user-${olle.id}`).getByText('har låst bilen').waitFor();
    await screenshot(page, 'unit-locked-no-access');
    await page.goto('/user/edit-terminal-list');
    await page.getByTestId(`unit-row-${car}`).getByText('Låst: ingen behörighet').waitFor();
  });
});

describe('catalogues', () => {
  test('departments: add, rename, delete; a feature profile with working hours every two weeks', async () => {
    const admin = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto('/user/edit-terminal-list');
    await page.getByRole('button', { name: 'Avdelningar, projekt, taggar…' }).click();
    const dialog = page.getByTestId('catalog-dialog');
    await dialog.getByRole('button', { name: 'Ny avdelning' }).click();
    await dialog.getByTestId('catalog-name').fill('Norr');
    await dialog.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByTestId('catalog-list-departments').getByText('Norr').waitFor();
    await dialog.getByRole('button', { name: 'Ny avdelning' }).click();
    await dialog.getByTestId('catalog-name').fill('norr');
    await dialog.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByText('Namnet används redan.').waitFor();
    await dialog.getByRole('button', { name: 'Avbryt' }).click();
    await dialog.getByRole('button', { name: 'Byt namn på Norr' }).click();
    await dialog.getByTestId('catalog-name').fill('Nord');
    await dialog.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByTestId('catalog-list-departments').getByText('Nord', { exact: true }).waitFor();

    await dialog.getByRole('tab', { name: 'Funktionsprofiler' }).click();
    await dialog.getByRole('button', { name: 'Ny funktionsprofil' }).click();
    const form = dialog.getByTestId('profile-form');
    await form.getByTestId('profile-name').fill('Skift');
    await form.getByText('Schema för arbetstid').first().click();
    await form.getByTestId('profile-recurrence').selectOption('2');
    await form.getByLabel('Första veckan börjar').fill('2026-03-02');
    await form.getByTestId('profile-week-1').getByText('Måndag').click();
    await form.getByTestId('profile-week-2').getByText('Tisdag').click();
    await screenshot(page, 'unit-feature-profile');
    await form.getByRole('button', { name: 'Spara' }).click();
    await dialog.getByTestId('catalog-list-featureProfiles').getByText('Skift').waitFor();
    await dialog.getByTestId('catalog-list-featureProfiles').getByText(/Var 2:e vecka/).waitFor();
    const [profile] = await suite.server.database.rows<{ working_hours: unknown }>(sql`select working_hours from feature_profiles where account_id = ${admin.accountId}`);
    expect(profile!.working_hours).toEqual({
      recurrence: 2,
      startDate: '2026-03-02',
      days: [
        { week: 1, day: 1, start: '07:00', end: '16:00' },
        { week: 2, day: 2, start: '07:00', end: '16:00' },
      ],
    });
    await expectAccessible(page, 'catalogues');

    await dialog.getByRole('tab', { name: 'Avdelningar' }).click();
    await dialog.getByRole('button', { name: 'Ta bort Nord' }).click();
    await page.getByRole('button', { name: 'OK' }).click();
    await dialog.getByTestId('catalog-list-departments').getByText('Inga ännu.').waitFor();
  });
});

describe('add terminal by support', () => {
  test('support picks the customer account by name and adds the unit to it', async () => {
    const customer = await suite.server.createAccount();
    await suite.server.database.rows(sql`update accounts set company_name = 'Åkeri Nord AB' where id = ${customer.accountId}`);
    const support = await suite.server.createAccount({ role: 'support' });
    const good = imei();
    await suite.server.services.units.addStock({ imeis: [good], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const page = await suite.newPage();
    await page.goto('/?subsite=0');
    await login(page, support.email, support.password);
    await page.waitForURL('**/user/**');
    await page.goto('/administration/add-terminal');
    await page.getByRole('heading', { name: 'Lägg till enhet', level: 1 }).waitFor();
    await page.getByTestId('add-imei').fill(good);
    await page.getByRole('button', { name: 'Lägg till enhet' }).click();
    await page.getByText('Välj kundkonto.').waitFor();
    await page.getByTestId('add-account').fill('Åkeri');
    // Once picked, the account's label is the search text: that search (which finds nothing) must not undo the pick.
    const labelSearched = page.waitForResponse(
      (response) => response.url().includes('/api/admin/add-terminal/accounts') && decodeURIComponent(response.url()).includes(`(#${customer.accountId})`),
    );
    await page.getByRole('option', { name: /Åkeri Nord AB/ }).click();
    await page.getByRole('listbox').waitFor({ state: 'hidden' });
    await labelSearched;
    await page.waitForTimeout(200);
    expect(await page.getByTestId('add-account').inputValue()).toBe(`Åkeri Nord AB (#${customer.accountId})`);
    await screenshot(page, 'add-terminal-support');
    await page.getByRole('button', { name: 'Lägg till enhet' }).click();
    await page.getByTestId('terminal-added').waitFor();
    const [unit] = await suite.server.database.rows<{ account_id: number }>(sql`select account_id from units where imei = ${good}`);
    expect(unit!.account_id).toBe(customer.accountId);
  });
});

describe('operating hours and the checked-in driver', () => {
  test('the hours counted from the tracker show on the unit; the list can show the checked-in driver', async () => {
    const admin = await suite.server.createAccount();
    const olle = await ordinaryUser(admin, 'Olle');
    const unitId = await addUnit(suite.server, admin.accountId, imei(), 'Traktor');
    await suite.server.database.rows(sql`insert into unit_engine_hours (unit_id, counted_s, tracker_s) values (${unitId}, 0, ${1234.5 * 3600})`);
    await suite.server.database.rows(sql`insert into trip_driver_checkins (unit_id, account_id, user_id, checked_in_at) select id, account_id, ${olle.id}, now() from units where id = ${unitId}`);
    const shown = ['name', 'driver', 'operatingHours'];
    const view = { sorting: [{ id: 'name', desc: false }], hidden: UNIT_LIST_COLUMNS.filter((column) => !shown.includes(column)) };
    await suite.server.database.rows(sql`insert into user_preferences (user_id, account_id, key, value, updated_at)
      values (${admin.userId}, ${admin.accountId}, 'table.units', ${JSON.stringify(view)}::jsonb, now())`);
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.goto('/user/edit-terminal-list');
    const row = page.getByTestId(`unit-row-${unitId}`);
    await row.getByText('Olle Vanlig').waitFor();
    await row.getByText(/^1\s?234,5\sh$/).waitFor();
    await screenshot(page, 'unit-list-driver-hours');
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    expect(await page.getByTestId('section-meters').getByLabel('Drifttimmar i dag (h)').inputValue()).toBe('1234,5');
  });
});
