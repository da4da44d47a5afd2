import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { addUnit, setState } from '../../src/modules/units/testing';
import type {} from '../../src/web/features/map/LiveMap';
import { screenshot, seriousA11yViolations, signIn, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine.
setDefaultTimeout(90_000);

/**
 * Theft mode in the built app (spec §4): the switch on the unit page with its pending state until the tracker
 * confirms, the mark in the unit list and on the live map's panel, and switching off (pending, then off).
 */
let suite: Suite;
beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

/** The tracker takes its next command and confirms it, as a Teltonika device answers `setparam`. */
async function trackerConfirms(unitId: number): Promise<string> {
  const command = await suite.server.services.commands.claimNext(unitId);
  expect(command).not.toBeNull();
  await suite.server.services.commands.recordResponse(unitId, 'New value 10000:1800;10050:300');
  return command!.payload;
}

describe('theft mode', () => {
  test('switched on: pending until the tracker confirms, then marked in the unit list and on the map; switched off again', async () => {
    const admin = await suite.server.createAccount();
    const unitId = await addUnit(suite.server, admin.accountId, '358002609100001', 'Sea Ray', { deviceKind: 'battery', model: 'Scout v2' });
    const other = await addUnit(suite.server, admin.accountId, '358002609100002', 'Tat', { deviceKind: 'battery', model: 'TAT100' });
    await setState(suite.server, unitId, { lat: 59.33, lon: 18.06, speed: 0 });
    const page = await suite.newPage();
    await signIn(page, admin);

    // A model without theft mode says so and has no switch.
    await page.goto(`/user/edit-terminal?id=${other}`);
    await page.getByTestId('theft-mode-unsupported').waitFor();
    expect(await page.getByTestId('theft-mode-switch').count()).toBe(0);

    await page.goto(`/user/edit-terminal?id=${unitId}`);
    const state = page.getByTestId('theft-mode-state');
    await expect(state.getAttribute('data-state')).resolves.toBe('off');
    const theftSwitch = page.getByRole('switch', { name: 'Stöldläge' });
    expect(await theftSwitch.isChecked()).toBe(false);
    await theftSwitch.click({ force: true });
    await page.locator('[data-testid="theft-mode-state"][data-state="pending-on"]').waitFor();
    expect(await state.textContent()).toContain('väntar på spårsändaren');
    expect(await theftSwitch.isChecked()).toBe(true);
    expect(await page.getByTestId('theft-mode-cause').textContent()).toContain('Påslaget manuellt');
    const violations = await seriousA11yViolations(page);
    expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
    await screenshot(page, 'theft-mode-pending');

    // The tracker confirms on its next connection: on.
    expect(await trackerConfirms(unitId)).toBe('setparam 10000:1800;10100:1800;10200:1800;10050:300;10150:300;10250:300');
    await page.reload();
    await page.locator('[data-testid="theft-mode-state"][data-state="on"]').waitFor();

    // The unit list marks it.
    await page.getByRole('link', { name: 'Enheter', exact: true }).click();
    await page.getByTestId(`unit-row-${unitId}`).waitFor();
    expect(await page.getByTestId(`unit-row-${unitId}`).getByTestId('theft-badge').textContent()).toBe('Stöldläge');
    expect(await page.getByTestId(`unit-row-${other}`).getByTestId('theft-badge').count()).toBe(0);

    // The live map marks it in its panel and rings it on the map.
    await page.goto('/user/realtime-tracking');
    await page.waitForFunction(() => window.__fleetMap?.store.loadState === 'ready');
    const row = page.locator(`[data-unit-id="${unitId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('class')).toContain('theft');
    expect(await row.getByTestId('theft-mark').textContent()).toBe('Stöldläge');
    await screenshot(page, 'theft-mode-map');

    // Switched off: pending until the tracker confirms the previous mode.
    await page.goto(`/user/edit-terminal?id=${unitId}`);
    await page.locator('[data-testid="theft-mode-state"][data-state="on"]').waitFor();
    await page.getByRole('switch', { name: 'Stöldläge' }).click({ force: true });
    await page.locator('[data-testid="theft-mode-state"][data-state="pending-off"]').waitFor();
    expect(await trackerConfirms(unitId)).toBe('setparam 10000:86400;10100:86400;10200:86400;10050:86400;10150:86400;10250:86400');
    await page.reload();
    await page.locator('[data-testid="theft-mode-state"][data-state="off"]').waitFor();
  });
});
