/** Security headers on every answer, and the API documentation served from the installation (or not at all). */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/app';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const get = (target: TestApp, path: string) => target.api.handle(new Request(`http://localhost${path}`));

describe('security headers', () => {
  test('every kind of answer carries them: data, errors, refusals, documents', async () => {
    const answers = [
      await get(app, '/api/health'),
      await get(app, '/api/me'),
      await get(app, '/api/no-such-route'),
      await get(app, '/api/docs'),
      await app.api.handle(new Request('http://localhost/api/login', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) } })),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 200, 413]);
    for (const answer of answers) {
      const policy = answer.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('same-origin');
      expect(answer.headers.get('strict-transport-security')).toBeNull();
    }
  });

  test('HSTS is sent when the portal is reached over HTTPS', async () => {
    const secure = await createTestApp({ env: { PUBLIC_URL: 'https://portal.example.com' } });
    try {
      const answer = await get(secure, '/api/health');
      expect(answer.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });
});

describe('API documentation', () => {
  test('the page loads its scripts from the installation, none inline and none from elsewhere', async () => {
    const page = await (await get(app, '/api/docs')).text();
    const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(content!.trim()).toBe('');
      const source = attributes!.match(/src="([^"]+)"/)?.[1];
      expect(source).toStartWith('/api/docs/assets/');
      const asset = await get(app, source!);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain('javascript');
    }
    expect(page).not.toMatch(/https?:\/\//);
    expect((await get(app, '/api/docs/json')).status).toBe(200);
  });

  test('API_DOCS=0 leaves the page and the document out', async () => {
    const closed = await createTestApp({ env: { API_DOCS: '0' } });
    try {
      expect((await get(closed, '/api/docs')).status).toBe(404);
      expect((await get(closed, '/api/docs/json')).status).toBe(404);
      expect((await get(closed, '/api/health')).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});
