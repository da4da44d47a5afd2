import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from './app';

export const DIST_DIR = join(import.meta.dir, '../../src/web/dist');

/**
 * The real app (API + built web app) on a free loopback port, over a fresh database and a real SMTP
 * server, so browser tests read two-factor codes and reset links from the mail the product sent.
 */
export async function startTestServer(options: { env?: Record<string, string> } = {}) {
  if (!existsSync(join(DIST_DIR, 'index.html'))) {
    throw new Error('src/web/dist is missing: run `bun run scripts/build-web.ts` first');
  }
  // The port is needed before the app exists (PUBLIC_URL goes into e-mailed links), so the listener
  // comes first and forwards to the app once it is assembled.
  let handler: ((request: Request) => Response | Promise<Response>) | null = null;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => (handler ? handler(request) : new Response('starting', { status: 503 })),
  });
  const url = `http://127.0.0.1:${server.port}`;
  let app: TestApp;
  try {
    app = await createTestApp({ env: { PUBLIC_URL: url, ...options.env } });
  } catch (error) {
    server.stop(true);
    throw error;
  }
  const api = app.api;
  handler = (request) => api.handle(request);
  return {
    ...app,
    url,
    async close() {
      server.stop(true);
      await app.close();
    },
  };
}
export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
