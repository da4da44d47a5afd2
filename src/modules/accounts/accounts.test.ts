import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { uniqueViolation } from '../../lib/db/errors';
import { hasMessage } from '../../lib/i18n';
import type { PaymentTypes, Registered } from './model';
import {
  companyPhoneProblem,
  isValidPassword,
  isValidPersonnummer,
  isValidUsername,
  luhnValid,
  oldFormPhoneProblem,
  oldRegistrationSchema,
  orgNumberProblem,
  personalNumberProblem,
  phoneHintVisible,
  splitFullName,
  wizardPhoneProblem,
  wizardRegistrationSchema,
} from './model';
import { LOGIN_EMAIL_TAKEN } from './login-emails';
import { loginEmails } from './schema';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

let imeiSequence = 0;
/** A fresh 15-digit IMEI per call (unique within this file's database). */
function nextImei(): string {
  imeiSequence += 1;
  return String(356_307_040_000_000 + imeiSequence);
}
let emailSequence = 0;
function nextEmail(): string {
  emailSequence += 1;
  return `registrant${emailSequence}@example.com`;
}

async function stock(
  options: { subsiteID?: number | null; paymentTypes?: string[]; model?: string; protocol?: 'teltonika' | 'gt06' | 'osmand' } = {},
): Promise<string> {
  const imei = nextImei();
  await app.services.units.addStock(
    {
      imeis: [imei],
      model: options.model ?? 'FMB920',
      protocol: options.protocol ?? 'teltonika',
      subsiteID: options.subsiteID ?? null,
      paymentTypes: options.paymentTypes,
    },
    null,
  );
  return imei;
}

/** A valid wizard payload for a private user in Sweden (spec §3). */
function wizard(imei: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Imei: imei,
    personal_org_number: '198112189876',
    address: 'Storgatan 1',
    city: 'Stockholm',
    zipCode: '111 22',
    comment: '',
    companyName: '',
    contactPerson: 'Anna',
    country: 'Sverige',
    fullName: 'Anna Svensson',
    paymentType: 0,
    phone: '+46701234567',
    reseller: 'Biltillbehör AB',
    subsiteID: 0,
    terms: 1,
    userName: nextEmail(),
    userPassword: 'Secret-123!',
    userPassword_confirmation: 'Secret-123!',
    is_private_account: 1,
    acc_company_phone: '198112189876',
    countryDialCode: '46',
    ...overrides,
  };
}

/** A valid wizard payload for a company. */
function wizardCompany(imei: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return wizard(imei, {
    is_private_account: 0,
    companyName: 'Svensson Bygg AB',
    personal_org_number: '5566778899',
    acc_company_phone: '5566778899',
    ...overrides,
  });
}

/** A valid old-form payload (companies only). */
function oldForm(imei: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Imei: imei,
    reseller: 'Bilia',
    comment: 'Please call before delivery',
    fullName: 'Bo Ek',
    userName: nextEmail(),
    userPassword: 'Secret-123!',
    userPassword_confirmation: 'Secret-123!',
    companyName: 'Ek Transport AB',
    acc_company_phone: '556677-8899',
    contactPerson: 'Bo Ek',
    address: 'Industrivägen 4',
    zipCode: '41104',
    city: 'Göteborg',
    country: 'Sweden',
    phone: '+46311234567',
    terms: true,
    subsiteID: 0,
    paymentType: 0,
    is_private_account: 0,
    ...overrides,
  };
}

async function register(body: Record<string, unknown>, lang = 'en') {
  return app.call<Registered>('POST', '/api/register', { body, headers: { 'x-lang': lang } });
}

async function fieldErrors(body: Record<string, unknown>): Promise<Record<string, string[]>> {
  const result = await register(body);
  expect(result.status).toBe(422);
  expect(result.body.success).toBe(false);
  expect(result.body.data).toBeNull();
  return result.body.errors as Record<string, string[]>;
}

