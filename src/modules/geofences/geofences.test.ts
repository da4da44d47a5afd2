import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { FeatureProfileView } from '../units/model';
import { advance, createZoneMatcher, MARGIN_M, marginSide, sphereMetres, type ZoneFix, type ZoneState, withinRings, wkbRings } from './matching';
import type { GeofenceInput, GeofenceSettings, GeofenceView } from './model';

/**
 * Geofences over the API on PGlite and (TEST_DB=postgres) PostgreSQL: every §5 rule and §8 error, the brand's minimum
 * radius, 5 zones per unit with feature-profile zones counted, who may manage which zone, and the hysteresis rule.
 */
let app: TestApp;
let admin: Awaited<ReturnType<TestApp['createAccount']>>;
let adminToken: string;
let userToken: string;
let otherToken: string;
let unitA: number;
let unitB: number;
let foreignUnit: number;
let imeiSequence = 0;

async function addUnit(accountId: number, name: string): Promise<number> {
  imeiSequence += 1;
  const imei = `3563070427${String(70000 + imeiSequence).padStart(5, '0')}`;
  const [unit] = await app.database.rows<{ id: number }>(sql`insert into units (account_id, imei, name) values (${accountId}, ${imei}, ${name}) returning id`);
  return unit!.id;
}

const circle = (overrides: Partial<GeofenceInput> = {}): GeofenceInput => ({
  name: 'Depot',
  shape: 'circle',
  center: { latitude: 59.33, longitude: 18.06 },
  radiusM: 400,
  points: null,
  units: [unitA],
  deactivations: [],
  theftMode: false,
  realTime: true,
  active: true,
  ...overrides,
});

const square = [
  { latitude: 59.3, longitude: 18.0 },
  { latitude: 59.3, longitude: 18.02 },
  { latitude: 59.31, longitude: 18.02 },
  { latitude: 59.31, longitude: 18.0 },
];

async function create(body: unknown, token = adminToken) {
  return app.call<GeofenceView>('POST', '/api/geofences', { token, body });
}

