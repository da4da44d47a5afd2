import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { TripAttestView } from './model';

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let userToken: string;
let plainUserId: number;
let plainEmail: string;
let unitId: number;
let otherUserId: number;

async function addUnit(accountId: number, imei: string, name: string): Promise<number> {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return row!.id;
}

/** A trip of 30 minutes from `start`, driven by `driverUserId`. */
async function addTrip(start: string, driverUserId: number | null, merged = false): Promise<number> {
  const stop = new Date(Date.parse(start) + 30 * 60_000).toISOString();
  const [row] = await app.database.query<{ id: string | number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m,
                        odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, driver_user_id, detection, merged)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             0, 20000, 'gps', 20000, 60, 40, 'business', $5, 'ignition', $6)
     RETURNING id`,
    [unitId, owner.accountId, start, stop, driverUserId, merged],
  );
  return Number(row!.id);
}

const attest = (body: unknown, as = token, lang = 'en') => app.call<TripAttestView>('POST', '/api/trips/attests', { token: as, body, headers: { 'x-lang': lang } });
const status = (query: string, as = token) => app.call<TripAttestView>('GET', `/api/trips/attests?${query}`, { token: as });

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  plainEmail = `plain-${owner.userId}@example.com`;
  const [plain] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role, language)
    values (${owner.accountId}, ${plainEmail}, (select password_hash from users where id = ${owner.userId}), 'Pia', 'Plain', 'user', 'no')
    returning id`);
  plainUserId = plain!.id;
  userToken = await app.login({ email: plainEmail, password: owner.password, subsiteId: 0 });
  unitId = await addUnit(owner.accountId, '356307042479001', 'Company car');
  // Spec §6: Pia drives the company car, so it is given to her.
  await app.grantUnits(plainUserId, [unitId]);
  otherUserId = (await app.createAccount()).userId;
}, 60_000);
afterAll(async () => {
  await app?.close();
});
beforeEach(async () => {
  app.clock.set(new Date('2026-03-02T08:00:00Z'));
  for (const table of ['trips', 'trip_merge_parts', 'trip_driver_checkins']) await app.database.query(`DELETE FROM ${table} WHERE unit_id = $1`, [unitId]);
  for (const table of ['trip_attests', 'trip_attest_log']) await app.database.query(`DELETE FROM ${table} WHERE account_id = $1`, [owner.accountId]);
  await app.database.query('DELETE FROM trip_attest_reminders');
  app.smtp.inbox.splice(0);
});

describe('attesting a month', () => {
  test('a user attests their own month with a note; the status and history show it', async () => {
    const result = await attest({ period: '2026-02', note: '  All trips checked ' }, userToken);
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({
      userId: plainUserId,
      period: '2026-02',
      attested: true,
      record: { status: 'attested', note: 'All trips checked', attestedBy: plainUserId, from: '2026-01-31T23:00:00.000Z', to: '2026-02-28T23:00:00.000Z' },
      history: [{ action: 'attested', note: 'All trips checked', byUserId: plainUserId, at: '2026-03-02T08:00:00.000Z' }],
    });
    const read = await status('period=2026-02', userToken);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(result.body.data!);
    const again = await attest({ period: '2026-02' }, userToken);
    expect(again.status).toBe(409);
    const never = await status('period=2026-01', userToken);
    expect(never.body.data).toEqual({ userId: plainUserId, period: '2026-01', attested: false, record: null, history: [] });
  });

  test('the note at most 100 characters and the period a month, translated', async () => {
    const long = await attest({ period: '2026-02', note: 'x'.repeat(101) }, userToken, 'sv');
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual({ note: [expect.stringContaining('100')] });
    const badPeriod = await attest({ period: '2026-13' }, userToken, 'sv');
    expect(badPeriod.status).toBe(422);
    expect(badPeriod.body.errors).toEqual({ period: ['Välj en månad (ÅÅÅÅ-MM).'] });
    expect((await attest({ period: '2026-02', note: 'x'.repeat(100) }, userToken)).status).toBe(200);
  });

  test('an administrator attests for the account’s users; a user only for themself; another account’s user is 404', async () => {
    const forPlain = await attest({ userId: plainUserId, period: '2026-02' });
    expect(forPlain.status).toBe(200);
    expect(forPlain.body.data!.record).toMatchObject({ userId: plainUserId, attestedBy: owner.userId });
    expect((await status(`userId=${plainUserId}&period=2026-02`)).body.data!.attested).toBe(true);
    expect((await attest({ userId: owner.userId, period: '2026-02' }, userToken)).status).toBe(403);
    expect((await status(`userId=${owner.userId}&period=2026-02`, userToken)).status).toBe(403);
    expect((await attest({ userId: otherUserId, period: '2026-02' })).status).toBe(404);
    expect((await status(`userId=${otherUserId}&period=2026-02`)).status).toBe(404);
  });
});

