import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../tests/support/app';
import { createTestDatabase } from '../../tests/support/database';
import { ConfigError, demoEnabled, loadConfig } from './config';
import { migrate, readMigrations, SchemaTooNewError } from './db/migrate';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

test('health names the database kind and the schema version', async () => {
  const result = await app.call<{ status: string; database: string; schemaVersion: number }>('GET', '/api/health');
  expect(result.status).toBe(200);
  expect(result.body.data!.status).toBe('ok');
  expect(result.body.data!.database).toBe(process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite');
  expect(result.body.data!.schemaVersion).toBe(readMigrations().at(-1)!.version);
});

test('the OpenAPI document lists the endpoints', async () => {
  const response = await app.api.handle(new Request('http://localhost/api/docs/json'));
  const document = (await response.json()) as { paths: Record<string, unknown> };
  for (const path of ['/api/login', '/api/logout', '/api/2fa/verify', '/api/password/reset', '/api/brands/{subsiteId}', '/api/health']) {
    expect(Object.keys(document.paths)).toContain(path);
  }
});

test('unknown API paths and malformed bodies get the envelope', async () => {
  const missing = await app.call('GET', '/api/nothing-here');
  expect(missing.status).toBe(404);
  expect(missing.body.success).toBe(false);
  const response = await app.api.handle(
    new Request('http://localhost/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' }),
  );
  expect(response.status).toBe(400);
  expect(((await response.json()) as { success: boolean }).success).toBe(false);
});

test('configuration names every bad value', () => {
  expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', DEMO: 'maybe' })).toThrow(ConfigError);
  try {
    loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url' });
  } catch (error) {
    const message = (error as Error).message;
    expect(message).toContain('PORT must be a number (it is "eighty")');
    // A database URL may hold a password: named, never echoed.
    expect(message).toContain('DATABASE_URL must be a URL');
    expect(message).not.toContain('not a url');
  }
  expect(loadConfig({}).PORT).toBe(3000);
  expect(demoEnabled(loadConfig({}))).toBe(true);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://x@localhost/db' }))).toBe(false);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://x@localhost/db', DEMO: '1' }))).toBe(true);
});

test('a database with a newer schema than the code is refused', async () => {
  const database = await createTestDatabase();
  try {
    await database.handle.exec(`INSERT INTO schema_migrations (version, name) VALUES (9999, 'from_the_future')`);
    await expect(migrate(database.handle)).rejects.toBeInstanceOf(SchemaTooNewError);
  } finally {
    await database.dispose();
  }
}, 120_000);
