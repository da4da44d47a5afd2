import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
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

describe('passwords', () => {
  test('forgot password, the mailed link, reset, then login with the new password', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await page.goto('/');
    await page.getByRole('link', { name: 'Glömt lösenordet?' }).click();
    await page.getByRole('heading', { name: 'Glömt lösenord' }).waitFor();

    // An unknown address gets the same answer as a known one: the form tells nobody who has an account.
    const sent = 'Om adressen hör till ett konto har en länk för att återställa lösenordet skickats dit.';
    await page.getByLabel('E-postadress').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Skicka länk' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText(sent).waitFor();
    await page.getByRole('link', { name: 'Glömt lösenordet?' }).click();

    await page.getByLabel('E-postadress').fill(account.email);
    await page.getByRole('button', { name: 'Skicka länk' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText(sent).waitFor();

    const mail = await suite.server.smtp.waitFor(account.email);
    const link = mail.text.match(/https?:\/\/\S+reset-password\?_c=[\w-]+/)?.[0];
    expect(link).toBeDefined();
    expect(link!.startsWith(suite.server.url)).toBe(true);
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Välj ett nytt lösenord' }).waitFor();

    // The shared schema checks the rules in the browser.
    await page.getByLabel('Nytt lösenord', { exact: true }).fill('short');
    await page.getByLabel('Bekräfta nytt lösenord').fill('short');
    await page.getByRole('button', { name: 'Spara lösenord' }).click();
    await page.getByText('Lösenordet måste ha minst 8 tecken.').waitFor();

    const newPassword = 'Brand-New-2026!';
    await page.getByLabel('Nytt lösenord', { exact: true }).fill(newPassword);
    await page.getByLabel('Bekräfta nytt lösenord').fill(newPassword);
    await page.getByRole('button', { name: 'Spara lösenord' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText('Ditt lösenord har ändrats. Logga in med det nya lösenordet.').waitFor();

    await login(page, account.email, newPassword);
    await page.waitForURL('**/user/realtime-tracking');

    // The link works once.
    const second = await suite.newPage();
    await second.goto(link!);
    await second.getByLabel('Nytt lösenord', { exact: true }).fill(newPassword);
    await second.getByLabel('Bekräfta nytt lösenord').fill(newPassword);
    await second.getByRole('button', { name: 'Spara lösenord' }).click();
    await second.getByText('Ogiltig återställningskod.').waitFor();
  });

  test('the change-password dialog traps focus, saves only matching passwords and confirms', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await page.goto('/');
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.getByRole('button', { name: 'Byt lösenord' }).click();
    const dialog = page.getByRole('dialog', { name: 'Byt lösenord' });
    await dialog.waitFor();

    const save = dialog.getByRole('button', { name: 'Spara' });
    expect(await save.isDisabled()).toBe(true);
    // The current password first: a session alone changes no password.
    await dialog.getByLabel('Nuvarande lösenord').fill(account.password);
    expect(await save.isDisabled()).toBe(true);
    await dialog.getByLabel('Nytt lösenord', { exact: true }).fill('Changed-Pass-1!');
    expect(await save.isDisabled()).toBe(true);
    await dialog.getByLabel('Bekräfta nytt lösenord').fill('Changed-Pass-2!');
    expect(await save.isDisabled()).toBe(true);

    // Focus stays inside the dialog however often Tab is pressed.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    }

    await dialog.getByLabel('Bekräfta nytt lösenord').fill('Changed-Pass-1!');
    expect(await save.isDisabled()).toBe(false);
    await save.click();
    const message = page.getByRole('dialog', { name: 'Meddelande' });
    await message.getByText('Användaren har uppdaterats').waitFor();
    await message.getByRole('button', { name: 'OK' }).click();
    await message.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Logga ut' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await login(page, account.email, 'Changed-Pass-1!');
    await page.waitForURL('**/user/realtime-tracking');
  });

  test('alert opt-out: a failure in a red banner, then success', async () => {
    const account = await suite.server.createAccount();
    const page = await suite.newPage();
    await page.goto('/user/alerts');
    await page.getByLabel('E-postadress').fill(account.email);
    await page.getByLabel('Lösenord').fill('Not-the-password-1');
    await page.getByRole('button', { name: 'Stoppa larm' }).click();
    const banner = page.getByTestId('banner-error');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Fel e-postadress eller lösenord.');
    await page.getByLabel('Lösenord').fill(account.password);
    await page.getByRole('button', { name: 'Stoppa larm' }).click();
    await page.getByText(`${account.email} får inte längre larm eller pushnotiser.`).waitFor();
  });

  test('account deletion shows the contact address of the sub-site', async () => {
    const page = await suite.newPage();
    await page.goto('/account/deletion?subsite=3');
    const contact = page.getByTestId('contact-address');
    await contact.waitFor();
    const text = await contact.textContent();
    expect(text).toContain('post@kjorebokpro.example');
    expect(text).toContain('+47 22 00 00 00');
  });
});
