/**
 * bench:login-size: how much script the login page loads before anyone has logged in, raw and gzipped.
 *
 * For each checkout measured (this one as "after"; with --before, the commit named by --base, default `main`, exported
 * into a temporary folder as "before"), the web app is built, the portal started on a free port over a fresh embedded
 * database (no demo, no gateway, no jobs), and the login page opened in Chromium. Every script the page loads until
 * the network is quiet is counted: its bytes as served uncompressed, and gzipped at level 9 (as the build
 * precompresses them). The target is under 150 KB gzipped.
 *
 *   bun run bench/login-size.ts [--before] [--base main]
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = join(import.meta.dir, '..');
const args = process.argv.slice(2);
const withBefore = args.includes('--before');
const base = args[args.indexOf('--base') + 1] && args.includes('--base') ? args[args.indexOf('--base') + 1]! : 'main';
const TARGET_GZIP_BYTES = 150 * 1024;

interface Measurement {
  label: string;
  scripts: Array<{ name: string; raw: number; gzip: number }>;
  raw: number;
  gzip: number;
}

function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status: 204 }) });
  const port = probe.port;
  probe.stop(true);
  if (!port) throw new Error('no free port');
  return port;
}

async function run(command: string[], cwd: string, env: Record<string, string> = {}): Promise<void> {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${command.join(' ')} failed in ${cwd}:\n${stderr}`);
}

/** Builds the checkout's web app, starts its portal, and counts the scripts of its login page. */
async function measure(label: string, checkout: string): Promise<Measurement> {
  await run(['bun', 'run', 'scripts/build-web.ts'], checkout);
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-login-size-data-'));
  const port = freePort();
  const server = Bun.spawn(['bun', 'run', 'src/main.ts'], {
    cwd: checkout,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO: '0', GATEWAY: '0', JOBS: '0', LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ready = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`${label}: the portal did not start`);
      await Bun.sleep(250);
    }
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      const bodies: Array<Promise<{ name: string; body: Buffer }>> = [];
      page.on('response', (response) => {
        if (response.request().resourceType() !== 'script') return;
        bodies.push(response.body().then((body) => ({ name: new URL(response.url()).pathname, body })));
      });
      await page.goto(url, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: /^(Logga in|Log in|Logg inn)$/ }).waitFor();
      await page.waitForLoadState('networkidle');
      const scripts = (await Promise.all(bodies)).map(({ name, body }) => ({ name, raw: body.length, gzip: Bun.gzipSync(new Uint8Array(body), { level: 9 }).length }));
      await context.close();
      return { label, scripts, raw: scripts.reduce((sum, s) => sum + s.raw, 0), gzip: scripts.reduce((sum, s) => sum + s.gzip, 0) };
    } finally {
      await browser.close();
    }
  } finally {
    server.kill();
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The base commit's files in a fresh folder, sharing this checkout's installed packages. */
async function exportBase(ref: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-login-size-base-'));
  const archive = Bun.spawn(['git', 'archive', '--format=tar', ref], { cwd: root, stdout: 'pipe' });
  const untar = Bun.spawn(['tar', '-x', '-C', dir], { stdin: archive.stdout });
  if ((await archive.exited) !== 0 || (await untar.exited) !== 0) throw new Error(`could not export ${ref}`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function print(m: Measurement) {
  console.log(`${m.label}: ${m.scripts.length} scripts, ${kb(m.raw)} raw, ${kb(m.gzip)} gzipped`);
  for (const s of [...m.scripts].sort((a, b) => b.gzip - a.gzip)) console.log(`  ${s.name.padEnd(44)} ${kb(s.raw).padStart(10)} ${kb(s.gzip).padStart(10)} gz`);
}

const results: Measurement[] = [];
if (withBefore) {
  const dir = await exportBase(base);
  try {
    results.push(await measure(`before (${base})`, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// The checkout's own build is left in place (it is what the portal serves).
results.push(await measure('after (this checkout)', root));
for (const m of results) print(m);
const after = results.at(-1)!;
console.log(`login page script: ${kb(after.gzip)} gzipped (target < ${kb(TARGET_GZIP_BYTES)}): ${after.gzip < TARGET_GZIP_BYTES ? 'met' : 'NOT met'}`);
