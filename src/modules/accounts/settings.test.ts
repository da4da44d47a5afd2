import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { NamedRef } from '../units/model';
import type { AccountSettingsInput, AccountSettingsView, PurposeCatalog } from './model';

/** Account settings (spec §2 account settings, §3 Account, §5 limits, §6 switches and report-frequency permissions). */
setDefaultTimeout(30_000);

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;
let userToken: string;
let plainUserId: number;
let other: Awaited<ReturnType<TestApp['createAccount']>>;
let otherToken: string;

const read = (token = adminToken) => app.call<AccountSettingsView>('GET', '/api/admin/account-settings', { token });
const save = (body: unknown, token = adminToken, lang = 'en') => app.call<AccountSettingsView>('POST', '/api/admin/account-settings', { token, body, headers: { 'x-lang': lang } });

function complete(overrides: Partial<AccountSettingsInput> = {}): AccountSettingsInput {
  return {
    company: {
      companyName: 'Fjällfrakt AB',
      contactPerson: 'Karin Berg',
      address: 'Storgatan 1',
      postalCode: '831 30',
      city: 'Östersund',
      country: 'Sweden',
      orgNumber: '556677-8899',
      phone: '+46 63 123 456',
      invoiceType: 'E-invoice',
      reseller: 'Nordic Fleet Partner',
    },
    fuelPrices: [
      { market: 'SE', fuelType: 'diesel', price: 19.85 },
      { market: 'SE', fuelType: 'petrol', price: 18.42 },
      { market: 'NO', fuelType: 'electricity', price: 2.15 },
    ],
    language: 'no',
    timezone: 'Europe/Oslo',
    usersMayCreatePurposes: true,
    usersMayCreateProjects: true,
    qrCheckinWithoutAccess: true,
    ...overrides,
  };
}

