import type { GeocodeCandidate, GeocodeResult, GeocodingProvider } from './types';

/**
 * A Nominatim-compatible HTTP provider (`/reverse?format=jsonv2`): Nominatim itself, or any service that
 * speaks its reverse API. Requests go one at a time with a minimum interval (Nominatim's usage policy asks
 * for at most one per second on the public servers) and a timeout; a failure throws so the caller can fall
 * back and not cache it.
 */
export interface NominatimOptions {
  /** Base URL, e.g. `https://nominatim.example.org` (a path prefix is kept). */
  baseUrl: string;
  userAgent?: string;
  /** Accept-Language for the answer; unset: the names used locally. */
  language?: string;
  timeoutMs?: number;
  /** Minimum time between two requests. */
  minIntervalMs?: number;
  fetch?: typeof fetch;
}

interface NominatimAddress {
  road?: string;
  pedestrian?: string;
  footway?: string;
  cycleway?: string;
  path?: string;
  house_number?: string;
  neighbourhood?: string;
  suburb?: string;
  city_district?: string;
  city?: string;
  town?: string;
  village?: string;
  hamlet?: string;
  municipality?: string;
  county?: string;
  postcode?: string;
  country?: string;
  country_code?: string;
}

interface NominatimReverse {
  error?: string;
  lat?: string;
  lon?: string;
  name?: string;
  display_name?: string;
  address?: NominatimAddress;
}

/** Countries that write the house number before the street name. */
const NUMBER_FIRST = new Set(['gb', 'ie', 'us', 'ca', 'au', 'nz', 'fr']);
const MAX_LABEL = 200;

/** "Storgatan 1, Solna" (or "1 High Street, London"); falls back to the first parts of display_name. */
export function nominatimLabel(answer: NominatimReverse): GeocodeResult | null {
  const address = answer.address ?? {};
  const country = address.country_code?.toUpperCase();
  const street = address.road ?? address.pedestrian ?? address.footway ?? address.cycleway ?? address.path;
  const number = address.house_number;
  const streetPart = street
    ? number
      ? NUMBER_FIRST.has(address.country_code ?? '')
        ? `${number} ${street}`
        : `${street} ${number}`
      : street
    : undefined;
  const locality = address.city ?? address.town ?? address.village ?? address.hamlet ?? address.municipality ?? address.suburb;
  const parts = [streetPart ?? (answer.name || undefined), locality].filter((part): part is string => Boolean(part));
  let label = [...new Set(parts)].join(', ');
  if (!label && answer.display_name) label = answer.display_name.split(',').slice(0, 3).map((part) => part.trim()).join(', ');
  if (!label) return null;
  return { label: label.slice(0, MAX_LABEL), locality, country };
}

export function nominatimProvider(options: NominatimOptions): GeocodingProvider {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const minInterval = options.minIntervalMs ?? 1000;
  let chain: Promise<unknown> = Promise.resolve();
  let lastStart = 0;

  async function request(latitude: number, longitude: number): Promise<GeocodeResult | null> {
    const wait = lastStart + minInterval - Date.now();
    if (wait > 0) await Bun.sleep(wait);
    lastStart = Date.now();
    const url = new URL(base.toString());
    url.pathname = `${basePath}/reverse`;
    url.search = new URLSearchParams({
      format: 'jsonv2',
      lat: latitude.toFixed(6),
      lon: longitude.toFixed(6),
      zoom: '18',
      addressdetails: '1',
    }).toString();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'fleet-portal' };
    if (options.language) headers['accept-language'] = options.language;
    const response = await doFetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
    if (!response.ok) throw new Error(`geocoder answered HTTP ${response.status}`);
    const answer = (await response.json()) as NominatimReverse;
    if (typeof answer !== 'object' || answer === null) throw new Error('geocoder answered no JSON object');
    // Nominatim answers a point with no address (open sea) with 200 and { error: "Unable to geocode" }.
    if (answer.error) return null;
    return nominatimLabel(answer);
  }

  /** `/search?format=jsonv2&q=…`: the same label as reverse answers, for each match. */
  async function searchRequest(query: string, limit: number): Promise<GeocodeCandidate[]> {
    const wait = lastStart + minInterval - Date.now();
    if (wait > 0) await Bun.sleep(wait);
    lastStart = Date.now();
    const url = new URL(base.toString());
    url.pathname = `${basePath}/search`;
    url.search = new URLSearchParams({ format: 'jsonv2', q: query, addressdetails: '1', limit: String(limit) }).toString();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'fleet-portal' };
    if (options.language) headers['accept-language'] = options.language;
    const response = await doFetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
    if (!response.ok) throw new Error(`geocoder answered HTTP ${response.status}`);
    const answer = (await response.json()) as NominatimReverse[];
    if (!Array.isArray(answer)) throw new Error('geocoder answered no JSON array');
    const candidates: GeocodeCandidate[] = [];
    for (const item of answer) {
      const label = nominatimLabel(item)?.label;
      const latitude = Number(item.lat);
      const longitude = Number(item.lon);
      if (label && Number.isFinite(latitude) && Number.isFinite(longitude)) candidates.push({ label, latitude, longitude });
    }
    return candidates;
  }

  return {
    id: `nominatim:${base.host}${basePath}`,
    search(query, limit) {
      const run = chain.then(() => searchRequest(query, limit));
      chain = run.catch(() => {});
      return run;
    },
    reverse(latitude, longitude) {
      const run = chain.then(() => request(latitude, longitude));
      chain = run.catch(() => {});
      return run;
    },
  };
}
