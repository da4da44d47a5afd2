import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { addUnit } from '../units/testing';
import type { ReportSchedule, ReportScheduleList } from './model';
import { nextDue, periodOfRun } from './schedule';
import { insertFleetTrip } from './testing';

/**
 * Scheduled reports: CRUD (§5-style validation, account scope), the due times, and a run end to end: the scheduler
 * queues the due run once (however often it scans), the run renders the report and the e-mail with its attachment
 * arrives at the loopback SMTP server. Test clock: Monday 2 March 2026 08:00 UTC.
 */
let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let otherToken: string;
let unitId: number;

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  otherToken = await app.login(await app.createAccount());
  unitId = await addUnit(app, owner.accountId, '356307042492001', 'Scheduled car');
  await insertFleetTrip(app.database.query, { unitId, accountId: owner.accountId, start: '2026-03-03T07:00:00Z', minutes: 30, km: 25 });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const input = (overrides: Record<string, unknown> = {}) => ({
  name: 'Weekly summary',
  kind: 'summary',
  scope: { unitIds: [unitId], groupBy: 'vehicle' },
  frequency: 'weekly',
  format: 'csv',
  recipientUserIds: [],
  recipientEmails: ['fleet.manager@example.com'],
  ...overrides,
});

describe('due times', () => {
  test('weekly on Monday 06:00 local covering the week before; monthly on the 1st covering the month before', () => {
    const tz = 'Europe/Stockholm';
    expect(nextDue('weekly', new Date('2026-03-02T08:00:00Z'), tz).toISOString()).toBe('2026-03-09T05:00:00.000Z');
    expect(nextDue('weekly', new Date('2026-03-02T04:59:00Z'), tz).toISOString()).toBe('2026-03-02T05:00:00.000Z');
    expect(nextDue('monthly', new Date('2026-03-02T08:00:00Z'), tz).toISOString()).toBe('2026-04-01T04:00:00.000Z');
    expect(periodOfRun('weekly', new Date('2026-03-09T05:00:00Z'), tz)).toEqual({ from: '2026-03-02', to: '2026-03-08' });
    expect(periodOfRun('monthly', new Date('2026-04-01T04:00:00Z'), tz)).toEqual({ from: '2026-03-01', to: '2026-03-31' });
  });
});

