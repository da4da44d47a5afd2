import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import svMessages from '../../src/lib/i18n/messages/sv.json';
import type { SafeHomeRecord } from '../../src/modules/safe-home/model';
import { DESKTOP, eventually, expectAccessible, horizontalOverflow, login, PHONE, screenshot, startSuite, type Suite } from './support';

// The map modal loads MapLibre (software WebGL): allow for a slow machine.
setDefaultTimeout(120_000);

/**
 * Safe return home in the built app (spec §2, §4, §5, §7): a home set by dragging the circle, with a radius under
 * 300 m refused first; an every-2-weeks alert schedule built in the modal; the switch turned on for that vehicle and
 * refused (with the server's message) for a vehicle without a schedule; the table's search; the page sent to the map
 * when the brand has EnableSafeReturnHome off or a safe-home call answers 401; the phone width. Texts are Swedish.
 */
let suite: Suite;
const VOLVO = '358100000240001';
const KIA = '358100000240002';

const message = (key: string) => (svMessages as Record<string, string>)[key] ?? key;

beforeAll(async () => {
  suite = await startSuite();
}, 120_000);

afterAll(async () => {
  await suite?.close();
});

async function accountWithVehicles(subsiteId = 0, suffix = '0') {
  const account = await suite.server.createAccount({ subsiteId });
  await suite.server.database.rows(sql`
    insert into units (account_id, imei, name, registration_number, model) values
      (${account.accountId}, ${VOLVO.slice(0, -2) + suffix + '1'}, 'Volvo V60', 'ABC123', 'V60'),
      (${account.accountId}, ${KIA.slice(0, -2) + suffix + '2'}, 'Kia Ceed', 'XYZ789', 'Ceed')`);
  return { ...account, volvo: VOLVO.slice(0, -2) + suffix + '1', kia: KIA.slice(0, -2) + suffix + '2' };
}

async function signIn(page: Page, account: { email: string; password: string; subsiteId: number }) {
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
}

async function records(account: { email: string; password: string; subsiteId: number }): Promise<SafeHomeRecord[]> {
  const token = await suite.server.login(account);
  const answer = await suite.server.call<SafeHomeRecord[]>('GET', '/api/admin/safe-home/list', { token });
  expect(answer.status).toBe(200);
  return answer.body.data!;
}

const centreOf = async (page: Page) => {
  const [latitude, longitude] = ((await page.getByTestId('safe-home-map').getAttribute('data-centre')) ?? '').split(',').map(Number);
  return { latitude: latitude!, longitude: longitude! };
};

