/**
 * Account isolation: a user of account A who names an object of account B (by id, user id or IMEI) gets
 * 403/404/422 and none of B's data, and B's data stays as it was. The list of endpoints is checked against
 * the OpenAPI document, so a new endpoint that takes an id fails this file until it has a case here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type CallResult, type TestApp } from '../support/app';

let app: TestApp;

interface Party {
  accountId: number;
  adminId: number;
  adminEmail: string;
  userId: number;
  userEmail: string;
  unitId: number;
  unitName: string;
  imei: string;
  password: string;
}
let a: Party;
let b: Party;
let bToken: string;
let callers: Array<{ role: string; token: string }>;

async function party(label: string, imei: string): Promise<Party> {
  const admin = await app.createAccount();
  const userEmail = `plain-${label.toLowerCase()}-${admin.userId}@example.com`;
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${admin.accountId}, ${userEmail}, (select password_hash from users where id = ${admin.userId}), ${`User ${label}`}, 'user')
    returning id`);
  await app.services.units.addStock({ imeis: [imei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
  const unitName = `Secret unit of ${label}`;
  const [unit] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${admin.accountId}, ${imei}, ${unitName}) returning id`);
  return {
    accountId: admin.accountId,
    adminId: admin.userId,
    adminEmail: admin.email,
    userId: user!.id,
    userEmail,
    unitId: unit!.id,
    unitName,
    imei,
    password: admin.password,
  };
}

/** Everything of B that must not change or leak. */
async function snapshotOfB() {
  return app.database.rows(sql`
    select u.id, u.email, u.password_hash, u.role, u.two_factor, u.alerts_opt_out,
           (select count(*)::int from sessions s where s.user_id = u.id and s.revoked_at is null) as open_sessions,
           (select json_agg(json_build_object('id', n.id, 'name', n.name, 'imei', n.imei, 'account', n.account_id) order by n.id)
              from units n where n.account_id = ${b.accountId}) as units
    from users u where u.account_id = ${b.accountId} order by u.id`);
}

beforeAll(async () => {
  app = await createTestApp();
  a = await party('A', '356307042480001');
  b = await party('B', '356307042480002');
  bToken = await app.login({ email: b.adminEmail, password: b.password, subsiteId: 0 });
  callers = [
    { role: 'administrator of A', token: await app.login({ email: a.adminEmail, password: a.password, subsiteId: 0 }) },
    { role: 'ordinary user of A', token: await app.login({ email: a.userEmail, password: a.password, subsiteId: 0 }) },
  ];
}, 60_000);
afterAll(async () => {
  await app?.close();
});

interface IsolationCase {
  /** As the OpenAPI document names it: `METHOD /api/path/{param}`. */
  endpoint: string;
  /** Calls the endpoint as a user of A, naming B's object. */
  call(token: string): Promise<CallResult>;
  statuses: number[];
}

const registration = (imei: string) => ({
  Imei: imei,
  personal_org_number: '198112189876',
  address: 'Storgatan 1',
  city: 'Stockholm',
  zipCode: '11122',
  contactPerson: 'Eve',
  country: 'Sverige',
  fullName: 'Eve Intruder',
  phone: '+46701234567',
  reseller: 'Shop',
  subsiteID: 0,
  terms: 1,
  userName: 'eve@example.com',
  userPassword: 'Secret-123!',
  userPassword_confirmation: 'Secret-123!',
  is_private_account: 1,
  countryDialCode: '46',
});

