/**
 * `bun run bench:map [--units 20000] [--interval 10000] [--seconds 20] [--pan-seconds 8] [--db pglite|postgres] [--vsync]
 *                    [--gpu-compositing] [--chromium-flags "..."] [--profile] [--trace] [--no-baseline]`
 *
 * The live map under a large fleet: the whole portal (API, web app, live socket, gateway) on loopback,
 * `--units` simulated Teltonika trackers (scripts/simulate.ts, real TCP) each reporting one position every
 * `--interval` ms, and the built web app in headless Chromium with software WebGL (SwiftShader) and CPU
 * compositing, as Chromium runs without a GPU. Prints:
 * - initial load time: navigation to the map until every unit is loaded and drawn (cold and warm HTTP cache);
 * - frame time p50 / p95 while panning (requestAnimationFrame deltas; the map panned every frame) at the
 *   default view (Stockholm, zoom 14), a city-wide view (zoom 11) and the whole fleet (zoom 6, clusters);
 * - ingest-to-marker latency p50 / p95 / max: from the moment the server received a position (the unit's
 *   `lastSeen`) to the frame that drew it, for every unit drawn as its own marker, split into ingest → live
 *   hub send (server), send → page receive (socket), receive → set in the map's layers and → rendered (page), with
 *   the page's long animation frames meanwhile;
 * - where the load went (scripts, list request, first and last byte, parsed) and the long animation frames
 *   of each pan with the scripts they ran;
 * - the same load, pans and latency for a baseline page measured right after in the same browser under the same
 *   ingest (bench/map/baseline.ts: a MapLibre GeoJSON source with MapLibre's own clustering, the way MapLibre-based
 *   fleet portals draw a fleet), and the portal's figures as ratios of the baseline's (`--no-baseline` skips it).
 * Targets (issue 5): load under 2 s, p95 frame time under 50 ms, latency under 1 s.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, sep } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { buildWeb, precompress } from '../scripts/build-web';
import { assemble } from '../src/bootstrap';
import { demoImei } from '../src/demo/seed';
import { startGateway } from '../src/gateway';
import { loadConfig } from '../src/lib/config';
import { createLogger } from '../src/lib/log';
import { hashPassword } from '../src/lib/password';
import { createCommandService } from '../src/modules/io/service';
import type { FleetMapProbe } from '../src/web/features/map/LiveMap';
import { VEHICLE_TYPES } from '../src/web/features/map/symbols';
import postgres from 'postgres';
import { type DatabaseHandle, openPostgres } from '../src/lib/db/client';
import type { BaselineProbe } from './map/baseline';
import { argument, openBenchDatabase, percentile } from './support';

/** CPU seconds used so far by the portal (this process), the simulator, PostgreSQL and Chromium (Linux /proc). */
function cpuSeconds(): Map<string, number> {
  const ticks = 100; // USER_HZ
  const totals = new Map<string, number>();
  const groupOf = (pid: number, command: string): string | null => {
    if (pid === process.pid) return 'portal';
    if (pid === simulatorPid) return 'simulator';
    if (command === 'postgres') return 'postgresql';
    if (command.startsWith('chrom')) return 'chromium';
    return null;
  };
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const group = groupOf(pid, command);
      if (!group) continue;
      // utime and stime: fields 14 and 15 of the line, 12 and 13 after the command.
      totals.set(group, (totals.get(group) ?? 0) + (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // the process ended meanwhile
    }
  }
  return totals;
}
let simulatorPid = 0;

const kind = argument('db', process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL ? 'postgres' : 'pglite') as 'pglite' | 'postgres';
const unitCount = Number(argument('units', '20000'));
const intervalMs = Number(argument('interval', '10000'));
const latencySeconds = Number(argument('seconds', '20'));
const panSeconds = Number(argument('pan-seconds', '8'));
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const EMAIL = 'bench@example.com';
const PASSWORD = 'Bench-2026!';

const ms = (value: number) => `${Math.round(value)} ms`;

console.log(`map benchmark: ${unitCount} units, one position each per ${intervalMs / 1000} s (${Math.round((unitCount * 1000) / intervalMs)} positions/s)`);
await buildWeb({ quiet: true });
/**
 * The same-run baseline (bench/map/baseline.ts): the fleet as a MapLibre GeoJSON source with MapLibre's clustering,
 * served by the portal under /bench-baseline/ like the app's own files (precompressed, hashed assets cached).
 */
const baselineRoot = mkdtempSync(join(tmpdir(), 'fleet-map-baseline-'));
const baselineBuild = await Bun.build({
  entrypoints: [join(import.meta.dir, 'map/baseline.html')],
  outdir: join(baselineRoot, 'bench-baseline'),
  target: 'browser',
  minify: true,
  splitting: true,
  publicPath: '/bench-baseline/',
  naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
});
if (!baselineBuild.success) throw new AggregateError(baselineBuild.logs, 'baseline page build failed');
precompress(baselineRoot);
/**
 * PostgreSQL: a database of its own (`fleet_bench_map`, or `BENCH_DATABASE_NAME`), so that another benchmark running
 * meanwhile never drops it.
 */
