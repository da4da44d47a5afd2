import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { AuditList } from '../audit/model';
import type { AdminSession, AdminUserRow } from './model';

/** Issue 19: user administration (§2, §5, §6), the audit log, and the support and reseller scopes. */
let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;

beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  adminToken = await app.login(admin);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

let sequence = 0;
const newUser = (overrides: Record<string, unknown> = {}) => {
  sequence += 1;
  return { firstName: 'Nils', lastName: `Driver ${sequence}`, email: `Nils.${sequence}@Example.com`, phone: '', ...overrides };
};

async function create(token: string, body: Record<string, unknown>) {
  return app.call<AdminUserRow>('POST', '/api/admin/users', { token, body });
}

async function acceptInvitation(email: string, password = 'Invited-123!') {
  const mail = await app.smtp.waitFor(email);
  const code = mail.text.match(/_c=([\w-]+)/)?.[1];
  expect(code).toBeDefined();
  return { mail, result: await app.call('POST', '/api/invitations/accept', { body: { code, password, password_confirmation: password } }), code: code! };
}

/** The field errors of a 422. */
const fields = (result: { body: { errors?: unknown } }) => (result.body.errors ?? {}) as Record<string, string[] | undefined>;

async function auditOf(token: string, query = ''): Promise<AuditList> {
  await app.platform.outbox.drain();
  const listed = await app.call<AuditList>('GET', `/api/audit${query}`, { token });
  expect({ status: listed.status, body: listed.status === 200 ? null : listed.body }).toEqual({ status: 200, body: null });
  return listed.body.data!;
}

