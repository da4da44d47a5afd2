/**
 * Spec §4 theft mode: switched on by hand or by leaving a theft zone (the durable `geofence.exited` event), pending until
 * the tracker confirms, off by the user with the previous operating mode restored; Scout v2 only; the Scout 1-hour rule;
 * each stored batch of a unit in theft mode a durable security event.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { waitFor } from '../../../tests/support/wait';
import { listen } from '../../lib/db/notify';
import { COMMANDS_CHANNEL } from '../io/service';
import type { GeofenceCrossing } from '../geofences/events';
import type { TheftMovement } from './events';
import { operatingModeCommand, type TheftModeView, type UnitDetail, type UnitView } from './model';
import { addUnit, nextImei } from './testing';

setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function setup(extra: Parameters<typeof addUnit>[4] = { deviceKind: 'battery', model: 'Scout v2' }) {
  const admin = await app.createAccount();
  const token = await app.login(admin);
  const unitId = await addUnit(app, admin.accountId, nextImei('35800260'), 'Boat', extra);
  return { admin, token, unitId };
}

const theft = (token: string, unitId: number) => app.call<TheftModeView>('GET', `/api/units/${unitId}/theft-mode`, { token });
const switchTheft = (token: string, unitId: number, on: boolean) => app.call<TheftModeView>('POST', `/api/units/${unitId}/theft-mode`, { token, body: { on } });
const detail = async (token: string, unitId: number) => (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!;

/** The tracker takes its next command and answers it (a Teltonika `setparam` answer names the new values). */
async function answer(unitId: number, response = 'New value 10000:1800;10050:300') {
  const command = await app.services.commands.claimNext(unitId);
  expect(command).not.toBeNull();
  await app.services.commands.recordResponse(unitId, response);
  return command!;
}

async function commandsOf(unitId: number) {
  return app.database.rows<{ payload: string; status: string }>(sql`select payload, status from device_commands where unit_id = ${unitId} order by id`);
}

/** Publishes a zone crossing through the outbox the way the geofences module does, and delivers it. */
async function cross(type: 'geofence.entered' | 'geofence.exited', crossing: Partial<GeofenceCrossing> & { accountId: number; unitId: number }) {
  const payload: GeofenceCrossing = {
    geofenceId: 7,
    geofenceName: 'Harbour',
    theftMode: true,
    at: app.clock.now().toISOString(),
    latitude: 59.31,
    longitude: 18.07,
    ...crossing,
  };
  await app.platform.database.transaction((tx) => app.platform.outbox.publish(tx, type, payload));
  await app.platform.outbox.drain();
}

