import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { BLE_OUT_OF_RANGE_MINUTES } from './model';
import { alarmSettings, insertUnit, runStoredHooks, storedPosition } from './testing';

/**
 * BLE alarms: a tag paired with a GPS unit that the unit stops hearing while it keeps reporting raises one security
 * alarm `ble_out_of_range` (per absence, per tag), delivered to the receivers who selected that BLE unit and not to
 * those of the GPS unit only; heard again, a later absence raises a new one. A tag never heard, or a unit that itself
 * went quiet, raises nothing.
 */
let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let unitId: number;
let quietUnitId: number;
let toolId: number;
let otherToolId: number;
let quietToolId: number;

const TOOL_MAC = 'A1B2C3410001';
const OTHER_MAC = 'A1B2C3410002';
const QUIET_MAC = 'A1B2C3410003';
const start = new Date('2026-03-02T08:00:00Z');
const minute = (n: number) => new Date(start.getTime() + n * 60_000);

async function addUnit(name: string, imei: string): Promise<number> {
  return insertUnit(app, admin.accountId, imei, name, 'TOOL 1');
}

/** A position of the unit at `n` minutes hearing `macs`; the unit's latest fix moves to it, as the ingest writer does. */
async function report(unit: number, n: number, macs: string[]): Promise<void> {
  await runStoredHooks(app, [storedPosition(admin.accountId, unit, minute(n), { ble: macs.map((mac) => ({ mac, rssi: -60 })) }, { ignition: false })]);
  await app.database.query(
    `INSERT INTO unit_state (unit_id, time, geom, valid, last_seen) VALUES ($1, $2, ST_SetSRID(ST_MakePoint(18.06, 59.33), 4326), true, $2)
     ON CONFLICT (unit_id) DO UPDATE SET time = EXCLUDED.time, last_seen = EXCLUDED.last_seen`,
    [unit, minute(n).toISOString()],
  );
}

async function bleAlarms(): Promise<Array<{ id: string; unit_id: number; class: string; ble_device_id: number; details: { tag: string } | string }>> {
  return app.database.query(`SELECT id, unit_id, class, ble_device_id, details FROM alarms WHERE account_id = $1 AND type = 'ble_out_of_range' ORDER BY id`, [
    admin.accountId,
  ]);
}

async function recipientsOf(alarmId: string): Promise<string[]> {
  const rows = await app.database.query<{ recipient: string }>('SELECT recipient FROM alarm_deliveries WHERE alarm_id = $1 ORDER BY recipient', [alarmId]);
  return rows.map((row) => row.recipient);
}

beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  unitId = await addUnit('Service van', '356307043190001');
  quietUnitId = await addUnit('Trailer', '356307043190002');
  const tool = await app.services.bleDevices.add(admin.accountId, { mac: TOOL_MAC, name: 'Drill', kind: 'beacon', pairedUnitId: unitId });
  const other = await app.services.bleDevices.add(admin.accountId, { mac: OTHER_MAC, name: 'Saw', kind: 'beacon', pairedUnitId: unitId });
  const quiet = await app.services.bleDevices.add(admin.accountId, { mac: QUIET_MAC, name: 'Generator', kind: 'beacon', pairedUnitId: quietUnitId });
  toolId = tool.id;
  otherToolId = other.id;
  quietToolId = quiet.id;
  await alarmSettings(app, admin.accountId, { language: 'en', timeZone: 'Europe/London', smsCredits: 0 });
  {
    const tx = app.platform.database.query;
    // One receiver selected the drill and the generator (BLE tab), one only the van (GPS tab).
    await app.services.alarmReceivers.createReceiver(tx, admin.accountId, {
      name: 'Tool keeper',
      email: 'tools@example.com',
      security: true,
      bleDeviceIds: [toolId, quietToolId],
    });
    await app.services.alarmReceivers.createReceiver(tx, admin.accountId, { name: 'Van keeper', email: 'van@example.com', security: true, unitIds: [unitId] });
  }
}, 240_000);
afterAll(async () => {
  await app?.close();
});

