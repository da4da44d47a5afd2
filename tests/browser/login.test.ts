import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { login, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

describe('routing and login', () => {
  test('an anonymous visitor of a protected route is sent to the login page', async () => {
    const page = await suite.newPage();
    await page.goto('/user/realtime-tracking');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('heading', { name: 'Logga in' }).waitFor();
    await page.goto('/administration/user-accounts');
    await page.waitForURL((url) => url.pathname === '/');
  });

  test('a successful login lands on the map route and shows the shell', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await expect(page.getByTestId('user-name').textContent()).resolves.toContain('Test User');
    await page.getByRole('heading', { name: 'Karta', level: 1 }).waitFor();
    await expect(page.getByTestId('footer').textContent()).resolves.toBe(`Trackia © ${new Date().getFullYear()}`);
    // The stored user is encrypted: neither the token nor the e-mail appear in plain text.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toContain(account.email);
    // A reload keeps the session; the login page sends a signed-in user back to the map.
    await page.goto('/');
    await page.waitForURL('**/user/realtime-tracking');
    // Logout returns to the login page and forgets the user.
    await page.getByRole('button', { name: 'Logga ut' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto('/user/realtime-tracking');
    await page.waitForURL((url) => url.pathname === '/');
  });

  test('a user without the map lands on the trip log', async () => {
    const account = await suite.server.createAccount();
    await suite.server.database.exec(`update users set realtime_map = false where id = ${account.userId}`);
    const page = await suite.newPage();
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.waitForURL((url) => url.pathname === '/user/create-triplog');
    await expect(page.getByRole('link', { name: 'Karta' }).count()).resolves.toBe(0);
  });

  test('a wrong password shows the red banner with the attempts left, then the lockout', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await page.goto('/');
    await login(page, account.email, 'Wrong-password-1');
    const banner = page.getByTestId('login-error');
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toBe('Fel användarnamn eller lösenord. 4 försök kvar.');
    for (let attempt = 0; attempt < 4; attempt++) {
      await page.getByRole('button', { name: 'Logga in' }).click();
      await page.waitForTimeout(50);
      await page.getByRole('button', { name: 'Logga in' }).waitFor();
    }
    await page.waitForFunction(() => document.querySelector('[data-testid="login-error"]')?.textContent?.includes('en timme'));
    await expect(banner.textContent()).resolves.toBe('För många misslyckade inloggningar. Försök igen om en timme.');
  });

  test('required fields are checked in the browser before any call', async () => {
    const page = await suite.newPage();
    await page.goto('/');
    await page.getByRole('button', { name: 'Logga in' }).click();
    await page.getByText('Ange användarnamn.').waitFor();
  });

  test('unknown paths show the not-found page, inside the shell when signed in', async () => {
    const page = await suite.newPage();
    for (const path of ['/nope', '/user/nope', '/administration/nope']) {
      await page.goto(path);
      await page.getByTestId('not-found').waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
    }
    const account = await suite.server.createAccount({ role: 'user' });
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/does-not-exist');
    await page.getByTestId('not-found').waitFor();
    await page.getByTestId('user-name').waitFor();
    // A plain user does not reach administrator screens.
    await page.goto('/administration/add-terminal');
    await page.getByTestId('not-found').waitFor();
    await expect(page.getByRole('link', { name: 'Lägg till enhet' }).count()).resolves.toBe(0);
  });

  test('a network failure says so', async () => {
    const page = await suite.newPage();
    await page.goto('/');
    await page.route('**/api/login', (route) => route.abort('connectionrefused'));
    await login(page, 'someone@example.com', 'Whatever-1!');
    const banner = page.getByTestId('login-error');
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain('Nätverksfel');
  });
});

describe("a new visitor's language", () => {
  test('a Norwegian brand greets in Norwegian; an English browser on a brand without a default gets English; else Swedish', async () => {
    // The brand's default language is brand data (its row's features), as an operator sets it.
    await suite.server.database.rows(sql`update brands set features = features || '{"DefaultLanguage": "no"}'::jsonb where subsite_id = 3`);
    try {
      const visit = async (locale: string, subsite: number) => {
        const context = await suite.browser.newContext({ baseURL: suite.server.url, locale, viewport: { width: 1280, height: 800 } });
        try {
          const page = await context.newPage();
          await page.goto(`/?subsite=${subsite}`);
          const button = page.getByRole('button', { name: /^(Logga in|Log in|Logg inn)$/ });
          await button.waitFor();
          return { button: await button.textContent(), lang: await page.evaluate(() => document.documentElement.lang) };
        } finally {
          await context.close();
        }
      };
      // Norwegian brand, Swedish and English browsers alike: Norwegian.
      expect(await visit('sv-SE', 3)).toEqual({ button: 'Logg inn', lang: 'nb' });
      expect(await visit('en-GB', 3)).toEqual({ button: 'Logg inn', lang: 'nb' });
      // A brand without a default: the browser's language (English, Norwegian), else Swedish.
      expect(await visit('en-US', 0)).toEqual({ button: 'Log in', lang: 'en' });
      expect(await visit('nb-NO', 0)).toEqual({ button: 'Logg inn', lang: 'nb' });
      expect(await visit('de-DE', 0)).toEqual({ button: 'Logga in', lang: 'sv' });

      // A choice made in the language picker is kept for the next visit, over the brand's default.
      const context = await suite.browser.newContext({ baseURL: suite.server.url, locale: 'sv-SE' });
      const page = await context.newPage();
      await page.goto('/?subsite=3');
      await page.getByRole('button', { name: 'Logg inn' }).waitFor();
      await page.getByTestId('language-picker').selectOption('en');
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await context.close();
    } finally {
      await suite.server.database.rows(sql`update brands set features = features - 'DefaultLanguage' where subsite_id = 3`);
    }
  });
});
