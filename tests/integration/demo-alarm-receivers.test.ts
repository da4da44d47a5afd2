import { afterAll, beforeAll, expect, test } from 'bun:test';
import { seedDemo } from '../../src/demo/seed';
import type { AlarmReceiverList, ReceiverUnits } from '../../src/modules/alarm-receivers/model';
import { createTestApp, type TestApp } from '../support/app';

/**
 * The demo's alarm receivers: the administrator (push) and an outside on-call person (e-mail and phone) on the
 * theft-mode boat and the first vehicles, three BLE units, 250 SMS credits; created once, seen through the API.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { DEMO_VEHICLES: '4' } });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

test('the demo account has two receivers on its units, BLE units and SMS credits, created once', async () => {
  const devices = await seedDemo(app.platform);
  await seedDemo(app.platform);
  const token = await app.login({ email: app.platform.config.DEMO_EMAIL, password: app.platform.config.DEMO_PASSWORD, subsiteId: 0 });
  const listed = await app.call<AlarmReceiverList>('GET', '/api/admin/alarm-receiver/list', { token });
  expect(listed.body.data!.SmsCredits).toBe(250);
  expect(listed.body.data!.alarmReceivers.map((r) => [r.name, r.push_notification, r.phone, r.total_units, r.total_ble_units, r.language, r.timezone])).toEqual([
    ['Anna Demo', 1, null, 4, 3, 'sv', 'Europe/Stockholm'],
    ['Lars Larmjour', 0, '701234567', 2, 3, 'sv', 'Europe/Stockholm'],
  ]);
  const units = await app.call<ReceiverUnits>('POST', '/api/admin/alarm-receiver/get-units', { token, body: { receiverId: listed.body.data!.alarmReceivers[1]!.id } });
  expect(units.body.data!.ble.map((tag) => tag.Name)).toEqual(['Cold-box temperature sensor', 'Key beacon', 'Trailer beacon']);
  expect(units.body.data!.gps.filter((unit) => unit.IsSelected)).toHaveLength(2);
  // The boat in theft mode (the last device) is watched: its security alarms reach both.
  const boat = devices.at(-1)!.unitId;
  const [accountRow] = await app.database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [boat]);
  const recipients = await app.database.transaction((query) => app.services.alarmReceivers.recipientsOf(query, accountRow!.account_id, boat, 'security'));
  expect(recipients.map((r) => [r.name, r.push, r.phone, r.email])).toEqual([
    ['Anna Demo', true, null, app.platform.config.DEMO_EMAIL],
    ['Lars Larmjour', false, '+46701234567', 'larmjour@example.com'],
  ]);
}, 90_000);
