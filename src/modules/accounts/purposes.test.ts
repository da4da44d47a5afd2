import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { DefaultPurpose, PurposeCatalog } from './model';

/** Default purposes (spec §3 Default purpose, §5 names unique and at most 100, §6 administrators manage, users create if allowed). */
let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;
let userToken: string;
let otherToken: string;
let otherAccountId: number;

const list = (token = adminToken) => app.call<PurposeCatalog>('GET', '/api/purposes', { token });
const create = (body: unknown, token = adminToken, lang = 'en') => app.call<DefaultPurpose>('POST', '/api/purposes', { token, body, headers: { 'x-lang': lang } });
const update = (id: number, body: unknown, token = adminToken) => app.call<DefaultPurpose>('POST', `/api/purposes/${id}`, { token, body });
const remove = (id: number, token = adminToken) => app.call<{ id: number }>('DELETE', `/api/purposes/${id}`, { token });
const allowUsers = (usersMayCreate: boolean, token = adminToken) => app.call<PurposeCatalog>('POST', '/api/purposes/settings', { token, body: { usersMayCreate } });
const stored = (accountId: number) =>
  app.database.query<{ name: string; description: string; created_by: number | null }>(
    'SELECT name, description, created_by FROM purposes WHERE account_id = $1 ORDER BY id',
    [accountId],
  );

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  adminToken = await app.login(owner);
  const plainEmail = `plain-purpose-${owner.userId}@example.com`;
  await app.database.rows(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${owner.accountId}, ${plainEmail}, (select password_hash from users where id = ${owner.userId}), 'Pia', 'Plain', 'user')`);
  userToken = await app.login({ email: plainEmail, password: owner.password, subsiteId: 0 });
  const other = await app.createAccount();
  otherAccountId = other.accountId;
  otherToken = await app.login(other);
}, 60_000);
afterAll(async () => {
  await app?.close();
});
beforeEach(async () => {
  await app.database.query('DELETE FROM purposes');
  await app.database.query('DELETE FROM purpose_settings');
});

describe('default purposes', () => {
  test('an administrator creates, renames and deletes; everyone in the account reads them sorted by name', async () => {
    const first = await create({ name: '  Kundbesök ', description: 'Visits at customers' });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ id: expect.any(Number), name: 'Kundbesök', description: 'Visits at customers' });
    const second = await create({ name: 'Bank' });
    expect(second.body.data).toMatchObject({ name: 'Bank', description: '' });

    const read = await list(userToken);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      purposes: [second.body.data!, first.body.data!],
      usersMayCreate: false,
      canCreate: false,
      canManage: false,
    });
    expect((await list()).body.data).toMatchObject({ canCreate: true, canManage: true });

    const renamed = await update(first.body.data!.id, { name: 'Kundbesök Acme', description: '' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toEqual({ id: first.body.data!.id, name: 'Kundbesök Acme', description: '' });
    // Keeping its own name (another case) is no clash.
    expect((await update(second.body.data!.id, { name: 'BANK' })).status).toBe(200);

    const deleted = await remove(second.body.data!.id);
    expect(deleted.status).toBe(200);
    expect((await list()).body.data!.purposes.map((p) => p.name)).toEqual(['Kundbesök Acme']);
    expect((await remove(second.body.data!.id)).status).toBe(404);
    expect((await stored(owner.accountId)).map((row) => row.created_by)).toEqual([owner.userId]);
  });

  test('names are unique per account (ignoring case) and at most 100 characters; each account has its own', async () => {
    expect((await create({ name: 'Kundbesök' })).status).toBe(200);
    const taken = await create({ name: 'KUNDBESÖK' }, adminToken, 'sv');
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ name: ['Det finns redan ett standardändamål med det namnet.'] });
    const other = await create({ name: 'Lunch' });
    const renamed = await update(other.body.data!.id, { name: 'kundbesök' });
    expect(renamed.status).toBe(422);
    expect(renamed.body.errors).toEqual({ name: ['A default purpose with this name already exists.'] });

    expect((await create({ name: 'x'.repeat(100) })).status).toBe(200);
    const tooLong = await create({ name: 'y'.repeat(101) });
    expect(tooLong.status).toBe(422);
    expect(Object.keys(tooLong.body.errors as object)).toEqual(['name']);
    const empty = await create({ name: '   ' });
    expect(empty.status).toBe(422);
    expect((await create({ name: 'Ok', description: 'd'.repeat(501) })).status).toBe(422);

    // Another account may use the same name.
    expect((await create({ name: 'Kundbesök' }, otherToken)).status).toBe(200);
    expect((await stored(owner.accountId)).map((row) => row.name)).toEqual(['Kundbesök', 'Lunch', 'x'.repeat(100)]);
  });

  test('ordinary users create only when the administrator allows it, and never edit or delete', async () => {
    const refused = await create({ name: 'Leverans' }, userToken);
    expect(refused.status).toBe(403);
    expect(refused.body.errors).toBe('Only an administrator can create default purposes in this account.');
    expect(await stored(owner.accountId)).toEqual([]);

    expect((await allowUsers(true, userToken)).status).toBe(403);
    const allowed = await allowUsers(true);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toMatchObject({ usersMayCreate: true, canManage: true });
    expect((await list(userToken)).body.data).toMatchObject({ usersMayCreate: true, canCreate: true, canManage: false });

    const created = await create({ name: 'Leverans' }, userToken);
    expect(created.status).toBe(200);
    expect((await update(created.body.data!.id, { name: 'Hijacked' }, userToken)).status).toBe(403);
    expect((await remove(created.body.data!.id, userToken)).status).toBe(403);

    // The setting is per account; administrators may always create.
    expect((await list(otherToken)).body.data).toMatchObject({ usersMayCreate: false, canCreate: true });

    expect((await allowUsers(false)).body.data).toMatchObject({ usersMayCreate: false });
    expect((await create({ name: 'Mer' }, userToken)).status).toBe(403);
    expect((await stored(owner.accountId)).map((row) => row.name)).toEqual(['Leverans']);
  });

  test("another account's purpose is not found and stays as it was", async () => {
    const theirs = await create({ name: 'Secret errand', description: 'Secret' }, otherToken);
    const id = theirs.body.data!.id;
    for (const token of [adminToken, userToken]) {
      const renamed = await update(id, { name: 'Hijacked' }, token);
      expect(renamed.status).toBe(404);
      expect(renamed.body.data).toBeNull();
      expect((await remove(id, token)).status).toBe(404);
      expect(JSON.stringify((await list(token)).body)).not.toContain('Secret');
    }
    expect(await stored(otherAccountId)).toEqual([{ name: 'Secret errand', description: 'Secret', created_by: expect.any(Number) }]);
  });

  test('anonymous calls are refused', async () => {
    expect((await app.call('GET', '/api/purposes')).status).toBe(401);
    expect((await app.call('POST', '/api/purposes', { body: { name: 'x' } })).status).toBe(401);
  });
});