describe('creating a user and the invitation', () => {
  test('the e-mail is lower-cased, the invitation mail is in the brand and the user’s language, and its link sets the password once', async () => {
    const body = newUser({ language: 'en' });
    const created = await create(adminToken, body);
    expect(created.status).toBe(200);
    const email = String(body.email).toLowerCase();
    expect(created.body.data).toMatchObject({ email, status: 'invited', isAdmin: false, realtimeMap: true });
    await app.platform.queue.drain();
    const { mail, result, code } = await acceptInvitation(email);
    expect(mail.subject).toContain('account is ready');
    expect(mail.text).toContain('http://portal.test/user/accept-invitation?_c=');
    expect(result.status).toBe(200);
    // Single use.
    const again = await app.call('POST', '/api/invitations/accept', { body: { code, password: 'Other-123!', password_confirmation: 'Other-123!' } });
    expect(again.status).toBe(422);
    expect(await app.login({ email, password: 'Invited-123!', subsiteId: 0 })).toBeString();
    const row = await app.call<AdminUserRow>('GET', `/api/admin/users/${created.body.data!.id}`, { token: adminToken });
    expect(row.body.data!.status).toBe('active');
    expect(row.body.data!.lastLogin).not.toBeNull();
  });

  test('an invitation is valid 7 days and can be sent again', async () => {
    const body = newUser({ language: 'sv' });
    const created = await create(adminToken, body);
    const email = String(body.email).toLowerCase();
    await app.platform.queue.drain();
    const first = await app.smtp.waitFor(email);
    expect(first.subject).toContain('Ditt konto');
    const code = first.text.match(/_c=([\w-]+)/)![1]!;
    app.clock.advance(7 * 24 * 60 * 60 * 1000 + 1000);
    adminToken = await app.login(admin);
    const expired = await app.call('POST', '/api/invitations/accept', { body: { code, password: 'Invited-123!', password_confirmation: 'Invited-123!' } });
    expect(expired.status).toBe(422);
    expect(JSON.stringify(expired.body)).toContain('expired');
    expect((await app.call('POST', `/api/admin/users/${created.body.data!.id}/invitation`, { token: adminToken })).status).toBe(200);
    await app.platform.queue.drain();
    expect((await acceptInvitation(email)).result.status).toBe(200);
    // Once a password is set there is nothing to resend.
    expect((await app.call('POST', `/api/admin/users/${created.body.data!.id}/invitation`, { token: adminToken })).status).toBe(409);
  });

  test('§5: names together at most 50, phone digits (at least 8, not 46 or 0), e-mail unique whatever its case', async () => {
    expect((await create(adminToken, newUser({ firstName: 'A'.repeat(25), lastName: 'B'.repeat(25) }))).status).toBe(422);
    expect((await create(adminToken, newUser({ firstName: 'A'.repeat(24), lastName: 'B'.repeat(25) }))).status).toBe(200);
    for (const phone of ['070123456', '46701234567', '1234567', '12a45678']) {
      const refused = await create(adminToken, newUser({ phone }));
      expect(refused.status).toBe(422);
      expect(fields(refused).phone).toBeDefined();
    }
    expect((await create(adminToken, newUser({ phone: '701234567' }))).status).toBe(200);
    const taken = await create(adminToken, newUser({ email: admin.email.toUpperCase() }));
    expect(taken.status).toBe(422);
    expect(fields(taken).email).toBeDefined();
  });

  test('ordinary users cannot administer users (403) and another account’s user is 404', async () => {
    const body = newUser();
    const created = await create(adminToken, body);
    await app.database.rows(sql`update users set password_hash = (select password_hash from users where id = ${admin.userId}), invited_at = null where id = ${created.body.data!.id}`);
    const userToken = await app.login({ email: String(body.email).toLowerCase(), password: admin.password, subsiteId: 0 });
    expect((await app.call('GET', '/api/admin/users', { token: userToken })).status).toBe(403);
    expect((await create(userToken, newUser())).status).toBe(403);
    expect((await app.call('DELETE', `/api/admin/users/${created.body.data!.id}`, { token: userToken })).status).toBe(403);
    const other = await app.createAccount();
    const otherToken = await app.login(other);
    expect((await app.call('GET', `/api/admin/users/${created.body.data!.id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('DELETE', `/api/admin/users/${created.body.data!.id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('GET', `/api/audit`, { token: userToken })).status).toBe(403);
  });
});

describe('editing, deleting, sessions', () => {
  test("a new department resets the user's unit access (§6), through the durable outbox", async () => {
    const [department] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${admin.accountId}, 'Sales') returning id`);
    await app.services.units.addStock({ imeis: ['356307042419001'], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [unit] = await app.database.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${admin.accountId}, '356307042419001', 'Van') returning id`);
    const body = newUser();
    const created = (await create(adminToken, body)).body.data!;
    await app.grantUnits(created.id, [unit!.id]);
    const listed = await app.call<AdminUserRow[]>('GET', `/api/admin/users?q=${encodeURIComponent(created.lastName)}`, { token: adminToken });
    expect(listed.body.data!.map((row) => [row.id, row.unitsVisible])).toEqual([[created.id, 1]]);
    const edit = { ...body, email: created.email, departmentId: department!.id, realtimeMap: false, twoFactor: true, userGroup: 'Drivers' };
    const saved = await app.call<AdminUserRow>('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: edit });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ department: 'Sales', realtimeMap: false, twoFactor: true, userGroup: 'Drivers' });
    await app.platform.outbox.drain();
    expect(await app.database.rows(sql`select unit_id from unit_access where user_id = ${created.id}`)).toEqual([]);
    // Saving the same department again leaves access alone.
    await app.grantUnits(created.id, [unit!.id]);
    await app.call('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: { ...edit, phone: '701234567' } });
    await app.platform.outbox.drain();
    expect(await app.database.rows(sql`select unit_id from unit_access where user_id = ${created.id}`)).toEqual([{ unit_id: unit!.id }]);
    // Another account's department is refused.
    const other = await app.createAccount();
    const [foreign] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${other.accountId}, 'Foreign') returning id`);
    expect((await app.call('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: { ...edit, departmentId: foreign!.id } })).status).toBe(422);
    const log = await auditOf(adminToken, `?target=${encodeURIComponent(created.lastName)}&action=user.updated`);
    expect(log.entries.at(-1)!.changes).toMatchObject({ departmentId: { from: null, to: department!.id }, realtimeMap: { from: true, to: false } });
  });

  test('RealTimeMap off: the user has no map (and lands on the trip log); EnableTwoFactorAuth on: the login asks for a code', async () => {
    const body = newUser();
    const created = (await create(adminToken, body)).body.data!;
    await app.database.rows(sql`update users set password_hash = (select password_hash from users where id = ${admin.userId}), invited_at = null where id = ${created.id}`);
    const edit = { ...body, email: created.email, realtimeMap: false };
    expect((await app.call('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: edit })).status).toBe(200);
    const token = await app.login({ email: created.email, password: admin.password, subsiteId: 0 });
    const me = await app.call<{ user: { RealTimeMap: boolean; EnableTwoFactorAuth: number } }>('GET', '/api/me', { token });
    expect(me.body.data!.user).toMatchObject({ RealTimeMap: false, EnableTwoFactorAuth: 0 });
    expect((await app.call('GET', '/api/tracking/units', { token })).status).toBe(403);
    expect((await app.call('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: { ...edit, twoFactor: true } })).status).toBe(200);
    const login = await app.call<{ twoFactorRequired?: boolean }>('POST', '/api/login', { body: { username: created.email, password: admin.password } });
    expect(login.body.data).toMatchObject({ twoFactorRequired: true });
  });

  test('the last administrator can be neither demoted nor deleted', async () => {
    const solo = await app.createAccount();
    const token = await app.login(solo);
    const me = (await app.call<AdminUserRow>('GET', `/api/admin/users/${solo.userId}`, { token })).body.data!;
    const body = { firstName: me.firstName, lastName: me.lastName, email: me.email, phone: '', isAdmin: false };
    const demoted = await app.call('POST', `/api/admin/users/${solo.userId}`, { token, body });
    expect(demoted.status).toBe(422);
    expect(fields(demoted).isAdmin).toBeDefined();
    expect((await app.call('DELETE', `/api/admin/users/${solo.userId}`, { token })).status).toBe(422);
    // With a second administrator both work.
    const second = newUser({ isAdmin: true });
    expect((await create(token, second)).status).toBe(200);
    expect((await app.call('POST', `/api/admin/users/${solo.userId}`, { token, body })).status).toBe(200);
  });

  test('an e-mail is unique over every account; a changed one is free again, also for another account', async () => {
    const other = await app.createAccount();
    const otherToken = await app.login(other);
    const body = newUser();
    const created = (await create(adminToken, body)).body.data!;
    const refused = await create(otherToken, newUser({ email: body.email }));
    expect(refused.status).toBe(422);
    expect(fields(refused).email).toBeDefined();
    const renamed = { firstName: created.firstName, lastName: created.lastName, email: `renamed.${created.email}`, phone: '', isAdmin: false };
    expect((await app.call('POST', `/api/admin/users/${created.id}`, { token: adminToken, body: renamed })).status).toBe(200);
    const taken = await create(otherToken, newUser({ email: body.email }));
    expect(taken.status).toBe(200);
    // The login directory names each address's user and account.
    const logins = await app.database.rows(
      sql`select email, user_id as "userId", account_id as "accountId" from login_emails where user_id in (${created.id}, ${taken.body.data!.id}) order by user_id`,
    );
    expect(logins).toEqual([
      { email: renamed.email, userId: created.id, accountId: admin.accountId },
      { email: body.email.toLowerCase(), userId: taken.body.data!.id, accountId: other.accountId },
    ]);
  });

  test('a deleted user cannot sign in, is in no list, and keeps their name for the trips they drove', async () => {
    const body = newUser({ firstName: 'Gone' });
    const created = (await create(adminToken, body)).body.data!;
    await app.database.rows(sql`update users set password_hash = (select password_hash from users where id = ${admin.userId}), invited_at = null where id = ${created.id}`);
    const token = await app.login({ email: created.email, password: admin.password, subsiteId: 0 });
    expect((await app.call('DELETE', `/api/admin/users/${created.id}`, { token: adminToken })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token })).status).toBe(401);
    expect((await app.call('POST', '/api/login', { body: { username: created.email, password: admin.password } })).status).toBe(401);
    const listed = await app.call<AdminUserRow[]>('GET', '/api/admin/users', { token: adminToken });
    expect(listed.body.data!.some((row) => row.id === created.id)).toBe(false);
    // The published directory no longer lists them; history (trips' drivers, the audit log) names them through user_names.
    expect(await app.database.rows(sql`select id from user_directory where id = ${created.id}`)).toEqual([]);
    expect(await app.database.rows(sql`select first_name, last_name, deleted from user_names where id = ${created.id}`)).toEqual([
      { first_name: 'Gone', last_name: created.lastName, deleted: true },
    ]);
    // The address is free for a new user.
    expect((await create(adminToken, newUser({ email: created.email }))).status).toBe(200);
  });

  test('an administrator sees a user’s open sessions and ends them', async () => {
    const body = newUser();
    const created = (await create(adminToken, body)).body.data!;
    await app.database.rows(sql`update users set password_hash = (select password_hash from users where id = ${admin.userId}), invited_at = null where id = ${created.id}`);
    const first = await app.login({ email: created.email, password: admin.password, subsiteId: 0 });
    const second = await app.login({ email: created.email, password: admin.password, subsiteId: 0 });
    const sessions = await app.call<AdminSession[]>('GET', `/api/admin/users/${created.id}/sessions`, { token: adminToken });
    expect(sessions.body.data!.length).toBe(2);
    const ended = await app.call('DELETE', `/api/admin/users/${created.id}/sessions/${sessions.body.data![0]!.id}`, { token: adminToken });
    expect(ended.status).toBe(200);
    const stillOpen = [(await app.call('GET', '/api/me', { token: first })).status, (await app.call('GET', '/api/me', { token: second })).status].sort();
    expect(stillOpen).toEqual([200, 401]);
    expect((await app.call('DELETE', `/api/admin/users/${created.id}/sessions`, { token: adminToken })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token: first })).status).toBe(401);
    expect((await app.call('GET', '/api/me', { token: second })).status).toBe(401);
    const log = await auditOf(adminToken, '?action=user.sessions_ended');
    expect(log.entries.length).toBe(2);
  });
});

describe('the audit log', () => {
  test('entries are stored once, filtered by period, actor, action and target, and exported', async () => {
    const log = await auditOf(adminToken);
    expect(log.total).toBeGreaterThan(5);
    expect(log.actions).toContain('user.created');
    expect(log.actors.map((actor) => actor.id)).toContain(admin.userId);
    const byActor = await auditOf(adminToken, `?actorUserId=${admin.userId}&action=user.created`);
    expect(byActor.entries.every((entry) => entry.actorUserId === admin.userId && entry.action === 'user.created')).toBe(true);
    // Redelivering an event writes nothing twice.
    const [count] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from audit_entries where account_id = ${admin.accountId}`);
    expect(count!.n).toBe(log.total);
    const none = await auditOf(adminToken, '?from=2020-01-01&to=2020-01-31');
    expect(none.entries).toEqual([]);
    expect((await app.call('GET', '/api/audit?from=2026-03-05&to=2026-03-01', { token: adminToken })).status).toBe(422);
    const csv = await app.api.handle(
      new Request('http://localhost/api/audit/export?format=csv&action=user.created', { headers: { authorization: `Bearer ${adminToken}`, 'x-lang': 'en' } }),
    );
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain('user.created');
    expect(text).toContain('Who');
  });
});

