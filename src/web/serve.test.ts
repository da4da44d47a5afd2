import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webRoutes } from './serve';

const dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
mkdirSync(join(dist, 'assets'));
mkdirSync(join(dist, 'brands/0'), { recursive: true });
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title>');
writeFileSync(join(dist, 'assets/index-abc123.js'), 'console.log(1)');
writeFileSync(join(dist, 'assets/index-abc123.js.gz'), Bun.gzipSync(new TextEncoder().encode('console.log(1)')));
writeFileSync(join(dist, 'brands/0/logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
const app = webRoutes(dist);
const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));

afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('web routes', () => {
  test('client routes get index.html, never cached', async () => {
    for (const path of ['/', '/user/realtime-tracking', '/administration/nope', '/a/b/c']) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<title>app</title>');
    }
  });

  test('hashed assets are cached for good and sent gzipped when accepted', async () => {
    const plain = await get('/assets/index-abc123.js');
    expect(plain.headers.get('cache-control')).toContain('immutable');
    expect(plain.headers.get('content-type')).toContain('javascript');
    expect(await plain.text()).toBe('console.log(1)');
    const gzipped = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('content-type')).toContain('javascript');
  });

  test('static files, missing assets, API paths and escapes', async () => {
    const logo = await get('/brands/0/logo.svg');
    expect(logo.headers.get('content-type')).toContain('image/svg+xml');
    expect((await get('/assets/index-old999.js')).status).toBe(404);
    expect((await get('/api/nothing')).status).toBe(404);
    const traversal = await get('/%2e%2e/%2e%2e/etc/passwd');
    expect(await traversal.text()).not.toContain('root:');
  });

  test('without a build the plugin stays out of the way', async () => {
    const empty = webRoutes(join(dist, 'missing'));
    const response = await empty.handle(new Request('http://localhost/user/register'));
    expect(response.status).toBe(404);
  });
});