const auditEntries = (accountId: number) =>
  app.database.query<{ payload: { accountId: number; action: string; changes: Record<string, { from: unknown; to: unknown }> } }>(
    `SELECT payload FROM outbox_events WHERE type = 'audit.entry' AND (payload->>'accountId')::int = $1 ORDER BY id`,
    [accountId],
  );

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  adminToken = await app.login(owner);
  const plainEmail = `plain-settings-${owner.userId}@example.com`;
  const [plain] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${owner.accountId}, ${plainEmail}, (select password_hash from users where id = ${owner.userId}), 'Pia', 'Plain', 'user') returning id`);
  plainUserId = plain!.id;
  userToken = await app.login({ email: plainEmail, password: owner.password, subsiteId: 0 });
  other = await app.createAccount();
  otherToken = await app.login(other);
}, 180_000);
afterAll(async () => {
  await app?.close();
});

describe('account settings', () => {
  test('a new account reads the defaults; only administrators read or save', async () => {
    const fresh = await read();
    expect(fresh.status).toBe(200);
    expect(fresh.body.data!.language).toBe('sv');
    expect(fresh.body.data!.timezone).toBe('Europe/Stockholm');
    expect(fresh.body.data!.fuelPrices).toEqual([]);
    expect(fresh.body.data!.usersMayCreateProjects).toBe(false);
    expect(fresh.body.data!.qrCheckinWithoutAccess).toBe(false);
    expect(fresh.body.data!.company.companyName).toMatch(/^Company /);
    expect(fresh.body.data!.updatedAt).toBeNull();
    expect((await read(userToken)).status).toBe(403);
    expect((await save(complete(), userToken)).status).toBe(403);
    expect((await app.call('GET', '/api/admin/account-settings')).status).toBe(401);
  });

  test('the round trip: every part is saved, read back, readable through the service and audited in the same transaction', async () => {
    const saved = await save(complete());
    expect(saved.status).toBe(200);
    const view = (await read()).body.data!;
    expect(view.company).toEqual(complete().company);
    expect(view.fuelPrices).toEqual([
      { market: 'SE', fuelType: 'petrol', price: 18.42 },
      { market: 'SE', fuelType: 'diesel', price: 19.85 },
      { market: 'NO', fuelType: 'electricity', price: 2.15 },
    ]);
    expect(view.language).toBe('no');
    expect(view.timezone).toBe('Europe/Oslo');
    expect(view.usersMayCreatePurposes).toBe(true);
    expect(view.usersMayCreateProjects).toBe(true);
    expect(view.qrCheckinWithoutAccess).toBe(true);
    expect(view.updatedAt).not.toBeNull();
    // The other modules' read side.
    const service = app.services.accountSettings;
    expect(await service.fuelPrice(owner.accountId, 'SE', 'diesel')).toBe(19.85);
    expect(await service.fuelPrice(owner.accountId, 'NO', 'diesel')).toBeNull();
    expect(await service.defaults(owner.accountId)).toEqual({ language: 'no', timezone: 'Europe/Oslo' });
    expect(await service.qrCheckinWithoutAccess(owner.accountId)).toBe(true);
    // The purposes switch is the one the trip log reads.
    expect((await app.call<PurposeCatalog>('GET', '/api/purposes', { token: userToken })).body.data!.usersMayCreate).toBe(true);
    // One audit entry, field by field.
    const entries = await auditEntries(owner.accountId);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.payload.action).toBe('settings.updated');
    expect(entries[0]!.payload.changes['company.city']).toEqual({ from: '', to: 'Östersund' });
    expect(entries[0]!.payload.changes['fuelPrice.SE.diesel']).toEqual({ from: null, to: 19.85 });
    expect(entries[0]!.payload.changes.language).toEqual({ from: 'sv', to: 'no' });
    // Saving the same again changes nothing and writes no entry; a price left out is no longer set.
    await save(complete());
    expect(await auditEntries(owner.accountId)).toHaveLength(1);
    await save(complete({ fuelPrices: [{ market: 'SE', fuelType: 'diesel', price: 20 }] }));
    expect((await read()).body.data!.fuelPrices).toEqual([{ market: 'SE', fuelType: 'diesel', price: 20 }]);
    expect((await auditEntries(owner.accountId)).at(-1)!.payload.changes['fuelPrice.SE.petrol']).toEqual({ from: 18.42, to: null });
  });

  test('§5 limits and bad input: a translated 422 per field and nothing written', async () => {
    const before = (await read()).body.data!;
    const cases: Array<[Partial<AccountSettingsInput['company']> | null, Partial<AccountSettingsInput> | null, string, string]> = [
      [{ companyName: 'x'.repeat(51) }, null, 'company.companyName', 'At most 50 characters.'],
      [{ contactPerson: 'x'.repeat(51) }, null, 'company.contactPerson', 'At most 50 characters.'],
      [{ address: 'x'.repeat(51) }, null, 'company.address', 'At most 50 characters.'],
      [{ postalCode: '12345678' }, null, 'company.postalCode', 'At most 7 characters.'],
      [{ city: 'x'.repeat(51) }, null, 'company.city', 'At most 50 characters.'],
      [{ country: 'x'.repeat(51) }, null, 'company.country', 'At most 50 characters.'],
      [{ orgNumber: '1'.repeat(51) }, null, 'company.orgNumber', 'At most 50 characters.'],
      [{ reseller: 'x'.repeat(256) }, null, 'company.reseller', 'At most 255 characters.'],
      [{ phone: '12-34' }, null, 'company.phone', ''],
      [{ phone: '+46 12ab5678' }, null, 'company.phone', ''],
      [null, { timezone: 'Mars/Olympus' }, 'timezone', 'Unknown time zone.'],
      [null, { fuelPrices: [{ market: 'SE', fuelType: 'diesel', price: -1 }] }, 'fuelPrices.0.price', 'The price must be between 0 and 999.99.'],
      [null, { fuelPrices: [{ market: 'SE', fuelType: 'diesel', price: 1000 }] }, 'fuelPrices.0.price', 'The price must be between 0 and 999.99.'],
      [
        null,
        {
          fuelPrices: [
            { market: 'SE', fuelType: 'diesel', price: 1 },
            { market: 'SE', fuelType: 'diesel', price: 2 },
          ],
        },
        'fuelPrices.1.fuelType',
        'That fuel already has a price in that market.',
      ],
    ];
    for (const [company, rest, field, message] of cases) {
      const body = complete({ ...(rest ?? {}), company: { ...complete().company, ...(company ?? {}) } });
      const answer = await save(body);
      expect(answer.status).toBe(422);
      const errors = answer.body.errors as Record<string, string[]>;
      expect(Object.keys(errors)).toEqual([field]);
      if (message) expect(errors[field]![0]).toContain(message);
      else expect(errors[field]![0]!.length).toBeGreaterThan(0);
    }
    // Messages in the caller's language.
    const swedish = await save(complete({ timezone: 'Nowhere/Nothing' }), adminToken, 'sv');
    expect((swedish.body.errors as Record<string, string[]>).timezone).toEqual(['Okänd tidszon.']);
    expect((await read()).body.data).toEqual(before);
  });

  test('a failure midway writes nothing: the accounts row is not changed when a later part fails', async () => {
    const before = (await read()).body.data!;
    // The database refuses an unknown market (the schema never sends one); the company update before it rolls back.
    const service = app.services.accountSettings;
    const actor = { userId: owner.userId, accountId: owner.accountId, role: 'admin' as const, language: 'en' as const, subsiteId: 0 };
    const input = complete({ company: { ...complete().company, city: 'Midway' } });
    const broken = { ...input, fuelPrices: [{ market: 'DK', fuelType: 'diesel', price: 1 }] } as unknown as AccountSettingsInput;
    await expect(service.save(actor as never, broken)).rejects.toThrow();
    expect((await read()).body.data).toEqual(before);
  });

  test('each account sees and changes only its own settings', async () => {
    await save(complete({ company: { ...complete().company, companyName: 'Other Co' } }), otherToken);
    expect((await read()).body.data!.company.companyName).toBe('Fjällfrakt AB');
    expect((await read(otherToken)).body.data!.company.companyName).toBe('Other Co');
    expect((await read(otherToken)).body.data!.reportFrequency.map((person) => person.userId)).toEqual([other.userId]);
  });

  test('§6 report frequency: the screen lists who is denied; the per-user switch changes it', async () => {
    const listed = (await read()).body.data!.reportFrequency;
    expect(listed.map((person) => person.userId).sort()).toEqual([owner.userId, plainUserId].sort());
    expect(listed.every((person) => !person.denied)).toBe(true);
    expect((await app.call('POST', `/api/admin/users/${plainUserId}/report-frequency`, { token: adminToken, body: { denied: true } })).status).toBe(200);
    const after = (await read()).body.data!.reportFrequency;
    expect(after.find((person) => person.userId === plainUserId)!.denied).toBe(true);
    expect(after.find((person) => person.userId === owner.userId)!.denied).toBe(false);
  });

  test('§6 ordinary users create projects only when the account allows it', async () => {
    await save(complete({ usersMayCreateProjects: false }));
    expect((await app.call('POST', '/api/admin/projects', { token: userToken, body: { name: 'Road works' } })).status).toBe(403);
    expect((await app.call('POST', '/api/admin/departments', { token: userToken, body: { name: 'North' } })).status).toBe(403);
    await save(complete({ usersMayCreateProjects: true }));
    const created = await app.call<NamedRef>('POST', '/api/admin/projects', { token: userToken, body: { name: 'Road works' } });
    expect(created.status).toBe(200);
    expect(created.body.data!.name).toBe('Road works');
    // Still no departments, and no renaming of projects.
    expect((await app.call('POST', '/api/admin/departments', { token: userToken, body: { name: 'North' } })).status).toBe(403);
    expect((await app.call('POST', `/api/admin/projects/${created.body.data!.id}`, { token: userToken, body: { name: 'X' } })).status).toBe(403);
  });
});