async function openDatabase(): Promise<{ database: DatabaseHandle; label: string }> {
  if (kind === 'pglite') return openBenchDatabase('pglite');
  const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('set BENCH_DATABASE_URL for the PostgreSQL run, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  const name = process.env.BENCH_DATABASE_NAME ?? 'fleet_bench_map';
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_DATABASE_NAME must be a plain lower-case name, not ${name}`);
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const benchUrl = new URL(url);
  benchUrl.pathname = `/${name}`;
  return { database: await openPostgres(benchUrl.toString(), 8), label: `PostgreSQL (${benchUrl.host}/${name})` };
}
const { database, label } = await openDatabase();
console.log(`database: ${label}`);
const config = loadConfig({ LOG_LEVEL: 'warn', GATEWAY: '0', JOBS: '0', DEMO: '0', RAW_FRAME_RETENTION_DAYS: '0' });
const { platform, services, api } = await assemble(config, database, { log: createLogger('warn') });

// --- The fleet: one company, one administrator, the units the simulator drives --------------------------
const [account] = await database.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Map benchmark') RETURNING id`);
await database.query(
  `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Bench', 'Admin', 'admin')`,
  [account!.id, EMAIL, await hashPassword(PASSWORD)],
);
const imeis = Array.from({ length: unitCount }, (_, i) => demoImei(i));
const types = imeis.map((_, i) => VEHICLE_TYPES[i % 7 === 0 ? 1 : i % 11 === 0 ? 2 : i % 13 === 0 ? 9 : 0]!);
// At most this many Teltonika trackers on TCP (a process may hold 20,000 open files here); the rest report as OsmAnd phones over HTTP.
const tcpCount = Math.min(unitCount, Number(argument('tcp', '19000')));
const protocols = imeis.map((_, i) => (i < tcpCount ? 'teltonika' : 'osmand'));
for (let from = 0; from < unitCount; from += 5000) {
  await database.query(
    `INSERT INTO units (account_id, imei, name, registration_number, vehicle_type, model, protocol)
     SELECT $1, imei, 'Fordon ' || lpad(n::text, 5, '0'), 'BEN' || lpad(n::text, 5, '0'), type, 'FMB920', protocol
     FROM unnest($2::text[], $3::int[], $4::text[], $5::text[]) AS x(imei, n, type, protocol)`,
    [
      account!.id,
      imeis.slice(from, from + 5000),
      imeis.slice(from, from + 5000).map((_, i) => from + i + 1),
      types.slice(from, from + 5000),
      protocols.slice(from, from + 5000),
    ],
  );
}

// --- Portal, gateway and simulator --------------------------------------------------------------------
const gateway = await startGateway(platform, createCommandService(database, platform.events, platform.clock), { teltonika: 0, gt06: 0, osmand: 0 });
api.get('/bench-baseline/*', ({ request }) => {
  const path = normalize(join(baselineRoot, decodeURIComponent(new URL(request.url).pathname)));
  if (!path.startsWith(baselineRoot + sep) || !existsSync(path)) return new Response('Not found', { status: 404 });
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '') && existsSync(`${path}.gz`);
  const headers: Record<string, string> = {
    'content-type': Bun.file(path).type,
    'cache-control': path.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  };
  return new Response(Bun.file(gzip ? `${path}.gz` : path), { headers });
});
api.listen({ hostname: '127.0.0.1', port: 0 });
const baseUrl = `http://127.0.0.1:${api.server!.port}`;
// The browser starts before the trackers connect (it needs open files of its own).
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    // Chromium as on a machine without a GPU: WebGL in SwiftShader, the page composited by the CPU. Each frame's
    // WebGL picture is read back before it is composited, so a frame's time is what it costs to show it.
    // `--gpu-compositing` composites through SwiftShader too (as earlier rounds measured): there frames are not
    // held back by the GPU process, which queues seconds of work and then stalls, so rAF deltas understate.
    ...(process.argv.includes('--gpu-compositing')
      ? ['--use-gl=angle', '--use-angle=swiftshader', '--ignore-gpu-blocklist']
      : ['--disable-gpu']),
    '--enable-unsafe-swiftshader',
    ...argument('chromium-flags', '').split(' ').filter(Boolean),
    // Frames are not held to the 60 Hz vsync, so the rAF deltas are what each frame costs rather than that cost
    // rounded up to the next 16.7 ms (`--vsync` keeps the display rate).
    ...(process.argv.includes('--vsync') ? [] : ['--disable-gpu-vsync', '--disable-frame-rate-limit']),
  ],
});
const simulator = Bun.spawn(
  ['bun', 'run', 'bench/map/fleet.ts', String(unitCount), String(tcpCount), String(intervalMs), String(gateway.ports.teltonika), String(gateway.ports.osmand)],
  { stdout: 'ignore', stderr: 'inherit' },
);
simulatorPid = simulator.pid;
console.log(`${tcpCount} Teltonika trackers over TCP, ${unitCount - tcpCount} OsmAnd phones over HTTP`);
process.on('exit', () => simulator.kill());
const warmupDeadline = Date.now() + Math.max(60_000, intervalMs * 4);
let reporting = 0;
while (Date.now() < warmupDeadline) {
  await Bun.sleep(2000);
  const [row] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM unit_state');
  reporting = row!.n;
  if (reporting >= unitCount * 0.99) break;
}
// Planner statistics as on a running system, where autovacuum analyses a table within a minute or so of a large
// change; this database is a few minutes old, and without them the unit list's plan probes indexes 20,000 times.
await database.query('ANALYZE');
// One more interval so that every tracker reports at its steady pace; meanwhile, what the ingest alone costs.
const cpuBefore = cpuSeconds();
await Bun.sleep(intervalMs);
const cpuAfter = cpuSeconds();
console.log(`${reporting} of ${unitCount} units reporting through the gateway (${gateway.context.metrics.connectionsOpen} TCP connections)`);
/** CPU used between two `cpuSeconds()` readings, per process group, as a share of one core over `seconds`. */
const cpuShares = (before: Map<string, number>, after: Map<string, number>, seconds: number) =>
  [...after].map(([name, used]) => `${name} ${Math.round(((used - (before.get(name) ?? 0)) / seconds) * 100)} %`).join(', ');
