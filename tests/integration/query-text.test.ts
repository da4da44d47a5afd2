/**
 * Free-text query values are taken as typed. The HTTP layer splits a query value at its commas; every search and
 * id list reads it through the shared `queryText` / `joinQueryValue`, so a comma never turns into "Ogiltigt värde.".
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../support/app';

let app: TestApp;
let token: string;
const imeis = ['358100000071001', '358100000071002'];

beforeAll(async () => {
  app = await createTestApp();
  const admin = await app.createAccount();
  token = await app.login(admin);
  await app.database.rows(sql`
    insert into units (account_id, imei, name) values
      (${admin.accountId}, ${imeis[0]}, 'Volvo V60, blå'),
      (${admin.accountId}, ${imeis[1]}, 'Kia Ceed')`);
}, 120_000);

afterAll(async () => {
  await app?.close();
}, 60_000);

describe('a comma in a free-text query', () => {
  test('each search takes it as part of the text', async () => {
    const comma = encodeURIComponent('Volvo V60, blå');
    for (const path of [`/api/units?q=${comma}`, `/api/geofences?q=${comma}`, `/api/admin/alarm-receiver/list?q=${comma}`, `/api/admin/users?q=${comma}`, `/api/places?q=${comma}`]) {
      const result = await app.call('GET', path, { token });
      expect({ path, status: result.status }).toEqual({ path, status: 200 });
    }
    // The search found the unit by its whole name, comma included.
    const units = await app.call<{ units?: Array<{ name: string }> } | Array<{ name: string }>>('GET', `/api/units?q=${comma}`, { token });
    expect(JSON.stringify(units.body.data)).toContain('Volvo V60, blå');
    expect(JSON.stringify(units.body.data)).not.toContain('Kia Ceed');
  });

  test('a list of IMEIs separated by commas is read as that list', async () => {
    const week = await app.call<{ units?: unknown }>('GET', `/api/car-schedule/week?week_day=2026-03-04&Imeis=${imeis.join(',')}`, { token });
    expect(week.status).toBe(200);
    const text = JSON.stringify(week.body.data);
    expect(text).toContain(imeis[0]!);
    expect(text).toContain(imeis[1]!);
  });
});