describe('audited changes elsewhere', () => {
  test('unit access, locks, unlocking by support, tracker replacement and attests are in the account’s audit log', async () => {
    const company = await app.createAccount();
    const token = await app.login(company);
    await app.services.units.addStock({ imeis: ['356307042419101', '356307042419102'], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [unit] = await app.database.rows<{ id: number }>(
      sql`insert into units (account_id, imei, name, car_usage) values (${company.accountId}, '356307042419101', 'Benefit car', 'benefit') returning id`,
    );
    const driver = (await create(token, newUser({ firstName: 'Ulla' }))).body.data!;
    expect((await app.call('POST', `/api/admin/users/${driver.id}/units`, { token, body: { unitIds: [unit!.id] } })).status).toBe(200);
    expect((await app.call('POST', `/api/units/${unit!.id}/lock`, { token })).status).toBe(200);
    const support = await app.createAccount({ role: 'support' });
    const supportToken = await app.login(support);
    expect((await app.call('POST', `/api/units/${unit!.id}/unlock`, { token: supportToken })).status).toBe(200);
    const replaced = await app.call('POST', `/api/units/${unit!.id}/replace-tracker`, { token, body: { imei: '356307042419102', confirm: true } });
    expect(replaced.status).toBe(200);
    expect((await app.call('POST', '/api/trips/attests', { token, body: { userId: driver.id, period: '2026-02', note: 'Checked' } })).status).toBe(200);
    const log = await auditOf(token);
    const seen = log.entries.map((entry) => [entry.action, entry.target.label, entry.support === null ? 'admin' : 'support']);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['unit.access_changed', driver.fullName, 'admin'],
        ['unit.locked', 'Benefit car', 'admin'],
        ['unit.unlocked', 'Benefit car', 'support'],
        ['unit.tracker_replaced', 'Benefit car', 'admin'],
        ['attest.attested', `${driver.fullName} 2026-02`, 'admin'],
      ]),
    );
  });
});