console.log(`CPU while only ingesting (share of one core): ${cpuShares(cpuBefore, cpuAfter, intervalMs / 1000)}`);

// --- Browser -------------------------------------------------------------------------------------------
const viewport = { width: 1280, height: 800 };
const context = await browser.newContext({ viewport, baseURL: baseUrl, locale: 'sv-SE', timezoneId: 'Europe/Stockholm' });
// No base map from the internet in a benchmark: the offline style, as without a network.
await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
const page = await context.newPage();
page.on('pageerror', (error) => console.error('page error:', error.message));
await page.goto('/?subsite=0');
await page.getByLabel(/^E-postadress/).fill(EMAIL);
await page.getByLabel(/^Lösenord/).fill(PASSWORD);
await page.getByText(/^Kom ihåg mig$/).click();
await page.getByRole('button', { name: /^Logga in$/ }).click();
await page.waitForURL('**/user/realtime-tracking');
const cdp = await context.newCDPSession(page);

const probe = (page: Page) => page.evaluate(() => (window as unknown as { __fleetMap?: FleetMapProbe }).__fleetMap?.store.probe ?? null);

/** `--profile`: where the page's main thread spent the cold load or a pan, by function (self time), largest first. */
function printProfile(what: string, profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples?: number[]; timeDeltas?: number[] }) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const frame = byNode.get(samples[i]!);
    if (!frame) continue;
    const file = frame.url.split('/').pop() ?? '';
    const name = `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
    self.set(name, (self.get(name) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log(`  ${what}, main thread self time by function:`);
  for (const [name, msSpent] of top) console.log(`    ${msSpent.toFixed(0).padStart(6)} ms  ${name}`);
}

/** `--trace`: the renderer main thread's time during the cold load by trace event (self time), largest first. */
type TraceEvent = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string; data?: { url?: string } } };

/** Adds each event's self time (its duration less its children's) to `self` by name; `events` sorted by start, longest first. */
function addSelfTimes(events: TraceEvent[], self: Map<string, number>): void {
  const stack: TraceEvent[] = [];
  for (const event of events) {
    while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur! <= event.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - event.dur!);
    self.set(event.name, (self.get(event.name) ?? 0) + event.dur!);
    stack.push(event);
  }
}

function printTrace(buffer: Buffer) {
  const events = (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const mainThreads = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const self = new Map<string, number>();
  for (const thread of mainThreads) {
    addSelfTimes(events.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === thread && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!), self);
  }
  // The main thread's long tasks, each with where its time went (self time by event).
  for (const thread of mainThreads) {
    const complete = events.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === thread && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const navigation = events.find((e) => e.name === 'navigationStart' && `${e.pid}:${e.tid}` === thread)?.ts ?? complete[0]?.ts ?? 0;
    let end = 0;
    for (const task of complete) {
      if (task.ts < end) continue;
      end = task.ts + task.dur!;
      if (task.dur! < 100_000) continue;
      const own = new Map<string, number>();
      addSelfTimes(complete.filter((e) => e.ts >= task.ts && e.ts + e.dur! <= end && e !== task), own);
      const top = [...own].sort((x, y) => y[1] - x[1]).slice(0, 6).map(([name, micros]) => `${name} ${(micros / 1000).toFixed(0)}`);
      console.log(`  long task at ${((task.ts - navigation) / 1000).toFixed(0)} ms: ${(task.dur! / 1000).toFixed(0)} ms; ${top.join(', ')}`);
    }
  }
  console.log('  cold load, renderer main thread by trace event (self time):');
  for (const [name, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}`);
  // Every thread's busy time (its outermost events), to see where the CPU went besides the main thread.
  const threadNames = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args?.name ?? '?']));
  const busy = new Map<string, number>();
  const byThread = new Map<string, TraceEvent[]>();
  for (const event of events) {
    if (event.ph !== 'X' || event.dur === undefined) continue;
    const thread = `${event.pid}:${event.tid}`;
    const list = byThread.get(thread);
    if (list) list.push(event);
    else byThread.set(thread, [event]);
  }
  for (const [thread, list] of byThread) {
    let end = 0;
    let total = 0;
    for (const event of list.sort((a, b) => a.ts - b.ts)) {
      if (event.ts >= end) {
        total += event.dur!;
        end = event.ts + event.dur!;
      } else if (event.ts + event.dur! > end) {
        total += event.ts + event.dur! - end;
        end = event.ts + event.dur!;
      }
    }
    // A worker is known by the script it runs (the first URL its events name).
    const url = list.find((event) => event.args?.data?.url)?.args?.data?.url;
    const name = `${threadNames.get(thread) ?? thread} (${thread})${url ? ` ${url.split('/').pop()?.slice(0, 40)}` : ''}`;
    busy.set(name, (busy.get(name) ?? 0) + total);
  }
  console.log('  cold load, busy time by thread:');
  for (const [name, micros] of [...busy].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`    ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}`);
}

