import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { DESKTOP, login, PHONE, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

/**
 * Screenshots of login (both designs), a wizard step and the shell at 1280×800 and 390×844, saved under
 * artifacts/screenshots, and axe-core on each of them: no serious or critical violation.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

async function expectAccessible(page: Page, what: string) {
  const violations = await seriousA11yViolations(page);
  if (violations.length > 0) console.error(what, JSON.stringify(violations, null, 2));
  expect(violations.map((v) => `${what}: ${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
}

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
