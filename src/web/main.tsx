import type { Brand } from '../modules/brands/model';
import type { Envelope } from './lib/api';
import { prefetchLiveMap } from './features/map/prefetch';
import { restoreSession } from './lib/session';

/** The brands (for the brand's look and default language), asked for at once; null when they cannot be had. */
async function fetchBrands(): Promise<Brand[] | null> {
  try {
    const response = await fetch('/api/brands', { headers: { Accept: 'application/json' } });
    if (!response.ok) return null;
    const body = (await response.json()) as Envelope<Brand[]>;
    return body.success ? body.data : null;
  } catch {
    return null;
  }
}

/**
 * The entry is kept small: it asks for the brands, reads the session and, when the app starts on the live map, asks
 * for the unit list and the map's code, before the rest of the app (React DOM, the router, the login page) has
 * loaded; then it loads and renders the app. Every other screen is loaded when first shown.
 */
async function start() {
  const brands = fetchBrands();
  await restoreSession();
  prefetchLiveMap();
  const { startApp } = await import('./start');
  await startApp(brands);
}

void start();
