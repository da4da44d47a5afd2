/**
 * The baseline page of bench/map.ts: the same fleet drawn the common way, a MapLibre GeoJSON source with MapLibre's
 * own clustering (supercluster in its worker) and circle layers, fed by the same unit list and live socket, and
 * given the whole FeatureCollection again on every live message (as MapLibre-based fleet portals such as Traccar's
 * web app do). Same offline base map, start view and cluster settings as the portal's map. It draws plain circles
 * (no icons, headings or labels), so it does less per frame than the portal: ratios against it are conservative.
 *
 * Opened as `/bench-baseline/index.html#<token>`; exposes `window.__baseline` for the benchmark to read.
 */
import { type GeoJSONSource, Map as MapLibre, setWorkerUrl } from 'maplibre-gl';
import mapLibreCss from 'maplibre-gl/dist/maplibre-gl.css' with { type: 'text' };
import mapLibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs' with { type: 'file' };
import type { LiveMessage, TrackedUnitList } from '../../src/modules/tracking/model';
import { DEFAULT_CENTER, DEFAULT_ZOOM, offlineStyle } from '../../src/web/components/map/basemap';
import { CLUSTER_MAX_ZOOM, CLUSTER_RADIUS_PX } from '../../src/web/components/map/clustering';

export interface BaselineProbe {
  map: MapLibre;
  /** performance.now() when the list was parsed and handed to the source; 0 before. */
  loadedAt: number;
  /** performance.now() of the first frame drawn from the loaded source; 0 before. */
  firstDrawAt: number;
  /** [lastSeen epoch ms, drawn epoch ms] of units in view whose new position a frame drew. */
  drawn: Array<[number, number]>;
  unitsReceived: number;
}

const token = decodeURIComponent(window.location.hash.slice(1));
const style = document.createElement('style');
style.textContent = `${mapLibreCss} html, body, #map { margin: 0; width: 100%; height: 100%; }`;
document.head.appendChild(style);

setWorkerUrl(new URL(mapLibreWorkerUrl, window.location.href).href);
const map = new MapLibre({ container: 'map', style: offlineStyle(), center: DEFAULT_CENTER, zoom: DEFAULT_ZOOM, attributionControl: false });
const probe: BaselineProbe = { map, loadedAt: 0, firstDrawAt: 0, drawn: [], unitsReceived: 0 };
(window as unknown as { __baseline: BaselineProbe }).__baseline = probe;

type Point = GeoJSON.Feature<GeoJSON.Point, { id: number; lastSeen: number }>;
const features = new Map<number, Point>();
const collection = (): GeoJSON.FeatureCollection<GeoJSON.Point> => ({ type: 'FeatureCollection', features: [...features.values()] });
/** Units whose new position was handed to the source and is not yet drawn: [lastSeen, lon, lat]. */
let pending: Array<[number, number, number]> = [];
let waitingFirstDraw = false;

function setPoint(id: number, lon: number | null, lat: number | null, lastSeen: string | null): void {
  if (lon === null || lat === null) return;
  features.set(id, { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: { id, lastSeen: lastSeen ? Date.parse(lastSeen) : 0 } });
}

const listed = fetch('/api/tracking/units', { headers: { accept: 'application/json', authorization: `Bearer ${token}` } })
  .then((response) => response.json() as Promise<{ data: TrackedUnitList }>)
  .then(({ data }) => {
    const column = (name: string) => data.fields.indexOf(name as (typeof data.fields)[number]);
    const [id, lon, lat, lastSeen] = [column('id'), column('lon'), column('lat'), column('lastSeen')];
    for (const row of data.units) setPoint(row[id] as number, row[lon] as number | null, row[lat] as number | null, row[lastSeen] as string | null);
  });

map.on('load', async () => {
  map.addSource('units', { type: 'geojson', data: { type: 'FeatureCollection', features: [] }, cluster: true, clusterRadius: CLUSTER_RADIUS_PX, clusterMaxZoom: CLUSTER_MAX_ZOOM });
  map.addLayer({
    id: 'clusters',
    type: 'circle',
    source: 'units',
    filter: ['has', 'point_count'],
    paint: { 'circle-color': '#1565c0', 'circle-radius': ['step', ['get', 'point_count'], 14, 100, 18, 1000, 24], 'circle-stroke-width': 2, 'circle-stroke-color': '#fff' },
  });
  map.addLayer({
    id: 'units',
    type: 'circle',
    source: 'units',
    filter: ['!', ['has', 'point_count']],
    paint: { 'circle-color': '#2e7d32', 'circle-radius': 7, 'circle-stroke-width': 2, 'circle-stroke-color': '#fff' },
  });
  await listed;
  (map.getSource('units') as GeoJSONSource).setData(collection());
  probe.loadedAt = performance.now();
  waitingFirstDraw = true;
  openLive();
});

// A frame after the source has its new data: the first draw, and the units in view it moved.
map.on('render', () => {
  if (!map.isSourceLoaded('units')) return;
  if (waitingFirstDraw) {
    waitingFirstDraw = false;
    probe.firstDrawAt = performance.now();
  }
  if (pending.length === 0) return;
  const bounds = map.getBounds();
  const now = Date.now();
  for (const [seen, lon, lat] of pending) if (seen > 0 && bounds.contains([lon, lat])) probe.drawn.push([seen, now]);
  pending = [];
});

function openLive(): void {
  const socket = new WebSocket(`${window.location.origin.replace(/^http/, 'ws')}/api/tracking/live?since=${encodeURIComponent(new Date().toISOString())}`, ['bearer', token]);
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as LiveMessage;
    if (message.type !== 'update' && message.type !== 'catchup') return;
    for (const unit of message.units) {
      setPoint(unit.id, unit.lon, unit.lat, unit.lastSeen);
      if (unit.lon !== null && unit.lat !== null && unit.lastSeen) pending.push([Date.parse(unit.lastSeen), unit.lon, unit.lat]);
    }
    probe.unitsReceived += message.units.length;
    (map.getSource('units') as GeoJSONSource).setData(collection());
  };
}
