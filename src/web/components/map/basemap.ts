import type { ExpressionSpecification, Map as MapLibre, StyleSpecification } from 'maplibre-gl';
import nordicOutlinesUrl from './nordic-outlines.geojson' with { type: 'file' };
import worldOutlinesUrl from './world-outlines.geojson' with { type: 'file' };

/**
 * The base map. Each brand may name an online vector style (OpenMapTiles schema); by default every
 * brand uses OpenFreeMap's "liberty" style. The map always starts on an offline style drawn from the
 * shipped Natural Earth country outlines (1:10m for the markets and their neighbours, 1:50m elsewhere), so
 * it is never blank, and switches to the online style only once that style has actually been fetched;
 * without a network it stays offline.
 */

/** Spec §9: the map's default centre (Stockholm) and zoom. */
export const DEFAULT_CENTER: [number, number] = [18.0686, 59.3293];
export const DEFAULT_ZOOM = 14;
/** Zoom used to focus one unit (spec §9: 15 on edit). */
export const FOCUS_ZOOM = 15;

export const DEFAULT_ONLINE_STYLE = 'https://tiles.openfreemap.org/styles/liberty';
/** Per sub-site (0-7) style URLs; a brand not listed uses the default; null keeps a brand offline. */
export const BRAND_STYLES: Partial<Record<number, string | null>> = {};
/** How long the online style may take before the map stays on the offline one. */
const STYLE_TIMEOUT_MS = 4000;

export interface BasemapColors {
  water: string;
  land: string;
  border: string;
  grid: string;
}

const OFFLINE_COLORS: BasemapColors = { water: '#bcd6ea', land: '#eef0e9', border: '#9aa59a', grid: '#d6dde5' };

/** Spec §9: map language sv, Norwegian as nb, anything else English. */
export function mapLanguage(language: string): 'sv' | 'nb' | 'en' {
  return language === 'sv' ? 'sv' : language === 'no' ? 'nb' : 'en';
}

export function onlineStyleUrl(subsiteId: number): string | null {
  const configured = BRAND_STYLES[subsiteId];
  return configured === undefined ? DEFAULT_ONLINE_STYLE : configured;
}

/** [west, south, east, north] in degrees. */
type Extent = [number, number, number, number];
/** The markets (Sweden, Norway, the UK) and their neighbours: where the fine grid is drawn. */
const MARKETS: Extent = [-12, 48, 35, 72];

/**
 * Lines every `step` degrees within `extent`, so that panning shows movement even where the outlines are plain land.
 * Straight on the map (Mercator): a line needs only its ends and a point every 10° for clipping.
 */
function graticule(step: number, [west, south, east, north]: Extent = [-180, -85, 180, 85]): GeoJSON.FeatureCollection {
  const features: GeoJSON.Feature[] = [];
  const at = (i: number) => Math.round(i * step * 1000) / 1000;
  const along = (from: number, to: number) => {
    const points: number[] = [];
    for (let value = from; value < to; value += 10) points.push(value);
    points.push(to);
    return points;
  };
  for (let i = Math.ceil(west / step); at(i) <= east; i++) {
    const lon = at(i);
    features.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: along(south, north).map((lat) => [lon, lat]) } });
  }
  for (let i = Math.ceil(south / step); at(i) <= north; i++) {
    const lat = at(i);
    features.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: along(west, east).map((lon) => [lon, lat]) } });
  }
  return { type: 'FeatureCollection', features };
}

/**
 * The offline style: water, land, borders, a 1° grid and a 0.1° grid over the markets; no glyphs or tiles from the network. The country
 * outlines are shipped GeoJSON files (outlines.generate.ts) that MapLibre's worker fetches and parses itself, so
 * the page's main thread never handles them: 1:50m for the world (and alone below zoom 7, where it suffices and
 * costs far less to draw), 1:10m for the markets and their neighbours from zoom 7 on.
 */
export function offlineStyle(colors: Partial<BasemapColors> = {}): StyleSpecification {
  const palette = { ...OFFLINE_COLORS, ...colors };
  // The worker resolves URLs against its own (blob) address: hand it absolute ones.
  const absolute = (path: string) => new URL(path, window.location.href).href;
  const elsewhere: ExpressionSpecification = ['!', ['get', 'detailed']];
  return {
    version: 8,
    name: 'offline',
    sources: {
      world: { type: 'geojson', data: absolute(worldOutlinesUrl), tolerance: 0.6, maxzoom: 7 },
      detailed: { type: 'geojson', data: absolute(nordicOutlinesUrl), tolerance: 0.6 },
      grid: { type: 'geojson', data: graticule(1) },
      // Over the markets only: worldwide it was 5,000 lines, cloned to MapLibre's worker on the page's main thread at start.
      fineGrid: { type: 'geojson', data: graticule(0.1, MARKETS) },
    },
    layers: [
      { id: 'water', type: 'background', paint: { 'background-color': palette.water } },
      { id: 'land-world', type: 'fill', source: 'world', maxzoom: 7, paint: { 'fill-color': palette.land, 'fill-antialias': false } },
      { id: 'land-elsewhere', type: 'fill', source: 'world', minzoom: 7, filter: elsewhere, paint: { 'fill-color': palette.land, 'fill-antialias': false } },
      { id: 'land', type: 'fill', source: 'detailed', minzoom: 7, paint: { 'fill-color': palette.land, 'fill-antialias': false } },
      { id: 'fine-grid', type: 'line', source: 'fineGrid', minzoom: 9, paint: { 'line-color': palette.grid, 'line-width': 0.6 } },
      { id: 'grid', type: 'line', source: 'grid', paint: { 'line-color': palette.grid, 'line-width': 1 } },
      { id: 'borders-world', type: 'line', source: 'world', maxzoom: 7, paint: { 'line-color': palette.border, 'line-width': 1 } },
      { id: 'borders-elsewhere', type: 'line', source: 'world', minzoom: 7, filter: elsewhere, paint: { 'line-color': palette.border, 'line-width': 1 } },
      { id: 'borders', type: 'line', source: 'detailed', minzoom: 7, paint: { 'line-color': palette.border, 'line-width': 1 } },
    ],
  };
}

