import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import type { AlarmLanguageTimeZone, AlarmReceiverList, AlertNumberView, ReceiverUnits } from '../../src/modules/alarm-receivers/model';
import type { AlarmSummary, AlarmView } from '../../src/modules/alarms/model';
import type { GeofenceCrossing } from '../../src/modules/geofences/events';
import { hashPassword } from '../../src/lib/password';
import { addUnit, setState } from '../../src/modules/units/testing';
import type {} from '../../src/web/features/map/LiveMap';
import { login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine.
setDefaultTimeout(120_000);

/**
 * The alarm receivers screen (spec §2 /administration/configure-alarm-receiver) in the built app: a receiver from an
 * existing user and a new one, units in the GPS and BLE tabs, the classes switched in place, the info dialogs, an
 * inline field error from the server, the language and time zone of the alarms, delete; and the header's bell
 * showing an alarm and acknowledging it.
 */
let suite: Suite;
/** The parent account whose users get /administration/configure-alert-numbers (and the Kathmandu time zone). */
const PARENT_ACCOUNT_ID = 2_000_000_001;
beforeAll(async () => {
  suite = await startSuite({ env: { ALERT_NUMBERS_PARENT_ACCOUNT_ID: String(PARENT_ACCOUNT_ID) } });
  await suite.server.database.rows(sql`insert into accounts (id, subsite_id, company_name) values (${PARENT_ACCOUNT_ID}, 0, 'Parent company')`);
});
afterAll(async () => {
  await suite?.close();
});

type Account = Awaited<ReturnType<Suite['server']['createAccount']>>;

/** Signs in and waits for the landing map to have its units (a busy machine draws its first frame slowly). */
async function signIn(page: Page, account: Account) {
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
  await page.waitForFunction(() => window.__fleetMap?.store.loadState === 'ready', undefined, { timeout: 30_000 });
}

/** Another user of the account, as the administrator's user screen would add one. */
async function addUser(account: Account, firstName: string): Promise<{ id: number; email: string }> {
  const email = `${firstName.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const [user] = await suite.server.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, last_name, role)
    values (${account.accountId}, ${email}, ${await hashPassword('Secret-123!')}, ${firstName}, 'Receiver', 'user')
    returning id`);
  return { id: user!.id, email };
}

/** Two BLE beacons of the account, as pairing them would register them. */
async function addBleUnits(account: Account): Promise<Array<{ id: number; name: string }>> {
  const devices = [];
  for (const [at, name] of ['Tag Släp', 'Tag Båtmotor'].entries()) {
    const mac = `AC:23:3F:00:${String(account.accountId % 100).padStart(2, '0')}:${String(at).padStart(2, '0')}`;
    devices.push(await suite.server.services.bleDevices.add(account.accountId, { mac, name, serialNumber: `SN-${account.accountId}-${at}`, kind: 'beacon' }));
  }
  return devices.map((device) => ({ id: device.id, name: device.name }));
}

/**
 * The unit leaves its theft-mode zone: the geofence module's durable event, through the product's outbox to the alarm
 * engine (a security alarm). Returns the alarm's id.
 */
async function raiseSecurityAlarm(account: Account, unitId: number): Promise<number> {
  const { platform } = suite.server;
  const crossing: GeofenceCrossing = {
    accountId: account.accountId,
    unitId,
    geofenceId: 1,
    geofenceName: 'Marinan',
    theftMode: true,
    at: suite.server.clock.now().toISOString(),
    latitude: 59.33,
    longitude: 18.06,
  };
  await platform.database.transaction((tx) => platform.outbox.publish(tx, 'geofence.exited', crossing));
  await platform.outbox.drain();
  const alarms = await apiGet<AlarmView[]>(account, `/api/alarms?unitId=${unitId}&state=open`);
  expect(alarms.map((alarm) => [alarm.type, alarm.class])).toEqual([['theft_zone_exit', 'security']]);
  return alarms[0]!.id;
}

async function apiGet<T>(account: Account, path: string): Promise<T> {
  const token = await suite.server.login(account);
  const result = await suite.server.call<T>('GET', path, { token });
  expect(result.status).toBe(200);
  return result.body.data as T;
}

