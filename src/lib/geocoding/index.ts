import type { Config } from '../config';
import type { DatabaseHandle } from '../db/client';
import type { Logger } from '../log';
import { isCoordinate } from './distance';
import { nominatimProvider } from './nominatim';
import { offlineProvider } from './offline';
import type { GeocodingProvider } from './types';

export { distanceM, isCoordinate } from './distance';
export { nominatimLabel, nominatimProvider } from './nominatim';
export { nearestLocality, offlineProvider } from './offline';
export type { GeocodeResult, GeocodingProvider } from './types';

/** Coordinates are cached rounded to 4 decimals: about 11 m, finer than a parking space is told apart. */
export const CACHE_PRECISION = 1e4;

export interface Geocoder {
  /** The address label at a point, from the cache or the provider; null when nobody knows one. Never throws. */
  reverse(latitude: number, longitude: number): Promise<string | null>;
  readonly providerId: string;
}

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

  return {
    providerId: primary.id,
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
