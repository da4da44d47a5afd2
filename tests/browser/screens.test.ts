import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { DESKTOP, expectAccessible, login, PHONE, screenshot, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

/**
 * Screenshots of login (both designs), a wizard step, the shell and the administrator's working screens at 1280×800
 * and 390×844, saved under artifacts/screenshots, and axe-core on each of them: no serious or critical violation.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

const sizes = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

describe('screens at desktop and phone width', () => {
  for (const [label, viewport] of sizes) {
    test(`login, new design (${label})`, async () => {
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=0');
      await page.getByRole('link', { name: 'Registrera dig här' }).waitFor();
      expect(await page.locator('[data-design="new"]').count()).toBe(1);
      await screenshot(page, `login-new-${label}`);
      await expectAccessible(page, `login new ${label}`);
    });

    test(`login, old design (${label})`, async () => {
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=1');
      await page.locator('[data-design="old"]').waitFor();
      await screenshot(page, `login-old-${label}`);
      await expectAccessible(page, `login old ${label}`);
    });

    test(`registration wizard step (${label})`, async () => {
      const page = await suite.newPage(viewport);
      await page.goto('/user/register?subsite=0');
      await page.getByText('Företag', { exact: true }).click();
      await page.getByRole('button', { name: 'Nästa' }).click();
      await page.getByRole('heading', { name: 'Land' }).waitFor();
      await screenshot(page, `wizard-country-${label}`);
      await expectAccessible(page, `wizard ${label}`);
      // A failed step shows its errors; they must be accessible too.
      await page.getByRole('button', { name: 'Nästa' }).click();
      await page.getByRole('heading', { name: 'Spårsändarens IMEI' }).waitFor();
      await page.getByRole('button', { name: 'Nästa' }).click();
      await page.locator('.field-error').first().waitFor();
      await expectAccessible(page, `wizard error ${label}`);
    });

    test(`shell (${label})`, async () => {
      const account = await suite.server.createAccount();
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=0');
      await login(page, account.email, account.password);
      await page.waitForURL('**/user/realtime-tracking');
      await page.getByRole('heading', { name: 'Karta', level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `shell-${label}`);
      await expectAccessible(page, `shell ${label}`);
      if (label === 'phone') {
        // At phone width the sidebar is a drawer behind the menu toggle.
        const toggle = page.getByRole('button', { name: 'Meny' });
        expect(await toggle.getAttribute('aria-expanded')).toBe('false');
        await toggle.click();
        await page.getByRole('link', { name: 'Geostaket' }).waitFor();
        await page.waitForTimeout(400); // the drawer slides in
        await screenshot(page, 'shell-phone-menu');
        await expectAccessible(page, 'shell phone menu');
      }
    });

    test(`alarm receivers with the bell open (${label})`, async () => {
      const account = await suite.server.createAccount();
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=0');
      await login(page, account.email, account.password);
      await page.waitForURL('**/user/realtime-tracking');
      await page.goto('/administration/configure-alarm-receiver');
      await page.getByRole('heading', { name: 'Larmmottagare', level: 1 }).waitFor();
      await page.getByTestId('alarm-language-select').waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `alarm-receivers-${label}`);
      await expectAccessible(page, `alarm receivers ${label}`);
      await page.getByTestId('alarm-bell').click();
      await page.getByTestId('bell-empty').waitFor();
      await expectAccessible(page, `alarm bell ${label}`);
    });

    test(`car schedule (${label})`, async () => {
      const account = await suite.server.createAccount();
      const imei = label === 'phone' ? '358100000231002' : '358100000231001';
      await suite.server.database.rows(sql`
        insert into units (account_id, imei, name, registration_number, model) values (${account.accountId}, ${imei}, 'Volvo V60', 'ABC123', 'V60')`);
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=0');
      await login(page, account.email, account.password);
      await page.waitForURL('**/user/realtime-tracking');
      await page.goto('/user/car-schedule');
      await page.getByTestId(`vehicle-row-${imei}`).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `car-schedule-${label}`);
      await expectAccessible(page, `car schedule ${label}`);
    });
  }

  const workingScreens = [
    ['triplog', '/user/create-triplog'],
    ['units', '/user/edit-terminal-list'],
    ['places', '/user/places'],
    ['geofences', '/user/geofences'],
    ['geofence-new', '/user/geofences/add-edit-geofences'],
    ['user-accounts', '/administration/user-accounts'],
    ['account-settings', '/administration/account-settings'],
    ['audit-log', '/administration/audit-log'],
    ['safe-return-home', '/administration/safe-return-home'],
  ] as const;
  for (const [label, viewport] of sizes) {
    for (const half of [workingScreens.slice(0, 4), workingScreens.slice(4)]) {
      test(`an administrator's ${half.map(([name]) => name).join(', ')} (${label})`, async () => {
        const account = await suite.server.createAccount();
        const page = await suite.newPage(viewport);
        await page.goto('/?subsite=0');
        await login(page, account.email, account.password);
        await page.waitForURL('**/user/realtime-tracking');
        for (const [name, path] of half) {
          await page.goto(path);
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          await page.waitForLoadState('networkidle');
          expect(await page.getByText('Sidan hittades inte').count()).toBe(0);
          await screenshot(page, `${name}-${label}`);
          await expectAccessible(page, `${path} ${label}`);
        }
      }, 120_000);
    }
  }

  test('the other public screens, the two-factor screen and the dialogs pass axe too', async () => {
    const page = await suite.newPage(DESKTOP);
    for (const [path, ready] of [
      ['/user/forgot-password', 'Glömt lösenord'],
      ['/user/reset-password?_c=abc', 'Välj ett nytt lösenord'],
      ['/user/alerts', 'Stoppa larm'],
      ['/account/deletion', 'Radera ditt konto'],
      ['/no/such/page', 'Sidan hittades inte'],
      ['/user/register?subsite=1', 'Registrera dig'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { name: ready, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await expectAccessible(page, path);
    }
    await screenshot(page, 'register-old-desktop');

    const twoFactor = await suite.server.createAccount({ twoFactor: true });
    await page.goto('/?subsite=0');
    await login(page, twoFactor.email, twoFactor.password);
    await page.getByRole('heading', { name: 'Ange din kod' }).waitFor();
    await screenshot(page, 'two-factor-desktop');
    await expectAccessible(page, 'two-factor');
    await page.getByRole('button', { name: 'Avbryt' }).click();

    const account = await suite.server.createAccount();
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.getByRole('button', { name: 'Byt lösenord' }).click();
    await page.getByRole('dialog', { name: 'Byt lösenord' }).waitFor();
    await page.waitForTimeout(200);
    await screenshot(page, 'change-password-desktop');
    await expectAccessible(page, 'change-password dialog');
  });
});

describe('reports screens at desktop and phone width', () => {
  for (const [label, viewport] of sizes) {
    test(`every report and the schedule dialog (${label})`, async () => {
      const account = await suite.server.createAccount();
      const imei = label === 'phone' ? '358100000232002' : '358100000232001';
      await suite.server.database.rows(sql`
        insert into units (account_id, imei, name, registration_number, fuel_type, fuel_consumption_per_10km)
        values (${account.accountId}, ${imei}, 'Volvo V60', 'ABC123', 'diesel', 0.6)`);
      const page = await suite.newPage(viewport);
      await page.goto('/?subsite=0');
      await login(page, account.email, account.password);
      await page.waitForURL('**/user/realtime-tracking');
      for (const report of ['summary', 'benefit', 'eco', 'fuel', 'co2', 'environment']) {
        await page.goto(`/user/reports/${report}`);
        await page.getByRole('heading', { name: 'Rapporter', level: 1 }).waitFor();
        await page.getByTestId('report-totals').waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.getByTestId('report-error').count()).toBe(0);
        await screenshot(page, `reports-${report}-${label}`);
        await expectAccessible(page, `reports ${report} ${label}`);
      }
      await page.goto('/user/reports/summary');
      await page.getByTestId('report-schedule').click();
      await page.getByRole('dialog').getByTestId('schedule-emails').waitFor();
      await screenshot(page, `reports-schedule-${label}`);
      await expectAccessible(page, `reports schedule dialog ${label}`);
    }, 120_000);
  }
});
