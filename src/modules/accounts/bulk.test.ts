import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { BulkResult, NamedRef } from '../units/model';
import { addUnit, nextImei } from '../units/testing';
import type { AccountUserRef, BulkJobView, UserBulkResult } from './model';

/** Bulk tasks on units and users (spec §2 bulk tasks; §5 at least one user, unit or feature and one working day; §6 access). */
setDefaultTimeout(30_000);

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let plainA: number;
let plainB: number;
let userToken: string;
let other: Awaited<ReturnType<TestApp['createAccount']>>;

const unitBulk = (unitIds: number[], task: unknown, as = token) => app.call<BulkResult>('POST', '/api/units/bulk', { token: as, body: { unitIds, task }, headers: { 'x-lang': 'en' } });
const userBulk = (userIds: number[], task: unknown, as = token) =>
  app.call<UserBulkResult>('POST', '/api/admin/users/bulk', { token: as, body: { userIds, task }, headers: { 'x-lang': 'en' } });
const audits = (accountId: number, action: string) =>
  app.database.query<{ payload: { target: { kind: string; id: number } } }>(
    `SELECT payload FROM outbox_events WHERE type = 'audit.entry' AND (payload->>'accountId')::int = $1 AND payload->>'action' = $2 ORDER BY id`,
    [accountId, action],
  );
const access = (userId: number) => app.database.query<{ unit_id: number }>('SELECT unit_id FROM unit_access WHERE user_id = $1 ORDER BY unit_id', [userId]);

