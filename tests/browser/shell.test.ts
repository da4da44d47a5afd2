import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { AVATAR_COLORS } from '../../src/web/lib/session';
import { login, PHONE, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

let suite: Suite;
let parentAccountId: number;

beforeAll(async () => {
  // The first account of the fresh database gets id 1: the configured alert-numbers parent.
  suite = await startSuite({ env: { ALERT_NUMBERS_PARENT_ACCOUNT_ID: '1' } });
  const parent = await suite.server.createAccount();
  parentAccountId = parent.accountId;
});

afterAll(async () => {
  await suite?.close();
});

async function signIn(page: Page, account: { email: string; password: string; subsiteId: number }) {
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
}

async function navLabels(page: Page): Promise<string[]> {
  return (await page.locator('#sidebar nav a').allTextContents()).map((text) => text.trim());
}

describe('language', () => {
  test('the picker switches every text between sv, en and no, sv by default, and is remembered', async () => {
    const page = await suite.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Logga in' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('sv');

    await page.getByTestId('language-picker').selectOption('en');
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByText('Remember me').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // Server messages follow the language too.
    await login(page, 'nobody@example.com', 'Wrong-password-1');
    await page.getByText('Wrong username or password.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();

    await page.getByTestId('language-picker').selectOption('no');
    await page.getByRole('heading', { name: 'Logg inn' }).waitFor();
    await page.getByText('Husk meg').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('nb');

    // In the shell as well.
    const account = await suite.server.createAccount({ role: 'user' });
    await signIn(page, account);
    expect(await navLabels(page)).toContain('Kjørebok');
    await page.getByTestId('language-picker').selectOption('sv');
    await page.getByRole('link', { name: 'Körjournal' }).waitFor();
    await page.getByRole('button', { name: 'Logga ut' }).waitFor();
  });
});

describe('brands', () => {
  test('the sub-site changes name, logo, colours, login design and notice', async () => {
    const page = await suite.newPage();
    await page.goto('/?subsite=0');
    await page.locator('[data-design="new"]').waitFor();
    expect(await page.title()).toBe('Trackia');
    expect(await page.getByTestId('brand-logo').first().getAttribute('src')).toBe('/brands/0/logo.svg');

    await page.goto('/?subsite=3');
    await page.getByText('Välkommen till Kjørebok Pro').waitFor();
    expect(await page.title()).toBe('Kjørebok Pro');
    const logo = page.getByTestId('brand-logo').first();
    expect(await logo.getAttribute('src')).toBe('/brands/3/logo.svg');
    expect(await logo.getAttribute('alt')).toBe('Kjørebok Pro');
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--brand-primary').trim())).toBe('#b3261e');
    expect(await page.locator('.login-footer').first().textContent()).toContain('Kjørebok Pro ©');

    // The choice is remembered without the parameter.
    await page.goto('/user/forgot-password');
    await page.getByTestId('brand-logo').first().waitFor();
    expect(await page.getByTestId('brand-logo').first().getAttribute('src')).toBe('/brands/3/logo.svg');

    // Old design, and the sub-site 6 notice pointing to another portal.
    await page.goto('/?subsite=6');
    await page.locator('[data-design="old"]').waitFor();
    expect(await page.getByTestId('subsite-notice').textContent()).toContain('portal.trackia.example');

    // The black logo of sub-site 7 sits on a light plate on the dark welcome panel.
    await page.goto('/?subsite=7');
    await page.getByText('Välkommen till Onyx Track').waitFor();
    expect(await page.locator('.login-welcome .brand-logo--plate img').getAttribute('src')).toBe('/brands/7/logo.svg');
  });

  test('a signed-in user sees the brand of their own account, with its support link rule', async () => {
    const norwegian = await suite.server.createAccount({ subsiteId: 3 });
    const page = await suite.newPage();
    await signIn(page, norwegian);
    expect(await page.getByTestId('footer').textContent()).toBe(`Kjørebok Pro © ${new Date().getFullYear()}`);
    expect(await page.getByTestId('support-link').getAttribute('href')).toBe('mailto:support@kjorebokpro.example');

    const boat = await suite.server.createAccount({ subsiteId: 5 });
    const other = await suite.newPage();
    await signIn(other, boat);
    expect(await other.getByTestId('footer').textContent()).toContain('Båtvakt ©');
    expect(await other.getByTestId('support-link').count()).toBe(0);
  });
});

describe('shell', () => {
  test('an administrator on the main brand sees every entry, the support link and an avatar colour of the eight', async () => {
    const page = await suite.newPage();
    const admin = await suite.server.createAccount();
    await signIn(page, admin);
    // Car booking and safe return home show once their settings are read (two queries after sign-in).
    for (const name of ['Bilbokning', 'Säker hemkomst']) await page.locator('#sidebar nav a', { hasText: name }).waitFor();
    expect(await navLabels(page)).toEqual([
      'Karta',
      'Körjournal',
      'Rapporter',
      'Geostaket',
      'Platser',
      'Enheter',
      'Bilbokning',
      'Användarkonton',
      'Kontoinställningar',
      'Händelselogg',
      'Säker hemkomst',
      'Larmmottagare',
      'Lägg till enhet',
    ]);
    expect(await page.getByTestId('support-link').getAttribute('href')).toBe('mailto:support@trackia.example');
    const color = await page.getByTestId('avatar').evaluate((el) => getComputedStyle(el).backgroundColor);
    const rgb = (hex: string) => `rgb(${Number.parseInt(hex.slice(1, 3), 16)}, ${Number.parseInt(hex.slice(3, 5), 16)}, ${Number.parseInt(hex.slice(5, 7), 16)})`;
    expect(AVATAR_COLORS.map(rgb)).toContain(color);
    // Unit is also highlighted on the unit edit route.
    await page.goto('/user/edit-terminal');
    await page.getByTestId('not-found').waitFor();
    expect(await page.getByRole('link', { name: 'Enheter' }).getAttribute('class')).toContain('active');
  });

  test('basic-only subscription, ordinary users and switched-off features', async () => {
    const basic = await suite.server.createAccount({ role: 'user' });
    await suite.server.database.exec(`update users set basic_only = true where id = ${basic.userId}`);
    const page = await suite.newPage();
    await signIn(page, basic);
    expect(await navLabels(page)).toEqual(['Karta', 'Logg', 'Geostaket', 'Enheter']);
    await page.goto('/user/car-schedule');
    await page.waitForURL('**/user/realtime-tracking');

    // Sub-site 2 has no car schedule: no entry, and its page sends the user to the map.
    const noSchedule = await suite.server.createAccount({ subsiteId: 2 });
    const second = await suite.newPage();
    await signIn(second, noSchedule);
    await second.locator('#sidebar nav a', { hasText: 'Säker hemkomst' }).waitFor();
    expect(await navLabels(second)).not.toContain('Bilbokning');
    await second.goto('/user/car-schedule');
    await second.waitForURL('**/user/realtime-tracking');

    // Sub-site 1 has no safe return home: no entry, and its page sends the administrator to the map.
    const noSafeHome = await suite.server.createAccount({ subsiteId: 1 });
    const third = await suite.newPage();
    await signIn(third, noSafeHome);
    await third.locator('#sidebar nav a', { hasText: 'Bilbokning' }).waitFor();
    expect(await navLabels(third)).not.toContain('Säker hemkomst');
    await third.goto('/administration/safe-return-home');
    await third.waitForURL('**/user/realtime-tracking');
  });

  test('configure-alert-numbers exists only for the configured parent account', async () => {
    const child = await suite.server.createAccount({ parentId: parentAccountId, role: 'user' });
    const page = await suite.newPage();
    await signIn(page, child);
    expect(await navLabels(page)).toContain('Larmnummer');

    const stranger = await suite.server.createAccount();
    const other = await suite.newPage();
    await signIn(other, stranger);
    expect(await navLabels(other)).not.toContain('Larmnummer');
    await other.goto('/administration/configure-alert-numbers');
    await other.getByTestId('not-found').waitFor();
  });

  test('the announcement banner shows the text of the language and closes', async () => {
    await suite.server.database.exec(
      `insert into announcements (subsite_id, language, text) values (4, 'sv', 'Planerat underhåll i natt.'), (4, 'en', 'Planned maintenance tonight.')`,
    );
    const account = await suite.server.createAccount({ subsiteId: 4 });
    const page = await suite.newPage();
    await signIn(page, account);
    const banner = page.getByRole('region', { name: 'Meddelande' });
    await banner.getByText('Planerat underhåll i natt.').waitFor();
    await page.getByTestId('language-picker').selectOption('en');
    await page.getByRole('region', { name: 'Announcement' }).getByText('Planned maintenance tonight.').waitFor();
    await page.getByRole('button', { name: 'Close announcement' }).click();
    expect(await page.getByText('Planned maintenance tonight.').count()).toBe(0);
  });

  test('at phone width the menu toggle opens and closes the sidebar drawer', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage(PHONE);
    await signIn(page, account);
    const toggle = page.getByRole('button', { name: 'Meny' });
    expect(await page.getByRole('link', { name: 'Geostaket' }).isVisible()).toBe(false);
    await toggle.click();
    await page.getByRole('link', { name: 'Geostaket' }).click();
    await page.waitForURL('**/user/geofences');
    await page.waitForTimeout(300);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  });

  test('an expired session (Unauthenticated.) returns to the login page', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, account);
    await suite.server.database.exec(`update sessions set revoked_at = now() where user_id = ${account.userId}`);
    await page.reload();
    // The address is what matters here, not the reloaded map's own load (slow with software WebGL); the heading follows.
    await page.waitForURL((url) => url.pathname === '/', { waitUntil: 'commit' });
    await page.getByRole('heading', { name: 'Logga in' }).waitFor();
  });

  test('a screen crash offers refresh or ignore', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await signIn(page, account);
    // A malformed answer makes the map screen throw while rendering.
    await page.route('**/api/tracking/units', (route) =>
      route.fulfill({ json: { success: true, data: { serverTime: new Date().toISOString(), units: [null] }, errors: null } }),
    );
    await page.reload();
    const dialog = page.getByRole('alertdialog', { name: 'Något gick fel' });
    await dialog.waitFor();
    await page.unroute('**/api/tracking/units');
    await dialog.getByRole('button', { name: 'Ladda om' }).click();
    await page.getByRole('heading', { name: 'Karta', level: 1 }).waitFor();
    expect(await page.getByRole('alertdialog').count()).toBe(0);
  });
});
