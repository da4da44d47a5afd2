import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { AccountChoice, CatalogView, FeatureProfileView, NamedRef, UnitDetail } from '../units/model';
import { addUnit, nextImei } from '../units/testing';

/** Spec §5 catalogues (departments, projects, tags, feature profiles; names unique per account), §3 feature profile. */
// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  token = await app.login(admin);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('departments, projects and tags', () => {
  test('rename (names stay unique per account, case-insensitively) and delete (units keep the rest)', async () => {
    const unit = await addUnit(app, admin.accountId, nextImei('35630704270'), 'Van');
    for (const kind of ['departments', 'projects', 'tags'] as const) {
      const first = await app.call<NamedRef>('POST', `/api/admin/${kind}`, { token, body: { name: `North ${kind}`, description: '' } });
      const second = await app.call<NamedRef>('POST', `/api/admin/${kind}`, { token, body: { name: `South ${kind}`, description: '' } });
      const renamed = await app.call<NamedRef>('POST', `/api/admin/${kind}/${first.body.data!.id}`, { token, body: { name: `East ${kind}`, description: 'Renamed' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toEqual({ id: first.body.data!.id, name: `East ${kind}` });
      const clash = await app.call('POST', `/api/admin/${kind}/${first.body.data!.id}`, { token, body: { name: `SOUTH ${kind}`, description: '' } });
      expect(clash.status).toBe(422);
      expect(clash.body.errors).toEqual({ name: ['The name is already in use.'] });
      const empty = await app.call('POST', `/api/admin/${kind}/${first.body.data!.id}`, { token, body: { name: ' ', description: '' } });
      expect(empty.status).toBe(422);
      expect((await app.call('POST', `/api/admin/${kind}/999999`, { token, body: { name: 'X', description: '' } })).status).toBe(404);
      // File the unit under it, then delete it: the unit stays, without it.
      const id = second.body.data!.id;
      const body = { departmentId: kind === 'departments' ? id : null, projectId: kind === 'projects' ? id : null, tagIds: kind === 'tags' ? [id] : [] };
      expect((await app.call('POST', `/api/units/${unit}/organisation`, { token, body })).status).toBe(200);
      const catalog = await app.call<CatalogView>('GET', '/api/admin/catalog', { token });
      expect(catalog.body.data![kind].map((entry) => [entry.name, entry.description, entry.units])).toEqual([
        [`East ${kind}`, 'Renamed', 0],
        [`South ${kind}`, '', 1],
      ]);
      expect((await app.call('DELETE', `/api/admin/${kind}/${id}`, { token })).status).toBe(200);
      expect((await app.call('DELETE', `/api/admin/${kind}/${id}`, { token })).status).toBe(404);
      const detail = (await app.call<UnitDetail>('GET', `/api/units/${unit}`, { token })).body.data!;
      expect({ department: detail.Department, project: detail.Project, tags: detail.Tags }).toEqual({ department: null, project: null, tags: [] });
    }
  });

  test('ordinary users cannot manage catalogues', async () => {
    const email = `plain-cat-${admin.userId}@example.com`;
    await app.database.rows(sql`
      insert into users (account_id, email, password_hash, role)
      values (${admin.accountId}, ${email}, (select password_hash from users where id = ${admin.userId}), 'user')`);
    const userToken = await app.login({ email, password: admin.password, subsiteId: 0 });
    const [department] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${admin.accountId}, 'Kept') returning id`);
    expect((await app.call('GET', '/api/admin/catalog', { token: userToken })).status).toBe(403);
    expect((await app.call('POST', `/api/admin/departments/${department!.id}`, { token: userToken, body: { name: 'Taken', description: '' } })).status).toBe(403);
    expect((await app.call('DELETE', `/api/admin/departments/${department!.id}`, { token: userToken })).status).toBe(403);
    const [row] = await app.database.rows<{ name: string }>(sql`select name from departments where id = ${department!.id}`);
    expect(row!.name).toBe('Kept');
  });
});

describe('feature profiles', () => {
  test('working hours repeating every 1, 2 or 3 weeks; edit and delete', async () => {
    const created = await app.call<NamedRef>('POST', '/api/admin/feature-profiles', {
      token,
      body: {
        name: 'Shift work',
        greenDriving: 'sensitive',
        overspeedKmh: 90,
        workingHours: {
          recurrence: 2,
          startDate: '2026-03-02',
          days: [
            { week: 2, day: 1, start: '14:00', end: '22:00' },
            { week: 1, day: 1, start: '06:00', end: '14:00' },
          ],
        },
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.data!.id;
    const catalog = await app.call<CatalogView>('GET', '/api/admin/catalog', { token });
    expect(catalog.body.data!.featureProfiles.find((profile) => profile.id === id)).toEqual({
      id,
      name: 'Shift work',
      greenDriving: 'sensitive',
      overspeedKmh: 90,
      carBenefit: false,
      geozoneIds: [],
      workingHours: {
        recurrence: 2,
        startDate: '2026-03-02',
        days: [
          { week: 1, day: 1, start: '06:00', end: '14:00' },
          { week: 2, day: 1, start: '14:00', end: '22:00' },
        ],
      },
      units: 0,
    } satisfies FeatureProfileView);

    // A week beyond the recurrence, a recurrence of 4 and no days are refused.
    const bad = async (workingHours: unknown) =>
      (await app.call('POST', `/api/admin/feature-profiles/${id}`, { token, body: { name: 'Shift work', workingHours } })).status;
    expect(await bad({ recurrence: 1, days: [{ week: 2, day: 1, start: '06:00', end: '14:00' }] })).toBe(422);
    expect(await bad({ recurrence: 4, startDate: '2026-03-02', days: [{ day: 1, start: '06:00', end: '14:00' }] })).toBe(422);
    expect(await bad({ recurrence: 1, days: [] })).toBe(422);
    expect(await bad({ recurrence: 1, days: [{ day: 1, start: '14:00', end: '06:00' }] })).toBe(422);

    const edited = await app.call<FeatureProfileView>('POST', `/api/admin/feature-profiles/${id}`, {
      token,
      body: { name: 'Day work', carBenefit: true, workingHours: { recurrence: 1, days: [{ day: 5, start: '07:00', end: '16:00' }] } },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ name: 'Day work', carBenefit: true, greenDriving: 'normal', workingHours: { recurrence: 1, startDate: null } });
    expect((await app.call('DELETE', `/api/admin/feature-profiles/${id}`, { token })).status).toBe(200);
    expect((await app.call('DELETE', `/api/admin/feature-profiles/${id}`, { token })).status).toBe(404);
  });

  test('at most 5 geozones, each one of the account’s geofences', async () => {
    const six = await app.call('POST', '/api/admin/feature-profiles', { token, body: { name: 'Zones', geozoneIds: [1, 2, 3, 4, 5, 6] } });
    expect(six.status).toBe(422);
    expect(six.body.errors).toEqual({ geozoneIds: ['A feature profile can have at most 5 geozones.'] });
    // No geofence of this account has id 424242.
    const foreign = await app.call('POST', '/api/admin/feature-profiles', { token, body: { name: 'Zones', geozoneIds: [424242] } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual({ geozoneIds: ['The geozone does not belong to you.'] });
    // Another account's zone is refused; five of the account's own zones are accepted.
    const other = await app.createAccount();
    const zone = (name: string, longitude: number) => ({
      name, shape: 'circle', center: { latitude: 59.33, longitude }, radiusM: 500, points: null, units: [], deactivations: [], theftMode: false, realTime: true, active: true,
    });
    const foreignZone = await app.call<{ id: number }>('POST', '/api/geofences', { token: await app.login(other), body: zone('Elsewhere', 18) });
    expect(foreignZone.status).toBe(200);
    const theirs = await app.call('POST', '/api/admin/feature-profiles', { token, body: { name: 'Zones', geozoneIds: [foreignZone.body.data!.id] } });
    expect(theirs.body.errors).toEqual({ geozoneIds: ['The geozone does not belong to you.'] });
    const ids: number[] = [];
    for (let index = 0; index < 5; index++) {
      const created = await app.call<{ id: number }>('POST', '/api/geofences', { token, body: zone(`Depot ${index}`, 18 + index / 10) });
      expect(created.status).toBe(200);
      ids.push(created.body.data!.id);
    }
    const own = await app.call<NamedRef>('POST', '/api/admin/feature-profiles', { token, body: { name: 'Zones', geozoneIds: ids } });
    expect(own.status).toBe(200);
    const catalog = await app.call<CatalogView>('GET', '/api/admin/catalog', { token });
    expect(catalog.body.data!.featureProfiles.find((profile) => profile.id === own.body.data!.id)!.geozoneIds).toEqual(ids);
  });
});

describe('add terminal: the account picker of support', () => {
  test('support finds customer accounts by company name or id; others are refused', async () => {
    const support = await app.createAccount({ role: 'support' });
    const supportToken = await app.login(support);
    await app.database.rows(sql`update accounts set company_name = 'Åkeriet Nord AB', org_number = '556000-1111' where id = ${admin.accountId}`);
    const found = await app.call<AccountChoice[]>('GET', `/api/admin/add-terminal/accounts?q=${encodeURIComponent('åkeriet')}`, { token: supportToken });
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual([{ id: admin.accountId, companyName: 'Åkeriet Nord AB', orgNumber: '556000-1111', subsiteId: 0 }]);
    const byId = await app.call<AccountChoice[]>('GET', `/api/admin/add-terminal/accounts?q=${admin.accountId}`, { token: supportToken });
    expect(byId.body.data!.map((account) => account.id)).toContain(admin.accountId);
    expect((await app.call('GET', '/api/admin/add-terminal/accounts?q=a', { token })).status).toBe(403);
  });
});

describe('the audit log of catalogue changes', () => {
  test('creating, renaming and deleting a department, project, tag or feature profile each leave an entry with what changed', async () => {
    const owner = await app.createAccount();
    const ownerToken = await app.login(owner);
    for (const kind of ['departments', 'projects', 'tags'] as const) {
      const created = await app.call<NamedRef>('POST', `/api/admin/${kind}`, { token: ownerToken, body: { name: `Audited ${kind}`, description: '' } });
      const id = created.body.data!.id;
      expect((await app.call('POST', `/api/admin/${kind}/${id}`, { token: ownerToken, body: { name: `Renamed ${kind}`, description: '' } })).status).toBe(200);
      expect((await app.call('DELETE', `/api/admin/${kind}/${id}`, { token: ownerToken })).status).toBe(200);
    }
    const profile = await app.call<NamedRef>('POST', '/api/admin/feature-profiles', { token: ownerToken, body: { name: 'Audited profile', overspeedKmh: 90 } });
    const profileId = profile.body.data!.id;
    expect((await app.call('POST', `/api/admin/feature-profiles/${profileId}`, { token: ownerToken, body: { name: 'Audited profile', overspeedKmh: 110 } })).status).toBe(200);
    expect((await app.call('DELETE', `/api/admin/feature-profiles/${profileId}`, { token: ownerToken })).status).toBe(200);
    // A refused change (a taken name) writes no entry.
    await app.call('POST', '/api/admin/tags', { token: ownerToken, body: { name: 'Twice', description: '' } });
    expect((await app.call('POST', '/api/admin/tags', { token: ownerToken, body: { name: 'twice', description: '' } })).status).toBe(422);
    await app.platform.outbox.drain();
    const entries = await app.database.rows<{ action: string; target_kind: string; target_label: string; actor_user_id: number; changes: Record<string, { from: unknown; to: unknown }> }>(
      sql`select action, target_kind, target_label, actor_user_id, changes from audit_entries where account_id = ${owner.accountId} order by id`,
    );
    expect(entries.map((entry) => [entry.action, entry.target_kind, entry.target_label])).toEqual([
      ['catalog.created', 'department', 'Audited departments'],
      ['catalog.updated', 'department', 'Renamed departments'],
      ['catalog.deleted', 'department', 'Renamed departments'],
      ['catalog.created', 'project', 'Audited projects'],
      ['catalog.updated', 'project', 'Renamed projects'],
      ['catalog.deleted', 'project', 'Renamed projects'],
      ['catalog.created', 'tag', 'Audited tags'],
      ['catalog.updated', 'tag', 'Renamed tags'],
      ['catalog.deleted', 'tag', 'Renamed tags'],
      ['catalog.created', 'featureProfile', 'Audited profile'],
      ['catalog.updated', 'featureProfile', 'Audited profile'],
      ['catalog.deleted', 'featureProfile', 'Audited profile'],
      ['catalog.created', 'tag', 'Twice'],
    ]);
    expect(entries.every((entry) => entry.actor_user_id === owner.userId)).toBe(true);
    expect(entries[1]!.changes).toEqual({ name: { from: 'Audited departments', to: 'Renamed departments' } });
    expect(entries[10]!.changes).toEqual({ overspeedKmh: { from: 90, to: 110 } });
  });
});