describe('support and reseller scopes', () => {
  test('support searches any account and opens it read-only; the opening is in that account’s audit log', async () => {
    const support = await app.createAccount({ role: 'support' });
    const supportToken = await app.login(support);
    const customer = await app.createAccount();
    const [customerRow] = await app.database.rows<{ company_name: string }>(sql`select company_name from accounts where id = ${customer.accountId}`);
    const found = await app.call<Array<{ id: number }>>('GET', `/api/admin/customer-accounts?q=${customer.accountId}`, { token: supportToken });
    expect(found.body.data!.map((row) => row.id)).toContain(customer.accountId);
    const opened = await app.call<{ user: { token: string; ActingAccount: { ID: number; CompanyName: string }; AccountID: number } }>(
      'POST',
      `/api/admin/customer-accounts/${customer.accountId}/open`,
      { token: supportToken },
    );
    expect(opened.status).toBe(200);
    const acting = opened.body.data!.user;
    expect(acting.ActingAccount).toEqual({ ID: customer.accountId, CompanyName: customerRow!.company_name });
    expect((await app.call<{ user: { ActingAccount: unknown } }>('GET', '/api/me', { token: acting.token })).body.data!.user.ActingAccount).toBeDefined();
    // Reads the customer's users; changes nothing.
    const users = await app.call<AdminUserRow[]>('GET', '/api/admin/users', { token: acting.token });
    expect(users.body.data!.map((row) => row.id)).toEqual([customer.userId]);
    expect((await app.call('GET', '/api/units', { token: acting.token })).status).toBe(200);
    expect((await app.call('POST', '/api/units/bulk', { token: acting.token, body: { unitIds: [1], task: { kind: 'department', departmentId: null } } })).status).toBe(403);
    const refused = await create(acting.token, newUser());
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('read-only');
    const customerToken = await app.login(customer);
    const log = await auditOf(customerToken, '?action=support.account_opened');
    expect(log.entries.map((entry) => [entry.support, entry.actor, entry.target.id])).toEqual([[expect.stringMatching(/^Test User \d+$/), null, customer.accountId]]);
    // Ordinary administrators have no such scope.
    expect((await app.call('GET', '/api/admin/customer-accounts?q=a', { token: customerToken })).status).toBe(403);
    expect((await app.call('POST', `/api/admin/customer-accounts/${support.accountId}/open`, { token: customerToken })).status).toBe(403);
  });

  test('a reseller sees and opens only the accounts that name it as reseller', async () => {
    const reseller = await app.createAccount({ role: 'reseller' });
    const [home] = await app.database.rows<{ company_name: string }>(sql`select company_name from accounts where id = ${reseller.accountId}`);
    const resellerToken = await app.login(reseller);
    const own = await app.createAccount();
    await app.database.rows(sql`update accounts set reseller = ${` ${home!.company_name.toUpperCase()} `} where id = ${own.accountId}`);
    const stranger = await app.createAccount();
    const found = await app.call<Array<{ id: number }>>('GET', '/api/admin/customer-accounts?q=Company', { token: resellerToken });
    expect(found.body.data!.map((row) => row.id)).toEqual([own.accountId]);
    expect((await app.call('POST', `/api/admin/customer-accounts/${stranger.accountId}/open`, { token: resellerToken })).status).toBe(404);
    const opened = await app.call<{ user: { token: string } }>('POST', `/api/admin/customer-accounts/${own.accountId}/open`, { token: resellerToken });
    expect(opened.status).toBe(200);
    const users = await app.call<AdminUserRow[]>('GET', '/api/admin/users', { token: opened.body.data!.user.token });
    expect(users.body.data!.map((row) => row.id)).toEqual([own.userId]);
  });
});
