import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { isValidPersonnummer } from '../../src/modules/accounts/model';
import { login, screenshot, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(60_000);

let suite: Suite;
let imeiSequence = 0;

beforeAll(async () => {
  suite = await startSuite();
});

afterAll(async () => {
  await suite?.close();
});

/** A tracker in stock, as support registers it. */
async function stockImei(): Promise<string> {
  imeiSequence += 1;
  const imei = `35209900${String(Date.now() % 10_000).padStart(4, '0')}${String(imeiSequence).padStart(3, '0')}`;
  await suite.server.database.exec(`insert into tracker_stock (imei) values ('${imei}')`);
  return imei;
}

async function accountOf(email: string) {
  const [row] = await suite.server.database.query<{
    is_private: boolean;
    company_name: string;
    org_number: string;
    country: string;
    phone: string;
    payment_type: number;
    first_name: string;
    last_name: string;
    personal_number: string;
    subsite_id: number;
  }>(
    `select a.is_private, a.company_name, a.org_number, a.country, a.phone, a.payment_type, a.subsite_id, u.first_name, u.last_name, u.personal_number
       from users u join accounts a on a.id = u.account_id where u.email = $1`,
    [email],
  );
  return row;
}

const next = (page: Page, label = 'Nästa') => page.getByRole('button', { name: label, exact: true }).click();
const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
const activeName = (page: Page) => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? '');

