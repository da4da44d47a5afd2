import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { parseArgs, parseCommand, runStock } from '../../../scripts/stock';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { BulkResult, NamedRef, StockAddResult, StockItem, TrackerHistoryEntry, UnitDetail, UnitOptions, UnitView } from './model';
import { addUnit as addUnitWithStock, nextImei, setState } from './testing';

// Each test makes many API calls; a loaded CI machine needs more than the default 5 s.
// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

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
      DeviceKind: 'triplog',
      Color: '#0b5cad',
      MarkerIcon: 'car',
      Department: null,
      Project: null,
      Tags: [],
      FeatureProfile: null,
      OperatingMode: null,
      TheftMode: 'off',
      ReportFrequencyS: null,
      FuelType: null,
      CarUsage: 'none',
      isLocked: false,
      HasAccess: true,
      CheckedInDriver: null,
      NextInspection: null,
      LastSeen: null,
      Status: 'offline',
      OdometerKm: null,
      OperatingHours: null,
      Outputs: { dout1: null, dout2: null, dout3: null },
      Inputs: { din2: null, din3: null },
    } satisfies UnitView);
  });

  test('an ordinary user sees only the units given to them (spec §6)', async () => {
    const admin = await app.createAccount();
    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, role)
      values (${admin.accountId}, ${`plain-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'user')
      returning id`);
    expect(user).toBeDefined();
    const unitId = await addUnit(admin.accountId, '356307042440011', 'Pool car');
    const other = await addUnit(admin.accountId, '356307042440012', 'Director car');
    const token = await app.login({ email: `plain-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
    // Nothing given yet: an empty list, and the account's unit answers "no access to tracker".
    expect((await app.call<UnitView[]>('GET', '/api/units', { token })).body.data).toEqual([]);
    const denied = await app.call('GET', `/api/units/${unitId}`, { token });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('You have no access to this tracker.');
    await app.grantUnits(user!.id, [unitId]);
    const list = await app.call<UnitView[]>('GET', '/api/units', { token });
    expect(list.body.data!.map((unit) => unit.ID)).toEqual([unitId]);
    expect((await app.call<UnitView>('GET', `/api/units/${unitId}`, { token })).body.data!.Name).toBe('Pool car');
    expect((await app.call('GET', `/api/units/${other}`, { token })).status).toBe(403);
    // The administrator still sees every unit of the account.
    expect((await app.call<UnitView[]>('GET', '/api/units', { token: await app.login(admin) })).body.data!.map((unit) => unit.ID)).toEqual([other, unitId]);
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
    // Each registration is in the support user's audit log with the IMEIs it added (none for nothing added).
    await app.platform.outbox.drain();
    const audited = await app.database.rows<{ action: string; target_kind: string; support_user_id: number | null; changes: { imeis: { to: string[] } } }>(
      sql`select action, target_kind, support_user_id, changes from audit_entries where action = 'stock.added' and changes->'imeis'->'to' ? '356307042450002'`,
    );
    expect(audited.map((entry) => [entry.action, entry.target_kind, entry.changes.imeis.to, entry.support_user_id !== null])).toEqual([
      ['stock.added', 'trackerStock', ['356307042450002', '356307042450003'], true],
    ]);
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

// ---------------------------------------------------------------------------------------------
// Unit list: search, filters, sorting, column preferences, catalogues
// ---------------------------------------------------------------------------------------------

describe('unit list (spec §2 /user/edit-terminal-list)', () => {
  async function fleet() {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const create = async (kind: 'departments' | 'projects' | 'tags', name: string) =>
      (await app.call<NamedRef>('POST', `/api/admin/${kind}`, { token, body: { name } })).body.data!.id;
    const north = await create('departments', 'North');
    const south = await create('departments', 'South');
    const build = await create('projects', 'Bridge build');
    const green = await create('tags', 'Green');
    const volvo = await addUnitWithStock(app, admin.accountId, nextImei('35800005'), 'Volvo V60', { registrationNumber: 'ABC123' });
    const scania = await addUnitWithStock(app, admin.accountId, nextImei('35800005'), 'Scania R450', { registrationNumber: 'XYZ987', vehicleType: 'lorry' });
    const boat = await addUnitWithStock(app, admin.accountId, nextImei('35800005'), 'Buster boat', { vehicleType: 'motorboat', deviceKind: 'battery', model: 'TAT100' });
    await app.call('POST', `/api/units/${volvo}/organisation`, { token, body: { departmentId: north, projectId: build, tagIds: [green] } });
    await app.call('POST', `/api/units/${scania}/organisation`, { token, body: { departmentId: south, projectId: null, tagIds: [] } });
    await app.database.rows(sql`update units set subscription_type = 'bas' where id = ${boat}`);
    await setState(app, volvo, { speed: 50, ignition: true, lastSeen: app.clock.now() });
    await setState(app, scania, { speed: 0, ignition: false, lastSeen: new Date(app.clock.now().getTime() - 5 * 60_000) });
    return { admin, token, north, south, build, green, volvo, scania, boat };
  }

  test('search by name, registration number or IMEI; filters by department, project, tag, vehicle type, subscription, status', async () => {
    const f = await fleet();
    const ids = async (query: string) => (await app.call<UnitView[]>('GET', `/api/units?${query}`, { token: f.token })).body.data!.map((unit) => unit.ID);
    expect(await ids('')).toEqual([f.boat, f.scania, f.volvo]);
    expect(await ids('q=volvo')).toEqual([f.volvo]);
    expect(await ids('q=xyz')).toEqual([f.scania]);
    const [boatRow] = await app.database.rows<{ imei: string }>(sql`select imei from units where id = ${f.boat}`);
    // A part of the IMEI reaching into the serial: six digits alone may also occur in the shared test prefix.
    expect(await ids(`q=${boatRow!.imei.slice(-9)}`)).toEqual([f.boat]);
    expect(await ids('q=%25')).toEqual([]);
    expect(await ids(`departmentId=${f.north}`)).toEqual([f.volvo]);
    expect(await ids(`projectId=${f.build}`)).toEqual([f.volvo]);
    expect(await ids(`tagId=${f.green}`)).toEqual([f.volvo]);
    expect(await ids('vehicleType=lorry')).toEqual([f.scania]);
    expect(await ids('subscription=bas')).toEqual([f.boat]);
    expect(await ids('status=moving')).toEqual([f.volvo]);
    expect(await ids('status=parked')).toEqual([f.scania]);
    expect(await ids('status=offline')).toEqual([f.boat]);
    expect((await app.call('GET', '/api/units?status=flying', { token: f.token })).status).toBe(422);
    const list = await app.call<UnitView[]>('GET', `/api/units?departmentId=${f.north}`, { token: f.token });
    expect(list.body.data![0]).toMatchObject({
      Department: { id: f.north, name: 'North' },
      Project: { id: f.build, name: 'Bridge build' },
      Tags: [{ id: f.green, name: 'Green' }],
      Status: 'moving',
      LastSeen: app.clock.now().toISOString(),
    });
  });

  test('sorting by any sortable column, both ways, empty values last', async () => {
    const f = await fleet();
    const ids = async (query: string) => (await app.call<UnitView[]>('GET', `/api/units?${query}`, { token: f.token })).body.data!.map((unit) => unit.ID);
    expect(await ids('sort=name&order=desc')).toEqual([f.volvo, f.scania, f.boat]);
    expect(await ids('sort=registrationNumber')).toEqual([f.volvo, f.scania, f.boat]);
    expect(await ids('sort=registrationNumber&order=desc')).toEqual([f.scania, f.volvo, f.boat]);
    expect(await ids('sort=lastSeen&order=desc')).toEqual([f.volvo, f.scania, f.boat]);
    expect(await ids('sort=department')).toEqual([f.volvo, f.scania, f.boat]);
    expect(await ids('sort=status')).toEqual([f.volvo, f.scania, f.boat]);
    expect((await app.call('GET', '/api/units?sort=password', { token: f.token })).status).toBe(422);
  });

  test('the column choice and sort order are kept per user in the shared preferences store', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    // None until chosen: the screen shows its defaults.
    expect((await app.call('GET', '/api/preferences/tables/units', { token })).body.data).toBeNull();
    const view = { sorting: [{ id: 'lastSeen', desc: true }], hidden: ['registrationNumber', 'imei', 'vehicleType', 'department', 'status'] };
    const saved = await app.call('POST', '/api/preferences/tables/units', { token, body: view });
    expect(saved.status).toBe(200);
    expect((await app.call('GET', '/api/preferences/tables/units', { token })).body.data).toEqual(view);
    // Another user keeps the defaults.
    const other = await app.createAccount();
    expect((await app.call('GET', '/api/preferences/tables/units', { token: await app.login(other) })).body.data).toBeNull();
    const bad = await app.call('POST', '/api/preferences/tables/units', { token, body: { sorting: [], hidden: ['name', 'password hash'] } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors as object)).toEqual(['hidden.1']);
    // The unit list's own endpoint is gone.
    expect((await app.call('GET', '/api/units/list-preferences', { token })).status).not.toBe(200);
  });

  test('catalogues: administrators create departments, projects, tags and feature profiles with unique names; options list them', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    expect((await app.call('POST', '/api/admin/departments', { token, body: { name: 'Service' } })).status).toBe(200);
    const again = await app.call('POST', '/api/admin/departments', { token, body: { name: 'service' } });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ name: ['The name is already in use.'] });
    expect((await app.call('POST', '/api/admin/feature-profiles', { token, body: { name: 'Eco', greenDriving: 'sensitive', overspeedKmh: 110 } })).status).toBe(200);
    // Another account may use the same name.
    const other = await app.createAccount();
    expect((await app.call('POST', '/api/admin/departments', { token: await app.login(other), body: { name: 'Service' } })).status).toBe(200);
    const options = await app.call<UnitOptions>('GET', '/api/units/options', { token });
    expect(options.body.data!.departments.map((entry) => entry.name)).toEqual(['Service']);
    expect(options.body.data!.featureProfiles.map((entry) => entry.name)).toEqual(['Eco']);
    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, role)
      values (${admin.accountId}, ${`plain-cat-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'user')
      returning id`);
    expect(user).toBeDefined();
    const userToken = await app.login({ email: `plain-cat-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
    expect((await app.call('POST', '/api/admin/tags', { token: userToken, body: { name: 'Mine' } })).status).toBe(403);
    expect((await app.call<UnitOptions>('GET', '/api/units/options', { token: userToken })).body.data!.departments).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Add terminal, tracker replacement, bulk tasks
// ---------------------------------------------------------------------------------------------

describe('add terminal (spec §2 /administration/add-terminal, §5 IMEI rules)', () => {
  test('an administrator adds a tracker from stock; bad, unknown, foreign-site and used IMEIs are field errors', async () => {
    const admin = await app.createAccount({ subsiteId: 2 });
    const token = await app.login(admin);
    const imei = nextImei('35800006');
    await app.services.units.addStock({ imeis: [imei], model: 'FMB130', protocol: 'teltonika', subsiteID: 2 }, null);
    const wrongSite = nextImei('35800006');
    await app.services.units.addStock({ imeis: [wrongSite], model: 'FMB130', protocol: 'teltonika', subsiteID: 3 }, null);
    const errorOf = async (body: unknown) => {
      const result = await app.call('POST', '/api/admin/units', { token, body });
      return [result.status, result.body.errors];
    };
    expect(await errorOf({ imei: '12345' })).toEqual([422, { imei: ['The IMEI must be exactly 15 digits.'] }]);
    expect(await errorOf({ imei: nextImei('35800007') })).toEqual([422, { imei: [expect.any(String)] }]);
    expect(await errorOf({ imei: wrongSite })).toEqual([422, { imei: [expect.any(String)] }]);
    const added = await app.call<{ ID: number; Name: string }>('POST', '/api/admin/units', {
      token,
      body: { imei, name: 'New van', registrationNumber: 'abc 123', vehicleType: 'lorry' },
    });
    expect(added.status).toBe(200);
    const unit = await app.call<UnitDetail>('GET', `/api/units/${added.body.data!.ID}`, { token });
    expect(unit.body.data).toMatchObject({ Name: 'New van', Imei: imei, Model: 'FMB130', RegistrationNumber: 'ABC123', VehicleType: 'lorry', Position: null });
    expect(await errorOf({ imei })).toEqual([422, { imei: ['This IMEI is already in use.'] }]);
  });

  test('an IMEI is one unit across accounts: another account cannot add it, and of two accounts adding it at once one wins', async () => {
    // The key (imei, account_id) allows the IMEI once per account; the stock row's lock keeps it once in all.
    const first = await app.login(await app.createAccount({ subsiteId: 2 }));
    const second = await app.login(await app.createAccount({ subsiteId: 2 }));
    const used = nextImei('35800016');
    await app.services.units.addStock({ imeis: [used], model: 'FMB920', protocol: 'teltonika', subsiteID: 2 }, null);
    expect((await app.call('POST', '/api/admin/units', { token: first, body: { imei: used } })).status).toBe(200);
    const refused = await app.call('POST', '/api/admin/units', { token: second, body: { imei: used } });
    expect([refused.status, refused.body.errors]).toEqual([422, { imei: ['This IMEI is already in use.'] }]);

    const raced = nextImei('35800016');
    await app.services.units.addStock({ imeis: [raced], model: 'FMB920', protocol: 'teltonika', subsiteID: 2 }, null);
    const results = await Promise.all([first, second].map((token) => app.call('POST', '/api/admin/units', { token, body: { imei: raced } })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 422]);
    const registered = await app.database.query<{ n: string }>('SELECT count(*) AS n FROM units WHERE imei = $1', [used]);
    const racedUnits = await app.database.query<{ n: string }>('SELECT count(*) AS n FROM units WHERE imei = $1', [raced]);
    expect([Number(registered[0]!.n), Number(racedUnits[0]!.n)]).toEqual([1, 1]);
  });

  test('the first position is awaited: none until the tracker reports, then where it is', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const imei = nextImei('35800008');
    await app.services.units.addStock({ imeis: [imei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const { ID } = (await app.call<{ ID: number }>('POST', '/api/admin/units', { token, body: { imei } })).body.data!;
    expect((await app.call('GET', `/api/admin/units/${ID}/first-position`, { token })).body.data).toEqual({ ID, LastSeen: null, Position: null });
    await setState(app, ID, { lat: 57.7089, lon: 11.9746 });
    expect((await app.call('GET', `/api/admin/units/${ID}/first-position`, { token })).body.data).toEqual({
      ID,
      LastSeen: app.clock.now().toISOString(),
      Position: { lat: 57.7089, lon: 11.9746, time: app.clock.now().toISOString() },
    });
  });

  test('ordinary users may not add units; support names the customer account', async () => {
    const admin = await app.createAccount();
    const imei = nextImei('35800009');
    await app.services.units.addStock({ imeis: [imei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const user = await app.createAccount({ role: 'user' });
    expect((await app.call('POST', '/api/admin/units', { token: await app.login(user), body: { imei } })).status).toBe(403);
    const support = await app.login(await app.createAccount({ role: 'support' }));
    const missing = await app.call('POST', '/api/admin/units', { token: support, body: { imei } });
    expect([missing.status, missing.body.errors]).toEqual([422, { accountId: ['Choose the customer account.'] }]);
    const added = await app.call<{ ID: number; AccountID: number }>('POST', '/api/admin/units', { token: support, body: { imei, accountId: admin.accountId } });
    expect(added.body.data!.AccountID).toBe(admin.accountId);
    // The customer's audit log names the unit support added.
    await app.platform.outbox.drain();
    const audited = await app.database.rows<{ action: string; target_id: number; support: boolean }>(
      sql`select action, target_id, support_user_id is not null as support from audit_entries where account_id = ${admin.accountId} and action = 'unit.added'`,
    );
    expect(audited).toEqual([{ action: 'unit.added', target_id: added.body.data!.ID, support: true }]);
    const list = await app.call<UnitView[]>('GET', '/api/units', { token: await app.login(admin) });
    expect(list.body.data!.map((unit) => unit.Imei)).toEqual([imei]);
    expect((await app.call('GET', `/api/admin/units/${added.body.data!.ID}/first-position`, { token: support })).status).toBe(200);
  });
});

describe('tracker replacement (spec §4)', () => {
  test('moves the unit and its history to a new IMEI from stock after confirmation; the old tracker returns to stock', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const oldImei = nextImei('35800010');
    const newImei = nextImei('35800010');
    const unitId = await addUnitWithStock(app, admin.accountId, oldImei, 'Excavator');
    await app.services.units.addStock({ imeis: [newImei], model: 'FMC130', protocol: 'teltonika', subsiteID: null }, null);
    await app.database.rows(sql`insert into positions (unit_id, time, received_at, geom, valid)
      values (${unitId}, '2026-03-01T10:00:00Z', now(), ST_SetSRID(ST_MakePoint(18, 59), 4326), true)`);
    const unconfirmed = await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token, body: { imei: newImei } });
    expect([unconfirmed.status, unconfirmed.body.errors]).toEqual([422, { confirm: ['Confirm the replacement: it cannot be undone.'] }]);
    expect((await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token, body: { imei: oldImei, confirm: true } })).status).toBe(422);
    const unknown = await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token, body: { imei: nextImei('35800011'), confirm: true } });
    expect(Object.keys(unknown.body.errors as object)).toEqual(['imei']);

    const replaced = await app.call<UnitDetail>('POST', `/api/units/${unitId}/replace-tracker`, { token, body: { imei: newImei, confirm: true } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ ID: unitId, Name: 'Excavator', Imei: newImei, Model: 'FMC130' });
    const history = await app.call<TrackerHistoryEntry[]>('GET', `/api/units/${unitId}/tracker-history`, { token });
    expect(history.body.data).toEqual([
      { previousImei: oldImei, previousModel: 'FMB920', imei: newImei, model: 'FMC130', replacedBy: expect.stringContaining('Test'), replacedAt: app.clock.now().toISOString() },
    ]);
    // The history stays with the unit, now under the new IMEI; the old IMEI is free stock again.
    const [positions] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from positions where unit_id = ${unitId}`);
    expect(positions!.n).toBe(1);
    expect(await app.services.units.findUnitByImei(newImei)).toMatchObject({ unitId });
    expect(await app.services.units.findUnitByImei(oldImei)).toBeNull();
    expect((await app.services.units.checkImei(oldImei, 0)).ok).toBe(true);
  });

  test('only administrators and support replace trackers', async () => {
    const admin = await app.createAccount();
    const unitId = await addUnitWithStock(app, admin.accountId, nextImei('35800012'), 'Van');
    const newImei = nextImei('35800012');
    await app.services.units.addStock({ imeis: [newImei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [user] = await app.database.rows<{ email: string }>(sql`
      insert into users (account_id, email, password_hash, role)
      values (${admin.accountId}, ${`plain-rep-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'user')
      returning email`);
    const userToken = await app.login({ email: user!.email, password: admin.password, subsiteId: 0 });
    expect((await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token: userToken, body: { imei: newImei, confirm: true } })).status).toBe(403);
    const support = await app.login(await app.createAccount({ role: 'support' }));
    expect((await app.call('POST', `/api/units/${unitId}/replace-tracker`, { token: support, body: { imei: newImei, confirm: true } })).status).toBe(200);
  });
});

