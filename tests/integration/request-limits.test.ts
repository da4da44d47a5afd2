/**
 * Requests that used to stall or crash the process: huge and deeply nested bodies, control characters in text,
 * malformed tokens. Each is refused in milliseconds with a translated 4xx while the API stays responsive.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { BODY_LIMIT_BYTES, JSON_MAX_DEPTH, SERVER_MAX_BODY_BYTES } from '../../src/lib/api';
import { createTestApp, type TestApp } from '../support/app';

const AUTH_SECRET = 'request-limits-test-secret-0123456789abcdef';
let app: TestApp;
let base: string;

beforeAll(async () => {
  app = await createTestApp({ env: { AUTH_SECRET } });
  app.api.listen({ hostname: '127.0.0.1', port: 0, maxRequestBodySize: SERVER_MAX_BODY_BYTES });
  base = `http://127.0.0.1:${app.api.server!.port}`;
}, 60_000);
afterAll(async () => {
  await app?.api.stop(true);
  await app?.close();
});

const nested = (depth: number) => `{"username":${'['.repeat(depth)}${']'.repeat(depth)},"password":"x"}`;

function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-lang': 'en', ...headers } });
}

describe('request limits', () => {
  test('a deeply nested body is refused with 422 before it is parsed', async () => {
    for (const depth of [JSON_MAX_DEPTH + 1, 30_000, 100_000]) {
      const response = await post('/api/login', nested(depth));
      expect(response.status).toBe(422);
      expect(((await response.json()) as { message: string }).message).toBe(`The request nests deeper than ${JSON_MAX_DEPTH} levels.`);
    }
  });

  test('nesting within the limit still reaches validation', async () => {
    const response = await post('/api/login', nested(5));
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: Record<string, string[]> }).errors.username).toBeDefined();
  });

  test('a body over 1 MB is refused with 413, declared or chunked', async () => {
    const big = JSON.stringify({ username: 'a'.repeat(BODY_LIMIT_BYTES), password: 'x' });
    const declared = await post('/api/login', big);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { message: string }).message).toBe('The request is too large (at most 1024 KB).');
    const chunks = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < chunks.length; offset += 64 * 1024) controller.enqueue(chunks.slice(offset, offset + 64 * 1024));
        controller.close();
      },
    });
    const chunked = await post('/api/login', stream);
    expect(chunked.status).toBe(413);
    // Far beyond the limit the server itself refuses before reading.
    const huge = await post('/api/login', new Uint8Array(SERVER_MAX_BODY_BYTES + 1));
    expect(huge.status).toBe(413);
  });

  test('/api/health keeps answering while nested and oversized bodies arrive', async () => {
    const attack = Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? post('/api/login', nested(30_000)) : post('/api/login', JSON.stringify({ username: 'a'.repeat(3 * BODY_LIMIT_BYTES) })))),
    );
    // Each answer well inside a generous deadline (a request stuck behind a parse would wait for the whole attack).
    for (let i = 0; i < 10; i++) {
      const health = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(10_000) });
      expect(health.status).toBe(200);
    }
    const answers = await attack;
    expect(answers.every((answer) => answer.status === 422 || answer.status === 413)).toBe(true);
  });
});

describe('text fields', () => {
  test('NUL and other control characters are refused with a translated 422 naming the field', async () => {
    for (const value of ['a\u0000b', 'x\u0007', '\u001b[31m']) {
      const response = await app.call('POST', '/api/login', { body: { username: value, password: 'Secret-123!' }, headers: { 'x-lang': 'sv' } });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ username: ['Innehåller otillåtna tecken (styrtecken).'] });
    }
    const query = await app.call('GET', '/api/validate/email?email=a%00b@example.com');
    expect(query.status).toBe(422);
    expect(query.body.errors).toEqual({ email: ['Contains characters that are not allowed (control characters).'] });
  });

  test('tabs and line breaks stay allowed', async () => {
    const response = await app.call('POST', '/api/login', { body: { username: 'no\tbody@example.com\n', password: 'Secret-123!' } });
    expect(response.status).toBe(401);
  });
});

describe('tokens', () => {
  test('a validly signed token whose session id is not a UUID is a 401', async () => {
    const token = await new SignJWT({ sid: 'not-a-uuid' }).setProtectedHeader({ alg: 'HS256' }).setSubject('1').sign(new TextEncoder().encode(AUTH_SECRET));
    const response = await app.call('GET', '/api/me', { token });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('Unauthenticated.');
    for (const broken of ['%00', 'a.b.c', '....', 'eyJhbGciOiJub25lIn0.eyJzaWQiOjF9.']) {
      expect((await app.call('GET', '/api/me', { token: broken })).status).toBe(401);
    }
  });
});
