/**
 * `bun bench/first-start.ts [--vehicles 12]`: the first start with the demo history on PGlite (a fresh database:
 * the demo, its positions, the trips the detection makes from them, each phase's time), then the live map in
 * headless Chromium: how long input is blocked after leaving the map (long tasks from the click on another screen
 * until the page has been quiet for a second; the target is no task over 100 ms), to the trip log and to the unit list,
 * left as before (`?teardown=sync`: drawing on until taken down at once) and as now (no frame after the click, taken
 * down in idle moments), alternately in the same run. Needs `bun run scripts/build-web.ts`.
 */
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { completeDemoHistory, writeDemoPositions } from '../src/demo/history';
import { demoFleetDevices } from '../src/demo/live';
import { seedDemo } from '../src/demo/seed';
import { startGateway } from '../src/gateway';
import { startFleet } from '../src/gateway/simulator/fleet';
import { createCommandService } from '../src/modules/io/service';
import { startTestServer } from '../tests/support/server';

const { values } = parseArgs({ options: { vehicles: { type: 'string', default: '12' }, exits: { type: 'string', default: '3' } } });

const server = await startTestServer({ env: { DEMO_VEHICLES: values.vehicles ?? '12' } });
server.clock.set(new Date());
const { platform, services } = server;
const t0 = performance.now();
const devices = await seedDemo(platform);
const seeded = performance.now();
const written = await writeDemoPositions(platform, services, devices);
const positionsAt = performance.now();
const history = written ? await completeDemoHistory(platform, services, written) : null;
const done = performance.now();
console.log(`first start, ${devices.length - 1} demo cars, PGlite:`);
console.log(`  demo account and units   ${((seeded - t0) / 1000).toFixed(1)} s`);
console.log(`  places and positions     ${((positionsAt - seeded) / 1000).toFixed(1)} s  (${history?.positions ?? 0} positions; the live cars start here)`);
console.log(`  trips detected and done  ${((done - positionsAt) / 1000).toFixed(1)} s  (${history?.trips ?? 0} trips, ${history?.merged ?? 0} merged, attested ${history?.attested ?? '–'})`);
console.log(`  total                    ${((done - t0) / 1000).toFixed(1)} s`);

