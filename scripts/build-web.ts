/**
 * Builds the React web app (src/web) into src/web/dist: index.html plus minified, content-hashed
 * JavaScript and CSS, and the static files of src/web/public (brand logos) copied as they are.
 * The Elysia process serves the result (src/web/serve.ts).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BunPlugin } from 'bun';
import { PUBLIC_GROUPS, PUBLIC_SERVER_PREFIXES } from '../src/web/locales/public-groups';

const root = join(import.meta.dir, '..');
const webDir = join(root, 'src/web');
const defaultOutdir = join(webDir, 'dist');

export async function buildWeb(options: { quiet?: boolean; outdir?: string } = {}): Promise<void> {
  const started = performance.now();
  const outdir = options.outdir ?? defaultOutdir;
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(webDir, 'index.html')],
    outdir,
    target: 'browser',
    minify: true,
    sourcemap: 'none',
    splitting: true,
    naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
    publicPath: '/',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    plugins: [lumaDeviceInline, publicTexts],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error('web build failed');
  }
  // The service worker keeps a fixed name at the root: its URL is its identity and its scope is the whole app.
  const worker = await Bun.build({
    entrypoints: [join(webDir, 'sw.ts')],
    outdir,
    target: 'browser',
    minify: true,
    sourcemap: 'none',
    naming: { entry: 'sw.js' },
  });
  if (!worker.success) {
    for (const log of worker.logs) console.error(log);
    throw new Error('service worker build failed');
  }
  result.outputs.push(...worker.outputs);
  const publicDir = join(webDir, 'public');
  if (existsSync(publicDir)) cpSync(publicDir, outdir, { recursive: true });
  precompress(outdir);
  if (!options.quiet) {
    for (const output of result.outputs) {
      console.log(`  ${relative(root, output.path)}  ${(output.size / 1024).toFixed(1)} kB`);
    }
    console.log(`web app built in ${Math.round(performance.now() - started)} ms → ${relative(root, outdir)}`);
  }
}

/**
 * luma.gl (under deck.gl) loads its WebGL device class with a dynamic import, which the bundler makes a chunk of
 * its own: one more request, fetched only once the map has been created and waits for it. The map needs it at
 * once, so the build imports it statically. Fails the build if a luma.gl upgrade changes the import.
 */
const lumaDeviceInline: BunPlugin = {
  name: 'luma-webgl-device-inline',
  setup(build) {
    build.onLoad({ filter: /@luma\.gl[\\/]webgl[\\/]dist[\\/]adapter[\\/]webgl-adapter\.js$/ }, async ({ path }) => {
      const source = await Bun.file(path).text();
      const dynamic = 'await import("./webgl-device.js")';
      if (!source.includes(dynamic)) throw new Error(`${path}: the WebGL device import changed; update lumaDeviceInline`);
      return { contents: `import * as webglDeviceModule from './webgl-device.js';\n${source.replaceAll(dynamic, 'webglDeviceModule')}`, loader: 'js' };
    });
  },
};

/**
 * `public-texts:<language>`: the web texts and server messages of a language the signed-out pages use (see
 * src/web/locales/public-groups.ts), as a chunk of their own, so that the login page does not load the whole catalogue (src/web/lib/i18n.ts).
 */
const publicTexts: BunPlugin = {
  name: 'public-texts',
  setup(build) {
    build.onResolve({ filter: /^public-texts:(sv|en|no)$/ }, ({ path }) => ({ path: path.slice('public-texts:'.length), namespace: 'public-texts' }));
    build.onLoad({ filter: /.*/, namespace: 'public-texts' }, ({ path }) => {
      const web = JSON.parse(readFileSync(join(webDir, 'locales', `${path}.json`), 'utf8')) as Record<string, unknown>;
      const server = JSON.parse(readFileSync(join(root, 'src/lib/i18n/messages', `${path}.json`), 'utf8')) as Record<string, string>;
      const texts = {
        translation: Object.fromEntries(PUBLIC_GROUPS.map((group) => [group, web[group]])),
        server: Object.fromEntries(Object.entries(server).filter(([key]) => PUBLIC_SERVER_PREFIXES.some((prefix) => key.startsWith(prefix)))),
      };
      return { contents: JSON.stringify(texts), loader: 'json' };
    });
  },
};

/** Text files get a .gz twin, sent to browsers that accept gzip (src/web/serve.ts). */
export function precompress(dir: string) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) precompress(path);
    else if (/\.(js|mjs|css|html|svg|json|geojson|txt)$/.test(name)) writeFileSync(`${path}.gz`, Bun.gzipSync(readFileSync(path), { level: 9 }));
  }
}

if (import.meta.main) {
  try {
    await buildWeb();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