async function expectAccessible(page: Page, what: string) {
  const violations = await seriousA11yViolations(page);
  expect(violations.map((v) => `${what}: ${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
}

describe('alarm receivers screen', () => {
  test('from an existing user and a new one, units in both tabs, classes, language and time zone, delete', async () => {
    const admin = await suite.server.createAccount();
    const volvo = await addUnit(suite.server, admin.accountId, '358002610100001', 'Volvo V60');
    const boat = await addUnit(suite.server, admin.accountId, '358002610100002', 'Sea Ray');
    const anna = await addUser(admin, 'Anna');
    const bleUnits = await addBleUnits(admin);
    const page = await suite.newPage();
    await signIn(page, admin);

    // The sidebar's entry opens the screen.
    await page.getByRole('link', { name: 'Larmmottagare', exact: true }).click();
    await page.waitForURL('**/administration/configure-alarm-receiver');
    await page.getByRole('heading', { name: 'Larmmottagare', level: 1 }).waitFor();
    await page.getByTestId('sms-credits').waitFor();
    expect(await page.getByTestId('sms-credits').textContent()).toMatch(/^Kvarvarande SMS-krediter: \d+$/);
    // Sub-site 0: the phone column is there.
    await page.getByRole('columnheader', { name: 'Telefon' }).waitFor();

    // An existing user: the users already receivers are not offered.
    await page.getByTestId('receiver-new').click();
    const dialog = page.getByRole('dialog', { name: 'Ny larmmottagare' });
    await dialog.waitFor();
    await dialog.getByTestId('receiver-user').selectOption(String(anna.id));
    await dialog.getByTestId('receiver-tab-gps').waitFor();
    await dialog.getByRole('button', { name: 'Välj alla visade' }).click();
    expect(await dialog.getByTestId('receiver-tab-gps').textContent()).toBe('GPS (2)');
    await expectAccessible(page, 'new receiver dialog');
    await dialog.getByTestId('receiver-save').click();
    await dialog.waitFor({ state: 'detached' });
    let list = await apiGet<AlarmReceiverList>(admin, '/api/admin/alarm-receiver/list');
    const fromUser = list.alarmReceivers.find((receiver) => receiver.member_id === anna.id)!;
    expect(fromUser).toBeDefined();
    expect(fromUser.email).toBe(anna.email);
    expect(fromUser.total_units).toBe(2);
    await page.getByTestId(`receiver-row-${fromUser.id}`).waitFor();
    expect(await page.getByTestId(`receiver-units-${fromUser.id}`).textContent()).toBe('Välj enhet (GPS 2 · BLE 0)');

    // Anna is a receiver now: the next New offers only the administrator; this one is a new person.
    await page.getByTestId('receiver-new').click();
    await dialog.waitFor();
    await dialog.getByTestId('receiver-user').waitFor();
    const offered = await dialog.getByTestId('receiver-user').locator('option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(offered).toEqual([String(admin.userId)]);
    await dialog.getByText('Någon ny', { exact: true }).click();
    await dialog.getByTestId('receiver-form-name').fill('Bertil Vakt');
    await dialog.getByTestId('receiver-form-email').fill('bertil@example.com');
    await dialog.getByTestId('receiver-form-phone').fill('0701234567');
    await dialog.getByTestId('unit-picker-list').getByText('Sea Ray').click();
    await dialog.getByTestId('receiver-save').click();
    await dialog.waitFor({ state: 'detached' });
    list = await apiGet<AlarmReceiverList>(admin, '/api/admin/alarm-receiver/list');
    const bertil = list.alarmReceivers.find((receiver) => receiver.name === 'Bertil Vakt')!;
    expect(bertil.member_id).toBeNull();
    expect(bertil.total_units).toBe(1);
    await page.getByTestId(`receiver-row-${bertil.id}`).waitFor();

    // Search by phone, then by name (any case).
    await page.getByTestId('receiver-search').fill('1234567');
    await page.getByTestId(`receiver-row-${fromUser.id}`).waitFor({ state: 'detached' });
    expect(await page.getByTestId(`receiver-row-${bertil.id}`).count()).toBe(1);
    await page.getByTestId('receiver-search').fill('anna');
    await page.getByTestId(`receiver-row-${fromUser.id}`).waitFor();
    await page.getByTestId(`receiver-row-${bertil.id}`).waitFor({ state: 'detached' });
    await page.getByTestId('receiver-search').fill('');
    await page.getByTestId(`receiver-row-${bertil.id}`).waitFor();

    // Select Unit: both GPS units, then every BLE unit in its tab.
    await page.getByTestId(`receiver-units-${bertil.id}`).click();
    const units = page.getByRole('dialog', { name: 'Enheter för Bertil Vakt' });
    await units.waitFor();
    await units.getByRole('button', { name: 'Välj alla visade' }).click();
    await units.getByTestId('receiver-tab-ble').click();
    await units.getByTestId('unit-picker-search').fill(bleUnits[0]!.name);
    await units.getByTestId('unit-picker-list').getByText(bleUnits[0]!.name).waitFor();
    await units.getByTestId('unit-picker-search').fill('');
    await units.getByRole('button', { name: 'Välj alla visade' }).click();
    expect(await units.getByTestId('receiver-tab-ble').textContent()).toBe(`BLE (${bleUnits.length})`);
    await expectAccessible(page, 'unit picker');
    await screenshot(page, 'alarm-receivers-units');
    await units.getByTestId('receiver-units-save').click();
    await units.waitFor({ state: 'detached' });
    await page.getByTestId(`receiver-units-${bertil.id}`).getByText(`Välj enhet (GPS 2 · BLE ${bleUnits.length})`).waitFor();
    const token = await suite.server.login(admin);
    const assigned = await suite.server.call<ReceiverUnits>('POST', '/api/admin/alarm-receiver/get-units', { token, body: { receiverId: bertil.id, memberId: null } });
    expect(assigned.body.data!.gps.filter((unit) => unit.IsSelected).map((unit) => unit.ID).sort()).toEqual([volvo, boat].sort());
    expect(assigned.body.data!.ble.filter((unit) => unit.IsSelected).length).toBe(bleUnits.length);

    // The classes switch in place; the info dialogs explain them.
    await page.getByTestId(`receiver-security-${bertil.id}`).getByRole('checkbox').click({ force: true });
    await page.waitForFunction(
      async ({ id }) => {
        const checkbox = document.querySelector(`[data-testid="receiver-security-${id}"] input`) as HTMLInputElement | null;
        return checkbox !== null && !checkbox.checked;
      },
      { id: bertil.id },
    );
    list = await apiGet<AlarmReceiverList>(admin, '/api/admin/alarm-receiver/list');
    expect(list.alarmReceivers.find((receiver) => receiver.id === bertil.id)!.security_alarm).toBe(0);
    expect(list.alarmReceivers.find((receiver) => receiver.id === bertil.id)!.function_alarm).toBe(1);
    await page.getByTestId('info-security').click();
    const info = page.getByRole('dialog', { name: 'Säkerhetslarm' });
    expect(await info.getByTestId('info-security-text').textContent()).toContain('Rörelse i stöldläge');
    await info.getByRole('button', { name: 'OK' }).click();
    await page.getByTestId('info-function').click();
    expect(await page.getByTestId('info-function-text').textContent()).toContain('Lågt batteri i spåraren');
    await page.getByRole('dialog', { name: 'Funktionslarm' }).getByRole('button', { name: 'OK' }).click();

    // Edit: the server's 422 shows beside its field.
    await page.getByTestId(`receiver-edit-${bertil.id}`).click();
    const edit = page.getByRole('dialog', { name: 'Redigera Bertil Vakt' });
    await edit.getByTestId('receiver-form-phone').fill('123');
    await edit.getByTestId('receiver-save').click();
    await edit.locator('.field-error').first().waitFor();
    expect(await edit.getByTestId('receiver-form-phone').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'edit with an error');
    await edit.getByTestId('receiver-form-phone').fill('0709876543');
    await edit.getByTestId('receiver-save').click();
    await edit.waitFor({ state: 'detached' });

    // The alarms' language and time zone.
    const setting = page.getByTestId('alarm-language');
    await setting.getByTestId('alarm-language-select').selectOption('en');
    await setting.getByTestId('alarm-timezone-select').selectOption('Europe/London');
    await setting.getByTestId('alarm-language-save').click();
    await setting.getByTestId('alarm-language-saved').waitFor();
    const saved = await apiGet<AlarmLanguageTimeZone>(admin, '/api/admin/alertconfig/language-timezone/get');
    expect(saved.Language).toBe('en');
    expect(saved.TimeZone).toBe('Europe/London');
    expect(saved.TimeZones).not.toContain('Asia/Kathmandu');
    await page.reload();
    await page.getByTestId('alarm-language').getByTestId('alarm-language-select').waitFor();
    expect(await page.getByTestId('alarm-language-select').inputValue()).toBe('en');
    expect(await page.getByTestId('alarm-timezone-select').inputValue()).toBe('Europe/London');
    await screenshot(page, 'alarm-receivers');
    await expectAccessible(page, 'receivers screen');

    // Delete, after confirming.
    await page.getByTestId(`receiver-delete-${bertil.id}`).click();
    await page.getByRole('button', { name: 'Ta bort', exact: true }).last().click();
    await page.getByTestId(`receiver-row-${bertil.id}`).waitFor({ state: 'detached' });
    list = await apiGet<AlarmReceiverList>(admin, '/api/admin/alarm-receiver/list');
    expect(list.alarmReceivers.map((receiver) => receiver.id)).toEqual([fromUser.id]);

    // The unit's edit page lists its receivers.
    await page.goto(`/user/edit-terminal?id=${volvo}`);
    await page.getByTestId(`unit-receiver-${fromUser.id}`).waitFor();
  });

  test('the bell shows an alarm and acknowledges it; the unit stands out in the unit list', async () => {
    const admin = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, admin.accountId, '358002610100003', 'Bayliner');
    await setState(suite.server, unitId, { lat: 59.33, lon: 18.06 });
    const page = await suite.newPage();
    await signIn(page, admin);
    const bell = page.getByTestId('alarm-bell');
    await bell.waitFor();
    expect(await page.getByTestId('alarm-bell-count').count()).toBe(0);

    const alarmId = await raiseSecurityAlarm(admin, unitId);
    // The live socket tells the open map at once.
    await page.getByTestId('alarm-bell-count').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('alarm-bell-count').textContent()).toBe('1');
    await page.waitForFunction((id) => window.__fleetMap?.store.security.has(id) === true, unitId);

    await bell.click();
    const item = page.getByTestId(`bell-alarm-${alarmId}`);
    await item.waitFor();
    expect(await item.textContent()).toContain('Bayliner');
    await expectAccessible(page, 'bell');
    await screenshot(page, 'alarm-bell');

    // The unit list marks it.
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByTestId(`unit-row-${unitId}`).getByTestId('security-alarm-badge').waitFor();

    await bell.click();
    await page.getByTestId(`bell-ack-${alarmId}`).click();
    await page.getByTestId('alarm-bell-count').waitFor({ state: 'detached' });
    const summary = await apiGet<AlarmSummary>(admin, '/api/alarms/summary');
    expect(summary.unacknowledged).toBe(0);
    expect(summary.latest.find((alarm) => alarm.id === alarmId)?.acknowledgedAt).not.toBeNull();

    // The alarm's link (a push notification opens it): the map with the unit chosen.
    await page.goto(`/user/realtime-tracking?unit=${unitId}`);
    await page.locator(`[data-unit-id="${unitId}"][aria-pressed="true"]`).waitFor({ timeout: 30_000 });
  });

  test("alert numbers: the parent account's users add, edit and remove the numbers that get SMS alarms", async () => {
    const admin = await suite.server.createAccount({ parentId: PARENT_ACCOUNT_ID });
    const page = await suite.newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Larmnummer', exact: true }).click();
    await page.waitForURL('**/administration/configure-alert-numbers');
    await page.getByRole('heading', { name: 'Larmnummer', level: 1 }).waitFor();

    await page.getByTestId('alert-number-new').click();
    const dialog = page.getByRole('dialog', { name: 'Nytt larmnummer' });
    await dialog.getByTestId('alert-number-phone').fill('12');
    await dialog.getByTestId('alert-number-save').click();
    await dialog.locator('.field-error').first().waitFor();
    expect(await dialog.getByTestId('alert-number-phone').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByTestId('alert-number-phone').fill('070-111 22 33');
    await dialog.getByTestId('alert-number-label').fill('Jour');
    await dialog.getByTestId('alert-number-save').click();
    await dialog.waitFor({ state: 'detached' });
    const [added] = await apiGet<AlertNumberView[]>(admin, '/api/admin/alert-numbers');
    expect([added!.country_code, added!.phone, added!.label]).toEqual(['46', '701112233', 'Jour']);
    await page.getByTestId(`alert-number-${added!.id}`).waitFor();
    await expectAccessible(page, 'alert numbers');
    await screenshot(page, 'alert-numbers');

    await page.getByTestId(`alert-number-edit-${added!.id}`).click();
    const edit = page.getByRole('dialog', { name: 'Redigera larmnummer' });
    await edit.getByTestId('alert-number-label').fill('Vakt');
    await edit.getByTestId('alert-number-save').click();
    await edit.waitFor({ state: 'detached' });
    await page.getByText('Vakt', { exact: true }).waitFor();

    await page.getByTestId(`alert-number-delete-${added!.id}`).click();
    await page.getByRole('button', { name: 'Ta bort', exact: true }).last().click();
    await page.getByTestId(`alert-number-${added!.id}`).waitFor({ state: 'detached' });
    expect(await apiGet<AlertNumberView[]>(admin, '/api/admin/alert-numbers')).toEqual([]);

    // Another account's administrator has neither the entry nor the screen.
    const other = await suite.server.createAccount();
    const otherPage = await suite.newPage();
    await signIn(otherPage, other);
    expect(await otherPage.getByRole('link', { name: 'Larmnummer', exact: true }).count()).toBe(0);
    await otherPage.goto('/administration/configure-alert-numbers');
    await otherPage.getByRole('heading', { name: 'Sidan hittades inte' }).waitFor();
  });
});