/**
 * Fetches an online style within the time limit and rewrites its labels to the map language
 * (`name:sv`, `name:nb` or `name:en`, falling back to the local name). Null when it cannot be had.
 */
export async function fetchOnlineStyle(url: string, language: 'sv' | 'nb' | 'en', signal?: AbortSignal): Promise<StyleSpecification | null> {
  try {
    const timeout = AbortSignal.timeout(STYLE_TIMEOUT_MS);
    const response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, credentials: 'omit' });
    if (!response.ok) return null;
    const style = (await response.json()) as StyleSpecification;
    if (style?.version !== 8 || !Array.isArray(style.layers)) return null;
    const label: ExpressionSpecification = ['coalesce', ['get', `name:${language}`], ['get', 'name:latin'], ['get', 'name']];
    for (const layer of style.layers) {
      if (layer.type === 'symbol' && layer.layout?.['text-field'] !== undefined) {
        const field = JSON.stringify(layer.layout['text-field']);
        // Only name labels: route shields and house numbers keep their own fields.
        if (/name/.test(field)) layer.layout['text-field'] = label;
      }
    }
    return style;
  } catch {
    return null;
  }
}

/** Below this zoom the world's outlines are what the offline map shows of the markets too. */
const WORLD_ONLY_BELOW_ZOOM = 7;
/** The world's outlines are added at the latest this long after the rest of the offline map. */
const WORLD_LATEST_MS = 3000;

/**
 * Puts the base map on `map`: the offline style at once (never blank), then the brand's online style once it
 * has been fetched. `node.dataset.basemap` tells which one is drawn (tests read it). Stops at `signal`.
 *
 * The world's outlines (the larger file, only seen below zoom 7 or outside the markets' countries) may wait for
 * `worldAfter` (the live map: until its fleet is drawn), so that MapLibre's worker does not parse and tile them
 * while the page loads what is in view; they come at once when the map is zoomed out, and within 3 s in any case.
 */
export function applyBaseMap(
  map: MapLibre,
  node: HTMLElement,
  options: { subsiteId: number; language: string; signal: AbortSignal; worldAfter?: Promise<void> },
): void {
  void (async () => {
    try {
      const style = offlineStyle();
      const world = (id: string) => style.layers.some((layer) => layer.id === id && 'source' in layer && layer.source === 'world');
      addInOrder(map, style, (id) => id !== 'world' && !world(id));
      const waiting = new AbortController();
      await Promise.race([
        options.worldAfter ?? Promise.resolve(),
        zoomedBelow(map, WORLD_ONLY_BELOW_ZOOM, AbortSignal.any([options.signal, waiting.signal])),
        new Promise<void>((resolve) => setTimeout(resolve, WORLD_LATEST_MS)),
      ]);
      waiting.abort(); // the zoom watch is done with
      if (options.signal.aborted) return;
      addInOrder(map, style, (id) => id === 'world' || world(id));
      map.once('idle', () => {
        node.dataset.basemap = 'offline';
      });
    } catch (error) {
      console.warn('offline base map failed', error);
    }
    const url = onlineStyleUrl(options.subsiteId);
    if (!url) return;
    const online = await fetchOnlineStyle(url, mapLanguage(options.language), options.signal);
    if (!online || options.signal.aborted) return;
    map.setStyle(online);
    map.once('idle', () => {
      node.dataset.basemap = 'online';
    });
  })();
}

/** Resolves once the map is zoomed out below `zoom` (at once if it is), or `signal` ends the watch. */
function zoomedBelow(map: MapLibre, zoom: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      map.off('zoom', check);
      resolve();
    };
    const check = () => {
      if (map.getZoom() < zoom) stop();
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    map.on('zoom', check);
    check();
  });
}

/**
 * Adds the style's sources and layers that `include` names (by id) beneath what the map draws already, each layer
 * in its place among the style's layers added before, without replacing the map's style: what is on the map
 * meanwhile (deck.gl's vehicles, drawn as soon as the unit list is in) stays up and is not reloaded. A layer the
 * map has already (the background) is kept.
 */
function addInOrder(map: MapLibre, style: StyleSpecification, include: (id: string) => boolean): void {
  const add = () => {
    const styleIds = style.layers.map((layer) => layer.id);
    // Beneath everything that is not the style's own (deck.gl's layers).
    const foreign = map.getLayersOrder().find((id) => !styleIds.includes(id));
    for (const [id, source] of Object.entries(style.sources)) if (include(id) && !map.getSource(id)) map.addSource(id, source);
    style.layers.forEach((layer, at) => {
      if (!include(layer.id) || map.getLayer(layer.id)) return;
      const next = styleIds.slice(at + 1).find((id) => map.getLayer(id));
      map.addLayer(layer, next ?? foreign);
    });
  };
  try {
    add();
  } catch {
    // The map's own first style is not in yet ("Style is not done loading"): add once it is.
    map.once('style.load', add);
  }
}

