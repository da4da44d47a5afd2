import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_MAX_BODY_BYTES } from '../../src/lib/api';
import { createTestApp, type TestApp } from './app';

export const DIST_DIR = join(import.meta.dir, '../../src/web/dist');

/** A free loopback port: bound and released at once (the app listens on it right after). */
function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status: 204 }) });
  const port = probe.port;
  probe.stop(true);
  if (!port) throw new Error('no free port');
  return port;
}

/**
 * The real app (API + built web app) on a free loopback port, over a fresh database and a real SMTP
 * server, so browser tests read two-factor codes and reset links from the mail the product sent.
 * Elysia listens itself (not behind a forwarding `fetch`), so WebSocket upgrades (the live map) work too.
 */
export async function startTestServer(options: { env?: Record<string, string> } = {}) {
  if (!existsSync(join(DIST_DIR, 'index.html'))) {
    throw new Error('src/web/dist is missing: run `bun run scripts/build-web.ts` first');
  }
  // The port is needed before the app exists (PUBLIC_URL goes into e-mailed links).
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const app: TestApp = await createTestApp({ env: { PUBLIC_URL: url, ...options.env } });
  const api = app.api;
  try {
    api.listen({ hostname: '127.0.0.1', port, maxRequestBodySize: SERVER_MAX_BODY_BYTES });
  } catch (error) {
    await app.close();
    throw error;
  }
  return {
    ...app,
    url,
    port,
    async close() {
      app.services.live.stop();
      await api.stop(true);
      await app.close();
    },
  };
}
export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