/** Navigates to the map and waits until every unit is loaded and drawn; times since navigation start. */
async function measureLoad(page: Page, how: 'goto' | 'reload') {
  if (how === 'goto') await page.goto('/user/realtime-tracking');
  else await page.reload();
  await page.waitForFunction(() => ((window as unknown as { __fleetMap?: FleetMapProbe }).__fleetMap?.store.probe.firstDrawAt ?? 0) > 0, null, {
    timeout: 60_000,
  });
  const result = await page.evaluate(async () => {
    const fleet = (window as unknown as { __fleetMap: FleetMapProbe }).__fleetMap;
    const list = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/tracking/units')).at(-1) as PerformanceResourceTiming | undefined;
    const scripts = performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('.js')) as PerformanceResourceTiming[];
    return {
      loadedAt: fleet.store.probe.loadedAt,
      firstDrawAt: fleet.store.probe.firstDrawAt,
      units: fleet.store.units.length,
      list: list
        ? { start: list.startTime, firstByte: list.responseStart, end: list.responseEnd, server: list.serverTiming.map((entry) => `${entry.name} ${Math.round(entry.duration)} ms`).join(', ') }
        : null,
      scriptsEnd: Math.max(0, ...scripts.map((entry) => entry.responseEnd)),
      navigation: (() => {
        const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return entry
          ? { unloadStart: entry.unloadEventStart, unloadEnd: entry.unloadEventEnd, requestStart: entry.requestStart, responseEnd: entry.responseEnd, interactive: entry.domInteractive }
          : null;
      })(),
      scripts: scripts.map((entry) => ({ name: entry.name.split('/').pop() ?? '', start: entry.startTime, end: entry.responseEnd, bytes: entry.encodedBodySize })),
      marks: { ...fleet.store.probe.marks },
      // The page's long animation frames until the first draw: what held up its main thread, and where.
      longFrames: await new Promise<Array<{ start: number; duration: number; render: number; scripts: string[] }>>((resolve) => {
        const frames: Array<{ start: number; duration: number; render: number; scripts: string[] }> = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as Array<{ startTime: number; duration: number; renderStart: number; scripts: Array<{ invoker: string; sourceFunctionName: string; sourceURL: string; duration: number }> }>) {
            if (entry.startTime > fleet.store.probe.firstDrawAt) continue;
            frames.push({
              start: entry.startTime,
              duration: entry.duration,
              render: entry.renderStart ? entry.startTime + entry.duration - entry.renderStart : 0,
              scripts: [...entry.scripts]
                .sort((x, y) => y.duration - x.duration)
                .slice(0, 3)
                .map((script) => `${script.invoker}${script.sourceFunctionName ? ` ${script.sourceFunctionName}` : ''} (${script.sourceURL.split('/').pop()}) ${Math.round(script.duration)} ms`),
            });
          }
        });
        observer.observe({ type: 'long-animation-frame', buffered: true });
        setTimeout(() => {
          observer.disconnect();
          resolve(frames);
        }, 50);
      }),
    };
  });
  return result;
}