async function plainUser(accountId: number, name: string): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${accountId}, ${`${name}-${accountId}@example.com`}, (select password_hash from users where id = ${owner.userId}), ${name}, 'Plain', 'user') returning id`);
  return row!.id;
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  plainA = await plainUser(owner.accountId, 'anna');
  plainB = await plainUser(owner.accountId, 'bo');
  userToken = await app.login({ email: `anna-${owner.accountId}@example.com`, password: owner.password, subsiteId: 0 });
  other = await app.createAccount();
}, 180_000);
afterAll(async () => {
  await app?.close();
});

describe('bulk tasks on units', () => {
  test('a failing unit leaves the others done and is reported; each done unit has its audit entry', async () => {
    const car = await addUnit(app, owner.accountId, nextImei('35700001'), 'Car', { grant: false });
    const van = await addUnit(app, owner.accountId, nextImei('35700001'), 'Van', { grant: false });
    const tag = await addUnit(app, owner.accountId, nextImei('35700001'), 'Tag', { deviceKind: 'battery', model: 'TAT100', grant: false });
    const profile = await app.call<NamedRef>('POST', '/api/admin/feature-profiles', { token, body: { name: 'Sales' } });
    const answer = await unitBulk([car, tag, van], { kind: 'featureProfile', featureProfileId: profile.body.data!.id });
    expect(answer.status).toBe(200);
    expect(answer.body.data!.results.map((result) => [result.unitId, result.ok])).toEqual([
      [car, true],
      [tag, false],
      [van, true],
    ]);
    expect(answer.body.data!.results[1]!.error).toBe('Features are only available on trip-log devices.');
    const stored = await app.database.query<{ id: number; feature_profile_id: number | null }>('SELECT id, feature_profile_id FROM units WHERE id = ANY($1::int[]) ORDER BY id', [[car, van, tag]]);
    expect(stored.find((row) => row.id === car)!.feature_profile_id).toBe(profile.body.data!.id);
    expect(stored.find((row) => row.id === tag)!.feature_profile_id).toBeNull();
    expect((await audits(owner.accountId, 'bulk.featureProfile')).map((entry) => entry.payload.target.id).sort()).toEqual([car, van].sort());
  });

  test('§5 working hours need at least one working day; with days every unit gets them', async () => {
    const unit = await addUnit(app, owner.accountId, nextImei('35700002'), 'Hours', { grant: false });
    const none = await unitBulk([unit], { kind: 'workingHours', enabled: true, days: [] });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ 'task.days': ['Choose at least one working day.'] });
    const order = await unitBulk([unit], { kind: 'workingHours', enabled: true, days: [{ day: 1, start: '17:00', end: '08:00' }] });
    expect(order.status).toBe(422);
    const done = await unitBulk([unit], { kind: 'workingHours', enabled: true, days: [{ day: 3, start: '07:00', end: '16:00' }, { day: 1, start: '08:00', end: '17:00' }] });
    expect(done.body.data!.results).toEqual([{ unitId: unit, ok: true, error: null, pending: false }]);
    const [row] = await app.database.query<{ working_hours: unknown }>('SELECT working_hours FROM units WHERE id = $1', [unit]);
    const hours = (typeof row!.working_hours === 'string' ? JSON.parse(row!.working_hours) : row!.working_hours) as { enabled: boolean; days: Array<{ day: number }> };
    expect(hours.enabled).toBe(true);
    expect(hours.days.map((day) => day.day)).toEqual([1, 3]);
  });

  test('§5 at least one unit; §6 unit access given and taken away; the locker keeps access; users of another account are refused', async () => {
    expect((await unitBulk([], { kind: 'access', userIds: [plainA] })).status).toBe(422);
    expect((await unitBulk([1], { kind: 'access', userIds: [] })).status).toBe(422);
    const free = await addUnit(app, owner.accountId, nextImei('35700003'), 'Free', { grant: false });
    const locked = await addUnit(app, owner.accountId, nextImei('35700003'), 'Locked', { grant: false });
    await app.database.query('UPDATE units SET locked_by = $1, locked_at = now(), car_usage = $2 WHERE id = $3', [plainA, 'benefit', locked]);
    const given = await unitBulk([free, locked], { kind: 'access', userIds: [plainA, plainB], mode: 'add' });
    expect(given.body.data!.results.every((result) => result.ok)).toBe(true);
    expect((await access(plainA)).map((row) => row.unit_id)).toEqual([free, locked].sort((a, b) => a - b));
    const taken = await unitBulk([free, locked], { kind: 'access', userIds: [plainA], mode: 'remove' });
    expect(taken.body.data!.results.map((result) => result.ok)).toEqual([true, false]);
    expect(taken.body.data!.results[1]!.error).toBe('The user who locked the car keeps access while it is locked.');
    expect((await access(plainA)).map((row) => row.unit_id)).toEqual([locked]);
    const foreign = await unitBulk([free], { kind: 'access', userIds: [other.userId] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual({ 'task.userIds': ['Invalid user ID.'] });
    // Only administrators give access.
    expect((await unitBulk([locked], { kind: 'access', userIds: [plainB] }, userToken)).status).toBe(403);
  });
});

describe('bulk tasks on users', () => {
  test('§5 at least one user; only administrators; another account\'s user is 404 and nothing is done', async () => {
    const none = await userBulk([], { kind: 'twoFactor', enabled: true });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ userIds: ['Choose at least one user.'] });
    expect((await userBulk([plainA], { kind: 'twoFactor', enabled: true }, userToken)).status).toBe(403);
    const foreign = await userBulk([plainA, other.userId], { kind: 'twoFactor', enabled: true });
    expect(foreign.status).toBe(404);
    const [row] = await app.database.query<{ two_factor: boolean }>('SELECT two_factor FROM users WHERE id = $1', [plainA]);
    expect(row!.two_factor).toBe(false);
  });

  test('map flag and two-factor per user, each with its audit entry', async () => {
    const map = await userBulk([plainA, plainB], { kind: 'realtimeMap', enabled: false });
    expect(map.body.data!.results).toEqual([
      { userId: plainA, ok: true, error: null },
      { userId: plainB, ok: true, error: null },
    ]);
    const twoFactor = await userBulk([plainB], { kind: 'twoFactor', enabled: true });
    expect(twoFactor.body.data!.results[0]!.ok).toBe(true);
    const rows = await app.database.query<{ id: number; realtime_map: boolean; two_factor: boolean }>('SELECT id, realtime_map, two_factor FROM users WHERE id = ANY($1::int[]) ORDER BY id', [[plainA, plainB]]);
    expect(rows.map((user) => [user.realtime_map, user.two_factor])).toEqual([
      [false, false],
      [false, true],
    ]);
    expect((await audits(owner.accountId, 'bulk.realtimeMap')).map((entry) => entry.payload.target.id)).toEqual([plainA, plainB]);
    expect((await audits(owner.accountId, 'bulk.twoFactor')).map((entry) => entry.payload.target.id)).toEqual([plainB]);
  });

  test('unit access for many users: a failing user (the locker) is reported and the others are done', async () => {
    const unit = await addUnit(app, owner.accountId, nextImei('35700004'), 'Pool car', { grant: false });
    await app.database.query('UPDATE units SET locked_by = $1, car_usage = $2 WHERE id = $3', [plainB, 'private', unit]);
    const given = await userBulk([plainA, plainB], { kind: 'unitAccess', unitIds: [unit], mode: 'add' });
    expect(given.body.data!.results.every((result) => result.ok)).toBe(true);
    const taken = await userBulk([plainA, plainB], { kind: 'unitAccess', unitIds: [unit], mode: 'remove' });
    expect(taken.body.data!.results.map((result) => [result.userId, result.ok])).toEqual([
      [plainA, true],
      [plainB, false],
    ]);
    expect((await access(plainA)).map((row) => row.unit_id)).not.toContain(unit);
    expect((await access(plainB)).map((row) => row.unit_id)).toContain(unit);
    const foreignUnit = await addUnit(app, other.accountId, nextImei('35700004'), 'Not ours', { grant: false });
    const refused = await userBulk([plainA], { kind: 'unitAccess', unitIds: [foreignUnit], mode: 'add' });
    expect(refused.body.data!.results[0]).toEqual({ userId: plainA, ok: false, error: 'The unit is not registered or was not found.' });
  });

  test("the account's users for the pickers (administrators)", async () => {
    const listed = await app.call<AccountUserRef[]>('GET', '/api/admin/account-users', { token });
    expect(listed.body.data!.map((user) => user.id).sort()).toEqual([owner.userId, plainA, plainB].sort());
    expect((await app.call('GET', '/api/admin/account-users', { token: userToken })).status).toBe(403);
  });
});

describe('bulk tasks as queued jobs (progress kept on the server, resumable)', () => {
  const startJob = (body: unknown, as = token) => app.call<BulkJobView>('POST', '/api/admin/bulk-jobs', { token: as, body, headers: { 'x-lang': 'en' } });
  const jobOf = (id: number, as = token) => app.call<BulkJobView>('GET', `/api/admin/bulk-jobs/${id}`, { token: as, headers: { 'x-lang': 'en' } });

  test('a department for many users: a user deleted meanwhile fails alone, the others get it and lose their unit access (§6)', async () => {
    const [department] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${owner.accountId}, 'Field') returning id`);
    const cleo = await plainUser(owner.accountId, 'cleo');
    const dan = await plainUser(owner.accountId, 'dan');
    const gone = await plainUser(owner.accountId, 'gone');
    const unit = await addUnit(app, owner.accountId, nextImei('35700005'), 'Given', { grant: false });
    await app.grantUnits(cleo, [unit]);
    await app.grantUnits(dan, [unit]);
    const started = await startJob({ target: 'users', ids: [cleo, gone, dan], task: { kind: 'department', departmentId: department!.id } });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ target: 'users', status: 'queued', total: 3, done: 0, failed: 0, results: [] });
    await app.database.rows(sql`update users set deleted_at = now() where id = ${gone}`);
    await app.platform.queue.drain();
    await app.platform.outbox.drain();
    const job = (await jobOf(started.body.data!.id)).body.data!;
    expect(job).toMatchObject({ status: 'done', total: 3, done: 3, failed: 1, error: null });
    expect(job.results).toEqual([
      { id: cleo, ok: true, error: null },
      { id: gone, ok: false, error: 'Invalid user ID.' },
      { id: dan, ok: true, error: null },
    ]);
    const stored = await app.database.query<{ id: number; department_id: number | null }>('SELECT id, department_id FROM users WHERE id = ANY($1::int[]) ORDER BY id', [[cleo, dan, gone]]);
    expect(stored.map((row) => row.department_id)).toEqual([department!.id, department!.id, null]);
    expect(await access(cleo)).toEqual([]);
    expect(await access(dan)).toEqual([]);
    expect((await audits(owner.accountId, 'bulk.department')).map((entry) => entry.payload.target.id)).toEqual([cleo, dan]);
  });

  test('a job taken over after its process died resumes after the last record it finished', async () => {
    const ids = [await plainUser(owner.accountId, 'eva'), await plainUser(owner.accountId, 'finn'), await plainUser(owner.accountId, 'gert')];
    const started = await startJob({ target: 'users', ids, task: { kind: 'realtimeMap', enabled: false } });
    const jobId = started.body.data!.id;
    // The process ran the first user, recorded it, and died: its job row is running under a lease that ran out.
    await app.database.query(`UPDATE bulk_jobs SET status = 'running', done = 1, results = $2::jsonb WHERE id = $1`, [jobId, JSON.stringify([{ id: ids[0], ok: true, error: null }])]);
    await app.database.query(
      `UPDATE job_queue SET status = 'running', attempts = 1, locked_until = $2::timestamptz WHERE name = 'accounts.bulk-job' AND (payload->>'jobId')::int = $1`,
      [jobId, new Date(app.clock.now().getTime() - 60_000).toISOString()],
    );
    const halfway = (await jobOf(jobId)).body.data!;
    expect({ status: halfway.status, done: halfway.done, total: halfway.total }).toEqual({ status: 'running', done: 1, total: 3 });
    await app.platform.queue.drain();
    const job = (await jobOf(jobId)).body.data!;
    expect({ status: job.status, done: job.done, failed: job.failed, ids: job.results.map((result) => result.id) }).toEqual({ status: 'done', done: 3, failed: 0, ids });
    // The first user is not run again (its flag is as the dead process left it); the rest are done once.
    const flags = await app.database.query<{ realtime_map: boolean }>('SELECT realtime_map FROM users WHERE id = ANY($1::int[]) ORDER BY id', [ids]);
    expect(flags.map((row) => row.realtime_map)).toEqual([true, false, false]);
  });

  test('units as a job: a unit that cannot take the task fails alone', async () => {
    const car = await addUnit(app, owner.accountId, nextImei('35700006'), 'Job car', { grant: false });
    const tag = await addUnit(app, owner.accountId, nextImei('35700006'), 'Job tag', { deviceKind: 'battery', model: 'TAT100', grant: false });
    const profile = await app.call<NamedRef>('POST', '/api/admin/feature-profiles', { token, body: { name: 'Job profile' } });
    const started = await startJob({ target: 'units', ids: [tag, car], task: { kind: 'featureProfile', featureProfileId: profile.body.data!.id } });
    expect(started.status).toBe(200);
    await app.platform.queue.drain();
    const job = (await jobOf(started.body.data!.id)).body.data!;
    expect(job.results).toEqual([
      { id: tag, ok: false, error: 'Features are only available on trip-log devices.' },
      { id: car, ok: true, error: null },
    ]);
    expect(job.failed).toBe(1);
  });

  test('§5 and scope: at least one record; the task is checked before the job exists; only administrators; another account’s job is 404', async () => {
    const jobs = async () => (await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM bulk_jobs WHERE account_id = $1', [owner.accountId]))[0]!.n;
    const before = await jobs();
    expect((await startJob({ target: 'users', ids: [], task: { kind: 'twoFactor', enabled: true } })).body.errors).toEqual({ ids: ['Choose at least one user.'] });
    const none = await startJob({ target: 'units', ids: [1], task: { kind: 'workingHours', enabled: true, days: [] } });
    expect(none.status).toBe(422);
    const [foreignDepartment] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${other.accountId}, 'Theirs') returning id`);
    const foreign = await startJob({ target: 'users', ids: [plainA], task: { kind: 'department', departmentId: foreignDepartment!.id } });
    expect(foreign.status).toBe(422);
    const foreignUser = await startJob({ target: 'users', ids: [plainA, other.userId], task: { kind: 'twoFactor', enabled: true } });
    expect(foreignUser.status).toBe(404);
    expect((await startJob({ target: 'users', ids: [plainA], task: { kind: 'twoFactor', enabled: true } }, userToken)).status).toBe(403);
    const started = await startJob({ target: 'users', ids: [plainA], task: { kind: 'twoFactor', enabled: false } });
    expect((await jobOf(started.body.data!.id, userToken)).status).toBe(403);
    expect((await jobOf(started.body.data!.id, await app.login(other))).status).toBe(404);
    // Only the one accepted request made a job.
    expect(await jobs()).toBe(before + 1);
  });
});
