import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { IngestWriter } from '../tracking/service';
import { driveRecord } from '../trips/testing';
import type { TripList } from '../trips/model';
import type { CongestionReport } from './model';
import { cordonTrip } from './testing';

/**
 * GET /api/reports/congestion over positions stored through the real ingest pipeline (IngestWriter →
 * positions → trip detection), on PGlite and, with TEST_DB=postgres, on PostgreSQL. The test clock is
 * 2 March 2026; the drives are on Tuesday 24 February 2026 (low season: 35 kr at 07:00-08:29 and 16:00-17:29,
 * at most 105 kr a day).
 */
let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let unitId: number;
let otherToken: string;

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  token = await app.login(owner);
  const other = await app.createAccount();
  otherToken = await app.login(other);
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name) values (${owner.accountId}, '356307042495001', 'Benefit car') returning id`,
  );
  unitId = unit!.id;
  const writer = new IngestWriter(app.database, app.platform.events, app.platform.log, { maxDelayMs: 1 });
  // 07:05 Stockholm time in, and out; 16:05 back in and out again (that trip is made private below).
  const positions = [...cordonTrip('2026-02-24T06:05:00Z'), ...cordonTrip('2026-02-24T15:05:00Z', 'back')];
  for (let i = 0; i < positions.length; i += 25) {
    await writer.submit({ unitId, accountId: owner.accountId, protocol: 'teltonika', deviceId: 'test', records: positions.slice(i, i + 25).map(driveRecord), receivedAt: new Date() });
  }
  await writer.drain();
  await app.services.trips.idle();
  const trips = await app.call<TripList>('GET', `/api/trips?unitId=${unitId}&from=2026-02-24&to=2026-02-24`, { token });
  expect(trips.body.data!.trips.length).toBe(2);
  const afternoon = trips.body.data!.trips[1]!;
  expect((await app.call('POST', `/api/trips/${afternoon.id}`, { token, body: { type: 'private' } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('GET /api/reports/congestion', () => {
  test('passages of each trip with their amounts, the daily maximum and the period total', async () => {
    const result = await app.call<CongestionReport>('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-02-01&to=2026-02-28`, { token });
    expect(result.status).toBe(200);
    const report = result.body.data!;
    expect({ from: report.from, to: report.to, timeZone: report.timeZone, unitName: report.unitName }).toEqual({
      from: '2026-02-01',
      to: '2026-02-28',
      timeZone: 'Europe/Stockholm',
      unitName: 'Benefit car',
    });
    expect(report.days.length).toBe(1);
    const [day] = report.days;
    expect(day!.date).toBe('2026-02-24');
    expect(day!.passages.map((p) => [p.localTime.slice(0, 2), p.station, p.city, p.zone, p.tariff, p.amount, p.reason, p.private])).toEqual([
      ['07', 'Danvikstull', 'stockholm', 'inner', 35, 35, null, false],
      ['07', 'Skansbron', 'stockholm', 'inner', 35, 35, null, false],
      ['16', 'Skansbron', 'stockholm', 'inner', 35, 35, null, true],
      // 140 kr would exceed the low-season maximum of 105 kr.
      ['16', 'Danvikstull', 'stockholm', 'inner', 35, 0, 'dailyMax', true],
    ]);
    expect(day!.total).toBe(105);
    expect(day!.cities).toEqual([{ city: 'stockholm', total: 105, cap: 105, capped: true }]);
    expect(report.total).toBe(105);
    expect(report.passageCount).toBe(4);
    expect(report.totals).toEqual({ business: 70, private: 35, other: 0, none: 0 });
    expect(report.trips.map((trip) => [trip.type, trip.passages, trip.amount])).toEqual([
      ['business', 2, 70],
      ['private', 2, 35],
    ]);
    // Every passage belongs to its trip, and its time lies within it.
    for (const passage of day!.passages) {
      const trip = report.trips.find((t) => t.tripId === passage.tripId)!;
      expect(passage.time >= trip.startTime && passage.time <= trip.stopTime).toBe(true);
    }
  });

  test('a period without passages, and this month by default', async () => {
    const empty = await app.call<CongestionReport>('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-01-01&to=2026-01-31`, { token });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ days: [], trips: [], total: 0, passageCount: 0 });
    const current = await app.call<CongestionReport>('GET', `/api/reports/congestion?unitId=${unitId}`, { token });
    expect(current.body.data).toMatchObject({ from: '2026-03-01', to: '2026-03-31', total: 0 });
    // A month given by its first day only.
    const february = await app.call<CongestionReport>('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-02-01`, { token });
    expect(february.body.data).toMatchObject({ from: '2026-02-01', to: '2026-02-28', total: 105 });
  });

  test('bad periods are 422 with the field and a translated message', async () => {
    const reversed = await app.call('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-02-10&to=2026-02-01`, { token });
    expect(reversed.status).toBe(422);
    expect(reversed.body.errors).toMatchObject({ to: ['The end date must be after the start date.'] });
    const tooLong = await app.call('GET', `/api/reports/congestion?unitId=${unitId}&from=2025-02-01&to=2026-02-01`, { token });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toMatchObject({ to: ['The period can be at most 12 months.'] });
    // Twelve months exactly is allowed.
    expect((await app.call('GET', `/api/reports/congestion?unitId=${unitId}&from=2025-03-01&to=2026-02-28`, { token })).status).toBe(200);
    const badDate = await app.call('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-02-30`, { token });
    expect(badDate.status).toBe(422);
    expect(Object.keys(badDate.body.errors as Record<string, unknown>)).toEqual(['from']);
    expect((await app.call('GET', '/api/reports/congestion?unitId=abc', { token })).status).toBe(422);
  });

  test('needs a login; another account sees nothing of the unit', async () => {
    const anonymous = await app.call('GET', `/api/reports/congestion?unitId=${unitId}`);
    expect(anonymous.status).toBe(401);
    const foreign = await app.call('GET', `/api/reports/congestion?unitId=${unitId}&from=2026-02-01&to=2026-02-28`, { token: otherToken });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('Danvikstull');
  });
});
