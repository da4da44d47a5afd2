import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { demoImei, seedDemo } from '../../src/demo/seed';
import { demoEnabled, loadConfig } from '../../src/lib/config';
import { createTestApp, type TestApp } from '../support/app';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { DEMO_VEHICLES: '4', DEMO_EMAIL: 'Demo@Example.com', DEMO_PASSWORD: 'Demo-pass-1!' } });
}, 60_000);
afterAll(async () => app?.close());

test('the demo administrator can log in at once, and a restart adds nothing twice', async () => {
  const devices = await seedDemo(app.platform);
  expect(devices.map((d) => d.imei)).toEqual([0, 1, 2, 3].map(demoImei));
  const again = await seedDemo(app.platform);
  expect(again.map((d) => d.unitId)).toEqual(devices.map((d) => d.unitId));
  const [counts] = await app.database.rows<{ users: number; units: number; accounts: number }>(sql`
    select (select count(*)::int from users) as users, (select count(*)::int from units) as units,
           (select count(*)::int from accounts) as accounts`);
  expect(counts).toEqual({ users: 2, units: 4, accounts: 1 });

  const token = await app.login({ email: 'demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const me = await app.call<{ user: { Email: string; Role: string } }>('GET', '/api/me', { token });
  expect(me.body.data?.user).toMatchObject({ Email: 'demo@example.com', Role: 'admin' });

  // The demo driver, an ordinary user, sees the three vehicles given to him (spec §6).
  const driverToken = await app.login({ email: 'driver.demo@example.com', password: 'Demo-pass-1!', subsiteId: 0 });
  const units = await app.call<Array<{ ID: number }>>('GET', '/api/units', { token: driverToken });
  expect(units.body.data!.map((unit) => unit.ID).sort((a, b) => a - b)).toEqual(devices.slice(0, 3).map((d) => d.unitId).sort((a, b) => a - b));
});

test('demo data is on by default only with the embedded database, and DEMO switches it either way', () => {
  expect(demoEnabled(loadConfig({}))).toBe(true);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://localhost/fleet' }))).toBe(false);
  expect(demoEnabled(loadConfig({ DATABASE_URL: 'postgres://localhost/fleet', DEMO: '1' }))).toBe(true);
  expect(demoEnabled(loadConfig({ DEMO: '0' }))).toBe(false);
});