// Cold: an empty HTTP cache (a first visit after login); warm: a reload.
await page.goto('/account/deletion');
await cdp.send('Network.clearBrowserCache');
const profiling = process.argv.includes('--profile');
if (profiling) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
}
const tracing = process.argv.includes('--trace');
if (tracing) await browser.startTracing(page, { categories: ['devtools.timeline', 'v8', 'blink', 'gpu', 'disabled-by-default-devtools.timeline'] });
const cpuBeforeLoad = cpuSeconds();
const coldStarted = performance.now();
const cold = await measureLoad(page, 'goto');
const cpuDuringLoad = cpuShares(cpuBeforeLoad, cpuSeconds(), (performance.now() - coldStarted) / 1000);
if (profiling) printProfile('cold load', (await cdp.send('Profiler.stop')).profile);
if (tracing) printTrace(await browser.stopTracing());
const loadParts = (load: typeof cold) =>
  load.list
    ? `${load.navigation ? `page: previous unloaded ${ms(load.navigation.unloadStart)}–${ms(load.navigation.unloadEnd)}, requested ${ms(load.navigation.requestStart)}, received ${ms(load.navigation.responseEnd)}, interactive ${ms(load.navigation.interactive)}; ` : ''}scripts loaded ${ms(load.scriptsEnd)}, list requested ${ms(load.list.start)} (server: ${load.list.server}), first byte ${ms(load.list.firstByte)}, last byte ${ms(load.list.end)}, parsed and stored ${ms(load.loadedAt)}; map ${Object.entries(load.marks).map(([name, at]) => `${name} ${ms(at)}`).join(', ')}`
    : '';
console.log(`loaded ${cold.units} units (cold cache): list ${ms(cold.loadedAt)}, drawn ${ms(cold.firstDrawAt)} after navigation`);
console.log(`  ${loadParts(cold)}`);
console.log(`  CPU during the cold load (share of one core): ${cpuDuringLoad}`);
const printLongFrames = (load: typeof cold) => {
  for (const frame of load.longFrames)
    console.log(`  long frame at ${ms(frame.start)}: ${ms(frame.duration)} (${ms(frame.render)} rendering)${frame.scripts.length > 0 ? `; ${frame.scripts.join(', ')}` : ''}`);
};
printLongFrames(cold);
console.log(`  scripts: ${cold.scripts.map((script) => `${script.name} ${ms(script.start)}–${ms(script.end)} (${Math.round(script.bytes / 1024)} KiB)`).join(', ')}`);
await page.waitForTimeout(3000);
const warm = await measureLoad(page, 'reload');
console.log(`loaded ${warm.units} units (warm cache): list ${ms(warm.loadedAt)}, drawn ${ms(warm.firstDrawAt)} after navigation`);
console.log(`  ${loadParts(warm)}`);
printLongFrames(warm);
// The list call alone, from outside the browser: how much of the load is the server's.
const loginResponse = await fetch(`${baseUrl}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ username: EMAIL, password: PASSWORD, subsiteid: 0 }),
});
const token = ((await loginResponse.json()) as { data: { user: { token: string } } }).data.user.token;
const listTimes: number[] = [];
let listBytes = 0;
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/tracking/units`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  listBytes = (await response.arrayBuffer()).byteLength;
  listTimes.push(performance.now() - started);
}
console.log(`GET /api/tracking/units from the bench process: ${listTimes.map(ms).join(', ')} (${(listBytes / 1048576).toFixed(1)} MiB)`);
// The geofence layer's zones, which the page reads once the fleet is drawn and every minute after (none in this account).
const zoneTimes: number[] = [];
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  await (await fetch(`${baseUrl}/api/geofences`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })).arrayBuffer();
  zoneTimes.push(performance.now() - started);
}
console.log(`GET /api/geofences from the bench process: ${zoneTimes.map(ms).join(', ')}`);
await page.locator('[data-connection="live"]').waitFor({ timeout: 20_000 });
await page.waitForTimeout(3000);

