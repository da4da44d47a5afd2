import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestDatabase, type TestDatabase } from '../../../tests/support/database';
import { createLogger } from '../log';
import { createCachedGeocoder, nominatimProvider, offlineProvider, searchLocalities } from '.';

/** Forward geocoding (a typed address to a point): offline locality names, a Nominatim-compatible /search, fallback. */
const log = createLogger('silent');
let database: TestDatabase;
let mode: 'ok' | 'down' | 'empty' = 'ok';
let server: ReturnType<typeof Bun.serve>;
const requests: URL[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push(url);
      if (url.pathname !== '/nominatim/search' || url.searchParams.get('format') !== 'jsonv2') return new Response('not found', { status: 404 });
      if (mode === 'down') return new Response('overloaded', { status: 503 });
      if (mode === 'empty') return Response.json([]);
      return Response.json([
        {
          lat: '59.3600100',
          lon: '18.0009200',
          name: '',
          display_name: '1, Storgatan, Solna, 171 41, Sverige',
          address: { house_number: '1', road: 'Storgatan', city: 'Solna', country_code: 'se' },
        },
        { lat: 'not a number', lon: '18', display_name: 'Broken' },
      ]);
    },
  });
}, 60_000);
afterAll(async () => {
  server?.stop(true);
  await database?.dispose();
});

describe('forward geocoding', () => {
  test('offline: localities by name prefix, diacritics and case ignored, exact and populous first, a country narrows', () => {
    const [first] = searchLocalities('goteborg');
    expect(first).toMatchObject({ name: 'Göteborg', country: 'SE' });
    expect(searchLocalities('Stockholm', 3)[0]).toMatchObject({ name: 'Stockholm', country: 'SE' });
    expect(searchLocalities('Bergen, NO')[0]).toMatchObject({ name: 'Bergen', country: 'NO' });
    expect(searchLocalities('Bergen, NO').every((locality) => locality.country === 'NO')).toBe(true);
    expect(searchLocalities('zzzzqqq')).toEqual([]);
    expect(searchLocalities('a', 4)).toHaveLength(4);
  });

  test('offline: a whole address gives the town it names (house numbers, postcodes and country names aside)', () => {
    expect(searchLocalities('Storgatan 1, Malmö')[0]).toMatchObject({ name: 'Malmö', country: 'SE' });
    expect(searchLocalities('Drottninggatan 5, 111 51 Stockholm, Sverige')[0]).toMatchObject({ name: 'Stockholm', country: 'SE' });
    expect(searchLocalities('Karl Johans gate 1, 0154 Oslo, Norge').every((locality) => locality.country === 'NO')).toBe(true);
    expect(searchLocalities('Karl Johans gate 1, 0154 Oslo, Norge')[0]).toMatchObject({ name: 'Oslo' });
    expect(searchLocalities('Storgatan 1 Umeå')[0]).toMatchObject({ name: 'Umeå', country: 'SE' });
    expect(searchLocalities('Storgatan 1, 123 45')).toEqual([]);
    expect(searchLocalities(' , ')).toEqual([]);
  });

  test('a Nominatim-compatible /search answers labels like reverse does; malformed rows are left out', async () => {
    mode = 'ok';
    const provider = nominatimProvider({ baseUrl: `http://127.0.0.1:${server.port}/nominatim/`, minIntervalMs: 0 });
    const found = await provider.search!('Storgatan 1 Solna', 5);
    expect(found).toEqual([{ label: 'Storgatan 1, Solna', latitude: 59.36001, longitude: 18.00092 }]);
    const url = requests.at(-1)!;
    expect(url.searchParams.get('q')).toBe('Storgatan 1 Solna');
    expect(url.searchParams.get('limit')).toBe('5');
  });

  test('the geocoder falls back to offline names when the provider is down or finds nothing, and never throws', async () => {
    const http = nominatimProvider({ baseUrl: `http://127.0.0.1:${server.port}/nominatim/`, minIntervalMs: 0 });
    const geocoder = createCachedGeocoder(database.handle, log, http, offlineProvider());
    mode = 'ok';
    expect((await geocoder.search('Storgatan 1'))[0]!.label).toBe('Storgatan 1, Solna');
    mode = 'down';
    expect((await geocoder.search('Solna'))[0]).toMatchObject({ label: 'Solna, SE' });
    mode = 'empty';
    expect((await geocoder.search('Uppsala'))[0]).toMatchObject({ label: 'Uppsala, SE' });
    expect(await geocoder.search(' ')).toEqual([]);
    const offlineOnly = createCachedGeocoder(database.handle, log, offlineProvider());
    expect((await offlineOnly.search('Malmö', 1)).map((candidate) => candidate.label)).toEqual(['Malmö, SE']);
  });
});