describe('registration wizard', () => {
  test('a company in Sweden, with every check on the way', async () => {
    const imei = await stockImei();
    const existing = await suite.server.createAccount();
    const email = `company-${Date.now()}@example.com`;
    const page = await suite.newPage();
    await page.goto('/?subsite=0');
    await page.getByRole('link', { name: 'Registrera dig här' }).click();
    await page.waitForURL('**/user/register');

    // Welcome: a type is required.
    await next(page);
    await page.getByText('Välj företag eller privatperson.').waitFor();
    await page.getByText('Företag', { exact: true }).click();
    await next(page);

    await heading(page, 'Land');
    expect(await page.getByTestId('country').inputValue()).toBe('SE');
    await page.getByText('Landsnummer +46').waitFor();
    await next(page);

    // IMEI: the format in the browser, stock and use on the server; the error under the field, focus back.
    await heading(page, 'Spårsändarens IMEI');
    await page.getByLabel('IMEI', { exact: true }).fill('12345');
    await next(page);
    await page.getByText('IMEI-numret måste bestå av exakt 15 siffror.').waitFor();
    await page.getByLabel('IMEI', { exact: true }).fill('999999999999999');
    await next(page);
    await page.getByText('IMEI-numret finns inte registrerat hos oss. Kontrollera numret på spåraren.').waitFor();
    // The wizard moves focus back to the field in the frame after it shows the error.
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === 'Imei', null, { timeout: 5000 });
    expect(await activeName(page)).toBe('Imei');
    await page.getByLabel('IMEI', { exact: true }).fill(imei);
    await next(page);

    await heading(page, 'Återförsäljare');
    await page.getByLabel('Återförsäljare', { exact: true }).fill('Bilservice Norr');
    await next(page);

    await heading(page, 'Företagsnamn');
    await page.getByLabel('Företagsnamn', { exact: true }).fill('Åkeri Test AB');
    await next(page);

    // Name, with the length warning (first + last at most 50).
    await heading(page, 'Ditt namn');
    await page.getByLabel('Förnamn', { exact: true }).fill('Anna');
    await page.getByLabel('Efternamn', { exact: true }).fill('Andersson-Långnamnsdotter-Bergström-Lindqvist-Ek');
    await page.getByTestId('name-length-warning').waitFor();
    await next(page);
    await page.getByText('För- och efternamn får tillsammans vara högst 50 tecken.').waitFor();
    await page.getByLabel('Efternamn', { exact: true }).fill('Andersson');
    expect(await page.getByTestId('name-length-warning').count()).toBe(0);
    await next(page);

    // E-mail: a taken address fails the validator, shown in a modal.
    await heading(page, 'E-postadress');
    await page.getByLabel('E-postadress', { exact: true }).fill(existing.email);
    await next(page);
    const modal = page.getByRole('alertdialog');
    await modal.getByText('E-postadressen används redan.').waitFor();
    await modal.getByRole('button', { name: 'OK' }).click();
    await page.getByLabel('E-postadress', { exact: true }).fill(email.toUpperCase());
    await next(page);

    await heading(page, 'Identitetsnummer');
    await page.getByLabel('Organisationsnummer', { exact: true }).fill('556677-8899');
    await next(page);

    // Completed dots go back; forward jumps only over filled steps; progress survives a reload.
    await heading(page, 'Adress');
    expect(await page.getByTestId('dot-password').isDisabled()).toBe(true);
    await page.getByTestId('dot-country').click();
    await heading(page, 'Land');
    await page.reload();
    await heading(page, 'Land');
    await page.getByTestId('dot-number').click();
    await heading(page, 'Identitetsnummer');
    expect(await page.getByLabel('Organisationsnummer', { exact: true }).inputValue()).toBe('556677-8899');
    await next(page);

    await heading(page, 'Adress');
    await page.getByLabel('Gatuadress', { exact: true }).fill('Storgatan 1');
    await page.getByLabel('Postnummer', { exact: true }).fill('111 22');
    await page.getByLabel('Ort', { exact: true }).fill('Stockholm');
    await next(page);

    // Phone: Swedish numbers must not start with 0 or 46; a hint while the number is short.
    await heading(page, 'Telefon');
    await page.getByLabel('Mobilnummer', { exact: true }).fill('70123');
    await page.getByText('Ange minst 8 siffror, utan landsnummer.').waitFor();
    await page.getByLabel('Mobilnummer', { exact: true }).fill('0701234567');
    await next(page);
    await page.getByText('Ange numret utan landsnummer och utan inledande 0.').waitFor();
    await page.getByLabel('Mobilnummer', { exact: true }).fill('701234567');
    await next(page);

    await heading(page, 'Lösenord');
    await page.getByLabel('Lösenord', { exact: true }).fill('weakpassword');
    await page.getByLabel('Bekräfta lösenord', { exact: true }).fill('weakpassword');
    await next(page);
    await page.getByText('Lösenordet måste innehålla en versal.').waitFor();
    await page.getByLabel('Lösenord', { exact: true }).fill('Secret-2026!');
    await page.getByLabel('Bekräfta lösenord', { exact: true }).fill('Secret-2026!');
    await next(page);

    // Review: the terms box is shown on the main theme and must be ticked; companies get no payment step.
    await heading(page, 'Granska och bekräfta');
    const review = await page.getByTestId('review').textContent();
    expect(review).toContain('Åkeri Test AB');
    expect(review).toContain(email);
    expect(await page.getByRole('heading', { name: 'Betalning' }).count()).toBe(0);
    await next(page, 'Registrera');
    await page.getByText('Du måste godkänna villkoren.').waitFor();
    await page.getByText('Jag godkänner').click();
    await next(page, 'Registrera');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText('Ditt konto har skapats. Du kan logga in nu.').waitFor();

    const account = await accountOf(email);
    expect(account).toMatchObject({
      is_private: false,
      company_name: 'Åkeri Test AB',
      org_number: '5566778899',
      country: 'Sweden',
      phone: '+46701234567',
      first_name: 'Anna',
      last_name: 'Andersson',
      subsite_id: 0,
    });
    // Progress is cleared after success.
    await page.goto('/user/register');
    await heading(page, 'Välkommen');

    await page.goto('/');
    await login(page, email, 'Secret-2026!');
    await page.waitForURL('**/user/realtime-tracking');
    // The first sign-in after registration opens the car info form for the registered tracker by itself.
    const carInfo = page.getByRole('dialog', { name: 'Bilinformation' });
    await carInfo.getByText(`${imei}: 1 av 1`).waitFor();
    await carInfo.getByTestId('car-info-skip').click();
    await carInfo.waitFor({ state: 'detached' });
    await page.getByTestId('unit-list').getByText(imei).first().waitFor();
    // Skipped, it does not open again on the next page; the unit list offers it.
    await page.reload();
    await page.getByTestId('unit-list').getByText(imei).first().waitFor();
    expect(await carInfo.count()).toBe(0);
  });

  test('a private user in Sweden: personal number, payment options, type switch clears progress', async () => {
    const imei = await stockImei();
    const email = `private-se-${Date.now()}@example.com`;
    const personalNumber = '19811218-9876';
    expect(isValidPersonnummer(personalNumber)).toBe(true);
    const page = await suite.newPage();
    await page.goto('/user/register?subsite=0');

    // Start as a company, then switch: the saved progress is cleared.
    await page.getByText('Företag', { exact: true }).click();
    await next(page);
    await next(page);
    await page.getByLabel('IMEI', { exact: true }).fill(imei);
    await page.getByTestId('dot-welcome').click();
    await page.getByText('Privatperson', { exact: true }).click();
    await next(page);
    await next(page);
    expect(await page.getByLabel('IMEI', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('IMEI', { exact: true }).fill(imei);
    await next(page);

    await heading(page, 'Återförsäljare');
    await page.getByLabel('Återförsäljare', { exact: true }).fill('Båt & Bil');
    await page.getByLabel('Kommentar', { exact: true }).fill('Ring efter 17');
    await next(page);

    // No company step for private users.
    await heading(page, 'Ditt namn');
    await page.getByLabel('Förnamn', { exact: true }).fill('Erik');
    await page.getByLabel('Efternamn', { exact: true }).fill('Svensson');
    await next(page);
    await page.getByLabel('E-postadress', { exact: true }).fill(email);
    await next(page);

    await heading(page, 'Identitetsnummer');
    await page.getByLabel('Personnummer', { exact: true }).fill('19811218-9875');
    await next(page);
    await page.getByText('Personnumret är inte giltigt.').waitFor();
    await page.getByLabel('Personnummer', { exact: true }).fill(personalNumber);
    await next(page);

    await page.getByLabel('Gatuadress', { exact: true }).fill('Sjövägen 3');
    await page.getByLabel('Postnummer', { exact: true }).fill('12345');
    await page.getByLabel('Ort', { exact: true }).fill('Nacka');
    await next(page);
    await page.getByLabel('Mobilnummer', { exact: true }).fill('731234567');
    await next(page);
    await page.getByLabel('Lösenord', { exact: true }).fill('Private-Pass-9#');
    await page.getByLabel('Bekräfta lösenord', { exact: true }).fill('Private-Pass-9#');
    await next(page);

    // Review: payment options load for private users on sub-site 0; one must be chosen.
    await heading(page, 'Granska och bekräfta');
    await page.getByRole('heading', { name: 'Betalning' }).waitFor();
    await page.getByText('Faktura', { exact: true }).waitFor();
    await page.getByText('Om ingen adress för e-faktura hittas skickas fakturan på papper.').waitFor();
    await screenshot(page, 'wizard-review-desktop');
    await page.getByText('Jag godkänner').click();
    await next(page, 'Registrera');
    await page.getByTestId('payment-hint').waitFor();
    await page.getByText('Faktura', { exact: true }).click();
    await next(page, 'Registrera');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText('Ditt konto har skapats. Du kan logga in nu.').waitFor();

    expect(await accountOf(email)).toMatchObject({
      is_private: true,
      company_name: '',
      personal_number: '198112189876',
      country: 'Sweden',
      phone: '+46731234567',
      payment_type: 3,
    });
  });

  test('a private user in Norway, in Norwegian, on a brand without the terms box', async () => {
    const imei = await stockImei();
    const email = `private-no-${Date.now()}@example.com`;
    const page = await suite.newPage();
    await page.goto('/user/register?subsite=3');
    await page.getByTestId('language-picker').selectOption('no');
    await heading(page, 'Velkommen');
    await page.getByText('Privatperson', { exact: true }).click();
    await next(page, 'Neste');

    await heading(page, 'Land');
    await page.getByTestId('country').selectOption('NO');
    await page.getByText('Landskode +47').waitFor();
    await next(page, 'Neste');
    await page.getByLabel('IMEI', { exact: true }).fill(imei);
    await next(page, 'Neste');
    await page.getByLabel('Forhandler', { exact: true }).fill('Kjørebok Forhandler');
    await next(page, 'Neste');
    await page.getByLabel('Fornavn', { exact: true }).fill('Kari');
    await page.getByLabel('Etternavn', { exact: true }).fill('Nordmann');
    await next(page, 'Neste');
    await page.getByLabel('E-postadresse', { exact: true }).fill(email);
    await next(page, 'Neste');

    // No personal number outside Sweden: straight to the address, with Norway preselected.
    await heading(page, 'Adresse');
    expect(await page.getByLabel('Land', { exact: true }).inputValue()).toBe('NO');
    await page.getByLabel('Gateadresse', { exact: true }).fill('Karl Johans gate 1');
    await page.getByLabel('Postnummer', { exact: true }).fill('0154');
    await page.getByLabel('Poststed', { exact: true }).fill('Oslo');
    await next(page, 'Neste');

    await heading(page, 'Telefon');
    expect(await page.getByTestId('dial-code').inputValue()).toBe('47');
    await screenshot(page, 'wizard-phone-step-no');
    await page.getByLabel('Mobilnummer', { exact: true }).fill('47123456');
    await next(page, 'Neste');
    await page.getByText('Oppgi nummeret uten landskode og uten innledende 0.').waitFor();
    await page.getByLabel('Mobilnummer', { exact: true }).fill('91234567');
    await next(page, 'Neste');
    await page.getByLabel('Passord', { exact: true }).fill('Nordisk-Pass-1!');
    await page.getByLabel('Bekreft passord', { exact: true }).fill('Nordisk-Pass-1!');
    await next(page, 'Neste');

    // Ten steps; the terms are pre-accepted and hidden outside the main theme; no payment options.
    await heading(page, 'Se over og bekreft');
    await page.getByText('Steg 10 av 10').waitFor();
    expect(await page.getByText('Jeg godtar').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Betaling' }).count()).toBe(0);
    await next(page, 'Registrer');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText('Kontoen din er opprettet. Du kan logge inn nå.').waitFor();

    expect(await accountOf(email)).toMatchObject({
      is_private: true,
      personal_number: '',
      country: 'Norway',
      phone: '+4791234567',
      subsite_id: 3,
      payment_type: 0,
    });
  });
});

describe('old registration form', () => {
  test('server field errors under their fields, then a registration', async () => {
    const imei = await stockImei();
    const email = `old-form-${Date.now()}@example.com`;
    const page = await suite.newPage();
    await page.goto('/?subsite=1');
    await page.getByRole('link', { name: 'Registrera dig' }).click();
    await page.waitForURL('**/user/register');
    await page.getByRole('heading', { name: 'Registrera dig' }).waitFor();

    // Browser-side checks with the shared schema.
    await page.getByLabel('IMEI', { exact: true }).fill('123');
    await page.getByRole('button', { name: 'Registrera' }).click();
    await page.getByText('IMEI-numret måste bestå av exakt 15 siffror.').waitFor();

    await page.getByLabel('IMEI', { exact: true }).fill('999999999999998');
    await page.getByLabel('Återförsäljare', { exact: true }).fill('Gamla Bilfirman');
    await page.getByLabel('Företagsnamn', { exact: true }).fill('Gamla Åkeriet AB');
    await page.getByLabel('Organisationsnummer', { exact: true }).fill('0701234567');
    await page.getByLabel('Kontaktperson', { exact: true }).fill('Olle');
    await page.getByLabel('Gatuadress', { exact: true }).fill('Hamngatan 2');
    await page.getByLabel('Postnummer', { exact: true }).fill('41104');
    await page.getByLabel('Ort', { exact: true }).fill('Göteborg');
    await page.getByLabel('Land', { exact: true }).fill('Sverige');
    await page.getByLabel('Telefon', { exact: true }).fill('+46 31 700 10 00');
    await page.getByLabel('Fullständigt namn', { exact: true }).fill('Olle Olsson');
    await page.getByLabel('E-postadress', { exact: true }).fill(email);
    await page.getByLabel('Lösenord', { exact: true }).fill('Old-Form-Pass-1!');
    await page.getByLabel('Bekräfta lösenord', { exact: true }).fill('Old-Form-Pass-1!');
    expect(await page.getByText('Jag godkänner').count()).toBe(0);
    await page.getByRole('button', { name: 'Registrera' }).click();
    await page.getByText('Ange organisationsnumret, inte ett telefonnummer.').waitFor();
    await page.getByLabel('Organisationsnummer', { exact: true }).fill('556000-1111');
    await page.getByRole('button', { name: 'Registrera' }).click();

    // The IMEI is not in stock: a modal with the message, the error under IMEI, focus returned to it.
    const modal = page.getByRole('alertdialog');
    await modal.getByText('Registreringen kunde inte slutföras. Kontrollera de markerade fälten.').waitFor();
    await modal.getByRole('button', { name: 'OK' }).click();
    await page.getByText('IMEI-numret finns inte registrerat hos oss. Kontrollera numret på spåraren.').waitFor();
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === 'Imei');

    await page.getByLabel('IMEI', { exact: true }).fill(imei);
    await page.getByRole('button', { name: 'Registrera' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByText('Ditt konto har skapats. Du kan logga in nu.').waitFor();
    expect(await accountOf(email)).toMatchObject({
      is_private: false,
      company_name: 'Gamla Åkeriet AB',
      org_number: '556000-1111',
      phone: '+46317001000',
      first_name: 'Olle',
      last_name: 'Olsson',
      subsite_id: 1,
    });
  });
});