beforeAll(async () => {
  app = await createTestApp();
  admin = await app.createAccount();
  adminToken = await app.login(admin);
  unitA = await addUnit(admin.accountId, 'Company car');
  unitB = await addUnit(admin.accountId, 'Van');
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${admin.accountId}, ${`plain-geo-${admin.userId}@example.com`}, (select password_hash from users where id = ${admin.userId}), 'Plain', 'user')
    returning id`);
  await app.grantUnits(user!.id, [unitA]);
  userToken = await app.login({ email: `plain-geo-${admin.userId}@example.com`, password: admin.password, subsiteId: 0 });
  const other = await app.createAccount();
  otherToken = await app.login(other);
  foreignUnit = await addUnit(other.accountId, 'Not yours');
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('zones and their rules', () => {
  test('a circle and a polygon are created and read back as drawn', async () => {
    const made = await create(circle({ deactivations: [{ days: [6, 0], from: '22:00', to: '06:00' }] }));
    expect(made.status).toBe(200);
    expect(made.body.data).toMatchObject({
      name: 'Depot',
      shape: 'circle',
      center: { latitude: 59.33, longitude: 18.06 },
      radiusM: 400,
      points: null,
      units: [{ id: unitA, name: 'Company car' }],
      deactivations: [{ days: [0, 6], from: '22:00', to: '06:00' }],
      timeZone: 'Europe/Stockholm',
      unitsInside: [],
      editable: true,
    });
    const polygon = await create(circle({ name: 'Yard', shape: 'polygon', center: null, radiusM: null, points: square, units: [unitB] }));
    expect(polygon.status).toBe(200);
    expect(polygon.body.data!.points).toEqual(square);
    expect(polygon.body.data!.radiusM).toBeNull();
    const list = await app.call<GeofenceView[]>('GET', '/api/geofences?q=yar', { token: adminToken });
    expect(list.body.data!.map((zone) => zone.name)).toEqual(['Yard']);
    await app.call('DELETE', `/api/geofences/${made.body.data!.id}`, { token: adminToken });
    await app.call('DELETE', `/api/geofences/${polygon.body.data!.id}`, { token: adminToken });
  });

  test('§8: radius too small (the brand setting), too large, missing; coordinates empty; crossing sides', async () => {
    const settings = await app.call<GeofenceSettings>('GET', '/api/geofences/settings', { token: adminToken });
    expect(settings.body.data).toEqual({ radiusMinM: 300, radiusMaxM: 9999, perUnitMax: 5 });
    const small = await create(circle({ radiusM: 299 }));
    expect(small.status).toBe(422);
    expect(small.body.errors).toEqual({ radiusM: ['The radius must be at least 300 metres.'] });
    // The operator lowers the brand's minimum to 50 m.
    await app.database.query('UPDATE brands SET geofence_radius_min_m = 50 WHERE subsite_id = 0');
    try {
      const lowered = await create(circle({ radiusM: 60 }));
      expect(lowered.status).toBe(200);
      await app.call('DELETE', `/api/geofences/${lowered.body.data!.id}`, { token: adminToken });
      expect((await create(circle({ radiusM: 49 }))).body.errors).toEqual({ radiusM: ['The radius must be at least 50 metres.'] });
    } finally {
      await app.database.query('UPDATE brands SET geofence_radius_min_m = 300 WHERE subsite_id = 0');
    }
    expect((await create(circle({ radiusM: 10_000 }))).body.errors).toEqual({ radiusM: ['The radius can be at most 9999 metres.'] });
    expect((await create(circle({ radiusM: null }))).body.errors).toEqual({ radiusM: ['Enter the geofence radius.'] });
    expect((await create(circle({ center: null }))).body.errors).toEqual({ center: ['Place the geofence on the map: its coordinates are empty.'] });
    const empty = await create(circle({ shape: 'polygon', center: null, radiusM: null, points: square.slice(0, 2) }));
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ points: ['Place the geofence on the map: its coordinates are empty.'] });
    const bow = [square[0]!, square[2]!, square[1]!, square[3]!];
    expect((await create(circle({ shape: 'polygon', center: null, radiusM: null, points: bow }))).body.errors).toEqual({
      points: ["The geofence's sides must not cross each other."],
    });
    expect((await create(circle({ name: '  ' }))).body.errors).toEqual({ name: ['Enter a name for the geofence.'] });
    expect((await create(circle({ deactivations: [{ days: [], from: '08:00', to: '09:00' }] }))).status).toBe(422);
    expect((await create(circle({ deactivations: [{ days: [1], from: '8:00', to: '09:00' }] }))).status).toBe(422);
    const swedish = await app.call('POST', '/api/geofences', { token: adminToken, body: circle({ radiusM: 100 }), headers: { 'x-lang': 'sv' } });
    expect(swedish.body.errors).toEqual({ radiusM: ['Radien måste vara minst 300 meter.'] });
    expect(await app.database.query('SELECT 1 FROM geofences WHERE account_id = $1', [admin.accountId])).toEqual([]);
  });

  test('§5: at most 5 zones per unit, feature-profile zones included; a profile names only the account zones', async () => {
    const made: number[] = [];
    for (let n = 1; n <= 4; n++) made.push((await create(circle({ name: `Zone ${n}`, units: [unitB] }))).body.data!.id);
    // A fifth zone on a profile the unit has: the unit holds 5.
    const profileZone = (await create(circle({ name: 'Profile zone', units: [] }))).body.data!.id;
    const foreignZone = (await create(circle({ name: 'Foreign', units: [foreignUnit] }), otherToken)).body.data!.id;
    const refused = await app.call('POST', '/api/admin/feature-profiles', { token: adminToken, body: { name: 'Zoned', geozoneIds: [foreignZone] } });
    expect(refused.status).toBe(422);
    const profile = await app.call<{ id: number }>('POST', '/api/admin/feature-profiles', { token: adminToken, body: { name: 'Zoned', geozoneIds: [profileZone] } });
    expect(profile.status).toBe(200);
    await app.database.query('UPDATE units SET feature_profile_id = $1 WHERE id = $2', [profile.body.data!.id, unitB]);
    const sixth = await create(circle({ name: 'Sixth', units: [unitB] }));
    expect(sixth.status).toBe(422);
    expect(sixth.body.errors).toEqual({ units: ['A unit can have at most 5 geofences, those of its feature profile included.'] });
    // Saving one of the five again is no sixth.
    expect((await app.call('POST', `/api/geofences/${made[0]}`, { token: adminToken, body: circle({ name: 'Zone 1', units: [unitB] }) })).status).toBe(200);
    // §8 "could not delete": the profile names it.
    const blocked = await app.call('DELETE', `/api/geofences/${profileZone}`, { token: adminToken });
    expect(blocked.status).toBe(409);
    expect(blocked.body.errors).toBe('The geofence could not be deleted: a feature profile uses it.');
    const profiles = await app.call<{ featureProfiles: FeatureProfileView[] }>('GET', '/api/admin/catalog', { token: adminToken });
    expect(profiles.status === 200 ? profiles.body.data!.featureProfiles.find((p) => p.id === profile.body.data!.id)?.geozoneIds : [profileZone]).toEqual([profileZone]);
    await app.database.query('UPDATE units SET feature_profile_id = NULL WHERE id = $1', [unitB]);
    await app.database.query('DELETE FROM feature_profiles WHERE id = $1', [profile.body.data!.id]);
    for (const id of [...made, profileZone]) expect((await app.call('DELETE', `/api/geofences/${id}`, { token: adminToken })).status).toBe(200);
  });

  test('§5: a feature profile gaining zones, or a unit gaining a profile, never takes a unit past 5 zones', async () => {
    const unit = await addUnit(admin.accountId, 'Profiled car');
    const direct: number[] = [];
    for (let n = 1; n <= 4; n++) direct.push((await create(circle({ name: `Direct ${n}`, units: [unit] }))).body.data!.id);
    const spare = [0, 1].map(async (n) => (await create(circle({ name: `Spare ${n}`, units: [] }))).body.data!.id);
    const [first, second] = await Promise.all(spare);
    const profile = await app.call<{ id: number }>('POST', '/api/admin/feature-profiles', { token: adminToken, body: { name: 'One zone', geozoneIds: [first] } });
    const two = await app.call<{ id: number }>('POST', '/api/admin/feature-profiles', { token: adminToken, body: { name: 'Two zones', geozoneIds: [first, second] } });
    // 4 direct and the profile's 1: five.
    expect((await app.call('POST', `/api/units/${unit}/features`, { token: adminToken, body: { featureProfileId: profile.body.data!.id } })).status).toBe(200);
    // The profile gains a second zone: its unit would hold 6.
    const grown = await app.call('POST', `/api/admin/feature-profiles/${profile.body.data!.id}`, { token: adminToken, body: { name: 'One zone', geozoneIds: [first, second] } });
    expect(grown.status).toBe(422);
    expect(grown.body.errors).toEqual({ geozoneIds: ['A unit can have at most 5 geofences, those of its feature profile included.'] });
    const [kept] = await app.database.query<{ geozone_ids: number[] | string }>('SELECT geozone_ids FROM feature_profiles WHERE id = $1', [profile.body.data!.id]);
    expect(String(kept!.geozone_ids).replace(/[{}]/g, '')).toBe(String(first));
    // The unit given the profile with two zones: refused, on the unit screen and as a bulk task alike.
    const moved = await app.call('POST', `/api/units/${unit}/features`, { token: adminToken, body: { featureProfileId: two.body.data!.id } });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual({ featureProfileId: ['A unit can have at most 5 geofences, those of its feature profile included.'] });
    const bulk = await app.call<{ results: Array<{ unitId: number; ok: boolean; error: string | null }> }>('POST', '/api/units/bulk', {
      token: adminToken,
      body: { unitIds: [unit, unitA], task: { kind: 'featureProfile', featureProfileId: two.body.data!.id } },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data!.results.map((row) => [row.unitId, row.ok, row.error])).toEqual([
      [unit, false, 'A unit can have at most 5 geofences, those of its feature profile included.'],
      [unitA, true, null],
    ]);
    const [row] = await app.database.query<{ feature_profile_id: number }>('SELECT feature_profile_id FROM units WHERE id = $1', [unit]);
    expect(row!.feature_profile_id).toBe(profile.body.data!.id);
    // With a direct zone gone, the profile may grow.
    expect((await app.call('DELETE', `/api/geofences/${direct.pop()}`, { token: adminToken })).status).toBe(200);
    expect((await app.call('POST', `/api/admin/feature-profiles/${profile.body.data!.id}`, { token: adminToken, body: { name: 'One zone', geozoneIds: [first, second] } })).status).toBe(200);
    await app.database.query('UPDATE units SET feature_profile_id = NULL WHERE id = ANY($1::int[])', [[unit, unitA]]);
    await app.database.query('DELETE FROM feature_profiles WHERE id = ANY($1::int[])', [[profile.body.data!.id, two.body.data!.id]]);
    for (const id of [...direct, first, second]) expect((await app.call('DELETE', `/api/geofences/${id}`, { token: adminToken })).status).toBe(200);
  });

  test('§5: saves at once cannot together take a unit past 5 zones', async () => {
    const unit = await addUnit(admin.accountId, 'Contested car');
    const made: number[] = [];
    for (let n = 1; n <= 3; n++) made.push((await create(circle({ name: `Held ${n}`, units: [unit] }))).body.data!.id);
    // Four saves at once, each giving the unit a zone: two fit.
    const results = await Promise.all([1, 2, 3, 4].map((n) => create(circle({ name: `Race ${n}`, units: [unit] }))));
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 422, 422]);
    for (const result of results) if (result.status === 200) made.push(result.body.data!.id);
    const count = async () => Number((await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM geofence_units WHERE unit_id = $1', [unit]))[0]!.n);
    expect(await count()).toBe(5);
    // A profile gaining a zone and a zone saved with the unit, at once, with room for one.
    await app.call('DELETE', `/api/geofences/${made.pop()}`, { token: adminToken });
    const spare = (await create(circle({ name: 'Profile spare', units: [] }))).body.data!.id;
    const profile = await app.call<{ id: number }>('POST', '/api/admin/feature-profiles', { token: adminToken, body: { name: 'Contested', geozoneIds: [] } });
    expect((await app.call('POST', `/api/units/${unit}/features`, { token: adminToken, body: { featureProfileId: profile.body.data!.id } })).status).toBe(200);
    const [grown, saved] = await Promise.all([
      app.call('POST', `/api/admin/feature-profiles/${profile.body.data!.id}`, { token: adminToken, body: { name: 'Contested', geozoneIds: [spare] } }),
      create(circle({ name: 'Race again', units: [unit] })),
    ]);
    expect([grown.status, saved.status].sort()).toEqual([200, 422]);
    if (saved.status === 200) made.push(saved.body.data!.id);
    const [{ n } = { n: 0 }] = await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT geofence_id FROM geofence_units WHERE unit_id = $1 UNION SELECT geofence_id FROM unit_profile_geozones WHERE unit_id = $1) AS k', [unit]);
    expect(Number(n)).toBe(5);
    await app.database.query('UPDATE units SET feature_profile_id = NULL WHERE id = $1', [unit]);
    await app.database.query('DELETE FROM feature_profiles WHERE id = $1', [profile.body.data!.id]);
    for (const id of [...made, spare]) expect((await app.call('DELETE', `/api/geofences/${id}`, { token: adminToken })).status).toBe(200);
  });

  test('an ordinary user manages zones of their units only; another account sees nothing', async () => {
    const own = await create(circle({ name: 'Mine', units: [unitA] }), userToken);
    expect(own.status).toBe(200);
    const both = await create(circle({ name: 'Shared', units: [unitA, unitB] }));
    const hidden = await create(circle({ name: 'Hidden', units: [unitB] }));
    // The user may not assign a unit they do not see, nor none.
    expect((await create(circle({ units: [unitB] }), userToken)).body.errors).toEqual({ units: ['One of the units was not found or is not yours.'] });
    expect((await create(circle({ units: [] }), userToken)).body.errors).toEqual({ units: ['Choose at least one unit.'] });
    const list = await app.call<GeofenceView[]>('GET', '/api/geofences', { token: userToken });
    expect(list.body.data!.map((zone) => [zone.name, zone.editable, zone.units.length])).toEqual([
      ['Mine', true, 1],
      ['Shared', false, 1],
    ]);
    expect((await app.call('GET', `/api/geofences/${hidden.body.data!.id}`, { token: userToken })).status).toBe(404);
    const shared = await app.call('POST', `/api/geofences/${both.body.data!.id}`, { token: userToken, body: circle({ name: 'Taken', units: [unitA] }) });
    expect(shared.status).toBe(403);
    expect((await app.call('POST', `/api/geofences/${both.body.data!.id}/active`, { token: userToken, body: { active: false } })).status).toBe(403);
    expect((await app.call('DELETE', `/api/geofences/${both.body.data!.id}`, { token: userToken })).status).toBe(403);
    expect((await app.call('GET', `/api/geofences/${own.body.data!.id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('GET', `/api/geofences/events?geofenceId=${own.body.data!.id}`, { token: otherToken })).status).toBe(404);
    const foreignLog = await app.call('GET', `/api/geofences/events?unitId=${unitB}`, { token: userToken });
    expect([foreignLog.status, foreignLog.body.errors]).toEqual([404, 'The unit is not registered or was not found.']);
    const off = await app.call<GeofenceView>('POST', `/api/geofences/${own.body.data!.id}/active`, { token: userToken, body: { active: false } });
    expect(off.body.data!.active).toBe(false);
    for (const zone of [own, both, hidden]) await app.call('DELETE', `/api/geofences/${zone.body.data!.id}`, { token: adminToken });
  });
});