/** Pans the map of `on` (the portal's page, or the baseline's) by a few pixels every frame for `seconds`, returning the frame-to-frame times. */
async function panFrames(on: Page, center: [number, number], zoom: number, seconds: number) {
  return on.evaluate(
    async ([lon, lat, z, duration]) => {
      const fleet = (window as unknown as { __fleetMap?: FleetMapProbe }).__fleetMap;
      const baseline = (window as unknown as { __baseline?: BaselineProbe }).__baseline;
      const map = fleet ? fleet.map!.map : baseline!.map;
      map.jumpTo({ center: [lon as number, lat as number], zoom: z as number });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const deltas: number[] = [];
      const long: Array<{ duration: number; blocking: number; render: number; scripts: Array<[string, number]> }> = [];
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as Array<{ duration: number; blockingDuration: number; renderStart: number; startTime: number; scripts: Array<{ invoker: string; sourceFunctionName: string; sourceURL: string; duration: number }> }>) {
          long.push({
            duration: entry.duration,
            blocking: entry.blockingDuration,
            render: entry.renderStart ? entry.startTime + entry.duration - entry.renderStart : 0,
            scripts: entry.scripts.map((script) => [`${script.invoker}|${script.sourceFunctionName}`, script.duration]),
          });
        }
      });
      observer.observe({ type: 'long-animation-frame', buffered: false });
      await new Promise<void>((resolve) => {
        let last = performance.now();
        const end = last + (duration as number) * 1000;
        let step = 0;
        const frame = (now: number) => {
          deltas.push(now - last);
          last = now;
          step += 1;
          // Circles of about 130 px around the start: a few pixels a frame, like a dragging hand.
          const angle = step / 20;
          map.panBy([Math.cos(angle) * 6.5, Math.sin(angle) * 6.5], { animate: false });
          if (now < end) requestAnimationFrame(frame);
          else resolve();
        };
        requestAnimationFrame(frame);
      });
      observer.disconnect();
      // The baseline's circles: its clusters and single units as rendered.
      const rendered = fleet ? null : map.queryRenderedFeatures({ layers: ['clusters', 'units'] });
      const drawn = fleet
        ? fleet.map!.drawn()
        : { units: rendered!.filter((feature) => feature.layer.id === 'units').length, clusters: rendered!.filter((feature) => feature.layer.id === 'clusters').length };
      return { long, deltas: deltas.slice(1), units: drawn.units, clusters: drawn.clusters, zoom: map.getZoom(), bounds: map.getBounds().toArray() };
    },
    [center[0], center[1], zoom, seconds],
  );
}

/** Long animation frames in one line: how many, their time, the rendering part of it and the scripts that took most. */
function longFramesSummary(long: Array<{ duration: number; render: number; scripts: Array<[string, number]> }>): string {
  const byScript = new Map<string, number>();
  for (const frame of long) for (const [name, duration] of frame.scripts) byScript.set(name, (byScript.get(name) ?? 0) + duration);
  const total = Math.round(long.reduce((sum, frame) => sum + frame.duration, 0));
  const rendering = Math.round(long.reduce((sum, frame) => sum + frame.render, 0));
  const top = [...byScript].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name, duration]) => `${name} ${Math.round(duration)} ms`);
  return `${long.length}, ${total} ms in all, ${rendering} ms of it rendering; scripts: ${top.join(', ') || 'none'}`;
}

const scenarios: Array<{ name: string; center: [number, number]; zoom: number }> = [
  { name: 'Stockholm, zoom 14 (default view)', center: [18.0686, 59.3293], zoom: 14 },
  { name: 'Stockholm, zoom 11 (city-wide)', center: [18.0686, 59.3293], zoom: 11 },
  { name: 'Scandinavia, zoom 6 (whole fleet)', center: [14.5, 58.2], zoom: 6 },
];
const panResults: Array<{ name: string; p50: number; p95: number; frames: number; units: number; clusters: number }> = [];
for (const scenario of scenarios) {
  const profilePan = profiling && scenario === scenarios[0];
  if (profilePan) await cdp.send('Profiler.start');
  const { deltas, units, clusters, zoom, bounds, long } = await panFrames(page, scenario.center, scenario.zoom, panSeconds);
  if (profilePan) printProfile(`panning ${scenario.name}`, (await cdp.send('Profiler.stop')).profile);
  console.log(`  long animation frames (> 50 ms): ${longFramesSummary(long)}`);
  if (units + clusters === 0) console.log(`  nothing drawn at zoom ${zoom.toFixed(2)}, bounds ${JSON.stringify(bounds)}`);
  panResults.push({ name: scenario.name, p50: percentile(deltas, 50), p95: percentile(deltas, 95), frames: deltas.length, units, clusters });
  console.log(`panning ${scenario.name}: p50 ${percentile(deltas, 50).toFixed(1)} ms, p95 ${percentile(deltas, 95).toFixed(1)} ms (${deltas.length} frames; ${units} markers, ${clusters} clusters drawn)`);
}

