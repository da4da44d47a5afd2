import type { Config } from '../config';
import type { DatabaseHandle } from '../db/client';
import type { Logger } from '../log';
import { isCoordinate } from './distance';
import { nominatimProvider } from './nominatim';
import { offlineProvider } from './offline';
import type { GeocodeCandidate, GeocodingProvider } from './types';

export { distanceM, isCoordinate } from './distance';
export { nominatimLabel, nominatimProvider } from './nominatim';
export { nearestLocality, offlineProvider, searchLocalities } from './offline';
export type { GeocodeCandidate, GeocodeResult, GeocodingProvider } from './types';

/** Coordinates are cached rounded to 4 decimals: about 11 m, finer than a parking space is told apart. */
export const CACHE_PRECISION = 1e4;

export interface Geocoder {
  /** The address label at a point, from the cache or the provider; null when nobody knows one. Never throws. */
  reverse(latitude: number, longitude: number): Promise<string | null>;
  /**
   * Forward geocoding of a typed address: the primary provider's matches, else the fallback's (offline: locality
   * names). Empty when nobody can search or nothing matches. Never throws; not cached (people type, points repeat).
   */
  search(query: string, limit?: number): Promise<GeocodeCandidate[]>;
  readonly providerId: string;
}

/** Search answers at most this many candidates. */
export const SEARCH_LIMIT_MAX = 10;

/**
 * Reverse geocoding with a cache table keyed by provider and rounded coordinates. When the primary
 * provider fails (unreachable, timeout, bad answer) or knows no address, the fallback (the offline
 * locality names) answers; a failure is not cached, so the next look-up tries the primary again.
 */
export function createCachedGeocoder(
  database: DatabaseHandle,
  log: Logger,
  primary: GeocodingProvider,
  fallback: GeocodingProvider | null = null,
): Geocoder {
  /** Concurrent look-ups of one key share one request. */
  const inFlight = new Map<string, Promise<string | null>>();

  async function cached(provider: GeocodingProvider, latE4: number, lonE4: number, latitude: number, longitude: number): Promise<string | null> {
    const [hit] = await database.query<{ address: string }>(
      'SELECT address FROM geocode_cache WHERE provider = $1 AND lat_e4 = $2 AND lon_e4 = $3',
      [provider.id, latE4, lonE4],
    );
    if (hit) return hit.address;
    const result = await provider.reverse(latitude, longitude);
    const address = result?.label ?? '';
    await database.query(
      `INSERT INTO geocode_cache (provider, lat_e4, lon_e4, address) VALUES ($1, $2, $3, $4)
       ON CONFLICT (provider, lat_e4, lon_e4) DO UPDATE SET address = EXCLUDED.address, created_at = now()`,
      [provider.id, latE4, lonE4, address],
    );
    return address;
  }

  async function lookUp(latE4: number, lonE4: number, latitude: number, longitude: number): Promise<string | null> {
    try {
      const address = await cached(primary, latE4, lonE4, latitude, longitude);
      if (address) return address;
    } catch (error) {
      log.warn('reverse geocoding failed', { provider: primary.id, error: String(error) });
    }
    if (!fallback) return null;
    try {
      return (await cached(fallback, latE4, lonE4, latitude, longitude)) || null;
    } catch (error) {
      log.warn('reverse geocoding failed', { provider: fallback.id, error: String(error) });
      return null;
    }
  }

  async function searchWith(provider: GeocodingProvider | null, query: string, limit: number): Promise<GeocodeCandidate[] | null> {
    if (!provider?.search) return null;
    try {
      return (await provider.search(query, limit)).filter((candidate) => isCoordinate(candidate.latitude, candidate.longitude)).slice(0, limit);
    } catch (error) {
      log.warn('forward geocoding failed', { provider: provider.id, error: String(error) });
      return null;
    }
  }

  return {
    providerId: primary.id,
    async search(query, limit = 5) {
      const text = query.trim();
      if (text.length < 2) return [];
      const max = Math.max(1, Math.min(SEARCH_LIMIT_MAX, Math.floor(limit)));
      const found = await searchWith(primary, text, max);
      if (found && found.length > 0) return found;
      return (await searchWith(fallback, text, max)) ?? found ?? [];
    },
    reverse(latitude, longitude) {
      if (!isCoordinate(latitude, longitude)) return Promise.resolve(null);
      const latE4 = Math.round(latitude * CACHE_PRECISION);
      const lonE4 = Math.round(longitude * CACHE_PRECISION);
      const key = `${latE4},${lonE4}`;
      const running = inFlight.get(key);
      if (running) return running;
      const result = lookUp(latE4, lonE4, latitude, longitude).finally(() => inFlight.delete(key));
      inFlight.set(key, result);
      return result;
    },
  };
}

/** The configured geocoder: Nominatim-compatible HTTP when GEOCODER_URL is set (offline as fallback), else offline. */
export function createGeocoder(config: Pick<Config, 'GEOCODER_URL' | 'PUBLIC_URL'>, database: DatabaseHandle, log: Logger): Geocoder {
  const offline = offlineProvider();
  if (!config.GEOCODER_URL) return createCachedGeocoder(database, log, offline);
  const http = nominatimProvider({ baseUrl: config.GEOCODER_URL, userAgent: `fleet-portal (+${config.PUBLIC_URL})` });
  return createCachedGeocoder(database, log, http, offline);
}
