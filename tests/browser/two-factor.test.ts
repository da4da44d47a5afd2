import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { login, startSuite, type Suite, watchContentSecurityPolicy } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

async function codeFromMail(to: string): Promise<string> {
  const mail = await suite.server.smtp.waitFor(to);
  const code = mail.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code in mail: ${mail.text}`);
  return code;
}

function seconds(countdown: string | null): number {
  const [minutes, secs] = (countdown ?? '').split(':').map(Number);
  return (minutes ?? 0) * 60 + (secs ?? 0);
}

const verifyButton = (page: Page) => page.getByRole('button', { name: 'Verifiera' });
const resendButton = (page: Page) => page.getByRole('button', { name: 'Skicka ny kod' });

describe('two-factor login', () => {
  test('code from the mail, countdown kept across reloads, resend, trust this browser', async () => {
    const account = await suite.server.createAccount({ twoFactor: true });
    const context = await suite.newContext();
    const page = await suite.newPage(undefined, context);
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Ange din kod' }).waitFor();
    const firstCode = await codeFromMail(account.email);

    // Countdown from 03:00; resend waits for 00:00; Verify needs more than 5 characters.
    const countdown = page.getByTestId('countdown');
    expect(seconds(await countdown.textContent())).toBeGreaterThan(170);
    expect(await resendButton(page).isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Kod' }).fill('12345');
    expect(await verifyButton(page).isDisabled()).toBe(true);

    // A reload keeps the screen and the running countdown, and asks for no new code.
    await page.reload();
    await page.getByRole('heading', { name: 'Ange din kod' }).waitFor();
    const afterReload = seconds(await countdown.textContent());
    expect(afterReload).toBeGreaterThan(160);
    expect(afterReload).toBeLessThanOrEqual(180);
    expect(suite.server.smtp.inbox.filter((mail) => mail.to.includes(account.email))).toHaveLength(0);

    // A wrong code: the server's text under the field and the countdown at zero, so resend is possible.
    const wrong = firstCode === '000000' ? '111111' : '000000';
    await page.getByRole('textbox', { name: 'Kod' }).fill(wrong);
    expect(await verifyButton(page).isDisabled()).toBe(false);
    await verifyButton(page).click();
    await page.getByText('Fel kod.').waitFor();
    expect(await countdown.textContent()).toBe('00:00');
    expect(await resendButton(page).isDisabled()).toBe(false);

    // Resend: a new mail and a 00:10 countdown (the server sends codes at least 10 s apart).
    suite.server.clock.advance(10_000);
    await resendButton(page).click();
    const secondCode = await codeFromMail(account.email);
    expect(seconds(await countdown.textContent())).toBeLessThanOrEqual(10);
    expect(seconds(await countdown.textContent())).toBeGreaterThan(5);
    expect(await resendButton(page).isDisabled()).toBe(true);

    await page.getByRole('textbox', { name: 'Kod' }).fill(secondCode);
    await page.getByText('Lita på den här webbläsaren').click();
    await verifyButton(page).click();
    await page.waitForURL('**/user/realtime-tracking');

    // Trusted: the next login in this browser skips the code.
    await page.getByRole('button', { name: 'Logga ut' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');

    // Another browser (another fingerprint) is not trusted.
    const otherContext = watchContentSecurityPolicy(await suite.browser.newContext({ baseURL: suite.server.url, locale: 'sv-SE', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) OtherBrowser/1.0' }));
    const other = await otherContext.newPage();
    await other.goto('/');
    await login(other, account.email, account.password);
    await other.getByRole('heading', { name: 'Ange din kod' }).waitFor();
    await codeFromMail(account.email);
    await otherContext.close();
  });

  test('cancel clears the pending login and returns to the start', async () => {
    const account = await suite.server.createAccount({ twoFactor: true });
    const page = await suite.newPage();
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.getByRole('heading', { name: 'Ange din kod' }).waitFor();
    await codeFromMail(account.email);
    await page.getByRole('button', { name: 'Avbryt' }).click();
    await page.getByRole('heading', { name: 'Logga in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.reload();
    await page.getByRole('heading', { name: 'Logga in' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('fleet.2fa.pending'))).toBeNull();
  });
});
