import type { Envelope } from '../../lib/api';
import type { TrackedUnitList } from '../../../modules/tracking/model';
import { getSession, type Session } from '../../lib/session';
import { startClusterWorker } from './cluster-worker';

/** A list asked for at start-up is used only while this fresh; the live socket's catch-up covers the gap. */
const FRESH_MS = 15_000;

let early: { at: number; token: string; units: Promise<TrackedUnitList> } | null = null;

/** The clustering worker started at page start (see `takeClusterWorker`). */
let clusterWorker: { worker: Worker; url: string } | null = null;

/** The worker started by `prefetchLiveMap`, once; else null (the map starts its own). */
export function takeClusterWorker(): { worker: Worker; url: string } | null {
  const taken = clusterWorker;
  clusterWorker = null;
  return taken;
}

/** Modules of the map fetched ahead and evaluated, by name (see `preloadedModule`). */
const loaded = new Map<string, unknown>();

function preload(name: string, load: () => Promise<unknown>): void {
  load().then(
    (module) => loaded.set(name, module),
    () => {}, // the page's own lazy import reports it
  );
}

/**
 * A module `prefetchLiveMap` has loaded already, else undefined. The page renders it straight away: `React.lazy`
 * would suspend once even for a loaded module, and React then shows what was loading no sooner than 300 ms after
 * the fallback appeared (each of the two nested islands, the page and the map, paid that wait).
 */
export function preloadedModule<T>(name: 'LiveMap' | 'MapCanvas'): T | undefined {
  return loaded.get(name) as T | undefined;
}

/**
 * When the app starts on the map with a session (the entry calls this then): asks for the unit list and loads the
 * map's code at once, while the rest of the app boots, instead of after the page and its map chunk have rendered.
 */
export function prefetchLiveMap(session: Session): void {
  // The clustering worker boots and warms up while the list loads, then clusters a copy of it (see its `prebuild`).
  const started = startClusterWorker();
  clusterWorker = started;
  // A plain request (the API client and its translated errors load with the app): unused or failed, the store asks
  // again through the API client and reports its own error.
  const units = fetch('/api/tracking/units', { headers: { accept: 'application/json', authorization: `Bearer ${session.user.token}` } }).then(
    async (response) => {
      const bytes = await response.arrayBuffer();
      // A copy for the worker, which parses and clusters it while this thread parses and stores its own.
      if (response.ok) {
        const copy = bytes.slice(0);
        started.worker.postMessage({ type: 'prebuild', body: copy }, [copy]);
      }
      const body = JSON.parse(new TextDecoder().decode(bytes)) as Envelope<TrackedUnitList>;
      if (!response.ok || !body.success || !body.data) throw new Error(`unit list refused (${response.status})`);
      return body.data;
    },
  );
  units.catch(() => {});
  early = { at: performance.now(), token: session.user.token, units };
  // The page's island and the map's libraries: requested now rather than once the route has rendered.
  preload('LiveMap', () => import('./LiveMap'));
  preload('MapCanvas', () => import('./MapCanvas'));
}

/** The list asked for at start-up, once, if still fresh and of the same session; else null. */
export function takePrefetchedUnits(): Promise<TrackedUnitList> | null {
  const taken = early;
  early = null;
  if (!taken || performance.now() - taken.at > FRESH_MS || getSession()?.user.token !== taken.token) return null;
  return taken.units;
}
