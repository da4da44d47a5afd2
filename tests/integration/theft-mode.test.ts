/**
 * Theft mode round trip through the real gateway with a simulated Scout v2 tracker (spec §4, §9): the unit leaves a
 * zone with the theft-mode flag (the durable `geofence.exited` event, published here as the geofences module does),
 * the command is queued and sent over Codec 12, the tracker confirms, the unit reports every 5 minutes while moving and
 * its positions are security events; switched off, the previous mode's command goes out and the tracker confirms it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type Gateway, startGateway } from '../../src/gateway';
import { teltonikaRecord } from '../../src/gateway/simulator/fleet';
import { SimulatedVehicle } from '../../src/gateway/simulator/vehicle';
import { encodeAvlFrame, encodeCodec12Response } from '../../src/gateway/teltonika';
import type { GeofenceCrossing } from '../../src/modules/geofences/events';
import type { TheftMovement } from '../../src/modules/units/events';
import { operatingModeCommand, type TheftModeView, type UnitDetail } from '../../src/modules/units/model';
import { addUnit } from '../../src/modules/units/testing';
import { createTestApp, type TestApp } from '../support/app';
import { connectDevice, hex, imeiLogin } from '../support/device';

setDefaultTimeout(60_000);

let app: TestApp;
let gateway: Gateway;
beforeAll(async () => {
  app = await createTestApp();
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

/**
 * A Scout-like tracker on a real socket: it reports when its period for the current state has passed (moving: ignition
 * on, as the "ignition" movement source), applies `setparam` commands to those periods and answers them as a Teltonika
 * device does. Time is the simulated vehicle's, so half an hour of driving takes a moment.
 */
async function simulatedTracker(imei: string, startMs: number) {
  const device = await connectDevice(gateway.ports.teltonika);
  device.write(imeiLogin(imei));
  expect(hex(await device.read(1))).toBe('01');
  const vehicle = new SimulatedVehicle(3, startMs, { parkedMinutes: [0, 0] });
  const periods = { movingS: 86_400, stopS: 86_400 };
  let now = startMs;
  let lastSentMs = Number.NEGATIVE_INFINITY;
  const sent: Array<{ time: number; moving: boolean }> = [];

  async function send(sample: ReturnType<SimulatedVehicle['step']>) {
    device.write(encodeAvlFrame(0x8e, [teltonikaRecord(imei, sample)]));
    expect(hex(await device.read(4))).toBe('00000001');
    sent.push({ time: sample.time.getTime(), moving: sample.ignition });
    lastSentMs = sample.time.getTime();
  }

  return {
    periods,
    sent,
    /** Reads one Codec 12 command frame, applies its `setparam` values and answers with them. */
    async takeCommand(): Promise<string> {
      const header = await device.read(8, 5000);
      expect(header).not.toBeNull();
      const length = new DataView(header!.buffer, header!.byteOffset).getUint32(4);
      const body = (await device.read(length + 4))!;
      expect([body[0], body[2]]).toEqual([0x0c, 0x05]);
      const size = new DataView(body.buffer, body.byteOffset).getUint32(3);
      const text = new TextDecoder().decode(body.slice(7, 7 + size));
      const values = new Map(
        text
          .replace(/^setparam /, '')
          .split(';')
          .map((pair) => pair.split(':').map(Number) as [number, number]),
      );
      periods.stopS = values.get(10000) ?? periods.stopS;
      periods.movingS = values.get(10050) ?? periods.movingS;
      device.write(encodeCodec12Response(`New value ${[...values].map(([id, value]) => `${id}:${value}`).join(';')}`));
      return text;
    },
    /** Drives for `seconds`, one-second steps, sending a record whenever the current state's period has passed. */
    async drive(seconds: number) {
      const until = now + seconds * 1000;
      while (now < until) {
        now += 1000;
        const sample = vehicle.step(now, 1);
        const period = (sample.ignition ? periods.movingS : periods.stopS) * 1000;
        if (now - lastSentMs >= period) await send(sample);
      }
    },
    end: () => device.end(),
  };
}