describe('safe return home', () => {
  test('a home set by dragging the circle (a radius under 300 refused), a schedule built, the switch on and refused without a schedule', async () => {
    const account = await accountWithVehicles(0, '1');
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.getByRole('link', { name: 'Säker hemkomst' }).click();
    await page.waitForURL('**/administration/safe-return-home');
    await page.getByRole('heading', { name: 'Säker hemkomst', level: 1 }).waitFor();
    await page.getByTestId(`safe-home-row-${account.volvo}`).waitFor();
    await expect(page.getByTestId('safe-home-count').textContent()).resolves.toBe('2 fordon');

    // Searched by name or registration number.
    await page.getByTestId('safe-home-search').fill('xyz7');
    await expect(page.getByTestId('safe-home-count').textContent()).resolves.toBe('1 fordon');
    expect(await page.getByTestId(`safe-home-row-${account.kia}`).count()).toBe(1);
    await page.getByTestId('safe-home-search').fill('volvo');
    await expect(page.getByTestId('safe-home-count').textContent()).resolves.toBe('1 fordon');
    await page.getByTestId('safe-home-search').fill('');
    await expectAccessible(page, 'safe home table');

    // The map modal of a vehicle without a home nor a position: the fixed Stockholm centre.
    await page.getByRole('button', { name: 'Lägg till hem för Volvo V60' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hem för Volvo V60' });
    await dialog.waitFor();
    await page.waitForSelector('[data-testid="safe-home-map"][data-basemap]', { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="safe-home-map"]')?.getAttribute('data-layers') === 'home-fill home-outline home-centre');
    const start = await centreOf(page);
    expect(Math.abs(start.latitude - 59.3293)).toBeLessThan(0.001);
    expect(Math.abs(start.longitude - 18.0686)).toBeLessThan(0.001);

    // The address through the geocoder's suggestions: the circle moves there.
    await page.getByTestId('safe-home-address').fill('Solna');
    await page.getByRole('option', { name: /^Solna/ }).first().click();
    expect(await page.getByTestId('safe-home-address').inputValue()).toMatch(/^Solna/);
    await eventually(async () => Math.abs((await centreOf(page)).latitude - start.latitude) > 0.005, true);
    const chosen = await centreOf(page);
    // The map follows the chosen address; wait for it to settle under the circle.
    await Bun.sleep(800);

    // Dragging the circle: pressed at its centre (the map's middle) and moved right and up.
    const box = (await page.getByTestId('safe-home-map').boundingBox())!;
    const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let step = 1; step <= 8; step++) await page.mouse.move(from.x + step * 12, from.y - step * 6);
    await page.mouse.up();
    const dragged = await centreOf(page);
    expect(dragged.longitude).toBeGreaterThan(chosen.longitude + 0.0005);
    expect(dragged.latitude).toBeGreaterThan(chosen.latitude + 0.0001);
    expect(await page.getByTestId('safe-home-centre').textContent()).toBe(`Mittpunkt: ${dragged.latitude.toFixed(6)}, ${dragged.longitude.toFixed(6)}`);

    // A radius under 300 m: the error at once, and Save keeps the modal open.
    await page.getByTestId('safe-home-radius').fill('250');
    await dialog.getByText(message('safeHome.RadiusLessThan300')).waitFor();
    await screenshot(page, 'safe-home-map-radius-error');
    await expectAccessible(page, 'safe home map modal with the radius error');
    await page.getByTestId('safe-home-home-save').click();
    await Bun.sleep(300);
    expect(await dialog.isVisible()).toBe(true);
    await page.getByTestId('safe-home-radius').fill('450');
    expect(await dialog.getByText(message('safeHome.RadiusLessThan300')).count()).toBe(0);
    await eventually(async () => (await page.getByTestId('safe-home-address').inputValue()).length > 0, true);
    await page.getByTestId('safe-home-home-save').click();
    await dialog.waitFor({ state: 'detached' });
    await expect(page.getByTestId('safe-home-notice').textContent()).resolves.toBe(message('safeHome.HomeAddressUpdateMsg'));
    const address = await page.getByTestId('safe-home-address').count();
    expect(address).toBe(0);
    let volvo = (await records(account)).find((record) => record.imei === account.volvo)!;
    expect(volvo.radius).toBe(450);
    expect(volvo.centerLat).toBe(dragged.latitude);
    expect(volvo.centerLng).toBe(dragged.longitude);
    expect(volvo.address).toBeTruthy();
    await expect(page.getByTestId(`safe-home-home-${account.volvo}`).textContent()).resolves.toBe(volvo.address!);

    // The alert schedule: every 2 weeks, Monday 17:30 in week 1 and Friday 18:00 (the default) in week 2.
    await page.getByRole('button', { name: /^Larmschema för Volvo V60/ }).click();
    const schedule = page.getByRole('dialog', { name: 'Larmschema för Volvo V60' });
    await schedule.waitFor();
    expect(await page.getByTestId('safe-home-week-2').count()).toBe(0);
    await page.getByTestId('safe-home-frequency').selectOption('2');
    await page.getByTestId('safe-home-week-2').waitFor();
    expect(await page.getByTestId('safe-home-time-1-1').inputValue()).toBe('18:00');
    await page.getByTestId('safe-home-start-date').fill('2026-03-02');
    await page.getByTestId('safe-home-day-1-1').getByText('måndag', { exact: true }).click();
    expect(await page.getByRole('checkbox', { name: /^måndag\W+vecka 1$/ }).isChecked()).toBe(true);
    await page.getByTestId('safe-home-time-1-1').selectOption('17:30');
    await page.getByTestId('safe-home-time-1-3').selectOption('09:15'); // a time without its checkbox: not sent
    await page.getByTestId('safe-home-day-2-5').getByText('fredag', { exact: true }).click();
    expect(await page.getByRole('checkbox', { name: /^fredag\W+vecka 2$/ }).isChecked()).toBe(true);
    await screenshot(page, 'safe-home-schedule');
    await expectAccessible(page, 'safe home schedule modal');
    await page.getByTestId('safe-home-schedule-save').click();
    await schedule.waitFor({ state: 'detached' });
    await expect(page.getByTestId('safe-home-notice').textContent()).resolves.toBe(message('safeHome.AlertScheduleUpdated'));
    await expect(page.getByTestId(`safe-home-schedule-${account.volvo}`).textContent()).resolves.toBe('Larmschema för Volvo V60: 2 larm');
    volvo = (await records(account)).find((record) => record.imei === account.volvo)!;
    expect(volvo.frequency).toBe(2);
    expect(volvo.start_date).toBe('2026-03-02');
    expect(JSON.parse(volvo.schedule)).toEqual([
      { week: 1, days: [{ day: 1, time: '17:30' }] },
      { week: 2, days: [{ day: 5, time: '18:00' }] },
    ]);
    expect(volvo.time_zone).toBe('Europe/Stockholm');

    // The switch: on for the Volvo (a home and a schedule) ...
    const volvoSwitch = page.getByTestId(`safe-home-switch-${account.volvo}`);
    await volvoSwitch.click();
    await eventually(() => volvoSwitch.getAttribute('aria-checked'), 'true');
    await eventually(async () => (await records(account)).find((record) => record.imei === account.volvo)!.status, 1);

    // ... refused for the Kia, which has neither: the server's message, and the switch stays off.
    const kiaSwitch = page.getByTestId(`safe-home-switch-${account.kia}`);
    await kiaSwitch.click();
    const refusal = page.getByRole('alertdialog');
    await refusal.waitFor();
    await expect(page.getByTestId('message-dialog-text').textContent()).resolves.toBe(message('safeHome.SafeHomeEnableMsg'));
    await eventually(() => kiaSwitch.getAttribute('aria-checked'), 'false');
    await screenshot(page, 'safe-home-switch-refused');
    await expectAccessible(page, 'safe home switch refused');
    await refusal.getByRole('button', { name: 'OK' }).click();
    await eventually(() => kiaSwitch.getAttribute('aria-checked'), 'false');
    expect((await records(account)).find((record) => record.imei === account.kia)!.status).toBe(0);

    // Sorted by registration number, descending.
    await page.getByRole('button', { name: /^Registreringsnummer/ }).click();
    await page.getByRole('button', { name: /^Registreringsnummer/ }).click();
    const order = await page.locator('[data-testid^="safe-home-name-"]').allTextContents();
    expect(order).toEqual(['Kia Ceed', 'Volvo V60']);
    await screenshot(page, 'safe-home-desktop');
  });

  test('a saved home opens where it is, a new one at the vehicle with its address; Cancel leaves the home unchanged', async () => {
    const account = await accountWithVehicles(0, '2');
    const token = await suite.server.login(account);
    const saved = await suite.server.call('PUT', '/api/admin/safe-home/set-geofence', {
      token,
      body: { imei: account.kia, radius: 600, centerLat: 59.36, centerLng: 18.0009, address: 'Solna' },
    });
    expect(saved.status).toBe(200);
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.goto('/administration/safe-return-home');
    await page.getByRole('button', { name: /^Ändra hem för Kia Ceed/ }).click();
    await page.waitForSelector('[data-testid="safe-home-map"][data-basemap]', { timeout: 30_000 });
    expect(await centreOf(page)).toEqual({ latitude: 59.36, longitude: 18.0009 });
    expect(await page.getByTestId('safe-home-radius').inputValue()).toBe('600');
    await page.getByTestId('safe-home-radius').fill('900');
    await page.getByTestId('safe-home-home-cancel').click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await records(account)).find((record) => record.imei === account.kia)!.radius).toBe(600);

    // A vehicle without a home but with a position: the map opens there, the address is that place's.
    await suite.server.database.rows(sql`
      insert into unit_state (unit_id, time, geom, speed_kmh, valid, last_seen)
      select id, now(), ST_SetSRID(ST_MakePoint(17.6389, 59.8586), 4326), 0, true, now() from units where imei = ${account.volvo}`);
    await page.getByRole('button', { name: 'Lägg till hem för Volvo V60' }).click();
    await page.waitForSelector('[data-testid="safe-home-map"][data-basemap]', { timeout: 30_000 });
    expect(await centreOf(page)).toEqual({ latitude: 59.8586, longitude: 17.6389 });
    await eventually(() => page.getByTestId('safe-home-address').inputValue(), 'Uppsala, SE');
    expect(await page.getByTestId('safe-home-radius').inputValue()).toBe('300');
    await page.getByTestId('safe-home-home-cancel').click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await records(account)).find((record) => record.imei === account.volvo)!.address).toBeNull();
  });

  test('at phone width the rows are cards, nothing sticks out, and the schedule modal fits', async () => {
    const account = await accountWithVehicles(0, '3');
    const page = await suite.newPage(PHONE);
    await signIn(page, account);
    await page.goto('/administration/safe-return-home');
    await page.getByTestId(`safe-home-row-${account.volvo}`).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'safe-home-phone');
    await expectAccessible(page, 'safe home phone');
    await page.getByRole('button', { name: /^Larmschema för Kia Ceed/ }).click();
    await page.getByRole('dialog', { name: 'Larmschema för Kia Ceed' }).waitFor();
    await page.getByTestId('safe-home-frequency').selectOption('3');
    await page.getByTestId('safe-home-week-3').waitFor();
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'safe-home-schedule-phone');
    await expectAccessible(page, 'safe home schedule phone');
    await page.getByTestId('safe-home-schedule-cancel').click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // The map modal fits too, and a finger drags the circle.
    await page.getByRole('button', { name: 'Lägg till hem för Kia Ceed' }).click();
    await page.waitForSelector('[data-testid="safe-home-map"][data-basemap]', { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="safe-home-map"]')?.getAttribute('data-layers') === 'home-fill home-outline home-centre');
    expect(await horizontalOverflow(page)).toEqual([]);
    await page.getByTestId('safe-home-map').scrollIntoViewIfNeeded();
    const start = await centreOf(page);
    const box = (await page.getByTestId('safe-home-map').boundingBox())!;
    const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: from.x, y: from.y }] });
    for (let step = 1; step <= 8; step++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: from.x - step * 8, y: from.y + step * 5 }] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    const moved = await centreOf(page);
    expect(moved.longitude).toBeLessThan(start.longitude - 0.0003);
    expect(moved.latitude).toBeLessThan(start.latitude - 0.0001);
    await screenshot(page, 'safe-home-map-phone');
    await expectAccessible(page, 'safe home map phone');
  });

  test('EnableSafeReturnHome off: no entry, and the page sends the user to the map', async () => {
    const account = await accountWithVehicles(1, '4');
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.getByRole('link', { name: 'Användarkonton' }).waitFor();
    expect(await page.getByRole('link', { name: 'Säker hemkomst' }).count()).toBe(0);
    await page.goto('/administration/safe-return-home');
    await page.waitForURL('**/user/realtime-tracking');
  });

  test('a 401 on a safe-home call sends the user to the map', async () => {
    const account = await accountWithVehicles(0, '5');
    const page = await suite.newPage(DESKTOP);
    await signIn(page, account);
    await page.route('**/api/admin/safe-home/list', (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ success: false, data: null, errors: 'Not allowed.' }) }),
    );
    await page.goto('/administration/safe-return-home');
    await page.waitForURL('**/user/realtime-tracking');
    // Still signed in: only 'Unauthenticated.' logs out.
    await page.getByRole('heading', { name: 'Karta', level: 1 }).waitFor();
  });
});