describe('theft mode by hand', () => {
  test('on: pending until the tracker confirms; off: the previous operating mode goes back to the tracker', async () => {
    const { admin, token, unitId } = await setup();
    // The unit runs at 8 h (confirmed) before the theft.
    await app.call('POST', `/api/units/${unitId}/operating-mode`, { token, body: { mode: '8h' } });
    await answer(unitId, 'New value 10000:28800;10050:28800');
    expect((await detail(token, unitId)).OperatingMode).toBe('8h');

    expect((await theft(token, unitId)).body.data).toEqual({
      unitId,
      state: 'off',
      supported: true,
      cause: null,
      since: null,
      failed: false,
      previousMode: null,
    });
    const on = await switchTheft(token, unitId, true);
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ state: 'pending-on', cause: { kind: 'manual' }, since: app.clock.now().toISOString(), previousMode: '8h' });
    const pendingDetail = await detail(token, unitId);
    expect(pendingDetail).toMatchObject({ OperatingMode: '8h', TheftMode: 'pending-on', PendingSettings: { operating_mode: { value: 'theft', status: 'pending' } } });
    // Switching on again while pending queues nothing more.
    await switchTheft(token, unitId, true);
    expect((await commandsOf(unitId)).filter((command) => command.status === 'queued')).toEqual([{ payload: operatingModeCommand('theft'), status: 'queued' }]);
    expect(operatingModeCommand('theft')).toBe('setparam 10000:1800;10100:1800;10200:1800;10050:300;10150:300;10250:300');

    // The tracker takes the command and confirms: on.
    expect((await answer(unitId)).payload).toBe(operatingModeCommand('theft'));
    expect((await theft(token, unitId)).body.data!.state).toBe('on');
    const onDetail = await detail(token, unitId);
    expect([onDetail.OperatingMode, onDetail.TheftMode]).toEqual(['theft', 'on']);
    const list = (await app.call<UnitView[]>('GET', '/api/units', { token })).body.data!;
    expect(list.find((unit) => unit.ID === unitId)!.TheftMode).toBe('on');

    // While on, the operating-mode section leaves the unit alone.
    const blocked = await app.call('POST', `/api/units/${unitId}/operating-mode`, { token, body: { mode: '24h' } });
    expect([blocked.status, blocked.body.errors]).toEqual([409, 'Theft mode is on for this unit. Switch it off first; that restores its previous operating mode.']);

    // Off: the 8 h mode goes out; pending until confirmed, then off with 8 h back.
    expect((await switchTheft(token, unitId, false)).body.data).toMatchObject({ state: 'pending-off', previousMode: '8h' });
    expect((await answer(unitId, 'New value 10000:28800;10050:28800')).payload).toBe(operatingModeCommand('8h'));
    expect((await theft(token, unitId)).body.data).toMatchObject({ state: 'off', cause: null, since: null, failed: false });
    expect((await detail(token, unitId)).OperatingMode).toBe('8h');
    // Off again: nothing to do, nothing queued.
    await switchTheft(token, unitId, false);
    expect((await commandsOf(unitId)).filter((command) => command.status === 'queued')).toEqual([]);
    // Each switch is in the audit log once, with who made it.
    const audit = await app.database.rows<{ action: string; actor: number }>(
      sql`select payload->>'action' as action, (payload->>'actorUserId')::int as actor from outbox_events
          where type = 'audit.entry' and (payload->'target'->>'id')::int = ${unitId} and payload->>'action' like 'unit.theft_mode%' order by id`,
    );
    expect(audit).toEqual([
      { action: 'unit.theft_mode_on', actor: admin.userId },
      { action: 'unit.theft_mode_off', actor: admin.userId },
    ]);
  });

  test('a unit without a confirmed mode returns to the recommended 24 h; the operating-mode section hands theft to theft mode', async () => {
    const { token, unitId } = await setup();
    const viaSection = await app.call<UnitDetail>('POST', `/api/units/${unitId}/operating-mode`, { token, body: { mode: 'theft' } });
    expect(viaSection.body.data!.TheftMode).toBe('pending-on');
    await answer(unitId);
    await switchTheft(token, unitId, false);
    expect((await answer(unitId, 'New value 10000:86400;10050:86400')).payload).toBe(operatingModeCommand('24h'));
    expect((await detail(token, unitId)).OperatingMode).toBe('24h');
  });

  test('a switch the tracker refuses or never answers falls back, marked failed', async () => {
    const { token, unitId } = await setup();
    await switchTheft(token, unitId, true);
    await answer(unitId, 'Param ID:10000 invalid value');
    expect((await theft(token, unitId)).body.data).toMatchObject({ state: 'off', failed: true });
    await switchTheft(token, unitId, true);
    await answer(unitId);
    await switchTheft(token, unitId, false);
    await app.services.commands.claimNext(unitId);
    app.clock.advance(91_000);
    await app.services.commands.sweep();
    expect((await theft(token, unitId)).body.data).toMatchObject({ state: 'on', failed: true });
  });

  test('only models with theft mode (Scout v2) and trackers that take settings; another account gets 404', async () => {
    const tat = await setup({ deviceKind: 'battery', model: 'TAT100' });
    expect((await theft(tat.token, tat.unitId)).body.data!.supported).toBe(false);
    const refused = await switchTheft(tat.token, tat.unitId, true);
    expect([refused.status, refused.body.errors]).toEqual([422, { on: ['Theft mode is available on Scout v2 trackers only.'] }]);
    const gt06 = await setup({ deviceKind: 'battery', model: 'Scout v2', protocol: 'gt06' });
    const noSettings = await switchTheft(gt06.token, gt06.unitId, true);
    expect([noSettings.status, noSettings.body.errors]).toEqual([422, { on: ['This tracker cannot receive settings from the portal.'] }]);
    expect(await commandsOf(tat.unitId)).toEqual([]);
    expect(await commandsOf(gt06.unitId)).toEqual([]);

    const other = await setup();
    expect((await theft(tat.token, other.unitId)).status).toBe(404);
    expect((await switchTheft(tat.token, other.unitId, true)).status).toBe(404);
    expect(await commandsOf(other.unitId)).toEqual([]);
    expect((await app.call('POST', `/api/units/${other.unitId}/theft-mode`, { token: other.token, body: { on: 'yes' } })).status).toBe(422);
  });
});