async function countRows(table: 'accounts' | 'users' | 'units', where: ReturnType<typeof sql>): Promise<number> {
  const [row] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)} where ${where}`);
  return row!.n;
}

describe('POST /api/register (wizard)', () => {
  test('a private user in Sweden gets an account, its administrator and the unit, in one go', async () => {
    const imei = await stock({ model: 'FMB130', protocol: 'teltonika' });
    const events: unknown[] = [];
    const off = app.platform.events.on('user.registered', (payload) => {
      events.push(payload);
    });
    const body = wizard(imei, { userName: 'Anna.Svensson@Example.COM', personal_org_number: '19811218-9876' });
    const result = await register(body);
    off();
    expect(result.status).toBe(200);
    expect(result.body.success).toBe(true);
    const data = result.body.data!;
    expect(data.message).toBe('Your account has been created. You can now log in.');
    expect(result.body.message).toBe(data.message);
    expect(events).toEqual([{ accountId: data.account_id, userId: data.user_id, unitId: data.unit_id }]);

    const [account] = await app.database.rows<Record<string, unknown>>(sql`select * from accounts where id = ${data.account_id}`);
    expect(account).toMatchObject({
      subsite_id: 0,
      is_private: true,
      company_name: '',
      contact_person: 'Anna',
      address: 'Storgatan 1',
      postal_code: '111 22',
      city: 'Stockholm',
      country: 'Sverige',
      org_number: '198112189876',
      phone: '+46701234567',
      reseller: 'Biltillbehör AB',
      payment_type: 0,
    });
    const [user] = await app.database.rows<Record<string, unknown>>(sql`select * from users where id = ${data.user_id}`);
    expect(user).toMatchObject({
      account_id: data.account_id,
      email: 'anna.svensson@example.com',
      first_name: 'Anna',
      last_name: 'Svensson',
      personal_number: '198112189876',
      phone: '+46701234567',
      role: 'admin',
      language: 'en',
    });
    expect(String(user!.password_hash).startsWith('$argon2id$')).toBe(true);
    const [unit] = await app.database.rows<Record<string, unknown>>(sql`select * from units where id = ${data.unit_id}`);
    expect(unit).toMatchObject({ account_id: data.account_id, imei, name: imei, model: 'FMB130', protocol: 'teltonika' });

    // The new administrator logs in with the e-mail address and sees the unit.
    const token = await app.login({ email: 'anna.svensson@example.com', password: 'Secret-123!', subsiteId: 0 });
    const units = await app.call<Array<{ ID: number; Imei: string }>>('GET', '/api/units', { token });
    expect(units.body.data!.map((u) => u.Imei)).toEqual([imei]);
    // The gateway now knows the tracker.
    expect(await app.services.units.findUnitByImei(imei)).toMatchObject({ unitId: data.unit_id, accountId: data.account_id });
  });

  test('a company stores company name, organisation number (dashes removed) and the chosen payment type', async () => {
    const imei = await stock();
    const result = await register(
      wizardCompany(imei, { personal_org_number: '556677-8899', paymentType: '2', comment: 'Referred by a friend', subsiteID: '3' }),
    );
    expect(result.status).toBe(200);
    const [account] = await app.database.rows<Record<string, unknown>>(
      sql`select * from accounts where id = ${result.body.data!.account_id}`,
    );
    expect(account).toMatchObject({
      is_private: false,
      company_name: 'Svensson Bygg AB',
      org_number: '5566778899',
      payment_type: 2,
      invoice_type: 'payment.directDebit',
      comment: 'Referred by a friend',
      subsite_id: 3,
    });
  });

  test('a private user outside Sweden registers without a personal number', async () => {
    const imei = await stock();
    const result = await register(
      wizard(imei, { countryDialCode: '47', country: 'Norge', phone: '+4791234567', personal_org_number: '', acc_company_phone: '' }),
    );
    expect(result.status).toBe(200);
    const [user] = await app.database.rows<{ phone: string; personal_number: string }>(
      sql`select phone, personal_number from users where id = ${result.body.data!.user_id}`,
    );
    expect(user).toEqual({ phone: '+4791234567', personal_number: '' });
  });

  test('the success message is translated', async () => {
    const sv = await register(wizard(await stock()), 'sv');
    expect(sv.body.data!.message).toBe('Ditt konto har skapats. Du kan nu logga in.');
    const no = await register(wizard(await stock()), 'no');
    expect(no.body.data!.message).toBe('Kontoen din er opprettet. Du kan nå logge inn.');
    const [user] = await app.database.rows<{ language: string }>(sql`select language from users where id = ${no.body.data!.user_id}`);
    expect(user!.language).toBe('no');
  });

  test('field limits are inclusive: exactly at each limit is accepted', async () => {
    const imei = await stock();
    const result = await register(
      wizardCompany(imei, {
        reseller: 'r'.repeat(255),
        comment: 'c'.repeat(500),
        address: 'a'.repeat(50),
        city: 'c'.repeat(50),
        companyName: 'n'.repeat(50),
        country: 'k'.repeat(50),
        contactPerson: 'P'.repeat(24),
        fullName: `${'P'.repeat(24)} ${'L'.repeat(25)}`,
        zipCode: '1234567',
        personal_org_number: '1'.repeat(50),
      }),
    );
    expect(result.status).toBe(200);
  });
});

describe('POST /api/register (old form)', () => {
  test('registers a company; the comment is kept on sub-site 0', async () => {
    const imei = await stock();
    const result = await register(oldForm(imei));
    expect(result.status).toBe(200);
    const [account] = await app.database.rows<Record<string, unknown>>(
      sql`select * from accounts where id = ${result.body.data!.account_id}`,
    );
    expect(account).toMatchObject({
      is_private: false,
      company_name: 'Ek Transport AB',
      org_number: '556677-8899',
      phone: '+46311234567',
      contact_person: 'Bo Ek',
      comment: 'Please call before delivery',
    });
    const [user] = await app.database.rows<Record<string, unknown>>(sql`select * from users where id = ${result.body.data!.user_id}`);
    expect(user).toMatchObject({ first_name: 'Bo', last_name: 'Ek', role: 'admin' });
  });

  test('the comment is dropped on other sub-sites (it exists on sub-site 0 only)', async () => {
    const imei = await stock();
    const result = await register(oldForm(imei, { subsiteID: 1 }));
    expect(result.status).toBe(200);
    const [account] = await app.database.rows<{ comment: string }>(
      sql`select comment from accounts where id = ${result.body.data!.account_id}`,
    );
    expect(account!.comment).toBe('');
  });

  test('the old form is for companies: is_private_account must be 0', async () => {
    const errors = await fieldErrors(oldForm(await stock(), { is_private_account: 1 }));
    expect(errors.is_private_account).toEqual(['Invalid choice.']);
  });
});

describe('registration errors (spec §8)', () => {
  test('an IMEI that is not in stock is refused under Imei, and nothing is written', async () => {
    const body = wizard('356307049999991');
    const errors = await fieldErrors(body);
    expect(errors).toEqual({ Imei: ['This IMEI is not registered in our system. Check the number on the tracker.'] });
    expect(await countRows('users', sql`email = ${body.userName as string}`)).toBe(0);
    expect(await countRows('units', sql`imei = '356307049999991'`)).toBe(0);
  });

  test('an IMEI that is not 15 digits is refused under Imei', async () => {
    for (const Imei of ['35630704244101', '3563070424410133', '35630704244101A', '']) {
      const errors = await fieldErrors(wizard(Imei));
      expect(errors.Imei).toEqual([Imei === '' ? 'This field is required.' : 'The IMEI must be exactly 15 digits.']);
    }
  });

  test('an IMEI already in use is refused under Imei', async () => {
    const imei = await stock();
    expect((await register(wizard(imei))).status).toBe(200);
    const body = wizard(imei);
    const errors = await fieldErrors(body);
    expect(errors).toEqual({ Imei: ['This IMEI is already in use.'] });
    expect(await countRows('users', sql`email = ${body.userName as string}`)).toBe(0);
  });

  test('an IMEI reserved for another sub-site is refused (wrong site)', async () => {
    const imei = await stock({ subsiteID: 5 });
    expect(await fieldErrors(wizard(imei, { subsiteID: 0 }))).toEqual({ Imei: ['This tracker belongs to another site.'] });
    expect((await register(wizard(imei, { subsiteID: 5 }))).status).toBe(200);
  });

  test('an e-mail address already in use is refused under userName, whatever its case', async () => {
    const existing = await app.createAccount();
    const imei = await stock();
    const errors = await fieldErrors(wizard(imei, { userName: existing.email.toUpperCase() }));
    expect(errors).toEqual({ userName: ['This e-mail address is already in use.'] });
    // The tracker stays available.
    expect((await app.call('GET', `/api/validate/imei?imei=${imei}&subsiteID=0`)).status).toBe(200);
  });

  test('IMEI and e-mail problems are reported together', async () => {
    const existing = await app.createAccount();
    const errors = await fieldErrors(wizard('356307049999992', { userName: existing.email }));
    expect(Object.keys(errors).sort()).toEqual(['Imei', 'userName']);
  });

  test('an invalid e-mail address is refused under userName', async () => {
    for (const userName of ['not-an-email', 'anna@', '@example.com', '']) {
      const errors = await fieldErrors(wizard(await stock(), { userName }));
      expect(errors.userName).toEqual([userName === '' ? 'This field is required.' : 'Enter a valid e-mail address.']);
    }
  });

  test('password rules: 8 characters, upper-case, digit, special character, confirmation', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Specify a new password.'],
      ['Sh-1', 'The password must have at least 8 characters.'],
      ['secret-123!', 'The password must contain an upper-case letter.'],
      ['Secret-abc!', 'The password must contain a digit.'],
      ['Secret1234', 'The password must contain a special character.'],
    ];
    for (const [password, message] of cases) {
      const errors = await fieldErrors(wizard(await stock(), { userPassword: password, userPassword_confirmation: password }));
      expect(errors.userPassword).toContain(message);
    }
    const mismatch = await fieldErrors(wizard(await stock(), { userPassword_confirmation: 'Secret-124!' }));
    expect(mismatch).toEqual({ userPassword_confirmation: ['The passwords do not match.'] });
  });

  test('wizard phone rules: required, digits, no 46/47/07 after a Nordic dial code, at least 8 digits', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ phone: '' }, 'Enter a phone number.'],
      [{ phone: '+46' }, 'Enter a phone number.'],
      [{ phone: '+46 70 abc 45 67' }, 'The phone number may only contain digits.'],
      [{ phone: '+460701234567' }, 'Enter the number without the country code and without a leading 0.'],
      [{ phone: '+4646701234567' }, 'Enter the number without the country code and without a leading 0.'],
      [{ phone: '0701234567' }, 'Enter the number without the country code and without a leading 0.'],
      [{ phone: '+4747123456', countryDialCode: '47', personal_org_number: '' }, 'Enter the number without the country code and without a leading 0.'],
      [{ phone: '+4707123456', countryDialCode: '47', personal_org_number: '' }, 'Enter the number without the country code and without a leading 0.'],
      [{ phone: '+467012345' }, 'The phone number must have at least 8 digits.'],
      [{ phone: '+46701234567890123' }, 'The phone number is too long.'],
      [{ phone: '+4791234567' }, 'The phone number does not match the chosen country code.'],
    ];
    for (const [overrides, message] of cases) {
      const errors = await fieldErrors(wizard(await stock(), overrides));
      expect({ overrides, errors: errors.phone }).toEqual({ overrides, errors: [message] });
    }
    // A UK number may start with 7 or 0-free digits; the Nordic prefix rule does not apply.
    expect((await register(wizard(await stock(), { phone: '+447911123456', countryDialCode: '44', personal_org_number: '' }))).status).toBe(200);
  });

  test('old-form phone (with + prefix): digits, at least 8, Swedish numbers not continuing with 46 or 0', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Enter a phone number.'],
      ['+46 31-abc', 'The phone number may only contain digits.'],
      ['+460311234567', 'Enter the number without the country code and without a leading 0.'],
      ['+4646311234567', 'Enter the number without the country code and without a leading 0.'],
      ['0311234567', 'Enter the number without the country code and without a leading 0.'],
      ['+46311234', 'The phone number must have at least 8 digits.'],
    ];
    for (const [phone, message] of cases) {
      const errors = await fieldErrors(oldForm(await stock(), { phone }));
      expect({ phone, errors: errors.phone }).toEqual({ phone, errors: [message] });
    }
  });

  test('personal number: 12 digits (13 with dash) passing the check digit, for private users in Sweden', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Enter your personal identity number.'],
      ['8112189876', 'Enter the personal identity number with 12 digits (YYYYMMDDNNNN).'],
      ['1981121898761', 'Enter the personal identity number with 12 digits (YYYYMMDDNNNN).'],
      ['198112189875', 'The personal identity number is not valid.'],
      ['19811318-9876', 'The personal identity number is not valid.'],
    ];
    for (const [number, message] of cases) {
      const errors = await fieldErrors(wizard(await stock(), { personal_org_number: number }));
      expect({ number, errors: errors.personal_org_number }).toEqual({ number, errors: [message] });
    }
  });

  test('organisation number: required for companies, digits and dashes, at most 50', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Enter the organisation number.'],
      ['556677 8899', 'The organisation number may only contain digits and dashes.'],
      ['SE556677889901', 'The organisation number may only contain digits and dashes.'],
      ['1'.repeat(51), 'At most 50 characters.'],
    ];
    for (const [number, message] of cases) {
      const errors = await fieldErrors(wizardCompany(await stock(), { personal_org_number: number }));
      expect({ number, errors: errors.personal_org_number }).toEqual({ number, errors: [message] });
    }
    const noCompany = await fieldErrors(wizardCompany(await stock(), { companyName: '' }));
    expect(noCompany).toEqual({ companyName: ['This field is required.'] });
  });

  test('old-form company number must not look like a phone number (07, 46, 47 or +)', async () => {
    for (const number of ['0701234567', '46701234567', '4791234567', '+46701234567']) {
      const errors = await fieldErrors(oldForm(await stock(), { acc_company_phone: number }));
      expect({ number, errors: errors.acc_company_phone }).toEqual({ number, errors: ['Enter the organisation number, not a phone number.'] });
    }
    expect((await fieldErrors(oldForm(await stock(), { acc_company_phone: '' }))).acc_company_phone).toEqual(['Enter the organisation number.']);
  });

  test('field limits (spec §5) are enforced one character past each limit', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['reseller', 'r'.repeat(256), 'At most 255 characters.'],
      ['comment', 'c'.repeat(501), 'At most 500 characters.'],
      ['address', 'a'.repeat(51), 'At most 50 characters.'],
      ['city', 'c'.repeat(51), 'At most 50 characters.'],
      ['country', 'k'.repeat(51), 'At most 50 characters.'],
      ['contactPerson', 'p'.repeat(51), 'At most 50 characters.'],
      ['zipCode', '12345678', 'At most 7 characters.'],
      ['fullName', `${'F'.repeat(25)} ${'L'.repeat(25)}`, 'First and last name together may have at most 50 characters.'],
    ];
    for (const [field, value, message] of cases) {
      const errors = await fieldErrors(wizard(await stock(), { [field]: value }));
      expect({ field, errors }).toEqual({ field, errors: { [field]: [message] } });
    }
    const company = await fieldErrors(wizardCompany(await stock(), { companyName: 'n'.repeat(51) }));
    expect(company).toEqual({ companyName: ['At most 50 characters.'] });
  });

  test('required fields are named', async () => {
    const errors = await fieldErrors({ countryDialCode: '46' });
    for (const field of ['Imei', 'userName', 'userPassword', 'fullName', 'contactPerson', 'reseller', 'address', 'zipCode', 'city', 'country', 'subsiteID', 'terms', 'phone', 'is_private_account']) {
      expect({ field, present: field in errors }).toEqual({ field, present: true });
    }
  });

  test('the terms must be accepted', async () => {
    for (const terms of [0, false, '0', null, undefined]) {
      const errors = await fieldErrors(wizard(await stock(), { terms }));
      expect(errors).toEqual({ terms: ['You must accept the terms and conditions.'] });
    }
  });

  test('a payment type beyond the offered options is refused; an unknown sub-site too', async () => {
    expect(await fieldErrors(wizard(await stock(), { paymentType: 4 }))).toEqual({ paymentType: ['Choose one of the offered payment methods.'] });
    expect(await fieldErrors(wizard(await stock(), { paymentType: -1 }))).toEqual({ paymentType: ['Choose one of the offered payment methods.'] });
    expect(await fieldErrors(wizard(await stock(), { subsiteID: 8 }))).toEqual({ subsiteID: ['Unknown site.'] });
  });

  test('messages follow the caller language', async () => {
    const result = await app.call('POST', '/api/register', { body: wizard('356307049999993'), headers: { 'x-lang': 'sv' } });
    expect(result.body.errors).toEqual({ Imei: ['IMEI-numret finns inte registrerat hos oss. Kontrollera numret på spåraren.'] });
    const no = await app.call('POST', '/api/register', { body: wizard('356307049999993'), headers: { 'x-lang': 'no' } });
    expect(no.body.errors).toEqual({ Imei: ['IMEI-nummeret er ikke registrert hos oss. Kontroller nummeret på sporeren.'] });
  });

  test('nothing is half-written: a failure while creating the unit rolls back account and user', async () => {
    const imei = await stock();
    await app.database.exec(`
      CREATE FUNCTION test_refuse_unit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test'; END $$;
      CREATE TRIGGER test_refuse_unit BEFORE INSERT ON units FOR EACH ROW WHEN (NEW.imei = '${imei}') EXECUTE FUNCTION test_refuse_unit();
    `);
    try {
      const body = wizard(imei);
      const result = await register(body);
      expect(result.status).toBe(500);
      expect(result.body.errors).toBe('Something went wrong. Contact support if it persists.');
      expect(await countRows('users', sql`email = ${body.userName as string}`)).toBe(0);
      // No account was left without its administrator.
      expect(await countRows('accounts', sql`not exists (select 1 from users where users.account_id = accounts.id)`)).toBe(0);
      expect(await countRows('units', sql`imei = ${imei}`)).toBe(0);
    } finally {
      await app.database.exec('DROP TRIGGER test_refuse_unit ON units; DROP FUNCTION test_refuse_unit();');
    }
  });

  test('two registrations of one tracker at once: one wins, the other hears the IMEI is in use', async () => {
    const imei = await stock();
    const results = await Promise.all([register(wizard(imei)), register(wizard(imei))]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.status === 422)!.body.errors).toEqual({ Imei: ['This IMEI is already in use.'] });
    expect(await countRows('units', sql`imei = ${imei}`)).toBe(1);
  });

  test('two registrations with one e-mail at once: one wins, the other hears the e-mail is in use', async () => {
    const email = nextEmail();
    const results = await Promise.all([register(wizard(await stock(), { userName: email })), register(wizard(await stock(), { userName: email }))]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.status === 422)!.body.errors).toEqual({ userName: ['This e-mail address is already in use.'] });
    expect(await countRows('users', sql`email = ${email}`)).toBe(1);
    expect(await countRows('accounts', sql`not exists (select 1 from users where users.account_id = accounts.id)`)).toBe(0);
  });
});

test('a lost race on a unique index is recognised on this driver (it becomes a field error, not a 500)', async () => {
  const existing = await app.createAccount();
  const error = await app.database.db
    .insert(loginEmails)
    .values({ email: existing.email, userId: existing.userId, accountId: existing.accountId })
    .then(() => null, (caught: unknown) => caught);
  expect(uniqueViolation(error)).toBe(LOGIN_EMAIL_TAKEN);
  expect(uniqueViolation(new Error('other'))).toBeNull();
});

describe('GET /api/validate/imei', () => {
  test('a tracker in stock and not in use is valid', async () => {
    const imei = await stock({ model: 'GT06N', protocol: 'gt06' });
    const result = await app.call('GET', `/api/validate/imei?imei=${imei}&subsiteID=0`);
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({ imei, model: 'GT06N' });
  });

  test('format, unknown, in use and wrong site are 422 under imei', async () => {
    const bad = await app.call('GET', '/api/validate/imei?imei=12345&subsiteID=0');
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ imei: ['The IMEI must be exactly 15 digits.'] });
    const unknown = await app.call('GET', '/api/validate/imei?imei=356307049999994&subsiteID=0');
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ imei: ['This IMEI is not registered in our system. Check the number on the tracker.'] });
    const used = await stock();
    expect((await register(wizard(used))).status).toBe(200);
    const inUse = await app.call('GET', `/api/validate/imei?imei=${used}&subsiteID=0`);
    expect(inUse.body.errors).toEqual({ imei: ['This IMEI is already in use.'] });
    const reserved = await stock({ subsiteID: 2 });
    const wrongSite = await app.call('GET', `/api/validate/imei?imei=${reserved}&subsiteID=0`);
    expect(wrongSite.body.errors).toEqual({ imei: ['This tracker belongs to another site.'] });
    expect((await app.call('GET', `/api/validate/imei?imei=${reserved}&subsiteID=2`)).status).toBe(200);
  });

  test('the sub-site is required and must be 0 to 7', async () => {
    const imei = await stock();
    const missing = await app.call('GET', `/api/validate/imei?imei=${imei}`);
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ subsiteID: ['This field is required.'] });
    expect((await app.call('GET', `/api/validate/imei?imei=${imei}&subsiteID=9`)).body.errors).toEqual({ subsiteID: ['Unknown site.'] });
  });
});

describe('GET /api/validate/email', () => {
  test('a free address is answered lower-cased', async () => {
    const result = await app.call('GET', `/api/validate/email?email=${encodeURIComponent(' New.Person@Example.COM ')}`);
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({ email: 'new.person@example.com' });
  });

  test('invalid, missing and taken addresses are 422 under email', async () => {
    const invalid = await app.call('GET', '/api/validate/email?email=not-an-address');
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ email: ['Enter a valid e-mail address.'] });
    expect((await app.call('GET', '/api/validate/email')).body.errors).toEqual({ email: ['This field is required.'] });
    const existing = await app.createAccount();
    const taken = await app.call('GET', `/api/validate/email?email=${encodeURIComponent(existing.email.toUpperCase())}`, {
      headers: { 'x-lang': 'sv' },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ email: ['E-postadressen används redan.'] });
  });
});

describe('POST /api/payment-types', () => {
  test('labels by 1-based position in the requested language; the third carries the paper-invoice hint', async () => {
    const imei = await stock();
    const en = await app.call<PaymentTypes>('POST', '/api/payment-types', { body: { imei, lang: 'en' } });
    expect(en.status).toBe(200);
    expect(en.body.data).toEqual({
      options: { '1': 'Card', '2': 'Direct debit', '3': 'Invoice' },
      hints: { '3': 'If no address for electronic invoices is found, the invoice is sent on paper.' },
    });
    const sv = await app.call<PaymentTypes>('POST', '/api/payment-types', { body: { imei, lang: 'sv' } });
    expect(sv.body.data).toEqual({
      options: { '1': 'Kort', '2': 'Autogiro', '3': 'Faktura' },
      hints: { '3': 'Om ingen adress för e-faktura hittas skickas fakturan på papper.' },
    });
    const no = await app.call<PaymentTypes>('POST', '/api/payment-types', { body: { imei, lang: 'no' } });
    expect(no.body.data!.options).toEqual({ '1': 'Kort', '2': 'AvtaleGiro', '3': 'Faktura' });
    // Without lang the caller's language applies.
    const header = await app.call<PaymentTypes>('POST', '/api/payment-types', { body: { imei }, headers: { 'x-lang': 'sv' } });
    expect(header.body.data!.options['1']).toBe('Kort');
  });

  test("options come from the stock row's keys; fewer than three means no hint", async () => {
    const imei = await stock({ paymentTypes: ['payment.invoice', 'Swish'] });
    const result = await app.call<PaymentTypes>('POST', '/api/payment-types', { body: { imei, lang: 'en' } });
    expect(result.body.data).toEqual({ options: { '1': 'Invoice', '2': 'Swish' }, hints: {} });
    // The chosen position is stored; position 3 does not exist for this tracker.
    expect(await fieldErrors(wizard(imei, { paymentType: 3 }))).toEqual({ paymentType: ['Choose one of the offered payment methods.'] });
    const registered = await register(wizard(imei, { paymentType: 1 }));
    expect(registered.status).toBe(200);
    const [account] = await app.database.rows<{ payment_type: number; invoice_type: string }>(
      sql`select payment_type, invoice_type from accounts where id = ${registered.body.data!.account_id}`,
    );
    expect(account).toEqual({ payment_type: 1, invoice_type: 'payment.invoice' });
  });

  test('unknown, registered and malformed IMEIs are 422 under imei', async () => {
    const unknown = await app.call('POST', '/api/payment-types', { body: { imei: '356307049999995', lang: 'en' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ imei: ['This IMEI is not registered in our system. Check the number on the tracker.'] });
    const imei = await stock();
    expect((await register(wizard(imei))).status).toBe(200);
    const registered = await app.call('POST', '/api/payment-types', { body: { imei, lang: 'en' } });
    expect(registered.body.errors).toEqual({ imei: ['This IMEI is already in use.'] });
    const malformed = await app.call('POST', '/api/payment-types', { body: { imei: 'abc', lang: 'en' } });
    expect(malformed.body.errors).toEqual({ imei: ['The IMEI must be exactly 15 digits.'] });
    expect((await app.call('POST', '/api/payment-types', { body: { imei, lang: 'de' } })).body.errors).toEqual({ lang: ['Invalid choice.'] });
  });
});

describe('validators shared with the web app', () => {
  test('personnummer: date, samordningsnummer and Luhn', () => {
    expect(isValidPersonnummer('198112189876')).toBe(true);
    expect(isValidPersonnummer('19811218-9876')).toBe(true);
    expect(isValidPersonnummer('198112789873')).toBe(true); // coordination number: day 18 + 60
    expect(isValidPersonnummer('198112189875')).toBe(false); // check digit
    expect(isValidPersonnummer('19810230-9877')).toBe(false); // 30 February
    expect(isValidPersonnummer('8112189876')).toBe(false); // 10 digits
    expect(isValidPersonnummer('1981121-89876')).toBe(false); // dash in the wrong place
    expect(luhnValid('8112189876')).toBe(true);
    expect(personalNumberProblem('19811218-9876')).toBeNull();
  });

  test('phone rules and the wizard hint', () => {
    expect(wizardPhoneProblem('+46 70-123 45 67', '46')).toBeNull();
    expect(wizardPhoneProblem('46701234567', '+46')).toBeNull();
    expect(wizardPhoneProblem('701234567', '46')).toBeNull();
    expect(wizardPhoneProblem('+4791234567', '47')).toBeNull();
    expect(wizardPhoneProblem('+4791234567', '4x')).toBe('validation.dialCode');
    expect(wizardPhoneProblem('0707123456', '07')).toBe('validation.phone.prefix');
    expect(phoneHintVisible('+46', '46')).toBe(false);
    expect(phoneHintVisible('+467', '46')).toBe(true);
    expect(phoneHintVisible('+4670123456', '46')).toBe(true);
    expect(phoneHintVisible('+46701234567', '46')).toBe(false);
    expect(oldFormPhoneProblem('+4791234567')).toBeNull();
    expect(oldFormPhoneProblem('+447911123456')).toBeNull();
    expect(companyPhoneProblem('556677-8899')).toBeNull();
    expect(companyPhoneProblem('47123')).toBe('validation.orgNumber.looksLikePhone');
    expect(orgNumberProblem('---')).toBe('validation.orgNumber.format');
  });

  test('password, username and name helpers', () => {
    expect(isValidPassword('Secret-123!')).toBe(true);
    expect(isValidPassword('Secret123')).toBe(false);
    expect(isValidUsername('fleet_admin-2')).toBe(true);
    expect(isValidUsername('Fleet Admin')).toBe(false);
    expect(splitFullName('Anna Maria Svensson', 'Anna Maria')).toEqual({ firstName: 'Anna Maria', lastName: 'Svensson' });
    expect(splitFullName('Bo  Ek')).toEqual({ firstName: 'Bo', lastName: 'Ek' });
    expect(splitFullName('Cher')).toEqual({ firstName: 'Cher', lastName: '' });
  });

  test('the schemas the forms use give the same keys as the server', () => {
    const result = wizardRegistrationSchema.safeParse({ countryDialCode: '46', phone: '070', is_private_account: 1 });
    expect(result.success).toBe(false);
    const issues = Object.fromEntries(result.error!.issues.map((issue) => [issue.path.join('.'), issue.message]));
    expect(issues.phone).toBe('validation.phone.prefix');
    expect(issues.personal_org_number).toBe('validation.personalNumber.required');
    const old = oldRegistrationSchema.safeParse({ phone: '+46 8 12' });
    expect(Object.fromEntries(old.error!.issues.map((issue) => [issue.path.join('.'), issue.message])).phone).toBe('validation.phone.tooShort');
  });

  test('every message key of accounts and units has a text in sv, en and no', () => {
    const keys = new Set<string>();
    for (const file of ['accounts/model.ts', 'accounts/service.ts', 'units/model.ts', 'units/service.ts']) {
      const source = readFileSync(join(import.meta.dir, '..', file), 'utf8');
      for (const match of source.matchAll(/'((?:validation|registration|payment|errors)\.[A-Za-z.]+)'/g)) keys.add(match[1]!);
    }
    keys.add('validation.phone.hint');
    expect(keys.size).toBeGreaterThan(20);
    expect([...keys].filter((key) => !hasMessage(key))).toEqual([]);
  });
});
