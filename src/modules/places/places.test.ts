import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { IngestWriter } from '../tracking/service';
import { type DetectorPosition, driveRecord, scriptDrive } from '../trips/testing';
import type { TripApplyRulesResult, TripList } from '../trips/model';
import type { PlaceInput, PlaceView } from './model';

/**
 * Places over the API on PGlite and (TEST_DB=postgres) PostgreSQL: every validation rule, who may manage which
 * place, trips categorized by rules as they are detected from ingested positions, rules applied on demand, and
 * attested or hand-typed trips left alone.
 */
let app: TestApp;
let writer: IngestWriter;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;
let userToken: string;
let userId: number;
let otherToken: string;
let unitA: number;
let unitB: number;
let foreignUnit: number;
let imeiSequence = 0;

async function addUnit(accountId: number, name: string): Promise<number> {
  imeiSequence += 1;
  const imei = `3563070425${String(60000 + imeiSequence).padStart(5, '0')}`;
  const [unit] = await app.database.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return unit!.id;
}

const place = (overrides: Partial<PlaceInput> = {}): PlaceInput => ({
  label: 'Office',
  address: 'Storgatan 1, Solna',
  latitude: 59.36,
  longitude: 18.0009,
  radiusM: 200,
  units: [unitA],
  rules: [],
  ...overrides,
});

async function create(body: unknown, token = adminToken) {
  return app.call<PlaceView>('POST', '/api/places', { token, body });
}