describe('theft mode from a theft zone', () => {
  test('leaving a theft zone switches it on once, however often the event is delivered; the cause names the zone', async () => {
    const { admin, token, unitId } = await setup();
    // The command waits for the gateway until the delivery's transaction commits; the commit notifies every process.
    const heard: number[] = [];
    const stopListening = await listen(app.database, COMMANDS_CHANNEL, (payload) => heard.push(Number(payload)));
    try {
      await cross('geofence.exited', { accountId: admin.accountId, unitId, geofenceId: 42, geofenceName: 'Marina' });
      await waitFor('the notification of the queued command', () => heard.includes(unitId));
    } finally {
      await stopListening();
    }
    expect((await theft(token, unitId)).body.data).toMatchObject({ state: 'pending-on', cause: { kind: 'geofence', geofenceId: 42, geofenceName: 'Marina' } });
    expect(await commandsOf(unitId)).toEqual([{ payload: operatingModeCommand('theft'), status: 'queued' }]);
    // A second exit while pending or on changes nothing.
    await cross('geofence.exited', { accountId: admin.accountId, unitId });
    expect(await commandsOf(unitId)).toHaveLength(1);
    const [deliveries] = await app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from outbox_deliveries where subscriber = 'units.theft-mode' and status = 'done'`,
    );
    expect(deliveries!.n).toBeGreaterThanOrEqual(2);
  });

  test('a crossing naming a unit of another account, or a model without theft mode, records nothing', async () => {
    const { unitId } = await setup();
    const stranger = await app.createAccount();
    await cross('geofence.exited', { accountId: stranger.accountId, unitId });
    expect(await commandsOf(unitId)).toEqual([]);
    const tat = await setup({ deviceKind: 'battery', model: 'TAT100' });
    await cross('geofence.exited', { accountId: tat.admin.accountId, unitId: tat.unitId });
    await cross('geofence.entered', { accountId: tat.admin.accountId, unitId: tat.unitId });
    expect(await commandsOf(tat.unitId)).toEqual([]);
    expect((await theft(tat.token, tat.unitId)).body.data).toMatchObject({ state: 'off', failed: false });
  });

  test('Scout: any zone alert sets one hour (once); theft mode wins over it', async () => {
    const { admin, token, unitId } = await setup({ deviceKind: 'battery', model: 'Scout' });
    await cross('geofence.entered', { accountId: admin.accountId, unitId, theftMode: false });
    expect(await commandsOf(unitId)).toEqual([{ payload: operatingModeCommand('1h'), status: 'queued' }]);
    await answer(unitId, 'New value 10000:3600;10050:3600');
    expect((await detail(token, unitId)).OperatingMode).toBe('1h');
    // Already at one hour: another alert sends nothing. A Scout (v1) leaving a theft zone gets the hour, not theft mode.
    await cross('geofence.exited', { accountId: admin.accountId, unitId, theftMode: true });
    expect(await commandsOf(unitId)).toHaveLength(1);
    // Changed back by hand.
    await app.call('POST', `/api/units/${unitId}/operating-mode`, { token, body: { mode: '24h' } });
    expect((await commandsOf(unitId)).at(-1)!.payload).toBe(operatingModeCommand('24h'));

    const v2 = await setup();
    await cross('geofence.exited', { accountId: v2.admin.accountId, unitId: v2.unitId, theftMode: true });
    await cross('geofence.entered', { accountId: v2.admin.accountId, unitId: v2.unitId, theftMode: false });
    expect((await commandsOf(v2.unitId)).map((command) => command.payload)).toEqual([operatingModeCommand('theft')]);
    // A zone alert while theft mode is being switched off: the hour replaces the mode to restore.
    await answer(v2.unitId);
    await switchTheft(v2.token, v2.unitId, false);
    await cross('geofence.entered', { accountId: v2.admin.accountId, unitId: v2.unitId, theftMode: false });
    expect((await theft(v2.token, v2.unitId)).body.data).toMatchObject({ state: 'pending-off', previousMode: '1h' });
    // The restore command (24 h) was still queued and is superseded by the hour: the tracker takes the 24 h first, then the hour.
    await answer(v2.unitId, 'New value 10000:86400;10050:86400');
    expect((await answer(v2.unitId, 'New value 10000:3600;10050:3600')).payload).toBe(operatingModeCommand('1h'));
    expect((await theft(v2.token, v2.unitId)).body.data!.state).toBe('off');
    expect((await detail(v2.token, v2.unitId)).OperatingMode).toBe('1h');
  });
});

describe('exactly once', () => {
  test('a delivery rolled back after the switch (another subscriber of the batch failed) switches once when it runs again', async () => {
    const { admin, token, unitId } = await setup();
    let failures = 0;
    const seen: string[] = [];
    // Another subscriber of the same event that fails its first attempt, after the switch was written in the batch's
    // transaction (it sees it there): the dispatcher rolls the whole batch back, the switch with it.
    app.platform.outbox.subscribe('geofence.exited', 'test.fails-once', async (event, tx) => {
      const [row] = await tx<{ state: string }>('select state from unit_theft_mode where unit_id = $1', [event.payload.unitId]);
      seen.push(row?.state ?? 'none');
      if (failures++ === 0) throw new Error('down for a moment');
    });
    await app.platform.outbox.register();
    await cross('geofence.exited', { accountId: admin.accountId, unitId });
    app.clock.advance(2_000);
    await app.platform.outbox.drain();
    expect(failures).toBe(2);
    expect(seen).toEqual(['pending-on', 'pending-on']);
    expect(await commandsOf(unitId)).toEqual([{ payload: operatingModeCommand('theft'), status: 'queued' }]);
    const [requests] = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from unit_setting_requests where unit_id = ${unitId}`);
    expect(requests!.n).toBe(1);
    expect((await theft(token, unitId)).body.data!.state).toBe('pending-on');
  });
});

