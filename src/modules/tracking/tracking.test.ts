import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { DecodedRecord, NormalizedIo } from '../../lib/tracker-record';
import type { DatabaseHandle } from '../../lib/db/client';
import { IngestWriter } from './ingest';
import { decodeUnitList, type HistoryDay, isCalendarDate, type TrackedUnit, type TrackedUnitList, UNIT_LIST_FIELDS, unitStatus } from './model';
import { dayOf as localDate, startOfDay } from '../../lib/time';
import { createTrackingService } from './service';

let app: TestApp;
let writer: IngestWriter;
let imeiSequence = 0;

beforeAll(async () => {
  app = await createTestApp();
  // Records carry real fix times (the ingest flags fixes ahead of the real clock); the rules follow the same time.
  app.clock.set(new Date());
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function addUnit(accountId: number, name: string, extra: { registrationNumber?: string } = {}): Promise<number> {
  imeiSequence += 1;
  const imei = `3563070425${String(imeiSequence).padStart(5, '0')}`;
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number) values (${accountId}, ${imei}, ${name}, ${extra.registrationNumber ?? ''})
    returning id`);
  return row!.id;
}

function record(time: Date, overrides: Partial<DecodedRecord> & { normalized?: NormalizedIo } = {}): DecodedRecord {
  return {
    protocol: 'teltonika',
    deviceId: 'x',
    time,
    latitude: 59.32931234,
    longitude: 18.06861789,
    altitude: 20,
    speedKmh: 50,
    course: 90,
    satellites: 9,
    valid: true,
    priority: 0,
    eventId: 0,
    io: {},
    normalized: { ignition: true },
    ...overrides,
  };
}

async function ingest(unitId: number, records: DecodedRecord[], receivedAt = new Date()) {
  const [unit] = await app.database.rows<{ account_id: number }>(sql`select account_id from units where id = ${unitId}`);
  await writer.submit({ unitId, accountId: unit!.account_id, protocol: 'teltonika', deviceId: 'x', records, receivedAt });
}

const ago = (ms: number) => new Date(app.clock.now().getTime() - ms);

describe('GET /api/tracking/units', () => {
  test("lists every unit of the caller's account with its latest state, by name", async () => {
    const a = await app.createAccount();
    const b = await app.createAccount();
    const van = await addUnit(a.accountId, 'Van', { registrationNumber: 'ABC123' });
    const boat = await addUnit(a.accountId, 'Boat');
    const parked = await addUnit(a.accountId, 'Parked car');
    const old = await addUnit(a.accountId, 'Old tractor');
    const foreign = await addUnit(b.accountId, 'Other company car');
    await ingest(van, [
      record(ago(20_000), { latitude: 59.1, speedKmh: 10 }),
      record(ago(10_000), {
        course: 271.6,
        normalized: {
          ignition: true,
          odometerM: 123456.7,
          externalVoltageV: 12.3456,
          din1: true,
          din2: false,
          dout1: true,
          driverId: '01A2B3C4D5E6',
          ble: [{ mac: '7CD9F4112233', temperatureC: 4.5, humidityPct: 40 }],
        },
      }),
    ]);
    await ingest(parked, [record(ago(60_000), { speedKmh: 2, normalized: { ignition: false } })]);
    await ingest(old, [record(ago(40 * 60_000), { speedKmh: 70 })], ago(31 * 60_000));
    await ingest(foreign, [record(ago(5_000))]);

    // Marker, colour, operating mode, department and tags as the units module keeps them.
    const [department] = await app.database.rows<{ id: number }>(sql`insert into departments (account_id, name) values (${a.accountId}, 'Service') returning id`);
    const departmentId = department!.id;
    await app.database.rows(sql`update units set marker_icon = 'truck', color = '#c0392b', operating_mode = 'realtime', department_id = ${departmentId} where id = ${van}`);
    await app.database.rows(sql`
      with t as (insert into tags (account_id, name) values (${a.accountId}, 'Stockholm'), (${a.accountId}, 'Kyl, frys') returning id, account_id)
      insert into unit_tags (unit_id, tag_id, account_id) select ${van}, id, account_id from t`);
    // The driver checked in on the van in the trip log; another company's driver on its own car never shows.
    await app.database.rows(sql`insert into trip_driver_checkins (unit_id, account_id, user_id, checked_in_at) select id, account_id, ${a.userId}, now() from units where id = ${van}`);
    await app.database.rows(sql`update users set first_name = 'Foreign', last_name = 'Driver' where id = ${b.userId}`);
    await app.database.rows(sql`insert into trip_driver_checkins (unit_id, account_id, user_id, checked_in_at) select id, account_id, ${b.userId}, now() from units where id = ${foreign}`);
    const result = await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token: await app.login(a) });
    expect(result.status).toBe(200);
    // Where the server's time went, for the browser's developer tools and bench:map.
    expect(result.headers.get('server-timing')).toMatch(/^(?:(?:rows|access|drivers);dur=[\d.]+, ){3}json;dur=[\d.]+$/);
    expect(result.body.data!.fields).toEqual(UNIT_LIST_FIELDS);
    const { serverTime, units } = decodeUnitList(result.body.data!);
    expect(serverTime).toBe(app.clock.now().toISOString());
    expect(units.map((unit) => unit.name)).toEqual(['Boat', 'Old tractor', 'Parked car', 'Van']);
    expect(units.find((unit) => unit.id === van)).toEqual({
      id: van,
      name: 'Van',
      registrationNumber: 'ABC123',
      imei: expect.stringMatching(/^\d{15}$/),
      vehicleType: 'passenger_car',
      lat: 59.329312,
      lon: 18.068618,
      speed: 50,
      course: 272,
      ignition: true,
      valid: true,
      time: ago(10_000).toISOString(),
      lastSeen: expect.any(String),
      status: 'moving',
      odometerM: 123457,
      externalVoltageV: 12.35,
      din1: true,
      din2: false,
      din3: null,
      dout1: true,
      dout2: null,
      dout3: null,
      ble: [{ mac: '7CD9F4112233', temperatureC: 4.5, humidityPct: 40 }],
      driverId: '01A2B3C4D5E6',
      markerIcon: 'truck',
      color: '#c0392b',
      operatingMode: 'realtime',
      departmentId,
      department: 'Service',
      tags: ['Kyl, frys', 'Stockholm'],
      driverName: expect.stringMatching(/^Test User \d+$/),
    } satisfies TrackedUnit);
    expect(units.find((unit) => unit.id === parked)).toMatchObject({ markerIcon: 'car', color: '#0b5cad', operatingMode: null, department: null, tags: [] });
    expect(units.find((unit) => unit.id === parked)!.status).toBe('parked');
    expect(units.find((unit) => unit.id === old)!.status).toBe('offline');
    // A unit that never reported: offline, no position.
    expect(units.find((unit) => unit.id === boat)).toMatchObject({ lat: null, lon: null, speed: null, lastSeen: null, status: 'offline', ble: [] });
    expect(JSON.stringify(result.body)).not.toContain('Other company car');
    expect(JSON.stringify(result.body)).not.toContain('Foreign Driver');
    // The drivers are read for the caller's account only, alongside its rows.
    expect([...(await app.services.trips.checkedInDriversOfAccount(a.accountId)).keys()]).toEqual([van]);
  });

  test('a unit whose newest record has no fix stays at its last valid position', async () => {
    const a = await app.createAccount();
    const unit = await addUnit(a.accountId, 'Garage van');
    await ingest(unit, [record(ago(30_000), { latitude: 57.7, longitude: 11.97 }), record(ago(10_000), { latitude: 0, longitude: 0, valid: false })]);
    const { units } = decodeUnitList((await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token: await app.login(a) })).body.data!);
    expect(units[0]).toMatchObject({ lat: 57.7, lon: 11.97, valid: false, time: ago(10_000).toISOString() });
  });

  test('is one query however many units, and answers 20,000 units', async () => {
    const a = await app.createAccount();
    await app.database.rows(sql`
      insert into units (account_id, imei, name)
      select ${a.accountId}, (356307050000000 + g)::text, 'Fleet ' || lpad(g::text, 5, '0') from generate_series(1, 20000) g`);
    await app.database.rows(sql`
      insert into unit_state (unit_id, time, geom, speed_kmh, course, valid, ignition, odometer_m, normalized, last_seen)
      select u.id, now() - interval '1 minute', ST_SetSRID(ST_MakePoint(18 + random(), 59 + random()), 4326), 40, 180, true, true, 1000,
             '{"externalVoltageV": 12.8, "din1": true, "ble": [{"temperatureC": 5}]}'::jsonb, now() - interval '1 minute'
      from units u where u.account_id = ${a.accountId}`);
    let queries = 0;
    const counting: DatabaseHandle = {
      ...app.database,
      query: (text, params) => {
        queries += 1;
        return app.database.query(text, params);
      },
    };
    const tracking = createTrackingService({ database: counting, clock: app.clock, units: app.services.units });
    const actor = { accountId: a.accountId } as Parameters<typeof tracking.listUnitsJson>[0];
    const direct = JSON.parse(await tracking.listUnitsJson(actor)) as TrackedUnitList;
    expect(queries).toBe(1);
    expect(direct.units).toHaveLength(20_000);

    const token = await app.login(a);
    const started = performance.now();
    const result = await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token });
    const elapsed = performance.now() - started;
    const listed = decodeUnitList(result.body.data!).units;
    expect(listed).toHaveLength(20_000);
    expect(listed[0]).toMatchObject({ name: 'Fleet 00001', status: 'moving', externalVoltageV: 12.8, din1: true });
    // Printed for the record, not asserted: a loaded machine may take any time; bench:map measures it.
    console.info(`GET /api/tracking/units, 20,000 units on ${app.database.kind}: ${elapsed.toFixed(0)} ms`);

    // Megabytes of JSON leave compressed for a browser that accepts it (zstd first, else gzip), byte for byte the same document.
    const plain = await app.api.handle(
      new Request('http://localhost/api/tracking/units', { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }),
    );
    expect(plain.headers.get('content-encoding')).toBeNull();
    const plainText = await plain.text();
    expect(plainText.length).toBeGreaterThan(3_000_000);
    const units = (text: string) => decodeUnitList((JSON.parse(text) as { data: TrackedUnitList }).data).units.map((unit) => [unit.id, unit.lat, unit.lon]);
    for (const [accepted, encoding] of [
      ['gzip, deflate, br, zstd', 'zstd'],
      ['gzip, deflate', 'gzip'],
    ] as const) {
      const response = await app.api.handle(
        new Request('http://localhost/api/tracking/units', {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': accepted },
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(response.headers.get('content-type')).toStartWith('application/json');
      const compressed = new Uint8Array(await response.arrayBuffer());
      expect(compressed.byteLength).toBeLessThan(plainText.length / 5);
      const text = new TextDecoder().decode(encoding === 'zstd' ? Bun.zstdDecompressSync(compressed) : Bun.gunzipSync(compressed));
      expect(units(text)).toEqual(units(plainText));
    }
    // A small answer goes as it is.
    const small = await app.api.handle(new Request('http://localhost/api/health', { headers: { 'accept-encoding': 'gzip, zstd' } }));
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(((await small.json()) as { success: boolean }).success).toBe(true);
  }, 120_000);

  test('401 without a token, 403 when the map is disabled for the user', async () => {
    expect((await app.call('GET', '/api/tracking/units')).status).toBe(401);
    const a = await app.createAccount();
    await app.database.rows(sql`update users set realtime_map = false where id = ${a.userId}`);
    const result = await app.call('GET', '/api/tracking/units', { token: await app.login(a) });
    expect(result.status).toBe(403);
    expect(result.body.errors).toBe('The real-time map is not enabled for your user.');
  });
});

describe('GET /api/tracking/history', () => {
  const zone = 'Europe/Stockholm';
  let account: Awaited<ReturnType<TestApp['createAccount']>>;
  let token: string;
  let unit: number;
  /** Two days ago in Stockholm: every record of that day lies in the past. */
  let day: string;

  beforeAll(async () => {
    account = await app.createAccount();
    token = await app.login(account);
    unit = await addUnit(account.accountId, 'History van');
    const today = localDate(app.clock.now(), zone);
    day = new Date(Date.parse(`${today}T00:00:00Z`) - 2 * 86_400_000).toISOString().slice(0, 10);
    const start = startOfDay(day, zone).getTime();
    const next = startOfDay(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10), zone).getTime();
    await ingest(unit, [
      record(new Date(start - 1000), { latitude: 58 }), // the evening before
      record(new Date(start), { latitude: 59.1, speedKmh: 0, course: null, normalized: { ignition: false } }),
      record(new Date(start + 3_600_000), { latitude: 59.2, speedKmh: 42.26, course: 359.7 }),
      record(new Date(start + 3_610_000), { latitude: 0, longitude: 0, valid: false }), // no fix: not drawn
      record(new Date(start + 7_200_000), { latitude: 59.3, longitude: 18.1234567, normalized: {} }),
      record(new Date(next), { latitude: 60 }), // the next day's first second
    ]);
  });

  const history = (query: string, headers: Record<string, string> = { 'x-timezone': zone }, as = token) =>
    app.call<HistoryDay>('GET', `/api/tracking/history?${query}`, { token: as, headers });

  test("returns the day's valid fixes in the caller's time zone as compact rows", async () => {
    const result = await history(`unitId=${unit}&date=${day}`);
    expect(result.status).toBe(200);
    const start = startOfDay(day, zone).getTime();
    expect(result.body.data).toEqual({
      unitId: unit,
      date: day,
      timeZone: zone,
      from: new Date(start).toISOString(),
      to: expect.any(String),
      fields: ['t', 'lat', 'lon', 'speed', 'course', 'ignition'],
      positions: [
        [start, 59.1, 18.068618, 0, null, 0],
        [start + 3_600_000, 59.2, 18.068618, 42.3, 0, 1],
        [start + 7_200_000, 59.3, 18.123457, 50, 90, null],
      ],
    });
  });

  test("without X-Timezone the user's own zone applies", async () => {
    await app.database.rows(sql`update users set timezone = 'Europe/London' where id = ${account.userId}`);
    const london = await app.login(account);
    const result = await history(`unitId=${unit}&date=${day}`, {}, london);
    expect(result.body.data!.timeZone).toBe('Europe/London');
    expect(result.body.data!.from).toBe(startOfDay(day, 'Europe/London').toISOString());
    // Stockholm midnight is 23:00 the evening before in London: that record now belongs to the previous day.
    expect(result.body.data!.positions.map((p) => p[1])).toEqual([59.2, 59.3, 60]);
    // A header that names no zone falls back to the user's as well.
    expect((await history(`unitId=${unit}&date=${day}`, { 'x-timezone': 'Mars/Olympus' }, london)).body.data!.timeZone).toBe('Europe/London');
  });

  test('only the last 7 days (today and the six before), one day at a time: 422 with a translated message', async () => {
    const today = localDate(app.clock.now(), zone);
    const shift = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    expect((await history(`unitId=${unit}&date=${today}`)).status).toBe(200);
    expect((await history(`unitId=${unit}&date=${shift(-6)}`)).status).toBe(200);
    for (const date of [shift(-7), shift(-400), shift(1)]) {
      const result = await history(`unitId=${unit}&date=${date}`);
      expect({ date, status: result.status }).toEqual({ date, status: 422 });
      expect(result.body.errors).toEqual({ date: ['Choose a day within the last 7 days.'] });
    }
    const swedish = await history(`unitId=${unit}&date=${shift(-8)}`, { 'x-timezone': zone, 'x-lang': 'sv' });
    expect(swedish.body.errors).toEqual({ date: ['Välj en dag inom de senaste 7 dagarna.'] });
  });

  test('malformed input is a 422 per field', async () => {
    const badDate = await history(`unitId=${unit}&date=2026-02-30`);
    expect(badDate.status).toBe(422);
    expect(badDate.body.errors).toEqual({ date: ['Enter the date as YYYY-MM-DD.'] });
    const missing = await history('');
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors as object).sort()).toEqual(['date', 'unitId']);
    expect((await history(`unitId=abc&date=${day}`)).status).toBe(422);
  });

  test("another account's unit, or one that does not exist, is a 404 with no data", async () => {
    const other = await app.createAccount();
    const otherToken = await app.login(other);
    for (const id of [unit, 2_000_000_000]) {
      const result = await history(`unitId=${id}&date=${day}`, { 'x-timezone': zone }, otherToken);
      expect(result.status).toBe(404);
      expect(result.body.data).toBeNull();
    }
    expect((await app.call('GET', `/api/tracking/history?unitId=${unit}&date=${day}`)).status).toBe(401);
  });
});

describe('time and status rules', () => {
  test('a day in a zone, across daylight-saving changes', () => {
    expect(startOfDay('2026-03-29', 'Europe/Stockholm').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfDay('2026-03-30', 'Europe/Stockholm').toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(startOfDay('2026-10-25', 'Europe/Oslo').toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(startOfDay('2026-10-26', 'Europe/Oslo').toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(startOfDay('2026-06-01', 'Europe/London').toISOString()).toBe('2026-05-31T23:00:00.000Z');
    expect(localDate(new Date('2026-03-28T23:30:00Z'), 'Europe/Stockholm')).toBe('2026-03-29');
    expect(localDate(new Date('2026-03-28T23:30:00Z'), 'Europe/London')).toBe('2026-03-28');
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
  });

  test('moving, parked, offline', () => {
    const now = Date.parse('2026-03-02T12:00:00Z');
    const seen = new Date(now - 60_000);
    expect(unitStatus({ lastSeen: seen, speed: 3.1, ignition: null }, now)).toBe('moving');
    expect(unitStatus({ lastSeen: seen, speed: 3.1, ignition: false }, now)).toBe('parked');
    expect(unitStatus({ lastSeen: seen, speed: 3, ignition: true }, now)).toBe('parked');
    expect(unitStatus({ lastSeen: new Date(now - 30 * 60_000 - 1), speed: 50, ignition: true }, now)).toBe('offline');
    expect(unitStatus({ lastSeen: null, speed: null, ignition: null }, now)).toBe('offline');
  });
});

describe('decodeUnitList', () => {
  // Each column holds a value no other column holds: a unit property taken from the wrong column shows.
  const marked = (fields: readonly string[]) => fields.map((field, column) => (field === 'ble' || field === 'tags' ? [`${field}:${column}`] : `${field}:${column}`));

  test("reads this client's columns into the properties they name", () => {
    const [unit] = decodeUnitList({ serverTime: 't', fields: UNIT_LIST_FIELDS, units: [marked(UNIT_LIST_FIELDS) as never] }).units;
    expect(Object.keys(unit!).sort()).toEqual([...UNIT_LIST_FIELDS].sort());
    UNIT_LIST_FIELDS.forEach((field, column) => {
      const expected = field === 'ble' || field === 'tags' ? [`${field}:${column}`] : `${field}:${column}`;
      expect(unit![field] as unknown).toEqual(expected);
    });
  });

  test('reads the columns of another server version by name, and a unit always has its sensor list', () => {
    const fields = ['lastSeen', 'id', 'extra', ...UNIT_LIST_FIELDS.filter((field) => field !== 'lastSeen' && field !== 'id')];
    const row = marked(fields);
    row[fields.indexOf('ble')] = null as never;
    const [unit] = decodeUnitList({ serverTime: 't', fields: fields as never, units: [row as never] }).units;
    expect(unit!.id as unknown).toBe('id:1');
    expect(unit!.lastSeen).toBe('lastSeen:0');
    expect((unit as unknown as Record<string, unknown>).extra).toBe('extra:2');
    expect(unit!.ble).toEqual([]);
    const [known] = decodeUnitList({ serverTime: 't', fields: UNIT_LIST_FIELDS, units: [UNIT_LIST_FIELDS.map((field) => (field === 'ble' ? null : 1)) as never] }).units;
    expect(known!.ble).toEqual([]);
  });
});