async function theftState(token: string, unitId: number): Promise<TheftModeView> {
  return (await app.call<TheftModeView>('GET', `/api/units/${unitId}/theft-mode`, { token })).body.data!;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('theft mode round trip', () => {
  test('leave the theft zone → command queued and sent → tracker confirms → 5-minute reports while moving → off restores the previous mode', async () => {
    // Three hours ago on the server's clock, so every simulated fix lies in the past; the unit ran at 8 h until then.
    const startMs = Math.floor(Date.now() / 1000 - 3 * 3600) * 1000;
    app.clock.set(new Date(startMs));
    const admin = await app.createAccount();
    const token = await app.login(admin);
    const imei = '358002609000001';
    const unitId = await addUnit(app, admin.accountId, imei, 'Sea Ray', { deviceKind: 'battery', model: 'Scout v2' });
    await app.database.rows(sql`update units set operating_mode = '8h' where id = ${unitId}`);
    const tracker = await simulatedTracker(imei, startMs);
    tracker.periods.movingS = 28_800;
    tracker.periods.stopS = 28_800;
    await tracker.drive(60);
    expect(tracker.sent).toHaveLength(1);

    // The zone's exit, published in a transaction through the outbox and delivered once.
    const exit: GeofenceCrossing = {
      accountId: admin.accountId,
      unitId,
      geofenceId: 5,
      geofenceName: 'Marina',
      theftMode: true,
      at: new Date(startMs + 60_000).toISOString(),
      latitude: 59.33,
      longitude: 18.06,
    };
    app.clock.set(new Date(startMs + 60_000));
    await app.platform.database.transaction((tx) => app.platform.outbox.publish(tx, 'geofence.exited', exit));
    expect(await app.platform.outbox.drain()).toBeGreaterThanOrEqual(1);
    expect(await theftState(token, unitId)).toMatchObject({ state: 'pending-on', cause: { kind: 'geofence', geofenceId: 5, geofenceName: 'Marina' }, previousMode: '8h' });

    // Once the delivery has committed, a job tells the gateway; the connected tracker gets the command at once.
    await app.platform.queue.drain();
    expect(await tracker.takeCommand()).toBe(operatingModeCommand('theft'));
    expect(tracker.periods).toEqual({ movingS: 300, stopS: 1800 });
    const on = await until(() => theftState(token, unitId), (view) => view.state === 'on', 'theft mode on');
    expect(on).toMatchObject({ state: 'on', failed: false });
    const detail = (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!;
    expect([detail.OperatingMode, detail.TheftMode]).toEqual(['theft', 'on']);

    // Half an hour of driving: a report every 5 minutes while moving.
    const before = tracker.sent.length;
    await tracker.drive(1800);
    await gateway.context.ingest.drain();
    const reports = tracker.sent.slice(before);
    expect(reports.length).toBeGreaterThanOrEqual(5);
    const stored = await app.database.rows<{ t: string }>(
      sql`select to_char(time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as t from positions where unit_id = ${unitId} order by time`,
    );
    const times = stored.map((row) => new Date(row.t).getTime());
    expect(times).toEqual(tracker.sent.map((report) => report.time));
    const movingGaps = reports.filter((report, index) => report.moving && (index === 0 ? before > 0 : reports[index - 1]!.moving));
    expect(movingGaps.length).toBeGreaterThanOrEqual(5);
    for (const report of movingGaps) {
      const previous = tracker.sent[tracker.sent.indexOf(report) - 1]!;
      expect((report.time - previous.time) / 1000).toBe(300);
    }

    // Each stored batch of the unit in theft mode became a durable security event (not one per position).
    await app.services.units.theftMovementsSettled();
    await app.services.units.publishTheftMovements();
    const events = (
      await app.database.rows<{ payload: TheftMovement | string }>(
        sql`select payload from outbox_events where type = 'unit.theft_movement' and (payload->>'unitId')::int = ${unitId} order by id`,
      )
    ).map((row) => (typeof row.payload === 'string' ? (JSON.parse(row.payload) as TheftMovement) : row.payload));
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events.reduce((sum, event) => sum + event.positions, 0)).toBe(reports.length);
    expect(events.at(-1)).toMatchObject({ accountId: admin.accountId, cause: 'geofence', geofenceId: 5, to: new Date(reports.at(-1)!.time).toISOString() });

    // Switched off by the user: the 8 h mode goes to the tracker; off once it confirms.
    const off = await app.call<TheftModeView>('POST', `/api/units/${unitId}/theft-mode`, { token, body: { on: false } });
    expect(off.body.data).toMatchObject({ state: 'pending-off', previousMode: '8h' });
    expect(await tracker.takeCommand()).toBe(operatingModeCommand('8h'));
    expect(tracker.periods).toEqual({ movingS: 28_800, stopS: 28_800 });
    await until(() => theftState(token, unitId), (view) => view.state === 'off', 'theft mode off');
    const after = (await app.call<UnitDetail>('GET', `/api/units/${unitId}`, { token })).body.data!;
    expect([after.OperatingMode, after.TheftMode, after.PendingSettings.operating_mode]).toEqual(['8h', 'off', undefined]);
    tracker.end();
  });
});