describe('security events', () => {
  async function storePosition(unitId: number, at: Date, lat: number, flags = 0) {
    await app.database.rows(sql`
      insert into positions (unit_id, time, received_at, geom, speed_kmh, valid, flags, io, normalized)
      values (${unitId}, ${at.toISOString()}, ${at.toISOString()}, ST_SetSRID(ST_MakePoint(18.07, ${lat}), 4326), 42, ${flags === 0}, ${flags}, '{}'::jsonb, '{}'::jsonb)`);
  }
  async function movements(unitId: number) {
    const rows = await app.database.rows<{ payload: TheftMovement | string }>(
      sql`select payload from outbox_events where type = 'unit.theft_movement' and (payload->>'unitId')::int = ${unitId} order by id`,
    );
    return rows.map((row) => (typeof row.payload === 'string' ? (JSON.parse(row.payload) as TheftMovement) : row.payload));
  }

  test('each new batch of valid fixes of a unit in theft mode is one durable event; nothing before or after the episode', async () => {
    const { admin, token, unitId } = await setup();
    const start = app.clock.now().getTime();
    await storePosition(unitId, new Date(start - 60_000), 59.3);
    await app.services.units.publishTheftMovements();
    expect(await movements(unitId)).toEqual([]);

    await switchTheft(token, unitId, true);
    await storePosition(unitId, new Date(start + 60_000), 59.31);
    await storePosition(unitId, new Date(start + 360_000), 59.32);
    await storePosition(unitId, new Date(start + 400_000), 59.33, 1); // no fix: not a position of the thief
    await app.services.units.publishTheftMovements();
    expect(await movements(unitId)).toEqual([
      {
        accountId: admin.accountId,
        unitId,
        since: new Date(start).toISOString(),
        cause: 'manual',
        geofenceId: null,
        positions: 2,
        from: new Date(start + 60_000).toISOString(),
        to: new Date(start + 360_000).toISOString(),
        latitude: 59.32,
        longitude: 18.07,
        speedKmh: 42,
        maxSpeedKmh: 42,
      },
    ]);
    // Nothing new: no second event for the same positions.
    await app.services.units.publishTheftMovements();
    expect(await movements(unitId)).toHaveLength(1);
    await storePosition(unitId, new Date(start + 660_000), 59.34);
    await app.services.units.publishTheftMovements();
    expect((await movements(unitId)).map((event) => event.positions)).toEqual([2, 1]);
    // Switched off: no more security events.
    await answer(unitId);
    await switchTheft(token, unitId, false);
    await storePosition(unitId, new Date(start + 960_000), 59.35);
    await app.services.units.publishTheftMovements();
    expect(await movements(unitId)).toHaveLength(2);
  });
});