describe('hysteresis', () => {
  const fresh: ZoneState = { inside: null, leaning: null, leaningCount: 0, lastFix: null };
  const fix = (time: number, where: 'in' | 'band' | 'out', paused = false): ZoneFix => ({ time, inside: where === 'in', near: where !== 'out', paused });
  const transitions = (state: ZoneState, fixes: ZoneFix[]) => advance(state, fixes).crossings.map((c) => `${c.transition}@${c.fix.time}`);

  test('the first side is no crossing; two fixes in a row on the new side are', () => {
    expect(transitions(fresh, [fix(1, 'out'), fix(2, 'out'), fix(3, 'in'), fix(4, 'in'), fix(5, 'out'), fix(6, 'out')])).toEqual(['entered@4', 'exited@6']);
  });
  test('jitter across the border and in the margin band never flaps', () => {
    const inside = advance(fresh, [fix(1, 'in'), fix(2, 'in')]).state;
    const jitter = Array.from({ length: 20 }, (_, i) => fix(10 + i, i % 2 ? 'out' : 'band'));
    expect(transitions(inside, jitter)).toEqual([]);
    expect(transitions(inside, Array.from({ length: 20 }, (_, i) => fix(10 + i, i % 2 ? 'out' : 'in')))).toEqual([]);
  });
  test('late fixes are history; a crossing confirmed inside a deactivation window raises nothing', () => {
    const { state } = advance(fresh, [fix(10, 'out'), fix(11, 'out')]);
    expect(transitions(state, [fix(5, 'in'), fix(6, 'in'), fix(11, 'in')])).toEqual([]);
    const quiet = advance(state, [fix(12, 'in', true), fix(13, 'in', true)]);
    expect(quiet.crossings).toEqual([]);
    expect(quiet.state.inside).toBe(true);
    expect(transitions(quiet.state, [fix(14, 'in'), fix(15, 'out'), fix(16, 'out')])).toEqual(['exited@16']);
  });
});

