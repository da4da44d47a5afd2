/**
 * `bun run scripts/check-container.ts [--keep]`
 *
 * Builds and starts the container as the Dockerfile describes it, without Docker: each stage is a fresh folder
 * standing for the container's file system, `COPY` copies from the build context (minus .dockerignore) or from
 * an earlier stage, `RUN` runs in the stage's WORKDIR with its ENV, and the final stage's `CMD` starts the portal
 * with the image's environment only, on a free PORT. The image's own HEALTHCHECK command must then report it
 * healthy; the check also asks that the base images are pinned to a version, the final stage holds no
 * development package, runs as an unprivileged USER with one VOLUME (the data directory), and keeps the demo and
 * the API docs off. Then the portal is stopped with SIGTERM. Exits 1 with the reason on any failure, so the file
 * cannot drift from what the product needs (`bun run test` runs it). `--keep` leaves the folders for a look.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const CONTEXT = join(import.meta.dir, '..');
const keep = process.argv.includes('--keep');
const started = performance.now();

interface Instruction {
  line: number;
  op: string;
  /** The instruction's text after its name and flags. */
  rest: string;
  flags: Record<string, string>;
}

interface Stage {
  name: string;
  image: string;
  /** The folder that stands for the container's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | null;
  volumes: string[];
  healthcheck: string | null;
  healthcheckFlags: Record<string, string>;
  cmd: string[] | null;
}

class CheckFailure extends Error {}

function fail(message: string): never {
  throw new CheckFailure(message);
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/** The Dockerfile's instructions: comments dropped, continued lines joined, flags (`--from=build`) split off. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const start = index + 1;
    let line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    while (line.endsWith('\\') && index + 1 < lines.length) {
      index++;
      const next = lines[index]!.trim();
      if (next.startsWith('#')) continue;
      line = `${line.slice(0, -1).trimEnd()} ${next}`;
    }
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) fail(`Dockerfile line ${start}: cannot read "${line}"`);
    let rest = match[2]!;
    const flags: Record<string, string> = {};
    for (;;) {
      const flag = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest);
      if (!flag) break;
      flags[flag[1]!] = flag[2] ?? 'true';
      rest = rest.slice(flag[0].length);
    }
    instructions.push({ line: start, op: match[1]!.toUpperCase(), rest: rest.trim(), flags });
  }
  return instructions;
}

/** `["a", "b"]` (exec form) or a shell command run by `sh -c` (shell form). */
function commandOf(text: string): string[] {
  if (text.startsWith('[')) {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) fail(`not a command: ${text}`);
    return parsed as string[];
  }
  return ['sh', '-c', text];
}

/** `KEY=value KEY2="two words"` */
function parseEnv(text: string, line: number): Record<string, string> {
  const env: Record<string, string> = {};
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/y;
  let position = 0;
  while (position < text.length) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (!match) fail(`Dockerfile line ${line}: ENV must be written KEY=value (the legacy "ENV KEY value" form is not read)`);
    const raw = match[2]!;
    env[match[1]!] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    position = pattern.lastIndex;
    while (text[position] === ' ') position++;
  }
  return env;
}

/** .dockerignore as Docker reads it for these simple patterns: a path (or glob) excludes itself and everything under it. */
function ignoreMatcher(): (path: string) => boolean {
  const file = join(CONTEXT, '.dockerignore');
  const globs = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim().replace(/^\/+|\/+$/g, ''))
        .filter((line) => line && !line.startsWith('#'))
        .map((pattern) => {
          if (pattern.startsWith('!')) fail('.dockerignore: exceptions (!pattern) are not read by this check');
          return new Bun.Glob(pattern);
        })
    : [];
  return (path) => {
    const parts = path.split('/');
    for (let length = 1; length <= parts.length; length++) {
      const prefix = parts.slice(0, length).join('/');
      if (globs.some((glob) => glob.match(prefix))) return true;
    }
    return false;
  };
}

/** A path inside the container as a path in the stage's folder. */
function inStage(stage: Stage, path: string): string {
  const absolute = path.startsWith('/') ? path : join(stage.workdir, path);
  return join(stage.root, absolute);
}

