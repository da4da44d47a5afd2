/**
 * Spec §2 sidebar rule: a Bas-only user does not have places, the car schedule or safe return home. The screens hide
 * them, and the API refuses them with a translated 403, so a typed address or an old bookmark reaches nothing either.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { translate } from '../../src/lib/i18n';
import { createTestApp, type TestApp } from '../support/app';

let app: TestApp;
let basicToken: string;
let fullToken: string;

const HIDDEN = ['/api/places', '/api/car-schedule/week?week_day=2026-03-04', '/api/admin/safe-home/list'];

beforeAll(async () => {
  app = await createTestApp();
  const full = await app.createAccount();
  fullToken = await app.login(full);
  const basic = await app.createAccount();
  await app.database.rows(sql`update users set basic_only = true where id = ${basic.userId}`);
  basicToken = await app.login(basic);
}, 120_000);

afterAll(async () => {
  await app?.close();
}, 60_000);

describe('a Bas-only user', () => {
  test('is refused places, the car schedule and safe return home, in their language', async () => {
    for (const path of HIDDEN) {
      const result = await app.call('GET', path, { token: basicToken });
      expect({ path, status: result.status }).toEqual({ path, status: 403 });
      expect({ path, text: JSON.stringify(result.body) }).toEqual({ path, text: expect.stringContaining(translate('en', 'errors.basicOnly')) });
    }
  });

  test('a user with a full subscription reaches the same calls', async () => {
    for (const path of HIDDEN) {
      const result = await app.call('GET', path, { token: fullToken });
      expect({ path, status: result.status }).toEqual({ path, status: 200 });
    }
  });

  test('the trip log, their one screen, still answers', async () => {
    expect((await app.call('GET', '/api/units', { token: basicToken })).status).toBe(200);
  });
});