const gateway = await startGateway(platform, createCommandService(server.database, platform.events, server.clock), { teltonika: 0, gt06: 0, osmand: 0 }, {
  storedBatchHooks: services.tracking.storedBatchHooks,
});
const fleet = startFleet({ host: '127.0.0.1', ports: gateway.ports, devices: await demoFleetDevices(platform, devices), intervalMs: 5_000 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.url, locale: 'sv-SE', timezoneId: 'Europe/Stockholm' });
  const page = await context.newPage();
  page.setDefaultTimeout(90_000);
  await page.goto('/?subsite=0');
  await page.getByLabel(/^E-postadress/).fill(platform.config.DEMO_EMAIL);
  await page.getByLabel(/^Lösenord/).fill(platform.config.DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Logga in' }).click();
  await page.waitForURL('**/user/realtime-tracking');
  // Each exit twice, alternately: with the map taken down at once in the click's task as before (`?teardown=sync`, the
  // baseline) and as now (its taking-down in idle moments after the page has moved on).
  const modes = [
    { label: 'before (taken down at once)', query: '?teardown=sync' },
    { label: 'after (taken down when idle)', query: '' },
  ];
  // To the trip log and to the unit list (what is left of the map there is its last frame, when one was under way at the
  // click). Headless Chromium draws WebGL in software, where the trip log's small map opens when asked for: its first
  // frames (70-150 ms each) are not part of leaving the map.
  const destinations = [
    { link: 'Körjournal', path: '**/user/create-triplog**' },
    { link: 'Enheter', path: '**/user/edit-terminal-list**' },
  ];
  const results = new Map<string, ExitResult[]>(modes.flatMap((mode) => destinations.map((to) => [`${mode.label} to ${to.link}`, []])));
  for (let run = 0; run < Number(values.exits ?? 3); run++) {
    for (const mode of modes) for (const to of destinations) {
      await page.goto(`/user/realtime-tracking${mode.query}`);
      await page.waitForFunction(() => {
        const probe = (window as unknown as { __fleetMap?: { map: { drawn(): { units: number; clusters: number } } | null } }).__fleetMap;
        const drawn = probe?.map?.drawn();
        return drawn !== undefined && drawn.units + drawn.clusters > 0;
      });
      await page.waitForTimeout(1500);
      results.get(`${mode.label} to ${to.link}`)!.push(await leaveMap(page, to.link, to.path));
    }
  }
  console.log('map exit (under the machine\'s load at the time; long tasks from the click on the link until a quiet second):');
  for (const [label, runs] of results) {
    for (const [index, result] of runs.entries()) {
      console.log(`  ${label}, exit ${index + 1}: longest task ${result.longest.toFixed(0)} ms, ${result.count} long tasks, ${result.total.toFixed(0)} ms blocked; the click first waited ${result.underWay.toFixed(0)} ms for a task under way`);
      if (result.worstFrame) console.log(`    its longest frame, by script: ${result.worstFrame}`);
    }
    console.log(
      `  ${label}: worst longest task after the click ${Math.max(...runs.map((r) => r.longest)).toFixed(0)} ms (target ≤ 100 ms); worst wait for a task under way at the click ${Math.max(...runs.map((r) => r.underWay)).toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await fleet.stop();
  await gateway.stop();
  await server.close();
}

interface ExitResult {
  /** The longest task that began after the click. */
  longest: number;
  /** How long a task already under way at the click still held it (a frame the map was drawing), 0 if none. */
  underWay: number;
  total: number;
  count: number;
  /** The longest animation frame after the click, its scripts by time (what ran: the chunk and the function). */
  worstFrame: string | null;
}

/** Clicks the sidebar's link and collects the long tasks until the page has had none for a second. */
async function leaveMap(page: Page, link: string, path: string): Promise<ExitResult> {
  await page.evaluate(() => {
    // Each long task's start and length, and when the click happened (the input's own time stamp, taken before any
    // task that held it up): a task already under way at the click (the map's frame) is told apart from what followed.
    const tasks: Array<{ start: number; duration: number }> = [];
    const clicked = { at: Number.POSITIVE_INFINITY };
    document.addEventListener('pointerdown', (event) => (clicked.at = Math.min(clicked.at, event.timeStamp)), { capture: true, once: true });
    const frames: Array<{ duration: number; scripts: string }> = [];
    Object.assign(window, { __exitTasks: tasks, __exitFrames: frames, __exitClick: clicked });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask' });
    // Long animation frames name the scripts that ran in them (Chromium): where an exit's time goes.
    type Script = { duration: number; invoker: string; sourceURL: string; sourceFunctionName: string };
    type Frame = { duration: number; scripts: Script[]; styleAndLayoutStart: number; startTime: number };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as Frame[]) {
        const scripts = [...entry.scripts]
          .sort((a, b) => b.duration - a.duration)
          .slice(0, 4)
          .map((script) => `${script.sourceURL.split('/').pop() || '?'} ${script.sourceFunctionName || script.invoker} ${script.duration.toFixed(0)} ms`);
        const styleAndLayout = entry.styleAndLayoutStart > 0 ? entry.startTime + entry.duration - entry.styleAndLayoutStart : 0;
        frames.push({ duration: entry.duration, scripts: `${entry.duration.toFixed(0)} ms: ${scripts.join('; ') || 'no script'}; style and layout ${styleAndLayout.toFixed(0)} ms` });
      }
    }).observe({ type: 'long-animation-frame' });
  });
  await page.getByRole('link', { name: link }).click();
  await page.waitForURL(path, { waitUntil: 'commit' });
  let seen = -1;
  for (;;) {
    await page.waitForTimeout(1000);
    const count = await page.evaluate(() => (window as unknown as { __exitTasks: unknown[] }).__exitTasks.length);
    if (count === seen) break;
    seen = count;
  }
  const { all, clickAt } = await page.evaluate(() => {
    const probe = window as unknown as { __exitTasks: Array<{ start: number; duration: number }>; __exitClick: { at: number } };
    return { all: probe.__exitTasks, clickAt: probe.__exitClick.at };
  });
  const underWay = all.filter((task) => task.start < clickAt).map((task) => task.start + task.duration - clickAt);
  const tasks = all.filter((task) => task.start >= clickAt).map((task) => task.duration);
  const frames = await page.evaluate(() => (window as unknown as { __exitFrames: Array<{ duration: number; scripts: string }> }).__exitFrames);
  const worst = frames.sort((a, b) => b.duration - a.duration)[0];
  return { longest: Math.max(0, ...tasks), underWay: Math.max(0, ...underWay), total: tasks.reduce((sum, value) => sum + value, 0), count: tasks.length, worstFrame: worst?.scripts ?? null };
}
