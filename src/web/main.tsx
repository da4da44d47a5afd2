import type { Brand } from '../modules/brands/model';
import type { Envelope } from './lib/api';
import { PATHS } from './lib/paths';
import { getSession, restoreSession } from './lib/session';

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
 * The entry is kept small: it asks for the brands, reads the session and, when the app starts on the live map with a
 * session, loads the map's prefetch (the unit list, the map's code and its clustering worker) as a chunk of its own,
 * requested before the rest of the app (React DOM, the router, the login page); then it loads and renders the app.
 * A signed-out visitor loads none of the map's code. Every other screen is loaded when first shown.
 */
async function start() {
  const brands = fetchBrands();
  await restoreSession();
  const session = getSession();
  if (session?.user.RealTimeMap && window.location.pathname === PATHS.liveMap) {
    // Failing, the map loads its own code and list when it renders.
    import('./features/map/prefetch').then((prefetch) => prefetch.prefetchLiveMap(session), () => {});
  }
  const { startApp } = await import('./start');
  await startApp(brands);
}

void start();
