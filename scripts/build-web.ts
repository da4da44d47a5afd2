/**
 * Builds the React web app (src/web) into src/web/dist: index.html plus minified, content-hashed
 * JavaScript and CSS, and the static files of src/web/public (brand logos) copied as they are.
 * The Elysia process serves the result (src/web/serve.ts).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BunPlugin } from 'bun';

const root = join(import.meta.dir, '..');
const webDir = join(root, 'src/web');
const outdir = join(webDir, 'dist');

export async function buildWeb(options: { quiet?: boolean } = {}): Promise<void> {
  const started = performance.now();
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
    plugins: [lumaDeviceInline],
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
