import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { TableView } from './model';

/** A data table's view (sorting, hidden columns) is kept per user: nobody else reads or changes it. */
let app: TestApp;
let adminToken: string;
let colleagueToken: string;
let strangerToken: string;
let adminUserId: number;

const read = (table: string, token: string) => app.call<TableView | null>('GET', `/api/preferences/tables/${table}`, { token });
const save = (table: string, body: unknown, token: string, lang = 'en') =>
  app.call<TableView>('POST', `/api/preferences/tables/${table}`, { token, body, headers: { 'x-lang': lang } });

beforeAll(async () => {
  app = await createTestApp();
  const owner = await app.createAccount();
  adminUserId = owner.userId;
  adminToken = await app.login(owner);
  const colleagueEmail = `colleague-${owner.userId}@example.com`;
  await app.database.rows(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${owner.accountId}, ${colleagueEmail}, (select password_hash from users where id = ${owner.userId}), 'Cole', 'user')`);
  colleagueToken = await app.login({ email: colleagueEmail, password: owner.password, subsiteId: 0 });
  strangerToken = await app.login(await app.createAccount());
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('table views', () => {
  test('none until chosen; saved, read back and replaced', async () => {
    expect((await read('places', adminToken)).body.data).toBeNull();
    const view = { sorting: [{ id: 'radius', desc: true }], hidden: ['rules', 'address'] };
    expect((await save('places', view, adminToken)).body.data).toEqual(view);
    expect((await read('places', adminToken)).body.data).toEqual(view);
    const next = { sorting: [], hidden: [] };
    await save('places', next, adminToken);
    expect((await read('places', adminToken)).body.data).toEqual(next);
    // Another table of the same user is its own.
    expect((await read('triplog', adminToken)).body.data).toBeNull();
  });

  test("a colleague of the same account and a user of another account neither see nor change the caller's view", async () => {
    const mine = { sorting: [{ id: 'label', desc: false }], hidden: ['units'] };
    await save('isolated', mine, adminToken);
    expect((await read('isolated', colleagueToken)).body.data).toBeNull();
    expect((await read('isolated', strangerToken)).body.data).toBeNull();
    await save('isolated', { sorting: [], hidden: ['label'] }, colleagueToken);
    await save('isolated', { sorting: [{ id: 'address', desc: true }], hidden: [] }, strangerToken);
    expect((await read('isolated', adminToken)).body.data).toEqual(mine);
    expect((await read('isolated', colleagueToken)).body.data).toEqual({ sorting: [], hidden: ['label'] });
    const rows = await app.database.query<{ user_id: number }>("SELECT user_id FROM user_preferences WHERE key = 'table.isolated' ORDER BY user_id");
    expect(rows.length).toBe(3);
    expect(rows.filter((row) => row.user_id === adminUserId).length).toBe(1);
  });

  test('bad input is refused with a translated 422 and stores nothing; no token is 401', async () => {
    const before = await read('bad', adminToken);
    expect(before.body.data).toBeNull();
    const wrongColumn = await save('bad', { sorting: [{ id: 'x; drop table', desc: true }], hidden: [] }, adminToken, 'sv');
    expect(wrongColumn.status).toBe(422);
    expect(JSON.stringify(wrongColumn.body)).not.toContain('validation.');
    const tooMany = await save('bad', { sorting: [1, 2, 3, 4].map((n) => ({ id: `c${n}`, desc: false })), hidden: [] }, adminToken);
    expect(tooMany.status).toBe(422);
    expect((await save('bad', { hidden: [] }, adminToken)).status).toBe(422);
    expect((await save('Bad Key', { sorting: [], hidden: [] }, adminToken)).status).toBe(422);
    expect((await read('bad', adminToken)).body.data).toBeNull();
    expect((await app.call('GET', '/api/preferences/tables/places')).status).toBe(401);
  });
});