const cases: IsolationCase[] = [
  {
    endpoint: 'GET /api/units/{id}',
    call: (token) => app.call('GET', `/api/units/${b.unitId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/trips',
    call: (token) => app.call('GET', `/api/trips?unitId=${b.unitId}&from=2026-03-01&to=2026-03-31`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/user/update',
    call: (token) => app.call('POST', '/api/user/update', { token, body: { userId: b.adminId, email: 'eve@example.com', password: 'Taken-123!' } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/user/update',
    call: (token) => app.call('POST', '/api/user/update', { token, body: { userId: b.userId, email: 'eve2@example.com', password: 'Taken-123!' } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/2fa/generate',
    call: (token) => app.call('POST', '/api/2fa/generate', { token, body: { lang: 'en', user_id: b.adminId } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'POST /api/2fa/verify',
    call: (token) => app.call('POST', '/api/2fa/verify', { token, body: { code: '123456', user_id: b.adminId, remember: true } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'POST /api/payment-types',
    call: (token) => app.call('POST', '/api/payment-types', { token, body: { imei: b.imei, lang: 'en' } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'GET /api/validate/imei',
    call: (token) => app.call('GET', `/api/validate/imei?imei=${b.imei}&subsiteID=0`, { token }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/register',
    call: (token) => app.call('POST', '/api/register', { token, body: registration(b.imei) }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/admin/tracker-stock',
    call: (token) => app.call('POST', '/api/admin/tracker-stock', { token, body: { imeis: [b.imei], model: 'Hijacked', protocol: 'gt06' } }),
    statuses: [403],
  },
  {
    endpoint: 'GET /api/tracking/history',
    // The test clock's day (2026-03-02 in Stockholm): a valid date, so only the unit's account can refuse it.
    call: (token) => app.call('GET', `/api/tracking/history?unitId=${b.unitId}&date=${app.clock.now().toISOString().slice(0, 10)}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/admin/tracker-stock',
    call: (token) => app.call('GET', `/api/admin/tracker-stock?q=${b.imei}`, { token }),
    statuses: [403],
  },
];

/** Parameter and body field names that name an object of some account. Sub-site ids select a brand, not a tenant. */
const OBJECT_REFERENCE = /(^id$|Id$|_id$|ID$|imei)/i;
const NOT_A_TENANT_OBJECT = /subsite/i;

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface JsonSchema {
  properties?: Record<string, unknown>;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

function fieldNames(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  return [
    ...Object.keys(schema.properties ?? {}),
    ...(schema.oneOf ?? []).flatMap(fieldNames),
    ...(schema.anyOf ?? []).flatMap(fieldNames),
  ];
}

describe('account isolation', () => {
  test('every endpoint that takes an id or IMEI has an isolation case', async () => {
    const response = await app.api.handle(new Request('http://localhost/api/docs/json'));
    const document = (await response.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
    const idTaking: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const names = [
          ...(operation.parameters ?? []).map((parameter) => parameter.name),
          ...fieldNames(operation.requestBody?.content?.['application/json']?.schema),
        ];
        if (names.some((name) => OBJECT_REFERENCE.test(name) && !NOT_A_TENANT_OBJECT.test(name))) {
          idTaking.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(idTaking.length).toBeGreaterThanOrEqual(8);
    const covered = new Set(cases.map((c) => c.endpoint));
    expect(idTaking.filter((endpoint) => !covered.has(endpoint))).toEqual([]);
    // Every case names an endpoint that exists.
    const all = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`));
    expect([...covered].filter((endpoint) => !all.includes(endpoint))).toEqual([]);
  });

  test("a user of A naming B's objects is refused and learns nothing", async () => {
    const before = await snapshotOfB();
    const secrets = [b.adminEmail, b.userEmail, b.unitName];
    for (const c of cases) {
      for (const caller of callers) {
        const result = await c.call(caller.token);
        const seen = { endpoint: c.endpoint, caller: caller.role, status: result.status, success: result.body.success, data: result.body.data };
        expect(seen).toEqual({ endpoint: c.endpoint, caller: caller.role, status: seen.status, success: false, data: null });
        expect({ endpoint: c.endpoint, caller: caller.role, allowed: c.statuses.includes(result.status) }).toEqual({
          endpoint: c.endpoint,
          caller: caller.role,
          allowed: true,
        });
        const text = JSON.stringify(result.body);
        for (const secret of secrets) expect({ endpoint: c.endpoint, leaks: text.includes(secret) }).toEqual({ endpoint: c.endpoint, leaks: false });
      }
    }
    // B is untouched: same users, passwords, sessions and units; no e-mail went to B; B still works.
    expect(await snapshotOfB()).toEqual(before);
    expect(app.smtp.inbox.filter((mail) => mail.to.includes(b.adminEmail) || mail.to.includes(b.userEmail))).toEqual([]);
    expect(await app.database.rows(sql`select 1 from mail_outbox where to_address in (${b.adminEmail}, ${b.userEmail})`)).toEqual([]);
    const stock = await app.database.rows<{ model: string; protocol: string }>(sql`select model, protocol from tracker_stock where imei = ${b.imei}`);
    expect(stock).toEqual([{ model: 'FMB920', protocol: 'teltonika' }]);
    expect((await app.call('GET', `/api/units/${b.unitId}`, { token: bToken })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token: bToken })).status).toBe(200);
    expect(await app.database.rows(sql`select 1 from users where email in ('eve@example.com', 'eve2@example.com')`)).toEqual([]);
  });

  test("lists never contain B's objects", async () => {
    for (const caller of callers) {
      const list = await app.call<Array<{ ID: number }>>('GET', '/api/units', { token: caller.token });
      expect(list.body.data!.map((unit) => unit.ID)).toEqual([a.unitId]);
      expect(JSON.stringify(list.body)).not.toContain(b.unitName);
      const live = await app.call<{ units: Array<{ id: number }> }>('GET', '/api/tracking/units', { token: caller.token });
      expect(live.body.data!.units.map((unit) => unit.id)).toEqual([a.unitId]);
      expect(JSON.stringify(live.body)).not.toContain(b.unitName);
    }
  });

  test('inside one account an ordinary user cannot change the administrator', async () => {
    const userToken = callers[1]!.token;
    const result = await app.call('POST', '/api/user/update', {
      token: userToken,
      body: { userId: a.adminId, email: 'takeover@example.com', password: 'Taken-123!' },
    });
    expect(result.status).toBe(404);
    expect(result.body.errors).toBe('Invalid user ID.');
    const [admin] = await app.database.rows<{ email: string }>(sql`select email from users where id = ${a.adminId}`);
    expect(admin!.email).toBe(a.adminEmail);
  });
});
