import { existsSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { Elysia, NotFoundError } from 'elysia';

/**
 * Serves the built web app (scripts/build-web.ts → src/web/dist) from the API process.
 * Files that exist are sent as they are (hashed assets cached for a year); every other path outside
 * /api gets index.html, so the client router decides (and shows its not-found page).
 * Without a build the plugin answers like the API does for unknown paths, so the API runs without it.
 */
export function webRoutes(distDir: string) {
  const root = normalize(distDir);
  const indexFile = join(root, 'index.html');

  function fileFor(pathname: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return null;
    }
    if (decoded.includes('\0')) return null;
    const candidate = normalize(join(root, decoded));
    if (candidate !== root && !candidate.startsWith(root + sep)) return null;
    try {
      return statSync(candidate).isFile() ? candidate : null;
    } catch {
      return null;
    }
  }

  /** The file itself, or its precompressed .gz twin when the browser accepts gzip. */
  function send(request: Request, file: string, headers: Record<string, string>): Response {
    const acceptsGzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
    const type = Bun.file(file).type;
    if (acceptsGzip && existsSync(`${file}.gz`)) {
      return new Response(Bun.file(`${file}.gz`), {
        headers: { ...headers, 'content-type': type, 'content-encoding': 'gzip', vary: 'accept-encoding' },
      });
    }
    return new Response(Bun.file(file), { headers: { ...headers, 'content-type': type, vary: 'accept-encoding' } });
  }

  function serve(request: Request): Response {
    const { pathname } = new URL(request.url);
    if (pathname === '/api' || pathname.startsWith('/api/') || !existsSync(indexFile)) throw new NotFoundError();
    const file = pathname === '/' ? null : fileFor(pathname);
    if (file && file !== indexFile) {
      const immutable = pathname.startsWith('/assets/');
      return send(request, file, {
        // The service worker is checked for a new version on every visit; hashed assets never change.
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : pathname === '/sw.js' ? 'no-cache' : 'public, max-age=3600',
        'x-content-type-options': 'nosniff',
      });
    }
    // A missing hashed asset is a stale page asking for an old build: a plain 404, not the app.
    if (pathname.startsWith('/assets/')) return new Response('Not found', { status: 404 });
    return send(request, indexFile, {
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    });
  }

  return new Elysia({ name: 'web-routes' })
    .get('/', ({ request }) => serve(request), { detail: { hide: true } })
    .get('/*', ({ request }) => serve(request), { detail: { hide: true } });
}
