import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { parseArgs, parseCommand, runStock } from '../../../scripts/stock';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { StockAddResult, StockItem, UnitView } from './model';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function addUnit(accountId: number, imei: string, name: string, extra: { registrationNumber?: string; protocol?: string } = {}) {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number, model, protocol)
    values (${accountId}, ${imei}, ${name}, ${extra.registrationNumber ?? ''}, 'FMB920', ${extra.protocol ?? 'teltonika'})
    returning id`);
  return row!.id;
}

describe('GET /api/units', () => {
  test("lists the caller's account's units only, by name", async () => {
    const a = await app.createAccount();
    const b = await app.createAccount();
    const van = await addUnit(a.accountId, '356307042440001', 'Van', { registrationNumber: 'ABC123' });
    const boat = await addUnit(a.accountId, '356307042440002', 'Boat');
    await addUnit(b.accountId, '356307042440003', 'Other company car');
    const result = await app.call<UnitView[]>('GET', '/api/units', { token: await app.login(a) });
    expect(result.status).toBe(200);
    expect(result.body.data!.map((unit) => unit.ID)).toEqual([boat, van]);
    expect(result.body.data![1]).toEqual({
      ID: van,
      Name: 'Van',
      Imei: '356307042440001',
      RegistrationNumber: 'ABC123',
      Model: 'FMB920',
      Protocol: 'teltonika',
      SubscriptionType: 'standard',
      VehicleType: 'passenger_car',
      CreatedAt: expect.any(String),
    });
  });

  test('an ordinary user sees the units of their account (for now all of them)', async () => {
    const admin = await app.createAccount();
    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, role)
      values (${admin.accountId}, ${`plain-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'user')
      returning id`);
    expect(user).toBeDefined();
    const unitId = await addUnit(admin.accountId, '356307042440011', 'Pool car');
    const token = await app.login({ email: `plain-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
    const list = await app.call<UnitView[]>('GET', '/api/units', { token });
    expect(list.body.data!.map((unit) => unit.ID)).toEqual([unitId]);
    expect((await app.call<UnitView>('GET', `/api/units/${unitId}`, { token })).body.data!.Name).toBe('Pool car');
  });

  test('an account without units gets an empty list', async () => {
    const lonely = await app.createAccount();
    const result = await app.call<UnitView[]>('GET', '/api/units', { token: await app.login(lonely) });
    expect(result.body.data).toEqual([]);
  });

  test('anonymous callers get 401 Unauthenticated.', async () => {
    const result = await app.call('GET', '/api/units');
    expect(result.status).toBe(401);
    expect(result.body.message).toBe('Unauthenticated.');
    expect((await app.call('GET', '/api/units/1')).status).toBe(401);
  });
});