async function run(command: string[], options: { cwd: string; env: Record<string, string>; label: string; timeoutMs?: number }): Promise<string> {
  const child = Bun.spawn(command, { cwd: options.cwd, env: options.env, stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  if (code !== 0) fail(`${options.label} failed (exit ${code}):\n${`${stdout}\n${stderr}`.trim().split('\n').slice(-25).join('\n')}`);
  return stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A stage's environment for its processes: the host's PATH (for bun and sh) and HOME (bun's package cache), and the image's ENV with its paths in the stage's folder. */
function processEnv(stage: Stage, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
  if (process.env.BUN_INSTALL) env.BUN_INSTALL = process.env.BUN_INSTALL;
  for (const [key, value] of Object.entries(stage.env)) env[key] = value.startsWith('/') ? inStage(stage, value) : value;
  return { ...env, ...extra };
}

async function build(): Promise<Stage> {
  const instructions = parseDockerfile(readFileSync(join(CONTEXT, 'Dockerfile'), 'utf8'));
  const ignored = ignoreMatcher();
  const stages = new Map<string, Stage>();
  let stage: Stage | null = null;
  for (const instruction of instructions) {
    const where = `Dockerfile line ${instruction.line} (${instruction.op})`;
    if (instruction.op === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.rest);
      if (!match) fail(`${where}: cannot read "${instruction.rest}"`);
      const image = match[1]!;
      // A pinned base: an exact version (1.4.5, optionally with a variant such as -slim) or a digest.
      if (!/:\d+\.\d+\.\d+(-[\w.-]+)?$|@sha256:[0-9a-f]{64}$/.test(image)) fail(`${where}: the base image "${image}" is not pinned to an exact version`);
      const name = match[2] ?? String(stages.size);
      const root = join(workspace, `stage-${stages.size}-${name}`);
      mkdirSync(root, { recursive: true });
      stage = { name, image, root, workdir: '/', env: {}, user: null, volumes: [], healthcheck: null, healthcheckFlags: {}, cmd: null };
      stages.set(name, stage);
      console.log(`--- stage ${name} (${image})`);
      continue;
    }
    if (!stage) fail(`${where}: comes before the first FROM`);
    const current: Stage = stage;
    switch (instruction.op) {
      case 'WORKDIR':
        current.workdir = instruction.rest.startsWith('/') ? instruction.rest : join(current.workdir, instruction.rest);
        mkdirSync(inStage(current, '.'), { recursive: true });
        break;
      case 'ENV':
        Object.assign(current.env, parseEnv(instruction.rest, instruction.line));
        break;
      case 'COPY': {
        const parts = instruction.rest.startsWith('[') ? (JSON.parse(instruction.rest) as string[]) : instruction.rest.split(/\s+/);
        const destination = parts.pop()!;
        if (parts.length === 0) fail(`${where}: nothing to copy`);
        const target = inStage(current, destination);
        const into = destination.endsWith('/') || destination === '.' || parts.length > 1;
        const from = instruction.flags.from;
        if (from !== undefined) {
          const source = stages.get(from);
          if (!source) fail(`${where}: no earlier stage "${from}"`);
          for (const part of parts) {
            const path = inStage(source, part);
            if (!existsSync(path)) fail(`${where}: ${part} does not exist in stage ${from}`);
            const destinationPath = into && !statSync(path).isDirectory() ? join(target, part.split('/').pop()!) : target;
            mkdirSync(dirname(destinationPath), { recursive: true });
            // Hard links: the same files at a fraction of the time a copy of node_modules takes on a busy disk.
            await run(['cp', '-al', path, destinationPath], { cwd: workspace, env: processEnv(current), label: `${where} ${part}` });
          }
        } else {
          for (const part of parts) {
            const source = join(CONTEXT, part);
            if (!existsSync(source)) fail(`${where}: ${part} is not in the build context`);
            if (statSync(source).isDirectory()) {
              mkdirSync(target, { recursive: true });
              for (const entry of readdirSync(source)) {
                const path = relative(CONTEXT, join(source, entry));
                if (!ignored(path)) {
                  cpSync(join(source, entry), join(target, entry), {
                    recursive: true,
                    verbatimSymlinks: true,
                    filter: (file) => !ignored(relative(CONTEXT, file)),
                  });
                }
              }
            } else {
              if (ignored(part)) fail(`${where}: ${part} is excluded by .dockerignore`);
              const destinationPath = into ? join(target, part.split('/').pop()!) : target;
              mkdirSync(dirname(destinationPath), { recursive: true });
              cpSync(source, destinationPath);
            }
          }
        }
        break;
      }
      case 'RUN': {
        if (/(^|[\s;&|])\/(app|usr|etc|var|opt)\b/.test(instruction.rest)) fail(`${where}: write paths relative to WORKDIR, so the step runs the same here`);
        const step = performance.now();
        await run(commandOf(instruction.rest), { cwd: inStage(current, '.'), env: processEnv(current), label: `${where} "${instruction.rest}"` });
        console.log(`RUN ${instruction.rest}  (${seconds(step)})`);
        break;
      }
      case 'USER':
        current.user = instruction.rest;
        break;
      case 'VOLUME':
        current.volumes.push(...(instruction.rest.startsWith('[') ? (JSON.parse(instruction.rest) as string[]) : instruction.rest.split(/\s+/)));
        break;
      case 'EXPOSE':
      case 'LABEL':
        break;
      case 'HEALTHCHECK': {
        const match = /^CMD\s+(.*)$/.exec(instruction.rest);
        if (!match) fail(`${where}: expected HEALTHCHECK [options] CMD …`);
        current.healthcheck = match[1]!;
        current.healthcheckFlags = instruction.flags;
        break;
      }
      case 'CMD':
        current.cmd = commandOf(instruction.rest);
        break;
      default:
        fail(`${where}: this check does not perform ${instruction.op}; express the step with the instructions it knows or teach it`);
    }
  }
  if (!stage) fail('the Dockerfile has no FROM');
  return stage;
}

/** What the final stage must be, before it is started. */
function checkImage(image: Stage) {
  const modules = inStage(image, 'node_modules');
  const manifest = (path: string) =>
    JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
  const development = new Set(Object.keys(manifest(inStage(image, '.')).devDependencies ?? {}));
  // A development package may be there as what an installed production package asks for (an optional peer such as
  // typescript for i18next); one that nothing else asks for means the development packages came along.
  const wanted = new Set<string>();
  for (const entry of readdirSync(modules)) {
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : entry.startsWith('.') ? [] : [entry];
    for (const name of names) {
      if (development.has(name) || !existsSync(join(modules, name, 'package.json'))) continue;
      const { dependencies, peerDependencies, optionalDependencies } = manifest(join(modules, name));
      for (const wantedName of Object.keys({ ...dependencies, ...peerDependencies, ...optionalDependencies })) wanted.add(wantedName);
    }
  }
  const stray = [...development].filter((name) => existsSync(join(modules, name)) && !wanted.has(name));
  if (stray.length > 0) fail(`the image holds development packages: ${stray.join(', ')}`);
  if (!image.user || /^(root|0)(:|$)/.test(image.user)) fail('the image must run as an unprivileged USER');
  if (image.volumes.length !== 1) fail(`the image must declare one VOLUME (it declares ${image.volumes.length})`);
  if (image.env.DATA_DIR !== image.volumes[0]) fail(`DATA_DIR (${image.env.DATA_DIR ?? 'unset'}) must be the volume (${image.volumes[0]})`);
  if (image.env.DEMO !== '0') fail('the image must set DEMO=0: the demo password is public');
  if (image.env.API_DOCS !== '0') fail('the image must set API_DOCS=0');
  if (!image.healthcheck) fail('the image has no HEALTHCHECK');
  if (!/PORT/.test(image.healthcheck)) fail('the HEALTHCHECK must ask the port the portal listens on ($PORT)');
  if (!image.cmd) fail('the image has no CMD');
  if (!existsSync(inStage(image, 'src/web/dist/index.html'))) fail('the image holds no web build (src/web/dist/index.html)');
}

/** Whether the portal stopped within 20 s of SIGTERM (set once it is stopped). */
let stoppedInTime = false;

async function start(image: Stage) {
  const port = await freePort();
  // The image's environment and nothing of this machine's, but a port that is free here; the gateway's ports are picked by the system.
  const env = processEnv(image, { PORT: String(port), HOST: '127.0.0.1', TELTONIKA_PORT: '0', GT06_PORT: '0', OSMAND_PORT: '0' });
  const launch = performance.now();
  const portal = Bun.spawn(image.cmd!, { cwd: inStage(image, '.'), env, stdout: 'pipe', stderr: 'pipe' });
  let output = '';
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const collecting = Promise.all([collect(portal.stdout), collect(portal.stderr)]);
  try {
    const startPeriod = Number.parseInt(image.healthcheckFlags['start-period'] ?? '90', 10) * 1000;
    let healthy = false;
    while (!healthy && performance.now() - launch < startPeriod) {
      if (portal.exitCode !== null) fail(`the portal exited with ${portal.exitCode} while starting:\n${output.trim().split('\n').slice(-25).join('\n')}`);
      const probe = Bun.spawn(commandOf(image.healthcheck!), { cwd: inStage(image, '.'), env, stdout: 'ignore', stderr: 'ignore' });
      healthy = (await probe.exited) === 0;
      if (!healthy) await Bun.sleep(500);
    }
    if (!healthy) fail(`the HEALTHCHECK did not pass within the start period:\n${output.trim().split('\n').slice(-25).join('\n')}`);
    console.log(`started on PORT=${port}; the image's HEALTHCHECK passes (${seconds(launch)})`);
    const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { data: { status: string; database: string } };
    if (health.data.status !== 'ok' || health.data.database !== 'pglite') fail(`unexpected health: ${JSON.stringify(health)}`);
    const docs = await fetch(`http://127.0.0.1:${port}/api/docs/json`);
    if (docs.status !== 404) fail(`the API docs answer ${docs.status} with API_DOCS=0`);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    if (!page.ok || !(await page.text()).includes('<div id="root">')) fail('the web app is not served');
    if (readdirSync(inStage(image, image.volumes[0]!)).length === 0) fail('the portal wrote nothing into the data volume');
    console.log('health ok on the embedded database, web app served, API docs off, data in the volume');
  } finally {
    portal.kill('SIGTERM');
    const stopped = await Promise.race([portal.exited, Bun.sleep(20_000).then(() => null)]);
    if (stopped === null) {
      portal.kill('SIGKILL');
      await portal.exited;
    }
    await collecting;
    stoppedInTime = stopped !== null;
  }
}

const workspace = mkdtempSync(join(tmpdir(), 'fleet-container-'));
try {
  const image = await build();
  checkImage(image);
  await start(image);
  if (!stoppedInTime) fail('the portal did not stop within 20 s of SIGTERM');
  console.log(`container check passed in ${seconds(started)}`);
} catch (error) {
  console.error(error instanceof CheckFailure ? `container check failed: ${error.message}` : error);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${workspace}`);
  else rmSync(workspace, { recursive: true, force: true });
}