test('a tag its unit stops hearing raises one security alarm for its receivers; heard again, a later absence raises anew', async () => {
  // Minute 0: the van hears the drill and the saw; the trailer hears the generator, then reports nothing more.
  await report(unitId, 0, [TOOL_MAC, OTHER_MAC]);
  await report(quietUnitId, 0, [QUIET_MAC]);
  app.clock.set(minute(5));
  await report(unitId, 5, [TOOL_MAC, OTHER_MAC]);
  // From minute 6 the van hears only the saw.
  for (let n = 6; n <= 5 + BLE_OUT_OF_RANGE_MINUTES + 1; n++) await report(unitId, n, [OTHER_MAC]);
  app.clock.set(minute(5 + BLE_OUT_OF_RANGE_MINUTES - 1));
  expect(await app.services.alarms.checkBleRange()).toBe(0); // not yet
  app.clock.set(minute(5 + BLE_OUT_OF_RANGE_MINUTES + 1));
  expect(await app.services.alarms.checkBleRange()).toBe(1);
  const [alarm] = await bleAlarms();
  expect(alarm).toMatchObject({ unit_id: unitId, class: 'security', ble_device_id: toolId });
  const details = typeof alarm!.details === 'string' ? JSON.parse(alarm!.details) : alarm!.details;
  expect(details.tag).toBe('Drill');
  // The receiver of the BLE unit gets it; the van's receiver (GPS tab only) does not.
  expect(await recipientsOf(alarm!.id)).toEqual(['tools@example.com']);
  await app.platform.queue.drain();
  const mail = app.smtp.inbox.find((message) => message.to.includes('tools@example.com'));
  expect(mail?.subject).toContain('Service van');
  expect(`${mail?.subject} ${mail?.text}`).toContain('Drill');

  // Checked again: the same absence raises nothing more; the silent trailer's generator raises nothing at all.
  app.clock.set(minute(30));
  expect(await app.services.alarms.checkBleRange()).toBe(0);
  expect((await bleAlarms()).map((row) => row.ble_device_id)).toEqual([toolId]);

  // The drill is heard again at minute 31 and lost again: after the cool-down a new alarm.
  await report(unitId, 31, [TOOL_MAC, OTHER_MAC]);
  for (let n = 32; n <= 31 + BLE_OUT_OF_RANGE_MINUTES + 20; n += 5) await report(unitId, n, [OTHER_MAC]);
  app.clock.set(minute(31 + BLE_OUT_OF_RANGE_MINUTES + 20));
  expect(await app.services.alarms.checkBleRange()).toBe(1);
  const alarms = await bleAlarms();
  expect(alarms.map((row) => row.ble_device_id)).toEqual([toolId, toolId]);
  expect(alarms.map((row) => row.ble_device_id)).not.toContain(otherToolId);
  expect(alarms.map((row) => row.ble_device_id)).not.toContain(quietToolId);
}, 240_000);

test('a device paired with another account’s unit, or heard by a unit it is not paired with, is no sighting', async () => {
  const before = await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM alarm_ble_sightings');
  // The trailer hears the saw (paired with the van): nothing recorded for the saw under the trailer.
  await report(quietUnitId, 40, [OTHER_MAC, 'FFFFFF41FFFF']);
  const rows = await app.database.query<{ ble_device_id: number; unit_id: number }>('SELECT ble_device_id, unit_id FROM alarm_ble_sightings ORDER BY ble_device_id');
  expect(rows.find((row) => row.ble_device_id === otherToolId)?.unit_id).toBe(unitId);
  expect(rows.length).toBe(before[0]!.n);
}, 240_000);

test('a tag re-paired with another unit keeps one sighting: the new unit hearing it replaces the old unit’s', async () => {
  const crane = await addUnit('Crane', '356307043190003');
  await report(crane, 50, []);
  await app.database.query('UPDATE ble_devices SET paired_unit_id = $1 WHERE id = $2', [crane, otherToolId]);
  await report(crane, 51, [OTHER_MAC]);
  const rows = await app.database.query<{ unit_id: number; last_seen: Date | string }>('SELECT unit_id, last_seen FROM alarm_ble_sightings WHERE ble_device_id = $1', [otherToolId]);
  expect(rows.map((row) => ({ unit: row.unit_id, at: new Date(row.last_seen).toISOString() }))).toEqual([{ unit: crane, at: minute(51).toISOString() }]);
}, 240_000);

test('a tag’s MAC is registered once over every account', async () => {
  const other = await app.createAccount();
  await expect(app.services.bleDevices.add(other.accountId, { mac: TOOL_MAC.toLowerCase(), name: 'Borrowed drill', kind: 'beacon' })).rejects.toThrow('already registered');
  const rows = await app.database.query('SELECT 1 FROM ble_devices WHERE mac = $1', [TOOL_MAC]);
  expect(rows.length).toBe(1);
}, 240_000);
