import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { type Gateway, startGateway } from '../../src/gateway';
import { encodeAvlFrame, encodeImeiFrame } from '../../src/gateway/teltonika';
import { createCommandService } from '../../src/modules/io/service';
import { scriptDrive } from '../../src/modules/trips/drive';
import { connectDevice, driveRecords } from '../support/device';
import { eventually, login, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// The place form loads MapLibre (software WebGL): allow for a slow machine.
setDefaultTimeout(120_000);

/**
 * Places in the built app: a place with a rule made in the form, then a car drives into it through the real
 * gateway (Teltonika over TCP, ingest, trip detection), and the trip log shows the trip categorized by the rule
 * and ending at the place's name. The server's clock is Monday 2 March 2026, 09:00 in Stockholm.
 */
let suite: Suite;
let gateway: Gateway;

beforeAll(async () => {
  suite = await startSuite();
  const commands = createCommandService(suite.server.database, suite.server.platform.events, suite.server.clock);
  gateway = await startGateway(suite.server.platform, commands, { teltonika: 0, gt06: 0, osmand: 0 });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await suite?.close();
});

/** Sends positions as Codec 8E frames through the real gateway (TCP), each acknowledged before the next. */
async function sendThroughGateway(imei: string, positions: ReturnType<typeof scriptDrive>): Promise<void> {
  const device = await connectDevice(gateway.ports.teltonika);
  device.write(encodeImeiFrame(imei));
  expect(Buffer.from((await device.read(1))!).toString('hex')).toBe('01');
  for (let i = 0; i < positions.length; i += 40) {
    const records = driveRecords(positions.slice(i, i + 40), { 66: 12_800 });
    device.write(encodeAvlFrame(0x8e, records));
    const ack = await device.read(4, 5000);
    expect(ack ? new DataView(ack.buffer, ack.byteOffset).getUint32(0) : -1).toBe(records.length);
  }
  device.end();
}

describe('places', () => {
  test('a place with a rule made in the form categorizes and names a trip that ends there', async () => {
    const account = await suite.server.createAccount();
    const imei = '357000001230001';
    const [unit] = await suite.server.database.rows<{ id: number }>(sql`
      insert into units (account_id, imei, name, registration_number, protocol, model)
      values (${account.accountId}, ${imei}, 'Volvo V60', 'ABC123', 'teltonika', 'FMB920') returning id`);
    const unitId = unit!.id;
    // Monday morning: parked in central Stockholm, ten minutes east at 50 km/h, parked there for half an hour.
    const drive = scriptDrive({ start: '2026-03-02T06:00:00Z' }, [{ park: 120 }, { move: 600, speedKmh: 50, bearing: 90 }, { park: 1800 }]);
    const stop = drive.at(-1)!;

    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.getByRole('link', { name: 'Platser' }).click();
    await page.waitForURL('**/user/places');
    await page.getByRole('heading', { name: 'Platser', level: 1 }).waitFor();
    // The count reads "Laddar…" until the list is in.
    await page.getByTestId('place-count').filter({ hasText: /^0 platser$/ }).waitFor();

    // New place: coordinates of the stop, the address looked up from them, the car, one rule.
    await page.getByTestId('place-new').click();
    await page.waitForURL('**/user/places/add-edit-places');
    await page.getByTestId('place-label').fill('Kontoret');
    await page.getByTestId('place-address').fill('Göteborg');
    await page.getByTestId('place-lookup').click();
    // One match: it is taken at once, address and coordinates.
    await eventually(() => page.getByTestId('place-address').inputValue(), 'Göteborg, SE');
    expect(Math.abs(Number((await page.getByTestId('place-latitude').inputValue()).replace(',', '.')) - 57.7)).toBeLessThan(0.1);
    await page.getByTestId('place-latitude').fill(stop.lat.toFixed(6));
    await page.getByTestId('place-longitude').fill(stop.lon.toFixed(6));
    await page.getByTestId('place-address').fill('');
    await page.getByTestId('place-radius').fill('250');
    await page.getByTestId('place-map').waitFor();
    await page.waitForSelector('[data-testid="place-map"][data-basemap]', { timeout: 30_000 });
    await page.getByLabel('Volvo V60').check();
    await page.getByTestId('rule-add').click();
    await page.getByTestId('rule-kind-0').selectOption('end');
    await page.getByTestId('rule-from-0').selectOption('06:00');
    await page.getByTestId('rule-to-0').selectOption('10:00');
    await page.getByTestId('rule-category-0').selectOption('private');
    // Weekdays are preselected; Saturday added.
    await page.getByTestId('place-rule-0').getByLabel('lör').check();
    // The whole map below the sticky header.
    await page.evaluate(() => {
      const map = document.querySelector('[data-testid="place-map"]')!;
      window.scrollBy(0, map.getBoundingClientRect().top - 300);
    });
    await Bun.sleep(2000);
    await screenshot(page, 'places-form-map');
    await page.getByTestId('place-rule-0').scrollIntoViewIfNeeded();
    await screenshot(page, 'places-form');
    await page.getByTestId('place-save').click();
    await page.waitForURL(/\/user\/places\/add-edit-places\/\d+$/);
    await eventually(() => page.getByTestId('place-message').textContent(), 'Platsen sparades.');
    const [saved] = await suite.server.database.query<{ id: number; label: string; address: string; radius_m: number; units: number[] | string; days: number[] | string }>(
      `SELECT p.id, p.label, p.address, p.radius_m, (SELECT array_agg(unit_id) FROM place_units WHERE place_id = p.id) AS units,
              (SELECT days FROM place_rules WHERE place_id = p.id) AS days
       FROM places p WHERE p.account_id = $1`,
      [account.accountId],
    );
    expect(saved).toMatchObject({ label: 'Kontoret', radius_m: 250 });
    // The empty address was filled in from the coordinates (offline: the nearest locality).
    expect(saved!.address).toMatch(/, SE$/);
    expect(String(saved!.units)).toContain(String(unitId));
    expect(String(saved!.days).replace(/[{}[\]\s]/g, '')).toBe('1,2,3,4,5,6');
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);

    // The car drives into the place through the gateway.
    await sendThroughGateway(imei, drive);
    await suite.server.services.trips.idle();
    await eventually(
      async () =>
        (await suite.server.database.query<{ type: string; type_source: string }>('SELECT type, type_source FROM trips WHERE unit_id = $1', [unitId])).map(
          (row) => `${row.type}/${row.type_source}`,
        ),
      ['private/rule'],
    );

    // The trip log: the trip is private and ends at "Kontoret".
    await page.getByRole('link', { name: 'Körjournal' }).click();
    await page.waitForURL((url) => url.pathname === '/user/create-triplog');
    const [trip] = await suite.server.database.query<{ id: number }>('SELECT id::int AS id FROM trips WHERE unit_id = $1', [unitId]);
    const row = page.getByTestId(`trip-row-${trip!.id}`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Kontoret');
    expect(await row.textContent()).toContain('Stockholm, SE');
    expect(await page.getByTestId(`trip-type-${trip!.id}`).inputValue()).toBe('private');
    expect(await page.getByTestId('triplog-total-private').textContent()).toContain('1 resa');
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'places-triplog-categorized');

    // Applying the rules on demand to this month changes nothing more: the trip already has the rule's type.
    await page.goto(`/user/places/add-edit-places/${saved!.id}`);
    await page.getByTestId('apply-from').fill('2026-03-01');
    await page.getByTestId('apply-to').fill('2026-03-31');
    await page.getByTestId('apply-rules').click();
    await eventually(() => page.getByTestId('apply-result').textContent(), '0 resor bytte typ (1 av 1 resor matchade en regel).');
    await screenshot(page, 'places-apply');

    // The list: search, and delete with confirmation.
    await page.getByRole('link', { name: 'Tillbaka till platser' }).click();
    await page.waitForURL('**/user/places');
    await page.getByTestId(`place-row-${saved!.id}`).waitFor();
    expect(await page.getByTestId(`place-row-${saved!.id}`).textContent()).toContain('Volvo V60');
    await page.getByTestId('place-search').fill('finns inte');
    await page.getByText('Ingen plats matchar sökningen.').waitFor();
    await page.getByTestId('place-search').fill('kontor');
    await page.getByTestId(`place-row-${saved!.id}`).waitFor();
    await screenshot(page, 'places-list');
    await page.getByTestId(`place-delete-${saved!.id}`).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('message-dialog-text').textContent()).toContain('Kontoret');
    await dialog.getByRole('button', { name: 'Ta bort' }).click();
    await page.getByText('Ingen plats matchar sökningen.').waitFor();
    expect(await suite.server.database.query('SELECT 1 FROM places WHERE account_id = $1', [account.accountId])).toEqual([]);
  });

  test('a form error shows at its field; a basic-only subscription is sent away from places', async () => {
    const account = await suite.server.createAccount();
    await suite.server.database.rows(sql`
      insert into units (account_id, imei, name, protocol) values (${account.accountId}, '357000001230002', 'Skoda Octavia', 'teltonika')`);
    const page = await suite.newPage();
    await page.goto(`/?subsite=${account.subsiteId}`);
    await login(page, account.email, account.password);
    await page.waitForURL('**/user/realtime-tracking');
    await page.goto('/user/places/add-edit-places');
    await page.getByTestId('place-label').fill('Lager');
    await page.getByTestId('place-latitude').fill('59,33');
    await page.getByTestId('place-longitude').fill('18,07');
    await page.getByTestId('place-save').click();
    await page.getByText('En plats behöver minst en enhet.').waitFor();
    await page.getByLabel('Skoda Octavia').check();
    // Fixed: the field's error goes at once.
    await page.getByText('En plats behöver minst en enhet.').waitFor({ state: 'detached' });
    await page.getByTestId('place-address').fill('x'.repeat(50));
    await page.getByTestId('place-radius').fill('20000');
    await page.getByTestId('place-save').click();
    const radiusError = page.getByText('Radien måste vara ett heltal mellan 50 och 9999 meter.');
    await radiusError.waitFor();
    await screenshot(page, 'places-form-errors');
    // Still wrong: the error stays; right: it goes.
    await page.getByTestId('place-radius').fill('10000');
    expect(await radiusError.count()).toBe(1);
    await page.getByTestId('place-radius').fill('300');
    await radiusError.waitFor({ state: 'detached' });

    // Any free-text address is looked up, one with commas too; without a geocoder the screen says it finds towns.
    expect(await page.getByTestId('place-town-level').textContent()).toContain('ortsnivå');
    expect(await page.getByTestId('place-town-level').textContent()).toContain('GEOCODER_URL');
    await page.getByTestId('place-address').fill('Stortorget 2, 211 34 Malmö');
    await page.getByTestId('place-lookup').click();
    await eventually(() => page.getByTestId('place-address').inputValue(), 'Malmö, SE');
    expect(Math.abs(Number((await page.getByTestId('place-latitude').inputValue()).replace(',', '.')) - 55.6)).toBeLessThan(0.1);
    expect(await page.getByText('Ogiltigt värde.').count()).toBe(0);
    await screenshot(page, 'places-address-comma');

    await suite.server.database.exec(`update users set basic_only = true where id = ${account.userId}`);
    const basic = await suite.newPage();
    await basic.goto(`/?subsite=${account.subsiteId}`);
    await login(basic, account.email, account.password);
    await basic.waitForURL('**/user/realtime-tracking');
    await basic.goto('/user/places');
    await basic.getByRole('heading', { name: 'Karta', level: 1 }).waitFor({ timeout: 30_000 });
    expect(new URL(basic.url()).pathname).toBe('/user/realtime-tracking');
    expect(await basic.getByRole('link', { name: 'Platser' }).count()).toBe(0);
  });
});
