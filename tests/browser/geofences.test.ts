import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { type Gateway, startGateway } from '../../src/gateway';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import { createCommandService } from '../../src/modules/io/service';
import { connectDevice } from '../support/device';
import { eventually, login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// The screens load MapLibre, terra-draw and deck.gl with software WebGL: allow for a slow machine.
setDefaultTimeout(180_000);

/**
 * Geofences in the built app: a circle and a polygon drawn on the form's map with the mouse, a unit assigned to
 * both, both zones on the live map's geofence layer, then the unit drives out of the circle through the real
 * gateway (Teltonika over TCP) and the exit shows in the zone event log.
 */
let suite: Suite;
let gateway: Gateway;

beforeAll(async () => {
  suite = await startSuite();
  // Positions are compared with the server's clock: run it on real time.
  suite.server.clock.set(new Date());
  const commands = createCommandService(suite.server.database, suite.server.platform.events, suite.server.clock);
  // Geofence matching runs in each ingest batch's transaction (tracking's stored-batch hooks), as in the portal.
  gateway = await startGateway(suite.server.platform, commands, { teltonika: 0, gt06: 0, osmand: 0 }, { storedBatchHooks: suite.server.services.tracking.storedBatchHooks });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await suite?.close();
});

interface Fix {
  time: Date;
  lat: number;
  lon: number;
  speed: number;
}

/** Sends fixes as Codec 8E frames through the real gateway (TCP), each acknowledged before the next. */
async function sendThroughGateway(imei: string, fixes: Fix[]): Promise<void> {
  suite.server.clock.set(new Date());
  const device = await connectDevice(gateway.ports.teltonika);
  device.write(encodeImeiFrame(imei));
  expect(Buffer.from((await device.read(1))!).toString('hex')).toBe('01');
  for (const fix of fixes) {
    const record = {
      time: fix.time,
      latitude: fix.lat,
      longitude: fix.lon,
      altitude: 20,
      speedKmh: fix.speed,
      course: 90,
      satellites: 9,
      io: { 239: 1, 240: fix.speed > 0 ? 1 : 0, 66: 12_800 },
    };
    device.write(encodeAvlFrame(0x8e, [record]));
    const ack = await device.read(4, 5000);
    expect(ack ? new DataView(ack.buffer, ack.byteOffset).getUint32(0) : -1).toBe(1);
  }
  device.end();
}

/** The drawing map's box on the page, once terra-draw is on it. */
async function drawingMap(page: Page) {
  await page.waitForSelector('[data-testid="geofence-draw-map"][data-draw-ready]', { timeout: 60_000 });
  const map = page.getByTestId('geofence-draw-map');
  await map.scrollIntoViewIfNeeded();
  const box = (await map.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe('geofences', () => {
  test('a circle and a polygon drawn on the map, shown on the live map; a drive out of the circle is in the log', async () => {
    const account = await suite.server.createAccount();
    const imei = '357000002040001';
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name, registration_number, protocol, model)
      values (${account.accountId}, ${imei}, 'Volvo V60', 'GEO123', 'teltonika', 'FMB920') returning id`);
    const unitId = unit!.id;

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    // The live map loads first (with software WebGL a busy page for a while).
    await page.waitForFunction(() => window.__fleetMap?.store.loadState === 'ready', undefined, { timeout: 60_000 });
    await page.getByRole('link', { name: 'Geostaket' }).click({ timeout: 30_000 });
    await page.waitForURL('**/user/geofences');
    await page.getByRole('heading', { name: 'Geostaket', level: 1 }).waitFor();
    await page.getByTestId('geofence-count').filter({ hasText: /^0 geostaket$/ }).waitFor();

    // A circle: the centre clicked, the pointer moved out, clicked again.
    await page.getByTestId('geofence-new').click();
    await page.waitForURL('**/user/geofences/add-edit-geofences');
    await page.getByTestId('geofence-name').fill('Depån');
    let centre = await drawingMap(page);
    await page.mouse.move(centre.x, centre.y);
    await page.mouse.click(centre.x, centre.y);
    await page.mouse.move(centre.x + 40, centre.y, { steps: 5 });
    await page.mouse.move(centre.x + 80, centre.y, { steps: 5 });
    await page.mouse.click(centre.x + 80, centre.y);
    // The drawn circle fills in the centre and the radius, and the tool turns to editing.
    await page.waitForFunction(() => Number((document.querySelector('[data-testid="geofence-radius"]') as HTMLInputElement | null)?.value) > 0);
    const drawnRadius = Number(await page.getByTestId('geofence-radius').inputValue());
    expect(drawnRadius).toBeGreaterThan(100);
    await eventually(() => page.getByTestId('geofence-draw-map').getAttribute('data-tool'), 'select');
    const lat = Number(await page.getByTestId('geofence-latitude').inputValue());
    const lon = Number(await page.getByTestId('geofence-longitude').inputValue());
    expect(Math.abs(lat - 59.3293)).toBeLessThan(0.05);
    expect(Math.abs(lon - 18.0686)).toBeLessThan(0.1);

    // §8: a radius below the brand's minimum is refused at its field; the typed radius redraws the circle.
    await page.getByTestId('geofence-radius').fill('120');
    await page.getByTestId('geofence-save').click();
    await page.getByText('Radien måste vara minst 300 m.').waitFor();
    await page.getByTestId('geofence-radius').fill('600');
    await page.getByLabel('Volvo V60').check();
    await page.evaluate(() => window.scrollBy(0, document.querySelector('[data-testid="geofence-draw-map"]')!.getBoundingClientRect().top - 150));
    await Bun.sleep(500);
    await screenshot(page, 'geofences-circle');
    await page.getByTestId('geofence-save').click();
    await page.waitForURL(/\/user\/geofences\/add-edit-geofences\/\d+$/);
    await eventually(() => page.getByTestId('geofence-message').textContent(), 'Geostaketet har sparats.');
    const circleId = Number(page.url().split('/').at(-1));
    const [circle] = await suite.server.database.query<{ name: string; shape: string; radius_m: number }>(
      'SELECT name, shape, radius_m FROM geofences WHERE id = $1',
      [circleId],
    );
    expect(circle).toMatchObject({ name: 'Depån', shape: 'circle', radius_m: 600 });

    // A polygon: four corners clicked, the first clicked again to close it, a short way north of the circle.
    await page.goto('/user/geofences/add-edit-geofences');
    await page.getByTestId('geofence-name').fill('Lagret');
    await page.getByTestId('geofence-shape').selectOption('polygon');
    centre = await drawingMap(page);
    const corners = [
      [centre.x - 60, centre.y - 140],
      [centre.x + 60, centre.y - 140],
      [centre.x + 60, centre.y - 60],
      [centre.x - 60, centre.y - 60],
    ] as const;
    for (const [x, y] of corners) {
      await page.mouse.move(x, y, { steps: 3 });
      await page.mouse.click(x, y);
      await Bun.sleep(150);
    }
    await page.mouse.move(corners[0][0], corners[0][1], { steps: 3 });
    await page.mouse.click(corners[0][0], corners[0][1]);
    await page.getByTestId('geofence-points').filter({ hasText: '4 hörn' }).waitFor();
    await eventually(() => page.getByTestId('geofence-draw-map').getAttribute('data-tool'), 'select');
    await page.getByLabel('Volvo V60').check();
    await page.evaluate(() => window.scrollBy(0, document.querySelector('[data-testid="geofence-draw-map"]')!.getBoundingClientRect().top - 150));
    await Bun.sleep(500);
    await screenshot(page, 'geofences-polygon');
    await page.getByTestId('geofence-save').click();
    await page.waitForURL(/\/user\/geofences\/add-edit-geofences\/\d+$/);
    const polygonId = Number(page.url().split('/').at(-1));
    expect(polygonId).not.toBe(circleId);

    // The list: both zones, the unit in each; a11y of the list with its map and log.
    await page.getByRole('link', { name: 'Tillbaka till geostaket' }).click();
    await page.waitForURL('**/user/geofences');
    await page.getByTestId('geofence-count').filter({ hasText: /^2 geostaket$/ }).waitFor();
    expect(await page.getByTestId(`geofence-row-${circleId}`).textContent()).toContain('Volvo V60');
    expect(await page.getByTestId(`geofence-row-${polygonId}`).textContent()).toContain('Polygon');
    await page.waitForSelector('[data-testid="geofences-map"][data-layers*="geofences-fill"]', { timeout: 30_000 });
    await screenshot(page, 'geofences-list');
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);

    // The unit stands in the middle of the circle, then drives east out of it (600 m) to 1.5 km away.
    const start = Date.now() - 10 * 60_000;
    const fixes: Fix[] = [];
    for (let i = 0; i < 4; i++) fixes.push({ time: new Date(start + i * 30_000), lat, lon, speed: 0 });
    const metresPerDegree = 111_320 * Math.cos((lat * Math.PI) / 180);
    for (let i = 1; i <= 10; i++) fixes.push({ time: new Date(start + 120_000 + i * 15_000), lat, lon: lon + (i * 150) / metresPerDegree, speed: 36 });
    await sendThroughGateway(imei, fixes);

    // The live map: the geofence layer draws both zones with their names; a click on the polygon lists its unit.
    const zonesAnswer = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/geofences' && response.request().method() === 'GET');
    await page.getByRole('link', { name: 'Karta' }).first().click();
    await page.waitForURL('**/user/realtime-tracking');
    await page.waitForFunction(() => window.__fleetMap?.map !== null && window.__fleetMap?.store.loadState === 'ready', undefined, { timeout: 60_000 });
    expect(await page.getByTestId('map-geofences-toggle').isChecked()).toBe(true);
    await page.waitForFunction(() => {
      const layers = document.querySelector('[data-testid="map-gl"]')?.getAttribute('data-layers') ?? '';
      return layers.includes('geofence-zones') && layers.includes('geofence-names');
    });
    const zones = (await (await zonesAnswer).json()).data as Array<{ id: number; points: Array<{ latitude: number; longitude: number }> | null }>;
    const points = zones.find((zone) => zone.id === polygonId)!.points!;
    const middle = {
      lat: points.reduce((sum, p) => sum + p.latitude, 0) / points.length,
      lon: points.reduce((sum, p) => sum + p.longitude, 0) / points.length,
    };
    const polygonPoint = await page.evaluate(async ({ lat, lon }) => {
      const map = window.__fleetMap!.map!.map;
      // Drawn at the new place (deck.gl picks in the viewport it last drew) before the click.
      const settled = new Promise<void>((resolve) => {
        map.once('idle', () => resolve());
        setTimeout(resolve, 8000);
      });
      map.jumpTo({ center: [lon, lat], zoom: 14 });
      map.triggerRepaint();
      await settled;
      const canvas = map.getCanvas().getBoundingClientRect();
      const at = map.project([lon, lat]);
      return { x: canvas.left + at.x, y: canvas.top + at.y };
    }, middle);
    const panel = page.getByTestId('map-geofence-panel');
    // A slow software renderer may still be drawing the previous frame: click again until the zone answers.
    for (let attempt = 0; attempt < 5 && !(await panel.isVisible()); attempt++) {
      await page.mouse.click(polygonPoint.x, polygonPoint.y);
      await panel.waitFor({ timeout: 3000 }).catch(() => {});
    }
    await panel.waitFor();
    expect(await panel.getByRole('heading').textContent()).toBe('Lagret');
    expect(await page.getByTestId('map-geofence-units').textContent()).toContain('Volvo V60');
    await screenshot(page, 'geofences-live-map');
    // The toggle takes the layer off.
    await page.getByTestId('map-geofences-toggle').uncheck();
    await page.waitForFunction(() => !(document.querySelector('[data-testid="map-gl"]')?.getAttribute('data-layers') ?? '').includes('geofence-zones'));
    await page.getByTestId('map-geofences-toggle').check();

    // The exit reaches the log (stored through the outbox with the crossing).
    await eventually(
      async () =>
        (
          await suite.server.database.query<{ transition: string }>('SELECT transition FROM geofence_events WHERE geofence_id = $1 AND unit_id = $2 ORDER BY at', [circleId, unitId])
        ).map((row) => row.transition),
      ['exited'],
      30_000,
    );
    await page.goto('/user/geofences');
    const exit = page.getByTestId(`geofence-event-exited-${circleId}-${unitId}`);
    await exit.waitFor({ timeout: 20_000 });
    expect(await exit.textContent()).toContain('Lämnade');
    expect(await exit.textContent()).toContain('Depån');
    await exit.scrollIntoViewIfNeeded();
    await screenshot(page, 'geofences-log');

    // The unit's day on the live map lists the exit.
    await page.goto('/user/realtime-tracking');
    await page.waitForFunction(() => window.__fleetMap?.map !== null && window.__fleetMap?.store.loadState === 'ready', undefined, { timeout: 60_000 });
    await page.getByTestId('unit-list').locator(`[data-unit-id="${unitId}"]`).click({ timeout: 30_000 });
    // The map flies to the unit with its popup; click once it has arrived.
    await page.getByTestId('unit-popup').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => window.__fleetMap?.map?.map.isMoving() === false);
    await page.getByTestId('unit-popup').getByRole('button', { name: 'Visa historik' }).click({ timeout: 30_000 });
    await page.getByTestId('history-geofence-exited').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('history-geofence-exited').textContent()).toContain('Depån');
  });

  test('a zone that cannot be deleted says so; a deleted one leaves the list', async () => {
    const account = await suite.server.createAccount();
    await suite.server.database.rows(sql`
      insert into units (account_id, imei, name, registration_number, protocol, model)
      values (${account.accountId}, '357000002040002', 'Skoda Octavia', 'GEO456', 'teltonika', 'FMB920')`);
    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/geofences/add-edit-geofences');
    // §8: nothing drawn: the coordinates are empty; no name: the name is missing.
    await drawingMap(page);
    await page.getByTestId('geofence-save').click();
    await page.getByTestId('geofence-coordinates-error').filter({ hasText: 'Rita zonen på kartan: dess koordinater är tomma.' }).waitFor();
    await page.getByText('Ange radien.').waitFor();
    await page.getByText('Ange ett namn.').waitFor();
    await page.getByTestId('geofence-latitude').fill('59,33');
    await page.getByTestId('geofence-longitude').fill('18,07');
    await page.getByTestId('geofence-radius').fill('12000');
    await page.getByTestId('geofence-name').fill('Kontoret');
    await page.getByTestId('geofence-save').click();
    await page.getByText('Radien får vara högst 9999 m.').waitFor();
    await page.getByTestId('geofence-radius').fill('400');
    await page.getByLabel('Skoda Octavia').check();
    await page.getByTestId('geofence-save').click();
    await page.waitForURL(/\/user\/geofences\/add-edit-geofences\/\d+$/);
    const id = Number(page.url().split('/').at(-1));

    // A feature profile takes the zone as a geozone through the picker (at most 5 of the account's zones).
    await page.goto('/user/edit-terminal-list');
    await page.getByRole('button', { name: 'Avdelningar, projekt, taggar…' }).click();
    const catalog = page.getByTestId('catalog-dialog');
    await catalog.getByRole('tab', { name: 'Funktionsprofiler' }).click();
    await catalog.getByRole('button', { name: 'Ny funktionsprofil' }).click();
    const form = catalog.getByTestId('profile-form');
    await form.getByTestId('profile-name').fill('Larm');
    await form.getByTestId(`profile-geozones-${id}`).check();
    await form.getByText('1 av högst 5 valda.').waitFor();
    await form.getByRole('button', { name: 'Spara' }).click();
    await catalog.getByTestId('catalog-list-featureProfiles').getByText('Larm').waitFor();
    const [profile] = await suite.server.database.query<{ geozone_ids: number[] | string }>('SELECT geozone_ids FROM feature_profiles WHERE account_id = $1', [account.accountId]);
    expect(String(profile!.geozone_ids).replace(/[{}[\]\s]/g, '')).toBe(String(id));

    await page.goto('/user/geofences');
    await page.getByTestId(`geofence-row-${id}`).waitFor();
    // The active switch turns the zone off on the server.
    await page.getByTestId(`geofence-active-${id}`).uncheck();
    await eventually(async () => (await suite.server.database.query<{ active: boolean }>('SELECT active FROM geofences WHERE id = $1', [id]))[0]?.active, false);
    // §8: a zone a feature profile uses could not be deleted, and the screen says so.
    await page.getByTestId(`geofence-delete-${id}`).click();
    let dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Ta bort' }).click();
    const refused = page.getByRole('alertdialog');
    await refused.getByText('Geofencen kunde inte tas bort: en funktionsprofil använder den.').waitFor();
    await screenshot(page, 'geofences-delete-refused');
    await refused.getByRole('button', { name: 'OK' }).click();
    await page.getByTestId(`geofence-row-${id}`).waitFor();
    await suite.server.database.exec(`UPDATE feature_profiles SET geozone_ids = '{}' WHERE account_id = ${account.accountId}`);

    await page.getByTestId(`geofence-delete-${id}`).click();
    dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('message-dialog-text').textContent()).toContain('Kontoret');
    await dialog.getByRole('button', { name: 'Ta bort' }).click();
    await page.getByTestId('geofence-count').filter({ hasText: /^0 geostaket$/ }).waitFor();
    expect(await suite.server.database.query('SELECT 1 FROM geofences WHERE account_id = $1', [account.accountId])).toEqual([]);
  });
});