// Latency: back to the default view, idle, for `--seconds`.
await page.evaluate(() => (window as unknown as { __fleetMap: FleetMapProbe }).__fleetMap.map!.map.jumpTo({ center: [18.0686, 59.3293], zoom: 14 }));
await page.waitForTimeout(1500);
const before = await probe(page);
await page.evaluate(() => {
  const probe = (window as unknown as { __fleetMap: FleetMapProbe }).__fleetMap.store.probe;
  probe.drawn.length = 0;
  probe.updates.length = 0;
  // What held the main thread meanwhile: the long animation frames, with the scripts they ran.
  const long: Array<{ duration: number; render: number; scripts: Array<[string, number]> }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as unknown as Array<{ duration: number; renderStart: number; startTime: number; scripts: Array<{ invoker: string; sourceFunctionName: string; duration: number }> }>) {
      long.push({
        duration: entry.duration,
        render: entry.renderStart ? entry.startTime + entry.duration - entry.renderStart : 0,
        scripts: entry.scripts.map((script) => [`${script.invoker}|${script.sourceFunctionName}`, script.duration]),
      });
    }
  });
  observer.observe({ type: 'long-animation-frame', buffered: false });
  (window as unknown as { __liveFrames: { long: typeof long; stop: () => void } }).__liveFrames = { long, stop: () => observer.disconnect() };
});
const cpuBeforeLive = cpuSeconds();
await page.waitForTimeout(latencySeconds * 1000);
const cpuWhileLive = cpuShares(cpuBeforeLive, cpuSeconds(), latencySeconds);
const after = await page.evaluate(() => {
  const p = (window as unknown as { __fleetMap: FleetMapProbe }).__fleetMap.store.probe;
  const frames = (window as unknown as { __liveFrames: { long: Array<{ duration: number; render: number; scripts: Array<[string, number]> }>; stop: () => void } }).__liveFrames;
  frames.stop();
  return { drawn: p.drawn.slice(), updates: p.updates.slice(), messages: p.messages, unitsReceived: p.unitsReceived, long: frames.long };
});
const latencies = after.drawn.map(([fix, , , drawn]) => drawn - fix);
const received = after.unitsReceived - (before?.unitsReceived ?? 0);
const messages = after.messages - (before?.messages ?? 0);

// --- Baseline: the same fleet, machine, browser and load, drawn the common way (bench/map/baseline.ts) ---------
// Measured right after the portal's page, with that page closed: load (cold and warm), the same pans, latency.
const baseline = process.argv.includes('--no-baseline') ? null : await measureBaseline();

async function measureBaseline() {
  await page.close();
  const basePage = await context.newPage();
  basePage.on('pageerror', (error) => console.error('baseline page error:', error.message));
  await (await context.newCDPSession(basePage)).send('Network.clearBrowserCache');
  const load = async (how: 'goto' | 'reload') => {
    if (how === 'goto') await basePage.goto(`/bench-baseline/baseline.html#${encodeURIComponent(token)}`);
    else await basePage.reload();
    await basePage.waitForFunction(() => ((window as unknown as { __baseline?: BaselineProbe }).__baseline?.firstDrawAt ?? 0) > 0, null, { timeout: 120_000 });
    return basePage.evaluate(() => {
      const { loadedAt, firstDrawAt } = (window as unknown as { __baseline: BaselineProbe }).__baseline;
      return { loadedAt, firstDrawAt };
    });
  };
  const cold = await load('goto');
  console.log(`baseline loaded (cold cache): list ${ms(cold.loadedAt)}, drawn ${ms(cold.firstDrawAt)} after navigation`);
  await basePage.waitForTimeout(3000);
  const warm = await load('reload');
  console.log(`baseline loaded (warm cache): list ${ms(warm.loadedAt)}, drawn ${ms(warm.firstDrawAt)} after navigation`);
  await basePage.waitForTimeout(3000);
  const pans: Array<{ p50: number; p95: number }> = [];
  for (const scenario of scenarios) {
    const { deltas, units, clusters, long } = await panFrames(basePage, scenario.center, scenario.zoom, panSeconds);
    pans.push({ p50: percentile(deltas, 50), p95: percentile(deltas, 95) });
    console.log(
      `baseline panning ${scenario.name}: p50 ${percentile(deltas, 50).toFixed(1)} ms, p95 ${percentile(deltas, 95).toFixed(1)} ms (${deltas.length} frames; ${units} units, ${clusters} clusters drawn; ${long.length} long animation frames)`,
    );
  }
  await basePage.evaluate(() => {
    (window as unknown as { __baseline: BaselineProbe }).__baseline.map.jumpTo({ center: [18.0686, 59.3293], zoom: 14 });
  });
  await basePage.waitForTimeout(1500);
  const receivedBefore = await basePage.evaluate(() => {
    const probe = (window as unknown as { __baseline: BaselineProbe }).__baseline;
    probe.drawn.length = 0;
    return probe.unitsReceived;
  });
  const cpuBefore = cpuSeconds();
  await basePage.waitForTimeout(latencySeconds * 1000);
  const cpu = cpuShares(cpuBefore, cpuSeconds(), latencySeconds);
  const live = await basePage.evaluate(() => {
    const probe = (window as unknown as { __baseline: BaselineProbe }).__baseline;
    return { drawn: probe.drawn.slice(), unitsReceived: probe.unitsReceived };
  });
  return { cold, warm, pans, latencies: live.drawn.map(([fix, drawn]) => drawn - fix), received: live.unitsReceived - receivedBefore, cpu };
}

