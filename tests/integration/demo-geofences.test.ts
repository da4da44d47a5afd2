import { afterAll, beforeAll, expect, test } from 'bun:test';
import { demoFleetDevices } from '../../src/demo/live';
import { seedDemo } from '../../src/demo/seed';
import { type Gateway, startGateway } from '../../src/gateway';
import { startFleet } from '../../src/gateway/simulator/fleet';
import { createTestApp, type TestApp } from '../support/app';

/**
 * The demo's zones: a depot per city around where its vehicles start (Stockholm's with theft mode, Uppsala's a
 * polygon), created once; the simulated vehicles, driven through the real gateway, leave them within the first
 * (simulated) minutes, so the zone log has entries at once. Time runs 60 times faster here, so fixes up to a day
 * ahead of the clock count as fixes.
 */
let app: TestApp;
let gateway: Gateway;
beforeAll(async () => {
  app = await createTestApp({ env: { DEMO_VEHICLES: '10', FIX_FUTURE_SKEW_SECONDS: '86400' } });
  gateway = await startGateway(app.platform, app.services.commands, { teltonika: 0, gt06: 0, osmand: 0 }, { storedBatchHooks: app.services.tracking.storedBatchHooks });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await app?.close();
});

test('the demo zones are created once and log crossings in the first minutes', async () => {
  const devices = await seedDemo(app.platform);
  await seedDemo(app.platform);
  const zones = await app.database.query<{ name: string; shape: string; theft_mode: boolean; units: number }>(
    `SELECT z.name, z.shape, z.theft_mode, (SELECT count(*)::int FROM geofence_units l WHERE l.geofence_id = z.id) AS units
     FROM geofences z ORDER BY z.id`,
  );
  expect(zones).toEqual([
    // Stockholm's two vehicles and the Scout boat moored there.
    { name: 'Stockholm depot', shape: 'circle', theft_mode: true, units: 3 },
    { name: 'Göteborg depot', shape: 'circle', theft_mode: false, units: 2 },
    { name: 'Malmö depot', shape: 'circle', theft_mode: false, units: 2 },
    { name: 'Uppsala yard', shape: 'polygon', theft_mode: false, units: 2 },
    { name: 'Oslo depot', shape: 'circle', theft_mode: false, units: 2 },
  ]);
  // 20 simulated minutes: every vehicle has left its parking spot at least once.
  // The demo's own cars, as the portal starts them (at home here: this test writes no history).
  const fleet = startFleet({ host: '127.0.0.1', ports: gateway.ports, devices: await demoFleetDevices(app.platform, devices), intervalMs: 250, speedup: 60 });
  const deadline = Date.now() + 25_000;
  let crossings = 0;
  while (Date.now() < deadline && crossings < 3) {
    await Bun.sleep(1000);
    const [row] = await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM geofence_events');
    crossings = row!.n;
  }
  await fleet.stop();
  expect(crossings).toBeGreaterThanOrEqual(3);
}, 90_000);
