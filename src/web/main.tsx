import { prefetchLiveMap } from './features/map/prefetch';
import { restoreSession } from './lib/session';

/**
 * The entry is kept small: it reads the session and, when the app starts on the live map, asks for the unit list
 * and the map's code, before the rest of the app (React DOM, the router, every screen: most of a megabyte) has
 * loaded; then it loads and renders the app.
 */
async function start() {
  await restoreSession();
  prefetchLiveMap();
  const { startApp } = await import('./start');
  startApp();
}

void start();