describe('bulk tasks', () => {
  test('a department for selected units, each with its result; a foreign unit refuses the whole request', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const department = (await app.call<NamedRef>('POST', '/api/admin/departments', { token, body: { name: 'Fleet' } })).body.data!.id;
    const ids = [
      await addUnitWithStock(app, admin.accountId, nextImei('35800013'), 'One'),
      await addUnitWithStock(app, admin.accountId, nextImei('35800013'), 'Two'),
    ];
    const result = await app.call<BulkResult>('POST', '/api/units/bulk', { token, body: { unitIds: ids, task: { kind: 'department', departmentId: department } } });
    expect(result.body.data!.results).toEqual(ids.map((unitId) => ({ unitId, ok: true, error: null, pending: false })));
    const list = await app.call<UnitView[]>('GET', `/api/units?departmentId=${department}`, { token });
    expect(list.body.data!.map((unit) => unit.ID).sort()).toEqual([...ids].sort());
    const stranger = await app.createAccount();
    const foreign = await addUnitWithStock(app, stranger.accountId, nextImei('35800013'), 'Foreign');
    const refused = await app.call('POST', '/api/units/bulk', { token, body: { unitIds: [ids[0], foreign], task: { kind: 'department', departmentId: null } } });
    expect(refused.status).toBe(404);
    expect((await app.call<UnitView>('GET', `/api/units/${ids[0]}`, { token })).body.data!.Department).toEqual({ id: department, name: 'Fleet' });
    const none = await app.call('POST', '/api/units/bulk', { token, body: { unitIds: [], task: { kind: 'department', departmentId: null } } });
    expect([none.status, none.body.errors]).toEqual([422, { unitIds: ['Select at least one unit.'] }]);
  });

  test('operating mode for a mixed selection: battery trackers queue it, others answer why not', async () => {
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const battery = await addUnitWithStock(app, admin.accountId, nextImei('35800014'), 'Boat', { deviceKind: 'battery', model: 'TAT100' });
    const car = await addUnitWithStock(app, admin.accountId, nextImei('35800014'), 'Car');
    const result = await app.call<BulkResult>('POST', '/api/units/bulk', { token, body: { unitIds: [battery, car], task: { kind: 'operatingMode', mode: '8h' } } });
    expect(result.body.data!.results).toEqual([
      { unitId: battery, ok: true, error: null, pending: true },
      { unitId: car, ok: false, error: 'Operating modes apply to battery-powered trackers only.' },
    ]);
    const tags = await app.call<BulkResult>('POST', '/api/units/bulk', { token, body: { unitIds: [car], task: { kind: 'tags', tagIds: [999999], mode: 'add' } } });
    expect(tags.status).toBe(422);
  });
});