describe('sides tested in the ingest process agree with the database', () => {
  test('a circle by haversine, a polygon by its densified outline and the margin by a local distance, as PostGIS says', async () => {
    // An irregular 12-vertex zone of about a kilometre, and 400 fixes around and across its border and margin.
    const ring = Array.from({ length: 12 }, (_, v) => {
      const angle = (2 * Math.PI * v) / 12;
      const r = 900 * (0.8 + 0.2 * Math.cos(angle * 3));
      return `${(18.06 + (r * Math.sin(angle)) / 56_000).toFixed(6)} ${(59.33 + (r * Math.cos(angle)) / 111_320).toFixed(6)}`;
    });
    const polygon = `SRID=4326;POLYGON((${[...ring, ring[0]].join(', ')}))`;
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const fixes = Array.from({ length: 400 }, () => ({ lon: 18.06 + (random() - 0.5) * 0.04, lat: 59.33 + (random() - 0.5) * 0.02 }));
    const [zone] = await app.database.query<{ wkb: string; box: number[] | string }>(
      "SELECT encode(ST_AsBinary(geofence_match_geom(ST_GeogFromText($1), NULL)), 'hex') AS wkb, geofence_box(ST_GeogFromText($1), NULL) AS box",
      [polygon],
    );
    const box = (Array.isArray(zone!.box) ? zone!.box : zone!.box.replace(/[{}]/g, '').split(',')).map(Number);
    const shape = { rings: wkbRings(zone!.wkb), west: box[0]!, south: box[1]!, east: box[2]!, north: box[3]! };
    const truth = await app.database.query<{ covered: boolean; near: boolean; metres: number }>(
      `SELECT ST_Covers(geofence_match_geom(ST_GeogFromText($1), NULL), ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326)) AS covered,
              ST_DWithin(ST_GeogFromText($1), ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326)::geography, $4, false) AS near,
              geofence_sphere_m(59.33, 18.06, t.lat, t.lon) AS metres
       FROM unnest($2::float8[], $3::float8[]) WITH ORDINALITY AS t(lon, lat, n) ORDER BY t.n`,
      [polygon, fixes.map((fix) => fix.lon), fixes.map((fix) => fix.lat), MARGIN_M],
    );
    let decided = 0;
    for (const [i, fix] of fixes.entries()) {
      const row = truth[i]!;
      expect(Math.abs(sphereMetres(59.33, 18.06, fix.lat, fix.lon) - Number(row.metres))).toBeLessThan(1e-6);
      const inside = withinRings(shape.rings, fix.lon, fix.lat);
      expect(inside).toBe(row.covered);
      if (inside) continue;
      const side = marginSide(shape, fix.lon, fix.lat);
      if (side === null) continue;
      decided += 1;
      expect(side === 1).toBe(row.near);
    }
    // Most fixes outside are decided without asking the database.
    expect(decided).toBeGreaterThan(200);
  });
});