describe('/api/reports/schedules', () => {
  test('create, read, change, list and delete; validation; another account sees nothing', async () => {
    const created = await app.call<ReportSchedule>('POST', '/api/reports/schedules', { token, body: input() });
    expect(created.status).toBe(200);
    const schedule = created.body.data!;
    expect(schedule).toMatchObject({ name: 'Weekly summary', kind: 'summary', frequency: 'weekly', nextRunAt: '2026-03-09T05:00:00.000Z', active: true });
    expect((await app.call('GET', `/api/reports/schedules/${schedule.id}`, { token })).status).toBe(200);
    expect((await app.call('GET', `/api/reports/schedules/${schedule.id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('PUT', `/api/reports/schedules/${schedule.id}`, { token: otherToken, body: input() })).status).toBe(404);
    expect((await app.call('DELETE', `/api/reports/schedules/${schedule.id}`, { token: otherToken })).status).toBe(404);
    // Another account's unit in the scope, no recipient, a bad address.
    expect((await app.call('POST', '/api/reports/schedules', { token: otherToken, body: input() })).status).toBe(404);
    const none = await app.call('POST', '/api/reports/schedules', { token, body: input({ recipientEmails: [] }) });
    expect(none.status).toBe(422);
    expect((await app.call('POST', '/api/reports/schedules', { token, body: input({ recipientEmails: ['not-an-address'] }) })).status).toBe(422);
    const changed = await app.call<ReportSchedule>('PUT', `/api/reports/schedules/${schedule.id}`, { token, body: input({ frequency: 'monthly', name: 'Monthly' }) });
    expect(changed.body.data).toMatchObject({ name: 'Monthly', frequency: 'monthly', nextRunAt: '2026-04-01T04:00:00.000Z' });
    const list = await app.call<ReportScheduleList>('GET', '/api/reports/schedules', { token });
    expect(list.body.data!.schedules.map((s) => s.id)).toContain(schedule.id);
    expect((await app.call<ReportScheduleList>('GET', '/api/reports/schedules', { token: otherToken })).body.data!.schedules).toEqual([]);
    expect((await app.call('DELETE', `/api/reports/schedules/${schedule.id}`, { token })).status).toBe(200);
    expect((await app.call('GET', `/api/reports/schedules/${schedule.id}`, { token })).status).toBe(404);
  });

  test('a due report arrives by e-mail with its attachment, once however often the scheduler scans', async () => {
    const created = await app.call<ReportSchedule>('POST', '/api/reports/schedules', {
      token,
      body: input({ recipientUserIds: [owner.userId], recipientEmails: ['fleet.manager@example.com'] }),
    });
    const schedule = created.body.data!;
    app.clock.set('2026-03-09T05:00:30Z');
    const schedules = app.services.reportSchedules;
    expect(await schedules.queueDue()).toBe(1);
    expect(await schedules.queueDue()).toBe(0);
    await app.platform.queue.drain();
    const mail = await app.smtp.waitFor('fleet.manager@example.com');
    expect(mail.subject).toContain('Weekly summary');
    expect(mail.subject).toContain('2026-03-02');
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.filename).toMatch(/\.csv$/);
    expect(mail.attachments[0]!.content).toContain('Scheduled car');
    expect(mail.attachments[0]!.content).toContain('25');
    const ownerMail = await app.smtp.waitFor(owner.email);
    expect(ownerMail.attachments).toHaveLength(1);
    // The clock moved a week: a fresh session.
    token = await app.login(owner);
    const after = (await app.call<ReportSchedule>('GET', `/api/reports/schedules/${schedule.id}`, { token })).body.data!;
    expect(after).toMatchObject({ nextRunAt: '2026-03-16T05:00:00.000Z', lastError: null });
    expect(after.lastRunAt).not.toBeNull();
    // A second drain sends nothing more.
    await app.platform.queue.drain();
    expect(app.smtp.inbox.filter((m) => m.subject.includes('Weekly summary'))).toHaveLength(0);
  }, 60_000);

  test('a PDF schedule sends a PDF', async () => {
    app.clock.set('2026-03-10T08:00:00Z');
    token = await app.login(owner);
    await app.call('POST', '/api/reports/schedules', { token, body: input({ name: 'Eco PDF', kind: 'eco', format: 'pdf', recipientEmails: ['eco@example.com'] }) });
    app.clock.set('2026-03-16T05:01:00Z');
    await app.services.reportSchedules.queueDue();
    await app.platform.queue.drain();
    const mail = await app.smtp.waitFor('eco@example.com');
    expect(mail.attachments[0]!.filename).toMatch(/\.pdf$/);
    expect(mail.attachments[0]!.contentType).toBe('application/pdf');
    expect(mail.attachments[0]!.content.startsWith('%PDF')).toBe(true);
  }, 60_000);
});

describe('a scheduled benefit report', () => {
  test('a monthly benefit value report arrives by e-mail with the month before as its attachment', async () => {
    app.clock.set('2026-03-20T08:00:00Z');
    token = await app.login(owner);
    const car = await addUnit(app, owner.accountId, '356307042492002', 'Benefit EV');
    await app.database.query(`UPDATE units SET car_usage = 'benefit', fuel_type = 'electricity', fuel_consumption_per_10km = 1.8, co2_g_per_km = 0, fuel_payer = 'company' WHERE id = $1`, [car]);
    const put = await app.call('PUT', `/api/reports/benefit/cars/${car}`, {
      token,
      body: { listPrice: 639_900, powertrain: 'electric', firstRegistered: '2024-01-15', vehicleTax: 360 },
    });
    expect(put.status).toBe(200);
    const created = await app.call<ReportSchedule>('POST', '/api/reports/schedules', {
      token,
      body: input({ name: 'Benefit monthly', kind: 'benefit', frequency: 'monthly', format: 'csv', scope: { unitIds: [car], groupBy: 'vehicle' }, recipientEmails: ['payroll@example.com'] }),
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ kind: 'benefit', frequency: 'monthly', nextRunAt: '2026-04-01T04:00:00.000Z' });
    // Another account cannot schedule a benefit report of this car.
    const stranger = await app.login(await app.createAccount());
    expect((await app.call('POST', '/api/reports/schedules', { token: stranger, body: input({ kind: 'benefit', scope: { unitIds: [car], groupBy: 'vehicle' } }) })).status).toBe(404);

    app.clock.set('2026-04-01T04:00:30Z');
    expect(await app.services.reportSchedules.queueDue()).toBeGreaterThanOrEqual(1);
    await app.platform.queue.drain();
    const mail = await app.smtp.waitFor('payroll@example.com');
    expect(mail.subject).toContain('Benefit monthly');
    expect(mail.subject).toContain('2026-03-01');
    expect(mail.attachments).toHaveLength(1);
    const attachment = mail.attachments[0]!;
    expect(attachment.filename).toMatch(/2026-03-01-2026-03-31\.csv$/);
    expect(attachment.content).toContain('Benefit EV');
    // domain.md's worked example with 2026's parameters: 17 168 + 2.785 % × 319 950 + 13 % × 319 950 + 360 = 68 032.11 a year, 5 669.34 a month.
    expect(attachment.content).toMatch(/5[\s\u00a0]?669[.,]34/);
  }, 60_000);
});