describe('attested trips are read-only', () => {
  test('type, purpose, note, bulk type, merge, split, check-in and check-out refuse with a translated 422', async () => {
    const first = await addTrip('2026-02-10T08:00:00Z', plainUserId);
    const second = await addTrip('2026-02-10T10:00:00Z', plainUserId);
    const merged = await addTrip('2026-02-11T10:00:00Z', plainUserId, true);
    const march = await addTrip('2026-03-01T10:00:00Z', plainUserId);
    expect((await attest({ period: '2026-02' }, userToken)).status).toBe(200);

    const refusals = [
      await app.call('POST', `/api/trips/${first}`, { token, body: { type: 'private' } }),
      await app.call('POST', `/api/trips/${first}`, { token, body: { purpose: 'Changed' } }),
      await app.call('POST', `/api/trips/${first}`, { token: userToken, body: { note: 'Changed' } }),
      await app.call('POST', '/api/trips/type', { token, body: { tripIds: [march, first], type: 'other' } }),
      await app.call('POST', '/api/trips/merge', { token, body: { tripIds: [first, second] } }),
      await app.call('POST', `/api/trips/${merged}/split`, { token }),
      await app.call('POST', `/api/trips/${first}/check-in`, { token, body: { driverUserId: owner.userId } }),
      await app.call('POST', `/api/trips/${first}/check-out`, { token }),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(422);
      expect(refusal.body.errors).toBe('The trip is attested and cannot be changed. An administrator can unlock the period.');
    }
    const swedish = await app.call('POST', `/api/trips/${first}`, { token, headers: { 'x-lang': 'sv' }, body: { type: 'private' } });
    expect(swedish.body.errors).toBe('Resan är attesterad och kan inte ändras. En administratör kan låsa upp perioden.');
    const rows = await app.database.query<{ type: string; purpose: string | null; note: string | null }>(
      'SELECT type, purpose, note FROM trips WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[first, march]],
    );
    expect(rows).toEqual([
      { type: 'business', purpose: null, note: null },
      { type: 'business', purpose: null, note: null },
    ]);
    // A trip of another month (and another driver's trip in the month) stays editable.
    expect((await app.call('POST', `/api/trips/${march}`, { token, body: { type: 'private' } })).status).toBe(200);
    const admins = await addTrip('2026-02-12T10:00:00Z', owner.userId);
    expect((await app.call('POST', `/api/trips/${admins}`, { token, body: { type: 'private' } })).status).toBe(200);
    // Nor can a check-in hand trips to a driver whose period is attested.
    const unassigned = await addTrip('2026-02-20T10:00:00Z', null);
    const handOver = await app.call('POST', `/api/trips/${unassigned}/check-in`, { token, body: { driverUserId: plainUserId } });
    expect(handOver.status).toBe(422);
    const [driver] = await app.database.query<{ driver_user_id: number | null }>('SELECT driver_user_id FROM trips WHERE id = $1', [unassigned]);
    expect(driver!.driver_user_id).toBeNull();
  });

  test('an administrator unlocks (the record stays), unattests or removes; a user cannot', async () => {
    const trip = await addTrip('2026-02-10T08:00:00Z', plainUserId);
    const attested = await attest({ period: '2026-02', note: 'Done' }, userToken);
    const id = attested.body.data!.record!.id;

    for (const [method, path] of [
      ['POST', `/api/trips/attests/${id}/unlock`],
      ['POST', `/api/trips/attests/${id}/unattest`],
      ['DELETE', `/api/trips/attests/${id}`],
    ] as const) {
      expect((await app.call(method, path, { token: userToken })).status).toBe(403);
    }

    app.clock.set(new Date('2026-03-02T08:30:00Z'));
    const unlocked = await app.call<TripAttestView>('POST', `/api/trips/attests/${id}/unlock`, { token });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data).toMatchObject({ attested: false, record: { id, status: 'unlocked', note: 'Done', attestedBy: plainUserId } });
    expect((await app.call('POST', `/api/trips/${trip}`, { token: userToken, body: { purpose: 'Fixed' } })).status).toBe(200);
    expect((await app.call('POST', `/api/trips/attests/${id}/unlock`, { token })).status).toBe(422);

    // Attested again, then unattested: editable, and the user may attest again.
    expect((await attest({ period: '2026-02', note: 'Fixed it' }, userToken)).status).toBe(200);
    expect((await app.call('POST', `/api/trips/${trip}`, { token: userToken, body: { purpose: 'Again' } })).status).toBe(422);
    const unattested = await app.call<TripAttestView>('POST', `/api/trips/attests/${id}/unattest`, { token });
    expect(unattested.body.data).toMatchObject({ attested: false, record: { id, status: 'unattested' } });
    expect((await app.call('POST', `/api/trips/${trip}`, { token: userToken, body: { purpose: 'Again' } })).status).toBe(200);

    const removed = await app.call<TripAttestView>('DELETE', `/api/trips/attests/${id}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ attested: false, record: null });
    expect(removed.body.data!.history.map((entry) => [entry.action, entry.byUserId])).toEqual([
      ['attested', plainUserId],
      ['unlocked', owner.userId],
      ['attested', plainUserId],
      ['unattested', owner.userId],
      ['removed', owner.userId],
    ]);
    expect((await app.call('DELETE', `/api/trips/attests/${id}`, { token })).status).toBe(404);
  });
});

describe('attest reminders', () => {
  const runReminders = async () => {
    const job = app.services.trips.jobs().find((candidate) => candidate.name === 'trips.attestReminders');
    await job!.run();
  };

  test('users with unattested trips of the previous month get one e-mail in their language', async () => {
    await addTrip('2026-02-10T08:00:00Z', plainUserId);
    await addTrip('2026-02-11T08:00:00Z', plainUserId);
    await addTrip('2026-02-12T08:00:00Z', owner.userId);
    await addTrip('2026-03-01T08:00:00Z', owner.userId);
    expect((await attest({ period: '2026-02' })).status).toBe(200);

    await runReminders();
    const mail = await app.smtp.waitFor(plainEmail);
    expect(mail.subject).toBe('Attester turene dine for 2026-02');
    expect(mail.text).toContain('2 turer fra 2026-02');
    // Once: a second run sends nothing; the administrator attested and gets none.
    await runReminders();
    await Bun.sleep(200);
    expect(app.smtp.inbox).toEqual([]);

    // The next month, March's trip is reminded.
    app.clock.set(new Date('2026-04-01T08:00:00Z'));
    await runReminders();
    const april = await app.smtp.waitFor(owner.email);
    expect(april.subject).toBe('Attestera dina resor för 2026-03');
    expect(app.smtp.inbox).toEqual([]);
  });
});
