import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { DESKTOP, login, PHONE, screenshot, seriousA11yViolations, startSuite, type Suite } from './support';

// The place form loads MapLibre (software WebGL): allow for a slow machine.
setDefaultTimeout(120_000);

/**
 * The shared map (src/web/components/map) composed by a second screen: the place form's map is the app's map with
 * one layer child, the place's circle, which adds its source and layers when the place has a point and removes
 * them when it loses it.
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
}, 120_000);

afterAll(async () => {
  await suite?.close();
});

/** The sources and layers the map's children have on it now (read back from MapLibre by the map component). */
async function onMap(page: Page): Promise<{ sources: string[]; layers: string[] }> {
  const map = page.getByTestId('place-map');
  const list = (value: string | null) => (value ?? '').split(' ').filter(Boolean);
  return { sources: list(await map.getAttribute('data-sources')), layers: list(await map.getAttribute('data-layers')) };
}

async function openNewPlace(viewport: { width: number; height: number }): Promise<Page> {
  const account = await suite.server.createAccount();
  const page = await suite.newPage(viewport);
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
  await page.goto('/user/places/add-edit-places');
  await page.getByTestId('place-map').waitFor();
  await page.waitForSelector('[data-testid="place-map"][data-basemap]', { timeout: 30_000 });
  return page;
}

const CIRCLE = { sources: ['place'], layers: ['place-fill', 'place-outline', 'place-centre'] };
const NOTHING = { sources: [], layers: [] };

describe('the shared map on the place form', () => {
  test('the circle is a layer child: a click on the map adds its source and layers, clearing the point removes them', async () => {
    const page = await openNewPlace(DESKTOP);
    // No point yet: the base map only.
    expect(await onMap(page)).toEqual(NOTHING);
    const base = await page.getByTestId('place-map').getAttribute('data-basemap');
    expect(base).toBe('offline');

    // A click in the middle of the map picks its centre (Stockholm by default) and the circle is drawn there.
    await page.getByTestId('place-map').scrollIntoViewIfNeeded();
    const box = (await page.getByTestId('place-map').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => document.querySelector('[data-testid="place-map"]')?.getAttribute('data-sources') === 'place');
    expect(await onMap(page)).toEqual(CIRCLE);
    const picked = (testId: string) => page.getByTestId(testId).inputValue().then((value) => Number(value.replace(',', '.')));
    expect(Math.abs((await picked('place-latitude')) - 59.3293)).toBeLessThan(0.01);
    expect(Math.abs((await picked('place-longitude')) - 18.0686)).toBeLessThan(0.01);
    await page.getByTestId('place-radius').fill('300');
    await Bun.sleep(1000);
    await screenshot(page, 'place-map-circle');
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);

    // Without a latitude the place has no point: the child unmounts and takes its source and layers with it.
    await page.getByTestId('place-latitude').fill('');
    await page.waitForFunction(() => !document.querySelector('[data-testid="place-map"]')?.getAttribute('data-sources'));
    expect(await onMap(page)).toEqual(NOTHING);
    // A point typed in mounts it again; the base map was left as it was all along.
    await page.getByTestId('place-latitude').fill('59,34');
    await page.waitForFunction(() => document.querySelector('[data-testid="place-map"]')?.getAttribute('data-sources') === 'place');
    expect(await onMap(page)).toEqual(CIRCLE);
    expect(await page.getByTestId('place-map').getAttribute('data-basemap')).toBe(base);
  });

  test('on a phone the map takes the width and still draws the circle', async () => {
    const page = await openNewPlace(PHONE);
    await page.getByTestId('place-latitude').fill('59,3293');
    await page.getByTestId('place-longitude').fill('18,0686');
    await page.waitForFunction(() => document.querySelector('[data-testid="place-map"]')?.getAttribute('data-sources') === 'place');
    expect(await onMap(page)).toEqual(CIRCLE);
    const map = (await page.getByTestId('place-map').boundingBox())!;
    expect(map.width).toBeGreaterThan(PHONE.width - 80);
    await page.evaluate(() => {
      const element = document.querySelector('[data-testid="place-map"]')!;
      window.scrollBy(0, element.getBoundingClientRect().top - 200);
    });
    await Bun.sleep(1000);
    await screenshot(page, 'place-map-circle-phone');
  });
});
