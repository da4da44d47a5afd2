/**
 * The alarm receiver screens' API (spec §2 /administration/configure-alarm-receiver, configure-alert-numbers; §3; §5
 * alarm receiver rules; §7 every alarm-receiver and alertconfig call; §8 the alarm receiver errors).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { hashPassword } from '../../lib/password';
import { createTestApp, type CallResult, type TestApp } from '../../../tests/support/app';
import { addUnit, nextImei } from '../units/testing';
import type {
  AccountUserItem,
  AlarmLanguageTimeZone,
  AlarmReceiverList,
  AlarmReceiverView,
  AlertNumberView,
  ReceiverUnits,
} from './model';

const PARENT_ID = 900_001;
let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let units: number[];
let bleIds: number[];
let driverId: number;

const R = '/api/admin/alarm-receiver';
const save = (body: Record<string, unknown>, as = token, lang = 'en') =>
  app.call<{ id: number }>('POST', `${R}/add-edit`, { token: as, body: { id: 0, push_notification: 0, function_alarm: 1, security_alarm: 1, ...body }, headers: { 'x-lang': lang } });
const list = (q = '', as = token) => app.call<AlarmReceiverList>('GET', `${R}/list${q ? `?q=${encodeURIComponent(q)}` : ''}`, { token: as });
const fieldErrors = (result: CallResult) => result.body.errors as Record<string, string[]>;

async function userIn(accountId: number, email: string, first = 'Erik', last = 'Driver') {
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${accountId}, ${email}, ${await hashPassword('Secret-123!')}, ${first}, ${last}, 'user') returning id`);
  return row!.id;
}

beforeAll(async () => {
  app = await createTestApp({ env: { ALERT_NUMBERS_PARENT_ACCOUNT_ID: String(PARENT_ID) } });
  admin = await app.createAccount();
  token = await app.login(admin);
  units = [
    await addUnit(app, admin.accountId, nextImei('3563070436'), 'Alpha boat'),
    await addUnit(app, admin.accountId, nextImei('3563070436'), 'Bravo car'),
  ];
  bleIds = [];
  for (const [index, kind] of (['beacon', 'sensor'] as const).entries()) {
    const device = await app.services.bleDevices.add(admin.accountId, { mac: `AA:BB:CC:00:00:0${index}`, name: `Tag ${index}`, serialNumber: `SN${index}`, kind });
    bleIds.push(device.id);
  }
  driverId = await userIn(admin.accountId, `driver-${admin.accountId}@example.com`);
  await app.database.transaction((query) => app.services.alarmReceivers.setSmsCredits(query, admin.accountId, 42));
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('§7 shapes', () => {
  test('create, list, units, assign, toggle, list of one unit, delete', async () => {
    const created = await save({ name: 'Olle Outside', email: 'Olle@Example.com', country_code: '+46', phone: '070-123 45 67' });
    expect(created.status).toBe(200);
    const id = created.body.data!.id;
    expect(id).toBeGreaterThan(0);

    const listed = await list();
    expect(listed.body.data!.SmsCredits).toBe(42);
    const olle = listed.body.data!.alarmReceivers.find((receiver) => receiver.id === id)!;
    expect(olle).toEqual({
      id,
      member_id: null,
      name: 'Olle Outside',
      email: 'olle@example.com',
      country_code: '46',
      phone: '701234567',
      push_notification: 0,
      function_alarm: 1,
      security_alarm: 1,
      total_units: 0,
      total_ble_units: 0,
      language: 'sv',
      timezone: 'Europe/Stockholm',
    } satisfies AlarmReceiverView);

    const before = await app.call<ReceiverUnits>('POST', `${R}/get-units`, { token, body: { receiverId: id, memberId: null } });
    expect(before.status).toBe(200);
    expect(before.body.data!.gps.map((unit) => [unit.Name, unit.IsSelected, unit.isLocked])).toEqual([
      ['Alpha boat', false, false],
      ['Bravo car', false, false],
    ]);
    expect(Object.keys(before.body.data!.gps[0]!).sort()).toEqual(['ID', 'Imei', 'IsSelected', 'Name', 'isLocked']);
    expect(before.body.data!.ble).toEqual([
      { id: bleIds[0]!, Name: 'Tag 0', SerialNumber: 'SN0', IsSelected: false },
      { id: bleIds[1]!, Name: 'Tag 1', SerialNumber: 'SN1', IsSelected: false },
    ]);

    const assigned = await app.call('POST', `${R}/unit/assign`, {
      token,
      body: { receiver_id: id, terminals: [{ terminal_id: units[0], device_type: 'gps' }, { terminal_id: bleIds[1], device_type: 'ble' }] },
    });
    expect(assigned.body).toEqual({ success: true, data: { id }, errors: null });
    const after = await app.call<ReceiverUnits>('POST', `${R}/get-units`, { token, body: { receiverId: id } });
    expect(after.body.data!.gps.map((unit) => unit.IsSelected)).toEqual([true, false]);
    expect(after.body.data!.ble.map((unit) => unit.IsSelected)).toEqual([false, true]);
    expect((await list()).body.data!.alarmReceivers.find((r) => r.id === id)).toMatchObject({ total_units: 1, total_ble_units: 1 });

    // §5: at least one unit.
    const none = await app.call('POST', `${R}/unit/assign`, { token, body: { receiver_id: id, terminals: [] } });
    expect(none.status).toBe(422);
    expect(fieldErrors(none).terminals).toEqual(['Select at least one unit.']);

    const toggled = await app.call<AlarmReceiverView>('POST', `${R}/alarm-type/toggle`, { token, body: { receiverId: id, type: 'function', state: 0 } });
    expect(toggled.body.data).toMatchObject({ id, function_alarm: 0, security_alarm: 1 });
    const toggledBack = await app.call<AlarmReceiverView>('POST', `${R}/alarm-type/toggle`, { token, body: { receiverId: id, type: 'security', state: 0 } });
    expect(toggledBack.body.data).toMatchObject({ function_alarm: 0, security_alarm: 0 });

    const ofUnit = await app.call<AlarmReceiverList>('GET', `${R}/list/gps/${units[0]}`, { token });
    expect(ofUnit.body.data!.alarmReceivers.map((r) => [r.id, r.terminal_id, r.device_type])).toEqual([[id, units[0], 'gps']]);
    expect((await app.call<AlarmReceiverList>('GET', `${R}/list/gps/${units[1]}`, { token })).body.data!.alarmReceivers).toEqual([]);
    const ofBle = await app.call<AlarmReceiverList>('GET', `${R}/list/ble/${bleIds[1]}`, { token });
    expect(ofBle.body.data!.alarmReceivers.map((r) => [r.id, r.terminal_id, r.device_type])).toEqual([[id, bleIds[1], 'ble']]);

    const deleted = await app.call(`GET`, `${R}/${id}/delete`, { token });
    expect(deleted.body.data).toEqual({ deleted: true });
    expect((await list()).body.data!.alarmReceivers.some((r) => r.id === id)).toBe(false);
    expect((await app.call(`GET`, `${R}/${id}/delete`, { token })).status).toBe(404);
  });

  test('a receiver created on a unit’s page is linked to that unit', async () => {
    const created = await save({ name: 'Unit page', email: 'unitpage@example.com', terminal_id: units[1], device_type: 'gps' });
    expect(created.status).toBe(200);
    const ofUnit = await app.call<AlarmReceiverList>('GET', `${R}/list/gps/${units[1]}`, { token });
    expect(ofUnit.body.data!.alarmReceivers.map((r) => r.name)).toContain('Unit page');
    const onBle = await save({ name: 'Ble page', email: 'blepage@example.com', terminal_id: bleIds[0], device_type: 'ble' });
    expect(onBle.status).toBe(200);
    expect((await app.call<AlarmReceiverList>('GET', `${R}/list/ble/${bleIds[0]}`, { token })).body.data!.alarmReceivers.map((r) => r.name)).toEqual(['Ble page']);
  });

  test('choosing an existing user: name and e-mail are the user’s; users already receivers are marked and refused', async () => {
    const users = await app.call<{ user: AccountUserItem[] }>('GET', '/api/admin/user/list?limit=-1', { token });
    expect(users.status).toBe(200);
    const driver = users.body.data!.user.find((user) => user.ID === driverId)!;
    expect(driver).toEqual({ ID: driverId, FirstName: 'Erik Driver', Email: `driver-${admin.accountId}@example.com`, IsReceiver: false });
    const created = await save({ member_id: driverId, name: 'ignored', email: 'ignored@example.com', push_notification: 1 });
    expect(created.status).toBe(200);
    const receiver = (await list()).body.data!.alarmReceivers.find((r) => r.id === created.body.data!.id)!;
    expect(receiver).toMatchObject({ member_id: driverId, name: 'Erik Driver', email: `driver-${admin.accountId}@example.com`, push_notification: 1 });
    const marked = await app.call<{ user: AccountUserItem[] }>('GET', '/api/admin/user/list?limit=-1', { token });
    expect(marked.body.data!.user.find((user) => user.ID === driverId)!.IsReceiver).toBe(true);
    const twice = await save({ member_id: driverId, name: 'again' });
    expect(twice.status).toBe(422);
    expect(fieldErrors(twice).member_id).toEqual(['This user is already an alarm receiver.']);
    // Editing the same receiver keeps the user.
    const edited = await save({ id: created.body.data!.id, member_id: driverId, name: '' });
    expect(edited.status).toBe(200);
    // With memberId, get-units selects that user's receiver's units.
    await app.call('POST', `${R}/unit/assign`, { token, body: { receiver_id: created.body.data!.id, terminals: [{ terminal_id: units[1], device_type: 'gps' }] } });
    const picked = await app.call<ReceiverUnits>('POST', `${R}/get-units`, { token, body: { receiverId: 0, memberId: driverId } });
    expect(picked.body.data!.gps.map((unit) => unit.IsSelected)).toEqual([false, true]);
  });

  test('search by name, e-mail and phone', async () => {
    await save({ name: 'Searchable Sven', email: 'sven.search@example.com', country_code: '46', phone: '0731112233' });
    for (const q of ['searchable', 'SVEN.SEARCH', '0731112233', '731112', '+46731112233']) {
      expect((await list(q)).body.data!.alarmReceivers.map((r) => r.name)).toEqual(['Searchable Sven']);
    }
    expect((await list('no such receiver')).body.data!.alarmReceivers).toEqual([]);
    // Digits inside an e-mail address or a name are not a phone number.
    expect((await list('nobody731112@example.com')).body.data!.alarmReceivers).toEqual([]);
    expect((await list('%')).body.data!.alarmReceivers).toEqual([]);
  });

  test('alertconfig: SMS credits, language and time zone (Kathmandu only for the parent account)', async () => {
    expect((await app.call('GET', '/api/admin/alertconfig/list', { token })).body.data).toEqual({ sms_credit: 42 });
    const initial = await app.call<AlarmLanguageTimeZone>('GET', '/api/admin/alertconfig/language-timezone/get', { token });
    expect(initial.body.data).toEqual({
      Language: 'sv',
      TimeZone: 'Europe/Stockholm',
      TimeZones: ['Europe/Stockholm', 'Europe/London', 'Europe/Oslo', 'Europe/Helsinki'],
    });
    const saved = await app.call<AlarmLanguageTimeZone>('POST', '/api/admin/alertconfig/language-timezone/save', {
      token,
      body: { Language: 'no', TimeZone: 'Europe/Oslo' },
    });
    expect(saved.body.data).toMatchObject({ Language: 'no', TimeZone: 'Europe/Oslo' });
    expect((await app.call<AlarmLanguageTimeZone>('GET', '/api/admin/alertconfig/language-timezone/get', { token })).body.data).toMatchObject({
      Language: 'no',
      TimeZone: 'Europe/Oslo',
    });
    expect((await list()).body.data!.alarmReceivers[0]).toMatchObject({ language: 'no', timezone: 'Europe/Oslo' });
    const kathmandu = await app.call('POST', '/api/admin/alertconfig/language-timezone/save', { token, body: { Language: 'en', TimeZone: 'Asia/Kathmandu' } });
    expect(kathmandu.status).toBe(422);
    expect(fieldErrors(kathmandu).TimeZone).toEqual(['Choose one of the time zones offered.']);
    const language = await app.call('POST', '/api/admin/alertconfig/language-timezone/save', { token, body: { Language: 'de', TimeZone: 'Europe/Oslo' } });
    expect(language.status).toBe(422);

    const parent = await parentAdmin();
    const offered = await app.call<AlarmLanguageTimeZone>('GET', '/api/admin/alertconfig/language-timezone/get', { token: parent.token });
    expect(offered.body.data!.TimeZones).toContain('Asia/Kathmandu');
    const nepal = await app.call<AlarmLanguageTimeZone>('POST', '/api/admin/alertconfig/language-timezone/save', {
      token: parent.token,
      body: { Language: 'en', TimeZone: 'Asia/Kathmandu' },
    });
    expect(nepal.body.data).toMatchObject({ Language: 'en', TimeZone: 'Asia/Kathmandu' });
  });
});

describe('§5 rules and §8 errors', () => {
  test('name required', async () => {
    const result = await save({ name: '   ', email: 'noname@example.com' });
    expect(result.status).toBe(422);
    expect(fieldErrors(result).name).toEqual(['Enter a name.']);
  });

  test('sub-site 0: e-mail or phone; either alone is enough', async () => {
    const neither = await save({ name: 'Nobody' });
    expect(neither.status).toBe(422);
    expect(fieldErrors(neither).email).toEqual(['Enter an e-mail address or a phone number.']);
    expect((await save({ name: 'Phone only', country_code: '46', phone: '0709876543' })).status).toBe(200);
    expect((await save({ name: 'Mail only', email: 'mailonly@example.com' })).status).toBe(200);
  });

  test('another sub-site: e-mail required, a phone alone is not enough (and not kept)', async () => {
    const other = await app.createAccount({ subsiteId: 1 });
    const otherToken = await app.login(other);
    const phoneOnly = await save({ name: 'Phone only', country_code: '46', phone: '0709876543' }, otherToken);
    expect(phoneOnly.status).toBe(422);
    expect(fieldErrors(phoneOnly).email).toEqual(['Enter an e-mail address.']);
    const withMail = await save({ name: 'Mail', email: 'sub1@example.com', country_code: '46', phone: '0709876543' }, otherToken);
    expect(withMail.status).toBe(200);
    expect((await list('', otherToken)).body.data!.alarmReceivers[0]).toMatchObject({ email: 'sub1@example.com', phone: null, country_code: null });
  });

  test('phone: dial code, a leading 0 or 46 and leading zeros removed, then at least 8 digits', async () => {
    const cases: Array<[string | null, string, string]> = [
      ['46', '+46 70-222 33 44', '702223344'],
      ['+46', '0046702223345', '702223345'],
      [null, '46702223346', '702223346'],
      ['46', '00702223347', '702223347'],
      ['47', '+47 912 34 567', '91234567'],
    ];
    for (const [countryCode, phone, stored] of cases) {
      const result = await save({ name: `Phone ${stored}`, country_code: countryCode, phone });
      expect(result.status).toBe(200);
      const receiver = (await list(`Phone ${stored}`)).body.data!.alarmReceivers[0]!;
      expect(receiver.phone).toBe(stored);
    }
    for (const short of ['0701234', '+46 7012345', '46-1234567']) {
      const result = await save({ name: 'Short', country_code: '46', phone: short });
      expect(result.status).toBe(422);
      expect(fieldErrors(result).phone).toEqual(['The phone number must have at least 8 digits.']);
    }
  });

  test('duplicates of e-mail or phone refused, whatever their spelling; the receiver itself may keep them', async () => {
    const first = await save({ name: 'Dup one', email: 'dup@example.com', country_code: '46', phone: '0705556677' });
    expect(first.status).toBe(200);
    const email = await save({ name: 'Dup two', email: 'DUP@example.com' });
    expect(email.status).toBe(422);
    expect(fieldErrors(email).email).toEqual(['An alarm receiver with this e-mail address already exists.']);
    const phone = await save({ name: 'Dup three', country_code: '46', phone: '+46 70 555 66 77' });
    expect(phone.status).toBe(422);
    expect(fieldErrors(phone).phone).toEqual(['This phone number is already in use.']);
    const same = await save({ id: first.body.data!.id, name: 'Dup one renamed', email: 'dup@example.com', country_code: '46', phone: '0705556677' });
    expect(same.status).toBe(200);
    // Another account may have the same e-mail and phone.
    const other = await app.createAccount();
    expect((await save({ name: 'Dup elsewhere', email: 'dup@example.com', country_code: '46', phone: '0705556677' }, await app.login(other))).status).toBe(200);
  });

  test('errors are translated (sv, no)', async () => {
    const sv = await save({ name: '' }, token, 'sv');
    expect(fieldErrors(sv).name).toEqual(['Ange ett namn.']);
    const no = await save({ name: 'x', phone: '123' }, token, 'no');
    expect(fieldErrors(no).phone).toEqual(['Telefonnummeret må ha minst 8 sifre.']);
  });

  test('unknown receiver, unit or user of another account: 404', async () => {
    const other = await app.createAccount();
    const otherUnit = await addUnit(app, other.accountId, nextImei('3563070436'), 'Foreign');
    expect((await save({ id: 999_999, name: 'Ghost', email: 'ghost@example.com' })).status).toBe(404);
    expect((await save({ name: 'Foreign unit', email: 'fu@example.com', terminal_id: otherUnit, device_type: 'gps' })).status).toBe(404);
    expect((await save({ member_id: other.userId, name: 'Foreign user' })).status).toBe(404);
    expect((await app.call('GET', `${R}/list/gps/${otherUnit}`, { token })).status).toBe(404);
  });
});

describe('roles', () => {
  test('ordinary users are refused; support inside the account reads but changes nothing', async () => {
    const driverToken = await app.login({ email: `driver-${admin.accountId}@example.com`, password: 'Secret-123!', subsiteId: 0 });
    expect((await list('', driverToken)).status).toBe(403);
    expect((await save({ name: 'By driver', email: 'bydriver@example.com' }, driverToken)).status).toBe(403);
    expect((await app.call('GET', '/api/admin/alertconfig/list', { token: driverToken })).status).toBe(403);

    const target = await save({ name: 'Keep me', email: 'keepme@example.com' });
    const support = await app.createAccount({ role: 'support' });
    const opened = await app.call<{ user: { token: string } }>('POST', `/api/admin/customer-accounts/${admin.accountId}/open`, { token: await app.login(support) });
    const acting = opened.body.data!.user.token;
    expect((await list('', acting)).status).toBe(200);
    expect((await app.call('GET', '/api/admin/alertconfig/language-timezone/get', { token: acting })).status).toBe(200);
    expect((await save({ name: 'By support', email: 'bysupport@example.com' }, acting)).status).toBe(403);
    expect((await app.call('GET', `${R}/${target.body.data!.id}/delete`, { token: acting })).status).toBe(403);
    expect((await app.call('POST', `${R}/alarm-type/toggle`, { token: acting, body: { receiverId: target.body.data!.id, type: 'security', state: 0 } })).status).toBe(403);
    expect((await app.call('POST', '/api/admin/alertconfig/language-timezone/save', { token: acting, body: { Language: 'en', TimeZone: 'Europe/London' } })).status).toBe(403);
    expect((await list('Keep me')).body.data!.alarmReceivers).toHaveLength(1);
  });
});

async function parentAdmin() {
  const [existing] = await app.database.query<{ id: number }>('SELECT id FROM accounts WHERE id = $1', [PARENT_ID]);
  if (!existing) await app.database.query(`INSERT INTO accounts (id, subsite_id, company_name) VALUES ($1, 0, 'Parent AB')`, [PARENT_ID]);
  const email = `parent-admin-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await app.database.query(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Pia', 'Parent', 'admin')`,
    [PARENT_ID, email, await hashPassword('Secret-123!')],
  );
  return { token: await app.login({ email, password: 'Secret-123!', subsiteId: 0 }) };
}

describe('alert numbers (/administration/configure-alert-numbers)', () => {
  test('only users of the configured parent account', async () => {
    expect((await app.call('GET', '/api/admin/alert-numbers', { token })).status).toBe(403);
    expect((await app.call('POST', '/api/admin/alert-numbers', { token, body: { country_code: '46', phone: '0701234567' } })).status).toBe(403);
    // A customer below the parent account is one of its users.
    await parentAdmin();
    const child = await app.createAccount({ parentId: PARENT_ID });
    expect((await app.call('GET', '/api/admin/alert-numbers', { token: await app.login(child) })).status).toBe(200);
  });

  test('list, add, edit, remove with the phone rules and no duplicates; they get SMS alarms of the account’s units', async () => {
    const parent = await parentAdmin();
    const N = '/api/admin/alert-numbers';
    const added = await app.call<AlertNumberView>('POST', N, { token: parent.token, body: { country_code: '+46', phone: '070-111 22 33', label: 'Control room' } });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ country_code: '46', phone: '701112233', label: 'Control room' });
    const id = added.body.data!.id;
    const duplicate = await app.call('POST', N, { token: parent.token, body: { country_code: '46', phone: '+46701112233' } });
    expect(duplicate.status).toBe(422);
    expect(fieldErrors(duplicate).phone).toEqual(['This phone number is already in use.']);
    const short = await app.call('POST', N, { token: parent.token, body: { country_code: '46', phone: '0701' } });
    expect(fieldErrors(short).phone).toEqual(['The phone number must have at least 8 digits.']);
    const empty = await app.call('POST', N, { token: parent.token, body: { country_code: '46', phone: '' } });
    expect(fieldErrors(empty).phone).toEqual(['Enter a phone number.']);
    const edited = await app.call<AlertNumberView>('POST', `${N}/${id}`, { token: parent.token, body: { country_code: '46', phone: '0701112244', label: 'Night' } });
    expect(edited.body.data).toMatchObject({ id, phone: '701112244', label: 'Night' });
    expect((await app.call<AlertNumberView[]>('GET', N, { token: parent.token })).body.data!.map((n) => n.phone)).toEqual(['701112244']);

    // The parent account's units: alert numbers get their alarms by SMS.
    const unit = await addUnit(app, PARENT_ID, nextImei('3563070436'), 'Parent unit');
    const recipients = await app.database.transaction((query) => app.services.alarmReceivers.recipientsOf(query, PARENT_ID, unit, 'function'));
    expect(recipients).toEqual([expect.objectContaining({ phone: '+46701112244', alertNumber: true, email: null, push: false })]);

    // Another account's number (or none) is not found.
    expect((await app.call('POST', `${N}/999999`, { token: parent.token, body: { country_code: '46', phone: '0701112255' } })).status).toBe(404);
    expect((await app.call('DELETE', `${N}/${id}`, { token: parent.token })).body.data).toEqual({ deleted: true });
    expect((await app.call('DELETE', `${N}/${id}`, { token: parent.token })).status).toBe(404);
    expect((await app.call<AlertNumberView[]>('GET', N, { token: parent.token })).body.data).toEqual([]);
  });
});
