import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { Brand } from './model';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

test('eight brands come from data, each with its own name, logo, colours and design', async () => {
  const result = await app.call<Brand[]>('GET', '/api/brands');
  expect(result.status).toBe(200);
  const brands = result.body.data!;
  expect(brands.map((b) => b.subsiteId)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(new Set(brands.map((b) => b.name)).size).toBe(8);
  expect(brands[7]!.logoVariant).toBe('black');
  expect(brands[6]!.noticeUrl).toBeString();
  expect(brands[0]!.termsVisible).toBe(true);
  expect(brands.filter((b) => b.supportEmail).map((b) => b.subsiteId)).toEqual([0, 2, 3]);
  // Changing the row changes the brand: nothing is hard-coded.
  await app.database.rows(sql`update brands set name = 'Renamed' where subsite_id = 4`);
  expect((await app.call<Brand>('GET', '/api/brands/4')).body.data!.name).toBe('Renamed');
});

test('unknown sub-sites are 404 or 422', async () => {
  expect((await app.call('GET', '/api/brands/8')).status).toBe(422);
  await app.database.rows(sql`delete from announcements`);
  expect((await app.call('GET', '/api/contact-address?SubsiteID=9')).status).toBe(422);
});

test('contact address per sub-site', async () => {
  const result = await app.call<{ email: string; phonelbl: string; address: string }>('GET', '/api/contact-address?SubsiteID=3');
  expect(result.body.data).toEqual({
    email: 'post@kjorebokpro.example',
    phonelbl: '+47 22 00 00 00',
    address: 'Kjørebok Pro AS, Karl Johans gate 1, 0154 Oslo',
  });
});

test('announcement per language and sub-site, newest active first', async () => {
  await app.database.rows(sql`insert into announcements (subsite_id, language, text) values (0, 'sv', 'Underhåll i natt'), (0, 'en', 'Maintenance tonight')`);
  const sv = await app.call<{ text: string }>('POST', '/api/announcement', { body: { lang: 'sv', subsiteID: 0 } });
  expect(sv.body.data!.text).toBe('Underhåll i natt');
  const en = await app.call<{ text: string }>('POST', '/api/announcement', { body: { lang: 'en', subsiteID: 0 } });
  expect(en.body.data!.text).toBe('Maintenance tonight');
  const none = await app.call('POST', '/api/announcement', { body: { lang: 'no', subsiteID: 0 } });
  expect(none.body.data).toBeNull();
});

test('feature switches: car schedule for any user, safe return home for administrators only', async () => {
  const admin = await app.createAccount({ subsiteId: 1 });
  const adminToken = await app.login(admin);
  expect((await app.call('GET', '/api/car-schedule/enabled', { token: adminToken })).body.data).toEqual({ EnableCarSchedule: true });
  expect((await app.call('GET', '/api/admin/safe-home/config', { token: adminToken })).body.data).toEqual({ EnableSafeReturnHome: false });
  const user = await app.createAccount({ subsiteId: 2, role: 'user' });
  const userToken = await app.login(user);
  expect((await app.call('GET', '/api/car-schedule/enabled', { token: userToken })).body.data).toEqual({ EnableCarSchedule: false });
  expect((await app.call('GET', '/api/admin/safe-home/config', { token: userToken })).status).toBe(403);
  expect((await app.call('GET', '/api/car-schedule/enabled')).status).toBe(401);
});
