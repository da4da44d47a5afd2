/**
 * What the alarm engine asks the alarm receivers (`AlarmRecipientDirectory`): the receivers of a unit who take a
 * class, with the account's alert numbers, opted-out users left out; SMS credits taken atomically.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { addUnit, nextImei } from '../units/testing';

let app: TestApp;
let account: Awaited<ReturnType<TestApp['createAccount']>>;
let unitId: number;
let otherUnitId: number;

beforeAll(async () => {
  app = await createTestApp();
  account = await app.createAccount();
  unitId = await addUnit(app, account.accountId, nextImei('3563070435'), 'Boat');
  otherUnitId = await addUnit(app, account.accountId, nextImei('3563070435'), 'Car');
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const directory = () => app.services.alarmReceivers;

async function addUser(email: string, optOut: { alerts?: boolean; push?: boolean } = {}) {
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role, alerts_opt_out, push_opt_out)
    values (${account.accountId}, ${email}, 'x', 'Opt', 'Out', 'user', ${optOut.alerts ?? false}, ${optOut.push ?? false}) returning id`);
  return user!.id;
}

describe('recipientsOf', () => {
  test('receivers of the unit taking the class, in the account’s language and zone, phones as E.164, alert numbers added', async () => {
    const receivers = directory();
    const pushUser = await addUser('push.user@example.com');
    const noPushUser = await addUser('no.push@example.com', { push: true });
    const optedOut = await addUser('opted.out@example.com', { alerts: true });
    await addUser('external.optout@example.com', { alerts: true });
    await app.database.transaction(async (query) => {
      await receivers.createReceiver(query, account.accountId, { name: 'Outside', email: 'outside@example.com', countryCode: '46', phone: '701234567', unitIds: [unitId] });
      await receivers.createReceiver(query, account.accountId, { memberId: pushUser, name: 'Push', email: 'push.user@example.com', push: true, unitIds: [unitId] });
      await receivers.createReceiver(query, account.accountId, { memberId: noPushUser, name: 'No push', email: 'no.push@example.com', push: true, unitIds: [unitId] });
      await receivers.createReceiver(query, account.accountId, { memberId: optedOut, name: 'Opted out', email: 'opted.out@example.com', unitIds: [unitId] });
      // An outside receiver with the e-mail of a user who opted out is left out too.
      await receivers.createReceiver(query, account.accountId, { name: 'Ext', email: 'external.optout@example.com', unitIds: [unitId] });
      await receivers.createReceiver(query, account.accountId, { name: 'Security only', email: 'sec@example.com', function: false, unitIds: [unitId] });
      await receivers.createReceiver(query, account.accountId, { name: 'Other unit', email: 'other@example.com', unitIds: [otherUnitId] });
      await query(`INSERT INTO alarm_account_settings (account_id, language, time_zone) VALUES ($1, 'en', 'Europe/Oslo')`, [account.accountId]);
      await query(`INSERT INTO alert_numbers (account_id, country_code, phone, label) VALUES ($1, '46', '709999999', 'Control room')`, [account.accountId]);
    });
    const security = await app.database.transaction((query) => receivers.recipientsOf(query, account.accountId, unitId, 'security'));
    expect(security.map((r) => r.name).sort()).toEqual(['Control room', 'No push', 'Outside', 'Push', 'Security only']);
    const outside = security.find((r) => r.name === 'Outside')!;
    expect(outside).toMatchObject({ email: 'outside@example.com', phone: '+46701234567', push: false, userId: null, language: 'en', timeZone: 'Europe/Oslo', alertNumber: false });
    expect(security.find((r) => r.name === 'Push')).toMatchObject({ userId: pushUser, push: true });
    expect(security.find((r) => r.name === 'No push')).toMatchObject({ userId: noPushUser, push: false, email: 'no.push@example.com' });
    expect(security.find((r) => r.name === 'Control room')).toMatchObject({ receiverId: null, email: null, phone: '+46709999999', push: false, alertNumber: true });
    const functional = await app.database.transaction((query) => receivers.recipientsOf(query, account.accountId, unitId, 'function'));
    expect(functional.map((r) => r.name)).not.toContain('Security only');
    // Another account's unit id names none of these receivers.
    const stranger = await app.createAccount();
    expect(await app.database.transaction((query) => receivers.recipientsOf(query, stranger.accountId, unitId, 'security'))).toEqual([]);
  });

  test('no phone on a sub-site other than 0 (SMS only there)', async () => {
    const other = await app.createAccount({ subsiteId: 1 });
    const unit = await addUnit(app, other.accountId, nextImei('3563070435'), 'Van');
    await app.database.transaction((query) =>
      directory().createReceiver(query, other.accountId, { name: 'Mail', email: 'mail@example.com', countryCode: '46', phone: '701111111', unitIds: [unit] }),
    );
    const list = await app.database.transaction((query) => directory().recipientsOf(query, other.accountId, unit, 'security'));
    expect(list).toEqual([expect.objectContaining({ name: 'Mail', phone: null, language: 'sv', timeZone: 'Europe/Stockholm' })]);
  });
});

describe('/user/alerts opt-out, end to end', () => {
  test('a receiver who removes themselves with e-mail and password gets no more alarms', async () => {
    const own = await app.createAccount();
    const unit = await addUnit(app, own.accountId, nextImei('3563070435'), 'Truck');
    await app.database.transaction((query) =>
      directory().createReceiver(query, own.accountId, { memberId: own.userId, name: 'Me', email: own.email, push: true, unitIds: [unit] }),
    );
    const before = await app.database.transaction((query) => directory().recipientsOf(query, own.accountId, unit, 'security'));
    expect(before.map((r) => [r.userId, r.push])).toEqual([[own.userId, true]]);
    const optOut = await app.call('POST', '/api/alerts/opt-out', { body: { nt_useremail: own.email, nt_password: own.password, subsite_id: 0 } });
    expect(optOut.status).toBe(200);
    expect(await app.database.transaction((query) => directory().recipientsOf(query, own.accountId, unit, 'security'))).toEqual([]);
  });

  test('a deleted user’s receiver gets nothing', async () => {
    const own = await app.createAccount();
    const unit = await addUnit(app, own.accountId, nextImei('3563070435'), 'Digger');
    const gone = await addUserIn(own.accountId, `gone-${own.accountId}@example.com`);
    await app.database.transaction((query) =>
      directory().createReceiver(query, own.accountId, { memberId: gone, name: 'Gone', email: `gone-${own.accountId}@example.com`, unitIds: [unit] }),
    );
    expect(await app.database.transaction((query) => directory().recipientsOf(query, own.accountId, unit, 'function'))).toHaveLength(1);
    await app.database.query('UPDATE users SET deleted_at = now() WHERE id = $1', [gone]);
    expect(await app.database.transaction((query) => directory().recipientsOf(query, own.accountId, unit, 'function'))).toEqual([]);
  });
});

async function addUserIn(accountId: number, email: string) {
  const [user] = await app.database.query<{ id: number }>(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, 'x', 'Gone', 'User', 'user') RETURNING id`,
    [accountId, email],
  );
  return user!.id;
}

describe('takeSmsCredits', () => {
  test('takes credits while enough remain, refuses and takes nothing otherwise', async () => {
    const own = await app.createAccount();
    const receivers = directory();
    expect(await app.database.transaction((query) => receivers.takeSmsCredits(query, own.accountId, 1))).toBe(false);
    await app.database.transaction((query) => receivers.setSmsCredits(query, own.accountId, 3));
    expect(await app.database.transaction((query) => receivers.takeSmsCredits(query, own.accountId, 2))).toBe(true);
    expect(await app.database.transaction((query) => receivers.takeSmsCredits(query, own.accountId, 2))).toBe(false);
    expect(await app.database.transaction((query) => receivers.takeSmsCredits(query, own.accountId, 1))).toBe(true);
    const [row] = await app.database.query<{ sms_credits: number }>('SELECT sms_credits FROM alarm_account_settings WHERE account_id = $1', [own.accountId]);
    expect(row!.sms_credits).toBe(0);
    // A rolled-back transaction gives its credits back.
    await app.database.transaction((query) => receivers.setSmsCredits(query, own.accountId, 1));
    await app.database
      .transaction(async (query) => {
        expect(await receivers.takeSmsCredits(query, own.accountId, 1)).toBe(true);
        throw new Error('delivery failed');
      })
      .catch(() => {});
    expect(await app.database.transaction((query) => receivers.takeSmsCredits(query, own.accountId, 1))).toBe(true);
  });

  test('concurrent transactions cannot overdraw', async () => {
    const own = await app.createAccount();
    const receivers = directory();
    await app.database.transaction((query) => receivers.setSmsCredits(query, own.accountId, 10));
    // 8 transactions each taking 3 segments while holding the transaction open a little: only 3 can succeed.
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.database.transaction(async (query) => {
          const taken = await receivers.takeSmsCredits(query, own.accountId, 3);
          await Bun.sleep(20);
          return taken;
        }),
      ),
    );
    expect(results.filter(Boolean).length).toBe(3);
    const [row] = await app.database.query<{ sms_credits: number }>('SELECT sms_credits FROM alarm_account_settings WHERE account_id = $1', [own.accountId]);
    expect(row!.sms_credits).toBe(1);
  });
});
