import type { Map as MapLibre } from 'maplibre-gl';
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from '../../components/map/basemap';
import { DeckOverlay } from '../../components/map/DeckOverlay';
import { MapView } from '../../components/map/MapView';
import type { GeofenceEventView, GeofenceView } from '../../../modules/geofences/model';
import type { ClusterIndex, ClusterMarker } from './clusters';
import { ClustersLayer } from './ClustersLayer';
import type { HistoryView } from './history';
import { HistoryLayer, type ReplayMarker, ReplayLayer } from './HistoryLayer';
import { PictureAtlas } from './pictures';
import type { FleetStore, TrackedUnit } from './store';
import { emptyFleetDrawing, UnitsLayer } from './UnitsLayer';

export type { ReplayMarker };

/**
 * The geofence layers and their deck.gl polygon and text layers (a sixth of the map's code) load only when there are
 * zones or zone events to draw: not with the map, whose code every load waits for.
 */
const geofenceLayers = () => import('../../components/geofences/GeofenceMapLayer');
const GeofenceMapLayer = lazy(() => geofenceLayers().then((module) => ({ default: module.GeofenceMapLayer })));
const GeofenceEventsLayer = lazy(() => geofenceLayers().then((module) => ({ default: module.GeofenceEventsLayer })));

/** `?deck=overlaid` draws deck.gl in a canvas of its own above the map (for comparison). */
const INTERLEAVED = new URLSearchParams(window.location.search).get('deck') !== 'overlaid';

export interface MapCanvasProps {
  store: FleetStore;
  /** The page's cluster index of its units (built as soon as the list is in). */
  clusters: ClusterIndex;
  /** The panel's filter: which units the map shows. `filterKey` changes whenever the filter does. */
  include: (unit: TrackedUnit) => boolean;
  filterKey: string;
  selectedId: number | null;
  onSelect: (id: number | null) => void;
  /** Fly to a unit; `seq` repeats a request for the same unit. */
  focus: { id: number; seq: number } | null;
  history: HistoryView | null;
  replay: ReplayMarker | null;
  language: string;
  subsiteId: number;
  /** The popup of the selected unit. */
  popup: (unit: TrackedUnit) => ReactNode;
  ariaLabel: string;
  onFailure: (reason: string) => void;
  onReady?: (handle: MapHandle | null) => void;
  /** The geofence layer's zones (null: the layer is off; none: nothing is drawn) and a click on one. */
  zones?: readonly GeofenceView[] | null;
  onZonePick?: (zone: GeofenceView) => void;
  /** The history's unit's zone entries and exits of the day. */
  zoneEvents?: readonly GeofenceEventView[] | null;
  /** Called once the loaded fleet is first on screen. */
  onFleetDrawn?: () => void;
}

/** What the page (and tests and the benchmark, through `window.__fleetMap`) may ask of the map. */
export interface MapHandle {
  map: MapLibre;
  /** Where a unit's marker was last drawn, and whether on its own or inside a cluster; null when not drawn. */
  markerOf(id: number): { position: [number, number]; as: 'unit' | 'cluster' } | null;
  drawn(): { units: number; clusters: number; frames: number; paths: number; replay: [number, number] | null };
}

/**
 * The live map's island (loaded on demand with MapLibre and deck.gl): the app's map with deck.gl layer children,
 * from the bottom: a day's history, the fleet's clusters, its units, the replay marker. The history's and the
 * replay's layers come with the history bar and go with it.
 */
export default function MapCanvas(props: MapCanvasProps) {
  const propsRef = useRef(props);
  propsRef.current = props;
  const [drawing] = useState(emptyFleetDrawing);
  // One atlas for every cluster badge, unit badge and name (see `PictureAtlas`).
  const [pictures] = useState(() => new PictureAtlas(Math.min(2, Math.ceil(window.devicePixelRatio || 1))));
  useEffect(() => () => pictures.destroy(), [pictures]);
  // The fleet is drawn first; the world's outlines (not in view at the default place and zoom) follow it.
  const [world] = useState(() => {
    let drawn = () => {};
    const after = new Promise<void>((resolve) => {
      drawn = resolve;
    });
    return { after, drawn };
  });

  const onMap = useCallback(
    (map: MapLibre | null) => {
      const { store, onReady } = propsRef.current;
      if (!map) return onReady?.(null);
      const marks = store.probe.marks;
      marks.mapCreated = performance.now();
      map.once('load', () => {
        marks.mapLoaded = performance.now();
      });
      map.once('render', () => {
        marks.firstRender = performance.now();
      });
      map.once('idle', () => {
        marks.firstIdle = performance.now();
      });
      onReady?.({
        map,
        markerOf(id) {
          const own = drawing.units.get(id);
          if (own) return { position: own, as: 'unit' };
          const unit = propsRef.current.store.get(id);
          if (!unit || unit.lat === null || unit.lon === null) return null;
          // Inside a cluster: the nearest drawn cluster on screen.
          const at = map.project([unit.lon, unit.lat]);
          let best: ClusterMarker | null = null;
          let bestDistance = Number.POSITIVE_INFINITY;
          for (const cluster of drawing.clusters) {
            const p = map.project(cluster.position);
            const distance = Math.hypot(p.x - at.x, p.y - at.y);
            if (distance < bestDistance) {
              best = cluster;
              bestDistance = distance;
            }
          }
          return best && bestDistance < 120 ? { position: best.position, as: 'cluster' } : null;
        },
        drawn: () => ({
          units: drawing.units.size,
          clusters: drawing.clusters.length,
          frames: drawing.frames,
          paths: propsRef.current.history?.segments.length ?? 0,
          replay: propsRef.current.replay?.position ?? null,
        }),
      });
    },
    [drawing],
  );

  return (
    <MapView
      center={DEFAULT_CENTER}
      zoom={DEFAULT_ZOOM}
      subsiteId={props.subsiteId}
      language={props.language}
      label={props.ariaLabel}
      className="map-gl"
      testId="map-gl"
      flat
      reduceWhileMoving
      worldAfter={world.after}
      onMap={onMap}
      onFailure={props.onFailure}
    >
      <DeckOverlay interleaved={INTERLEAVED}>
        {props.zones && props.zones.length > 0 && (
          <Suspense fallback={null}>
            <GeofenceMapLayer zones={props.zones} onPick={(zone) => propsRef.current.onZonePick?.(zone)} />
          </Suspense>
        )}
        {props.history && <HistoryLayer history={props.history} />}
        {props.history && props.zoneEvents && props.zoneEvents.length > 0 && (
          <Suspense fallback={null}>
            <GeofenceEventsLayer events={props.zoneEvents} />
          </Suspense>
        )}
        <ClustersLayer clusters={props.clusters} pictures={pictures} drawing={drawing} />
        <UnitsLayer
          store={props.store}
          clusters={props.clusters}
          pictures={pictures}
          include={props.include}
          filterKey={props.filterKey}
          selectedId={props.selectedId}
          onSelect={props.onSelect}
          focus={props.focus}
          popup={props.popup}
          drawing={drawing}
          onFirstDraw={() => {
            world.drawn();
            propsRef.current.onFleetDrawn?.();
          }}
        />
        {props.replay && <ReplayLayer replay={props.replay} />}
      </DeckOverlay>
    </MapView>
  );
}