describe('GET /api/units/:id', () => {
  test('answers one of the own units', async () => {
    const a = await app.createAccount();
    const id = await addUnit(a.accountId, '356307042440021', 'Excavator', { protocol: 'gt06' });
    const result = await app.call<UnitView>('GET', `/api/units/${id}`, { token: await app.login(a) });
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({ ID: id, Name: 'Excavator', Imei: '356307042440021', Protocol: 'gt06' });
  });

  test("another account's unit is 404 with no data, like a unit that does not exist", async () => {
    const a = await app.createAccount();
    const b = await app.createAccount();
    const foreign = await addUnit(b.accountId, '356307042440031', 'Secret truck');
    const token = await app.login(a);
    const result = await app.call('GET', `/api/units/${foreign}`, { token });
    expect(result.status).toBe(404);
    expect(result.body.data).toBeNull();
    expect(result.body.errors).toBe('The unit is not registered or was not found.');
    expect(JSON.stringify(result.body)).not.toContain('Secret truck');
    const missing = await app.call('GET', '/api/units/2147483000', { token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(result.body);
  });

  test('a malformed id is 422', async () => {
    const a = await app.createAccount();
    const token = await app.login(a);
    expect((await app.call('GET', '/api/units/abc', { token })).status).toBe(422);
    expect((await app.call('GET', '/api/units/0', { token })).status).toBe(422);
    expect((await app.call('GET', '/api/units/99999999999', { token })).status).toBe(422);
  });
});

test('findUnitByImei: the gateway finds registered units and nothing else', async () => {
  const a = await app.createAccount();
  const id = await addUnit(a.accountId, '356307042440041', 'Tracked', { protocol: 'osmand' });
  expect(await app.services.units.findUnitByImei('356307042440041')).toEqual({
    unitId: id,
    accountId: a.accountId,
    imei: '356307042440041',
    name: 'Tracked',
    model: 'FMB920',
    protocol: 'osmand',
    timezoneMinutes: 0,
  });
  expect(await app.services.units.findUnitByImei('356307042449999')).toBeNull();
});

describe('tracker stock (support)', () => {
  async function supportToken(): Promise<string> {
    return app.login(await app.createAccount({ role: 'support' }));
  }

  test('support adds one or many IMEIs with model and protocol; existing ones are skipped', async () => {
    const token = await supportToken();
    const first = await app.call<StockAddResult>('POST', '/api/admin/tracker-stock', {
      token,
      body: { imeis: ['356307042450001'], model: 'GT06N', protocol: 'gt06', subsiteID: 4 },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ added: ['356307042450001'], skipped: [] });
    const many = await app.call<StockAddResult>('POST', '/api/admin/tracker-stock', {
      token,
      body: { imeis: ['356307042450001', '356307042450002', '356307042450003', '356307042450003'] },
    });
    expect(many.body.data).toEqual({ added: ['356307042450002', '356307042450003'], skipped: ['356307042450001'] });
    const rows = await app.database.rows<{ imei: string; model: string; protocol: string; subsite_id: number | null; payment_types: string[] }>(
      sql`select imei, model, protocol, subsite_id, payment_types from tracker_stock where imei like '35630704245000%' order by imei`,
    );
    expect(rows).toEqual([
      { imei: '356307042450001', model: 'GT06N', protocol: 'gt06', subsite_id: 4, payment_types: ['payment.card', 'payment.directDebit', 'payment.invoice'] },
      { imei: '356307042450002', model: 'FMB920', protocol: 'teltonika', subsite_id: null, payment_types: ['payment.card', 'payment.directDebit', 'payment.invoice'] },
      { imei: '356307042450003', model: 'FMB920', protocol: 'teltonika', subsite_id: null, payment_types: ['payment.card', 'payment.directDebit', 'payment.invoice'] },
    ]);
  });

  test('a large delivery is added in one call', async () => {
    const token = await supportToken();
    const imeis = Array.from({ length: 2500 }, (_, index) => String(356_307_060_000_000 + index));
    const result = await app.call<StockAddResult>('POST', '/api/admin/tracker-stock', { token, body: { imeis } });
    expect(result.status).toBe(200);
    expect(result.body.data!.added).toHaveLength(2500);
  });

  test('bad IMEIs are 422 per item and nothing is added', async () => {
    const token = await supportToken();
    const result = await app.call('POST', '/api/admin/tracker-stock', {
      token,
      body: { imeis: ['356307042450101', '12345', '35630704245010X'], protocol: 'nmea' },
    });
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({
      'imeis.1': ['The IMEI must be exactly 15 digits.'],
      'imeis.2': ['The IMEI must be exactly 15 digits.'],
      protocol: ['Invalid choice.'],
    });
    expect(await app.database.rows(sql`select 1 from tracker_stock where imei = '356307042450101'`)).toEqual([]);
    expect((await app.call('POST', '/api/admin/tracker-stock', { token, body: { imeis: [] } })).status).toBe(422);
  });

  test('only support may add or list stock', async () => {
    const body = { imeis: ['356307042450201'] };
    expect((await app.call('POST', '/api/admin/tracker-stock', { body })).status).toBe(401);
    for (const role of ['admin', 'user', 'reseller'] as const) {
      const token = await app.login(await app.createAccount({ role }));
      const post = await app.call('POST', '/api/admin/tracker-stock', { token, body });
      expect({ role, status: post.status }).toEqual({ role, status: 403 });
      const list = await app.call('GET', '/api/admin/tracker-stock', { token });
      expect({ role, status: list.status, data: list.body.data }).toEqual({ role, status: 403, data: null });
    }
    expect(await app.database.rows(sql`select 1 from tracker_stock where imei = '356307042450201'`)).toEqual([]);
  });

  test('the list shows which trackers are registered, with filters and paging', async () => {
    const token = await supportToken();
    await app.call('POST', '/api/admin/tracker-stock', { token, body: { imeis: ['356307042460001', '356307042460002', '356307042460003'] } });
    const owner = await app.createAccount();
    await addUnit(owner.accountId, '356307042460002', 'Sold');
    const all = await app.call<{ items: StockItem[]; total: number }>('GET', '/api/admin/tracker-stock?q=35630704246', { token });
    expect(all.body.data!.total).toBe(3);
    expect(all.body.data!.items.map((item) => [item.imei, item.registered])).toEqual([
      ['356307042460001', false],
      ['356307042460002', true],
      ['356307042460003', false],
    ]);
    const available = await app.call<{ items: StockItem[]; total: number }>(
      'GET',
      '/api/admin/tracker-stock?q=35630704246&status=available&limit=1&offset=1',
      { token },
    );
    expect(available.body.data!.total).toBe(2);
    expect(available.body.data!.items.map((item) => item.imei)).toEqual(['356307042460003']);
    const registered = await app.call<{ items: StockItem[]; total: number }>('GET', '/api/admin/tracker-stock?q=35630704246&status=registered', { token });
    expect(registered.body.data!.items.map((item) => item.imei)).toEqual(['356307042460002']);
    expect((await app.call('GET', '/api/admin/tracker-stock?status=sold', { token })).status).toBe(422);
  });
});

describe('stock CLI', () => {
  test('argument parsing', () => {
    expect(parseArgs(['356307042470001,356307042470002', '--model', 'FMB130', '--protocol=gt06'])).toEqual({
      positional: ['356307042470001', '356307042470002'],
      options: { model: 'FMB130', protocol: 'gt06' },
    });
    expect(parseCommand(['add', '123']).kind).toBe('usage');
    expect(parseCommand(['add', '--model']).kind).toBe('usage');
    expect(parseCommand(['help'])).toMatchObject({ kind: 'usage', code: 0 });
    expect(parseCommand(['frobnicate'])).toMatchObject({ kind: 'usage', code: 2 });
  });

  test('add and list against the database', async () => {
    const lines: string[] = [];
    const print = (line: string) => {
      lines.push(line);
    };
    expect(await runStock(['add', '356307042470001', '356307042470002', '--model', 'FMB130', '--subsite', '2'], app.database.db, print)).toBe(0);
    expect(lines[0]).toBe('added 2, skipped 0 (already in stock)');
    lines.length = 0;
    expect(await runStock(['add', '356307042470002'], app.database.db, print)).toBe(0);
    expect(lines).toEqual(['added 0, skipped 1 (already in stock)', '= 356307042470002']);
    lines.length = 0;
    expect(await runStock(['list', '--prefix', '35630704247'], app.database.db, print)).toBe(0);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^356307042470001 {2}FMB130 +teltonika +2 +no /);
    expect(lines[3]).toBe('2 of 2');
    lines.length = 0;
    expect(await runStock(['add', '35630704247000X', '--protocol', 'nmea'], app.database.db, print)).toBe(2);
    expect(lines).toEqual([
      'nothing added:',
      '  imeis.0 (35630704247000X): The IMEI must be exactly 15 digits.',
      '  protocol: Invalid choice.',
    ]);
  });
});