beforeAll(async () => {
  app = await createTestApp();
  writer = new IngestWriter(app.database, app.platform.events, app.platform.log, { maxDelayMs: 1 });
  admin = await app.createAccount();
  adminToken = await app.login(admin);
  unitA = await addUnit(admin.accountId, 'Company car');
  unitB = await addUnit(admin.accountId, 'Van');
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${admin.accountId}, ${`plain-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'Plain', 'user')
    returning id`);
  userId = user!.id;
  await app.database.rows(sql`insert into unit_access (unit_id, user_id, account_id) select id, ${userId}, account_id from units where id = ${unitA}`);
  userToken = await app.login({ email: `plain-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
  const other = await app.createAccount();
  otherToken = await app.login(other);
  foreignUnit = await addUnit(other.accountId, 'Not yours');
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('creating and validating places', () => {
  test('an administrator creates a place with a rule; coordinates are kept to 6 decimals', async () => {
    const result = await create(
      place({
        latitude: 59.3600004,
        longitude: 18.00090049,
        rules: [{ kind: 'end', days: [1, 2, 3, 4, 5], from: '06:00', to: '10:00', category: 'private' }],
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({
      id: expect.any(Number),
      label: 'Office',
      address: 'Storgatan 1, Solna',
      latitude: 59.36,
      longitude: 18.0009,
      radiusM: 200,
      timeZone: 'Europe/Stockholm',
      units: [{ id: unitA, name: 'Company car' }],
      rules: [{ id: expect.any(Number), kind: 'end', otherPlaceId: null, otherPlaceLabel: null, days: [1, 2, 3, 4, 5], from: '06:00', to: '10:00', category: 'private' }],
      editable: true,
    });
    const read = await app.call<PlaceView>('GET', `/api/places/${result.body.data!.id}`, { token: adminToken });
    expect(read.body.data).toEqual(result.body.data!);
    await app.call('DELETE', `/api/places/${result.body.data!.id}`, { token: adminToken });
  });

  test('an empty address is looked up at the coordinates, and kept within 50 characters', async () => {
    const result = await create(place({ address: '', latitude: 59.3293, longitude: 18.0686 }));
    expect(result.status).toBe(200);
    expect(result.body.data!.address).toBe('Stockholm, SE');
    await app.call('DELETE', `/api/places/${result.body.data!.id}`, { token: adminToken });
  });

  test('the label is required', async () => {
    const result = await create(place({ label: '   ' }));
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({ label: ['Enter a label for the place.'] });
  });

  test('the address is at most 50 characters (spec §5)', async () => {
    expect((await create(place({ address: 'x'.repeat(50) }))).status).toBe(200);
    const result = await create(place({ address: 'x'.repeat(51) }));
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({ address: ['The address can be at most 50 characters.'] });
  });

  test('the radius is 50 to 9999 metres', async () => {
    for (const radiusM of [49, 10_000, 0, -5]) {
      const result = await create(place({ radiusM }));
      expect(result.status).toBe(422);
      expect(result.body.errors).toEqual({ radiusM: ['The radius must be between 50 and 9999 metres.'] });
    }
    expect((await create(place({ radiusM: 100.5 }))).status).toBe(422);
    expect((await create(place({ label: 'Small', radiusM: 50 }))).status).toBe(200);
    expect((await create(place({ label: 'Large', radiusM: 9999 }))).status).toBe(200);
  });

  test('coordinates must be on the globe', async () => {
    expect((await create(place({ latitude: 91 }))).status).toBe(422);
    expect((await create(place({ longitude: -181 }))).status).toBe(422);
  });

  test('a place needs at least one unit (spec §5)', async () => {
    const result = await create(place({ units: [] }));
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({ units: ['A place needs at least one unit.'] });
  });

  test("another account's unit is refused and nothing is written", async () => {
    const [before] = await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM places');
    const result = await create(place({ units: [unitA, foreignUnit] }));
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({ units: ['One of the units was not found or is not yours.'] });
    const [after] = await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM places');
    expect(after!.n).toBe(before!.n);
  });

  test('rules: days, 15-minute steps, end after start, the other place of "between"', async () => {
    const rule = { kind: 'start' as const, days: [1], from: '08:00', to: '09:00', category: 'business' as const };
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ ...rule, days: [] }, { 'rules.0.days': ['Choose at least one day, each day once.'] }],
      [{ ...rule, days: [1, 1] }, { 'rules.0.days': ['Choose at least one day, each day once.'] }],
      [{ ...rule, from: '08:10' }, { 'rules.0.from': ['Give the time as HH:mm in 15-minute steps.'] }],
      [{ ...rule, to: '25:00' }, { 'rules.0.to': ['Give the time as HH:mm in 15-minute steps.'] }],
      [{ ...rule, from: '09:00', to: '09:00' }, { 'rules.0.to': ['The end time must be after the start time.'] }],
      [{ ...rule, kind: 'between' }, { 'rules.0.otherPlaceId': ['Choose another place of your account.'] }],
    ];
    for (const [bad, errors] of cases) {
      const result = await create(place({ rules: [bad as PlaceInput['rules'][number]] }));
      expect({ bad, status: result.status }).toEqual({ bad, status: 422 });
      const got = result.body.errors as Record<string, string[]>;
      for (const [field, messages] of Object.entries(errors)) {
        expect({ bad, field, messages: got[field] }).toEqual({ bad, field, messages });
      }
    }
    const badDay = await create(place({ rules: [{ ...rule, days: [7] }] }));
    expect(badDay.status).toBe(422);
    expect(Object.keys(badDay.body.errors as object)).toEqual(['rules.0.days.0']);
    expect((await create(place({ rules: [{ ...rule, kind: 'between', otherPlaceId: 2_000_000 }] }))).status).toBe(422);
    expect((await create(place({ rules: [{ ...rule, from: '00:00', to: '24:00' }] }))).status).toBe(200);
  });

  test('a "between" rule names another place of the account, not one of another account, not itself', async () => {
    const home = await create(place({ label: 'Home', latitude: 59.3293, longitude: 18.0686 }));
    const foreign = await app.call<PlaceView>('POST', '/api/places', { token: otherToken, body: place({ units: [foreignUnit] }) });
    expect(foreign.status).toBe(200);
    const between = { kind: 'between' as const, days: [1, 2], from: '07:00', to: '18:00', category: 'business' as const };
    const refused = await create(place({ label: 'Depot', rules: [{ ...between, otherPlaceId: foreign.body.data!.id }] }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ 'rules.0.otherPlaceId': ['Choose another place of your account.'] });
    const depot = await create(place({ label: 'Depot', rules: [{ ...between, otherPlaceId: home.body.data!.id }] }));
    expect(depot.status).toBe(200);
    expect(depot.body.data!.rules[0]).toMatchObject({ kind: 'between', otherPlaceId: home.body.data!.id, otherPlaceLabel: 'Home' });
    const self = await app.call('POST', `/api/places/${depot.body.data!.id}`, {
      token: adminToken,
      body: place({ label: 'Depot', rules: [{ ...between, otherPlaceId: depot.body.data!.id }] }),
    });
    expect(self.status).toBe(422);
    // Deleting the other place deletes the rules that name it.
    expect((await app.call('DELETE', `/api/places/${home.body.data!.id}`, { token: adminToken })).status).toBe(200);
    const after = await app.call<PlaceView>('GET', `/api/places/${depot.body.data!.id}`, { token: adminToken });
    expect(after.body.data!.rules).toEqual([]);
  });

  test('list: search by label or address; another account sees none of them', async () => {
    await create(place({ label: 'Warehouse North', address: 'Industrivägen 4' }));
    const byLabel = await app.call<PlaceView[]>('GET', '/api/places?q=warehouse', { token: adminToken });
    expect(byLabel.body.data!.map((entry) => entry.label)).toEqual(['Warehouse North']);
    const byAddress = await app.call<PlaceView[]>('GET', `/api/places?q=${encodeURIComponent('industrivägen')}`, { token: adminToken });
    expect(byAddress.body.data!.map((entry) => entry.label)).toEqual(['Warehouse North']);
    const theirs = await app.call<PlaceView[]>('GET', '/api/places', { token: otherToken });
    expect(theirs.body.data!.every((entry) => entry.units.every((unit) => unit.id === foreignUnit))).toBe(true);
    expect(JSON.stringify(theirs.body)).not.toContain('Warehouse North');
  });

  test('needs a login', async () => {
    expect((await app.call('GET', '/api/places')).status).toBe(401);
    expect((await app.call('POST', '/api/places', { body: place() })).status).toBe(401);
  });
});

describe('who manages which place', () => {
  test("a rule names another place only to whoever may see it; a user cannot point a rule at a place hidden from them", async () => {
    const hidden = await create(place({ label: 'Secret depot', units: [unitB] }));
    const rule = { kind: 'between' as const, otherPlaceId: hidden.body.data!.id, days: [1], from: '08:00', to: '09:00', category: 'business' as const };
    const yard = await create(place({ label: 'Front yard', units: [unitA, unitB], rules: [rule] }));
    expect(yard.body.data!.rules[0]!.otherPlaceLabel).toBe('Secret depot');
    const seenByUser = await app.call<PlaceView>('GET', `/api/places/${yard.body.data!.id}`, { token: userToken });
    expect(seenByUser.status).toBe(200);
    expect(seenByUser.body.data!.rules[0]!.otherPlaceLabel).toBeNull();
    const listed = await app.call<PlaceView[]>('GET', '/api/places', { token: userToken });
    expect(JSON.stringify(listed.body)).not.toContain('Secret depot');
    // Nor can the user learn of it by naming it in a rule of their own place.
    const probe = await create(place({ label: 'Probe', units: [unitA], rules: [rule] }), userToken);
    expect(probe.status).toBe(422);
    expect(probe.body.errors).toEqual({ 'rules.0.otherPlaceId': ['Choose another place of your account.'] });
  });

  test('an ordinary user manages places of units they see, sees but cannot change others, and cannot see the rest', async () => {
    const both = await create(place({ label: 'Shared yard', units: [unitA, unitB] }));
    const vanOnly = await create(place({ label: 'Van garage', units: [unitB] }));
    const list = await app.call<PlaceView[]>('GET', '/api/places', { token: userToken });
    const labels = list.body.data!.map((entry) => entry.label);
    expect(labels).toContain('Shared yard');
    expect(labels).not.toContain('Van garage');
    const shared = list.body.data!.find((entry) => entry.label === 'Shared yard')!;
    // The user sees only the units they were given.
    expect(shared.units).toEqual([{ id: unitA, name: 'Company car' }]);
    expect(shared.editable).toBe(false);
    const change = await app.call('POST', `/api/places/${both.body.data!.id}`, { token: userToken, body: place({ label: 'Mine now' }) });
    expect(change.status).toBe(403);
    expect(change.body.errors).toBe('The place does not belong to you.');
    expect((await app.call('DELETE', `/api/places/${both.body.data!.id}`, { token: userToken })).status).toBe(403);
    expect((await app.call('GET', `/api/places/${vanOnly.body.data!.id}`, { token: userToken })).status).toBe(404);
    expect((await app.call('DELETE', `/api/places/${vanOnly.body.data!.id}`, { token: userToken })).status).toBe(404);
    // A unit of the account the user was not given is refused.
    const notGiven = await create(place({ label: 'Sneaky', units: [unitB] }), userToken);
    expect(notGiven.status).toBe(422);
    const own = await create(place({ label: 'My parking', units: [unitA] }), userToken);
    expect(own.status).toBe(200);
    expect(own.body.data!.editable).toBe(true);
    const renamed = await app.call<PlaceView>('POST', `/api/places/${own.body.data!.id}`, { token: userToken, body: place({ label: 'My parking lot' }) });
    expect(renamed.body.data!.label).toBe('My parking lot');
    expect((await app.call('DELETE', `/api/places/${own.body.data!.id}`, { token: userToken })).status).toBe(200);
    expect((await app.call('GET', `/api/places/${own.body.data!.id}`, { token: adminToken })).status).toBe(404);
    // The administrator still sees and manages every place.
    const adminList = await app.call<PlaceView[]>('GET', '/api/places', { token: adminToken });
    expect(adminList.body.data!.find((entry) => entry.label === 'Van garage')!.editable).toBe(true);
  });

  test("another account's place is 404 and stays as it was", async () => {
    const mine = await create(place({ label: 'Private garden' }));
    const id = mine.body.data!.id;
    expect((await app.call('GET', `/api/places/${id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('POST', `/api/places/${id}`, { token: otherToken, body: place({ units: [foreignUnit] }) })).status).toBe(404);
    expect((await app.call('DELETE', `/api/places/${id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call<PlaceView>('GET', `/api/places/${id}`, { token: adminToken })).body.data!.label).toBe('Private garden');
  });
});

describe('address look-up', () => {
  test('a typed address finds places (offline: locality names, diacritics ignored)', async () => {
    const result = await app.call<Array<{ address: string; latitude: number; longitude: number }>>('GET', '/api/places/geocode?q=malmo', { token: adminToken });
    expect(result.status).toBe(200);
    expect(result.body.data![0]).toEqual({ address: 'Malmö, SE', latitude: expect.any(Number), longitude: expect.any(Number) });
    expect(Math.abs(result.body.data![0]!.latitude - 55.6)).toBeLessThan(0.2);
  });

  test('any free-text address is taken, a comma too: offline, the town it names', async () => {
    for (const q of ['Storgatan 1, Malmö', 'Drottninggatan 5, 111 51 Stockholm, Sverige', 'Göteborg, SE']) {
      const result = await app.call<Array<{ address: string; latitude: number; longitude: number }>>('GET', `/api/places/geocode?q=${encodeURIComponent(q)}`, {
        token: adminToken,
      });
      expect(result.status).toBe(200);
      expect(result.body.data!.length).toBeGreaterThan(0);
    }
    const malmo = await app.call<Array<{ address: string }>>('GET', `/api/places/geocode?q=${encodeURIComponent('Storgatan 1, Malmö')}`, { token: adminToken });
    expect(malmo.body.data![0]!.address).toBe('Malmö, SE');
    const stockholm = await app.call<Array<{ address: string }>>('GET', `/api/places/geocode?q=${encodeURIComponent('Drottninggatan 5, 111 51 Stockholm, Sverige')}`, {
      token: adminToken,
    });
    expect(stockholm.body.data![0]!.address).toBe('Stockholm, SE');
    // The list's search takes a comma too.
    expect((await app.call('GET', `/api/places?q=${encodeURIComponent('Malmö, SE')}`, { token: adminToken })).status).toBe(200);
  });

  test('without a configured geocoder the look-up says it knows towns only', async () => {
    const result = await app.call<{ precision: string }>('GET', '/api/places/geocoder', { token: adminToken });
    expect(result.body.data).toEqual({ precision: 'town' });
    expect((await app.call('GET', '/api/places/geocoder')).status).toBe(401);
  });

  test('a point gives its address', async () => {
    const result = await app.call<Array<{ address: string; latitude: number; longitude: number }>>('GET', '/api/places/geocode?lat=59.3293&lon=18.0686', { token: adminToken });
    expect(result.body.data).toEqual([{ address: 'Stockholm, SE', latitude: 59.3293, longitude: 18.0686 }]);
    expect((await app.call('GET', '/api/places/geocode', { token: adminToken })).status).toBe(422);
    expect((await app.call('GET', '/api/places/geocode?q=x')).status).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------
// Trips
// ---------------------------------------------------------------------------------------------

async function feed(unitId: number, positions: DetectorPosition[]) {
  for (let i = 0; i < positions.length; i += 25) {
    await writer.submit({ unitId, accountId: admin.accountId, protocol: 'teltonika', deviceId: 'test', records: positions.slice(i, i + 25).map(driveRecord), receivedAt: new Date() });
  }
  await writer.drain();
  await app.services.trips.idle();
}

/** From central Stockholm 12.5 km east, parked there (Monday 16 February 2026, 08:00 in Stockholm). */
function morningDrive(start = '2026-02-16T07:00:00Z') {
  return scriptDrive({ start }, [{ park: 600 }, { move: 900, speedKmh: 50, bearing: 90 }, { park: 1800 }]);
}

async function tripRows(unitId: number) {
  return app.database.query<{ id: number; type: string; type_source: string; stop_address: string | null }>(
    'SELECT id::int AS id, type, type_source, stop_address FROM trips WHERE unit_id = $1 ORDER BY start_time',
    [unitId],
  );
}

describe('trips categorized by place rules', () => {
  let drive: DetectorPosition[];
  let carUnit: number;
  let vanUnit: number;
  let workplace: PlaceView;

  beforeAll(async () => {
    drive = morningDrive();
    carUnit = await addUnit(admin.accountId, 'Commuter');
    vanUnit = await addUnit(admin.accountId, 'Service van');
    const stop = drive.at(-1)!;
    const result = await create(
      place({
        label: 'Workplace',
        address: 'Kungsgatan 2',
        latitude: stop.lat,
        longitude: stop.lon,
        radiusM: 150,
        units: [carUnit],
        rules: [
          // Arriving at work on weekday mornings (Stockholm time) is private commuting.
          { kind: 'end', days: [1, 2, 3, 4, 5], from: '06:00', to: '10:00', category: 'private' },
          // Leaving work on Saturdays is business (does not match a Monday morning trip).
          { kind: 'start', days: [6], from: '00:00', to: '24:00', category: 'business' },
        ],
      }),
    );
    expect(result.status).toBe(200);
    workplace = result.body.data!;
  }, 60_000);

  test('a trip detected from ingested positions that ends in the place is categorized by the rule and labelled', async () => {
    await feed(carUnit, drive);
    const rows = await tripRows(carUnit);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'private', type_source: 'rule' });
    // The stored address stays what the geocoder said.
    expect(rows[0]!.stop_address).toMatch(/, SE$/);
    const list = await app.call<TripList>('GET', `/api/trips?unitId=${carUnit}&from=2026-02-01&to=2026-02-28`, { token: adminToken });
    const [trip] = list.body.data!.trips;
    expect(trip).toMatchObject({ type: 'private', stopAddress: 'Workplace', stopPlace: 'Workplace', startAddress: 'Stockholm, SE' });
    expect(trip!.startPlace).toBeUndefined();
    expect(list.body.data!.totals.private.trips).toBe(1);
  }, 60_000);

  test('the same drive at another time, or by a unit not assigned to the place, keeps the default type', async () => {
    await feed(vanUnit, drive);
    expect(await tripRows(vanUnit)).toEqual([expect.objectContaining({ type: 'business', type_source: 'default' })]);
    const list = await app.call<TripList>('GET', `/api/trips?unitId=${vanUnit}&from=2026-02-01&to=2026-02-28`, { token: adminToken });
    expect(list.body.data!.trips[0]!.stopPlace).toBeUndefined();
    expect(list.body.data!.trips[0]!.stopAddress).not.toBe('Workplace');
    // Tuesday 17 February 12:00 in Stockholm, leaving work back west: only Saturdays' departures are business by rule.
    const stop = drive.at(-1)!;
    const noon = scriptDrive({ start: '2026-02-17T11:00:00Z', lat: stop.lat, lon: stop.lon }, [
      { park: 600 },
      { move: 900, speedKmh: 50, bearing: 270 },
      { park: 1800 },
    ]);
    await feed(carUnit, noon);
    const rows = await tripRows(carUnit);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ type: 'business', type_source: 'default' });
    const car = await app.call<TripList>('GET', `/api/trips?unitId=${carUnit}&from=2026-02-17&to=2026-02-17`, { token: adminToken });
    expect(car.body.data!.trips[0]).toMatchObject({ startPlace: 'Workplace', startAddress: 'Workplace' });
    expect(car.body.data!.trips[0]!.stopPlace).toBeUndefined();
  }, 60_000);

  test('rules applied on demand to a period: new rules and units count, typed by hand and attested trips are left alone', async () => {
    // Assign the van too: its trip is categorized only when the rules are applied.
    const saved = await app.call<PlaceView>('POST', `/api/places/${workplace.id}`, {
      token: adminToken,
      body: {
        ...place({ label: 'Workplace', address: 'Kungsgatan 2', latitude: workplace.latitude, longitude: workplace.longitude, radiusM: 150 }),
        units: [carUnit, vanUnit],
        rules: workplace.rules.map(({ kind, days, from, to, category }) => ({ kind, days, from, to, category })),
      },
    });
    expect(saved.status).toBe(200);
    const apply = (unitId: number, token = adminToken) =>
      app.call<TripApplyRulesResult>('POST', '/api/trips/apply-place-rules', { token, body: { unitId, from: '2026-02-01', to: '2026-02-28' } });
    const first = await apply(vanUnit);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ checked: 1, categorized: 1, changed: 1 });
    expect(await tripRows(vanUnit)).toEqual([expect.objectContaining({ type: 'private', type_source: 'rule' })]);
    // Again: nothing changes.
    expect((await apply(vanUnit)).body.data).toEqual({ checked: 1, categorized: 1, changed: 0 });

    // A person's type wins over rules.
    const [vanTrip] = await tripRows(vanUnit);
    expect((await app.call('POST', `/api/trips/${vanTrip!.id}`, { token: adminToken, body: { type: 'other' } })).status).toBe(200);
    expect((await apply(vanUnit)).body.data).toEqual({ checked: 0, categorized: 0, changed: 0 });
    expect(await tripRows(vanUnit)).toEqual([expect.objectContaining({ type: 'other', type_source: 'user' })]);

    // Attested trips are never changed: the commuter's first trip, attested for its driver, keeps its type when the rule goes away.
    const [commute] = await tripRows(carUnit);
    await app.database.query('UPDATE trips SET driver_user_id = $2 WHERE id = $1', [commute!.id, admin.userId]);
    await app.database.query(
      `INSERT INTO trip_attests (account_id, user_id, period, from_time, to_time, status, note, attested_by, attested_at, changed_by, changed_at)
       VALUES ($1, $2, '2026-02', '2026-01-31T23:00:00Z', '2026-02-28T23:00:00Z', 'attested', null, $2, now(), $2, now())`,
      [admin.accountId, admin.userId],
    );
    const withoutRules = await app.call<PlaceView>('POST', `/api/places/${workplace.id}`, {
      token: adminToken,
      body: { ...place({ label: 'Workplace', latitude: workplace.latitude, longitude: workplace.longitude, radiusM: 150 }), units: [carUnit], rules: [] },
    });
    expect(withoutRules.status).toBe(200);
    // Only the second (not attested) trip is looked at; no rule matches it and it already has the default type.
    expect((await apply(carUnit)).body.data).toEqual({ checked: 1, categorized: 0, changed: 0 });
    expect((await tripRows(carUnit))[0]).toMatchObject({ type: 'private', type_source: 'rule' });
    // Re-detection of the attested trip keeps its type too.
    await app.services.trips.redetect(carUnit, new Date('2026-02-16T07:00:00Z'), new Date('2026-02-16T08:00:00Z'));
    expect((await tripRows(carUnit))[0]).toMatchObject({ type: 'private', type_source: 'rule' });

    // Once the attest is withdrawn, applying the (now empty) rules puts the trip back to the unit's default.
    await app.database.query(`UPDATE trip_attests SET status = 'unattested' WHERE user_id = $1`, [admin.userId]);
    expect((await apply(carUnit)).body.data).toEqual({ checked: 2, categorized: 0, changed: 1 });
    expect((await tripRows(carUnit))[0]).toMatchObject({ type: 'business', type_source: 'default' });
  }, 60_000);

  test('apply-place-rules: unit of another account 404, bad period 422, needs a login', async () => {
    const body = { unitId: foreignUnit, from: '2026-02-01', to: '2026-02-28' };
    expect((await app.call('POST', '/api/trips/apply-place-rules', { token: adminToken, body })).status).toBe(404);
    const order = await app.call('POST', '/api/trips/apply-place-rules', { token: adminToken, body: { unitId: unitA, from: '2026-02-10', to: '2026-02-01' } });
    expect(order.status).toBe(422);
    expect((await app.call('POST', '/api/trips/apply-place-rules', { body })).status).toBe(401);
  });
});