simulator.kill('SIGTERM');
await simulator.exited;
await browser.close();
services.live.stop();
await gateway.stop();
await api.stop(true);
await database.close();

console.log('');
console.log(`units                          ${unitCount} (${reporting} reporting), ${Math.round((unitCount * 1000) / intervalMs)} positions/s offered`);
console.log(`initial load (cold cache)      ${ms(cold.firstDrawAt)}  (unit list in ${ms(cold.loadedAt)})`);
console.log(`initial load (warm cache)      ${ms(warm.firstDrawAt)}  (unit list in ${ms(warm.loadedAt)})`);
console.log(`list call alone (server)       ${listTimes.map(ms).join(', ')}  (${(listBytes / 1048576).toFixed(1)} MiB JSON)`);
for (const result of panResults) {
  console.log(`frame time panning p50 / p95   ${result.p50.toFixed(1)} / ${result.p95.toFixed(1)} ms  ${result.name}`);
}
console.log(
  `ingest-to-marker p50/p95/max   ${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 95))} / ${ms(latencies.length ? Math.max(...latencies) : 0)}  (${latencies.length} markers in view redrawn in ${latencySeconds} s)`,
);
console.log(`live updates received          ${Math.round(received / latencySeconds)} unit states/s in ${Math.round(messages / latencySeconds)} messages/s`);
console.log(`  CPU meanwhile (share of one core): ${cpuWhileLive}`);
// Where the latency goes: received by the gateway → sent by the live hub → received by the page → drawn.
const serverLag = after.updates.flatMap(([sent, , oldest, newest]) => [sent - oldest, sent - newest]);
const socketLag = after.updates.map(([sent, receivedAt]) => receivedAt - sent);
console.log(`  ingest to hub send p50/p95   ${ms(percentile(serverLag, 50))} / ${ms(percentile(serverLag, 95))}  (oldest and newest unit of each message)`);
console.log(`  hub send to page p50/p95     ${ms(percentile(socketLag, 50))} / ${ms(percentile(socketLag, 95))}`);
// In the page: the state received → set in the map's layers (waiting for the main thread and a frame) → rendered.
const toLayers = after.drawn.map(([, receivedAt, layersSetAt]) => layersSetAt - receivedAt);
const toRender = after.drawn.map(([, , layersSetAt, drawn]) => drawn - layersSetAt);
console.log(`  page receive to layers p50/p95 ${ms(percentile(toLayers, 50))} / ${ms(percentile(toLayers, 95))}; layers to rendered ${ms(percentile(toRender, 50))} / ${ms(percentile(toRender, 95))}`);
console.log(`  long animation frames meanwhile: ${longFramesSummary(after.long)}`);
if (baseline) {
  // Below 1: the portal is faster than the baseline; the same machine, load and browser, minutes apart.
  const ratio = (portal: number, base: number) => (base > 0 ? (portal / base).toFixed(2) : 'n/a');
  console.log('');
  console.log('baseline (MapLibre GeoJSON source with its own clustering, whole FeatureCollection set on each live message), same run:');
  console.log(`initial load (cold cache)      ${ms(baseline.cold.firstDrawAt)}  portal / baseline ${ratio(cold.firstDrawAt, baseline.cold.firstDrawAt)}`);
  console.log(`initial load (warm cache)      ${ms(baseline.warm.firstDrawAt)}  portal / baseline ${ratio(warm.firstDrawAt, baseline.warm.firstDrawAt)}`);
  scenarios.forEach((scenario, at) => {
    const base = baseline.pans[at]!;
    const portal = panResults[at]!;
    console.log(`frame time panning p50 / p95   ${base.p50.toFixed(1)} / ${base.p95.toFixed(1)} ms  ${scenario.name}; portal / baseline p95 ${ratio(portal.p95, base.p95)}`);
  });
  const [baseP50, baseP95] = [percentile(baseline.latencies, 50), percentile(baseline.latencies, 95)];
  console.log(
    `ingest-to-marker p50 / p95     ${ms(baseP50)} / ${ms(baseP95)}  (${baseline.latencies.length} units in view redrawn, ${Math.round(baseline.received / latencySeconds)} states/s received); portal / baseline p95 ${ratio(percentile(latencies, 95), baseP95)}`,
  );
  console.log(`  CPU meanwhile (share of one core): ${baseline.cpu}`);
}
process.exit(0);