describe('matching across instances', () => {
  test("a zone moved by one instance is matched at its new place by another that had cached the old shape", async () => {
    const unit = await addUnit(admin.accountId, 'Moved-zone car');
    const made = await create(circle({ name: 'Moving depot', units: [unit], center: { latitude: 59.4, longitude: 18.2 } }));
    const zoneId = made.body.data!.id;
    // Two ingest processes: each with its own shape cache.
    const [first, second] = [createZoneMatcher(), createZoneMatcher()];
    let time = Date.parse('2026-03-02T08:00:00Z');
    const at = (latitude: number, longitude: number) => {
      time += 10_000;
      return { unitId: unit, accountId: admin.accountId, time: new Date(time), latitude, longitude, speedKmh: 30, course: 0, valid: true, flags: 0, ignition: true, odometerM: undefined, normalized: {} };
    };
    const feed = (matcher: typeof first, latitude: number, longitude: number) =>
      app.database.transaction((query) => matcher(query, app.platform.outbox, [at(latitude, longitude), at(latitude, longitude)]));
    const inside = async () => (await app.database.query<{ inside: boolean | null }>('SELECT inside FROM geofence_state WHERE unit_id = $1 AND geofence_id = $2', [unit, zoneId]))[0]?.inside ?? null;
    await feed(first, 59.4, 18.2);
    await feed(second, 59.4, 18.2);
    expect(await inside()).toBe(true);
    // Moved 10 km north: the states start afresh and both processes' cached circles are stale.
    await app.call('POST', `/api/geofences/${zoneId}`, { token: adminToken, body: circle({ name: 'Moving depot', units: [unit], center: { latitude: 59.49, longitude: 18.2 } }) });
    expect(await inside()).toBeNull();
    await feed(first, 59.49, 18.2);
    expect(await inside()).toBe(true);
    await feed(second, 59.4, 18.2);
    expect(await inside()).toBe(false);
    const [row] = await app.database.query<{ zone_ids: number[] | string; inside: boolean[] | string }>('SELECT zone_ids, inside FROM geofence_unit_marks WHERE unit_id = $1', [unit]);
    expect(String(row!.zone_ids).replace(/[{}]/g, '')).toBe(String(zoneId));
    expect(String(row!.inside).replace(/[{}]/g, '')).toMatch(/^(false|f)$/);
  });

  test('deleting a zone clears its units\' state (kept with the positions, out of reach of a cascade), and a cached shape does not bring it back', async () => {
    const unit = await addUnit(admin.accountId, 'Deleted-zone car');
    const made = await create(circle({ name: 'Short-lived depot', units: [unit], center: { latitude: 59.6, longitude: 18.4 } }));
    const zoneId = made.body.data!.id;
    const matcher = createZoneMatcher();
    let time = Date.parse('2026-03-03T08:00:00Z');
    const feed = () => {
      const fix = () => {
        time += 10_000;
        return { unitId: unit, accountId: admin.accountId, time: new Date(time), latitude: 59.6, longitude: 18.4, speedKmh: 30, course: 0, valid: true, flags: 0, ignition: true, odometerM: undefined, normalized: {} };
      };
      return app.database.transaction((query) => matcher(query, app.platform.outbox, [fix(), fix()]));
    };
    const states = async () => (await app.database.query('SELECT 1 FROM geofence_state WHERE geofence_id = $1', [zoneId])).length;
    await feed();
    expect(await states()).toBe(1);
    expect((await app.call('DELETE', `/api/geofences/${zoneId}`, { token: adminToken })).status).toBe(200);
    expect(await states()).toBe(0);
    await feed();
    expect(await states()).toBe(0);
  });
});
