import type { Layer, PickingInfo } from '@deck.gl/core';
import { IconLayer, PathLayer, ScatterplotLayer } from '@deck.gl/layers';
import { MapboxOverlay } from '@deck.gl/mapbox';
import { Map as MapLibre, NavigationControl, Popup, ScaleControl } from 'maplibre-gl';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { applyBaseMap, DEFAULT_CENTER, DEFAULT_ZOOM, FOCUS_ZOOM } from './basemap';
import { CLUSTER_MAX_ZOOM, type ClusterIndex, type ClusterMarker } from './clusters';
import type { HistoryView } from './history';
import { labelPicture, placeLabels } from './labels';
import { prepareMapLibre, webglAvailable } from './maplibre-setup';
import { type Picture, PictureAtlas } from './pictures';
import type { FleetStore, TrackedUnit } from './store';
import { ARROW_SIZE, BADGE_SIZE, buildIconAtlas, clusterPicture, type IconAtlas, STATUS_COLORS, unitBadgePicture } from './symbols';

const INTERLEAVED = new URLSearchParams(window.location.search).get('deck') !== 'overlaid';

/** Unit names are drawn next to the markers while no more than this many units are drawn on their own. */
const MAX_LABELS = 400;

export interface ReplayMarker {
  position: [number, number];
  course: number | null;
}

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
}

/** What the page (and tests and the benchmark, through `window.__fleetMap`) may ask of the map. */
export interface MapHandle {
  map: MapLibre;
  /** Where a unit's marker was last drawn, and whether on its own or inside a cluster; null when not drawn. */
  markerOf(id: number): { position: [number, number]; as: 'unit' | 'cluster' } | null;
  drawn(): { units: number; clusters: number; frames: number; paths: number; replay: [number, number] | null };
}

interface Controller {
  map: MapLibre;
  overlay: MapboxOverlay;
  atlas: IconAtlas;
  /** Pictures of clusters, unit badges and names. */
  pictures: PictureAtlas;
  index: ClusterIndex;
  props: MapCanvasProps;
  frame: number | null;
  frames: number;
  drawnUnits: Map<number, [number, number]>;
  drawnClusters: ClusterMarker[];
  clusterOfUnit: Map<number, number>;
  /** Units whose new state went into a draw, with when, waiting for it to reach the screen (latency probe). */
  pendingDrawn: Array<[id: number, layersSetAt: number]>;
  /** What the last layers were built from (skip rebuilding while only the camera moves). */
  lastSignature: unknown[] | null;
  /** The first draw after the unit list arrived is on its way (initial-load probe). */
  firstDrawPending: boolean;
  /** Called once the fleet is first drawn (the base map then adds the world's outlines). */
  fleetDrawn: () => void;
  popup: Popup | null;
  popupNode: HTMLDivElement;
}

/** What the markers layer draws: a cluster, a unit's badge or a unit's name (picking tells which by `unit`/`cluster`). */
interface MapMarker {
  key: string;
  height: number;
  position: [number, number];
  unit?: TrackedUnit;
  cluster?: ClusterMarker;
}

function buildLayers(c: Controller, units: TrackedUnit[], clusters: ClusterMarker[], zoom: number): Layer[] {
  const { props, atlas } = c;
  const layers: Layer[] = [];
  const history = props.history;
  if (history) {
    layers.push(
      new PathLayer({
        id: 'history-paths',
        data: history.segments,
        getPath: (segment) => segment.path,
        getColor: (segment) => [...segment.color, 230],
        getWidth: 5,
        widthUnits: 'pixels',
        capRounded: true,
        jointRounded: true,
      }),
    );
    const ends = history.segments
      .filter((segment) => segment.kind === 'trip' && segment.path.length > 0)
      .flatMap((segment) => [
        { position: segment.path[0]!, start: true },
        { position: segment.path[segment.path.length - 1]!, start: false },
      ]);
    layers.push(
      new ScatterplotLayer({
        id: 'history-ends',
        data: ends,
        getPosition: (end) => end.position,
        getFillColor: (end) => (end.start ? [30, 125, 52, 255] : [179, 38, 30, 255]),
        getLineColor: [255, 255, 255, 255],
        getRadius: 7,
        radiusUnits: 'pixels',
        stroked: true,
        lineWidthUnits: 'pixels',
        getLineWidth: 2,
      }),
    );
  }
  const selected = props.selectedId === null ? undefined : units.find((unit) => unit.id === props.selectedId);
  if (selected) {
    layers.push(
      new ScatterplotLayer<TrackedUnit>({
        id: 'selected-ring',
        data: [selected],
        getPosition: (unit) => [unit.lon!, unit.lat!],
        getRadius: BADGE_SIZE / 2 + 6,
        radiusUnits: 'pixels',
        getFillColor: [242, 156, 17, 70],
        getLineColor: [242, 156, 17, 255],
        stroked: true,
        lineWidthUnits: 'pixels',
        getLineWidth: 3,
      }),
    );
  }
  layers.push(
    new IconLayer<TrackedUnit>({
      id: 'headings',
      data: units.filter((unit) => unit.course !== null && unit.status === 'moving'),
      iconAtlas: atlas.canvas as unknown as string,
      iconMapping: atlas.mapping,
      getIcon: () => 'heading',
      getPosition: (unit) => [unit.lon!, unit.lat!],
      getAngle: (unit) => -(unit.course ?? 0),
      getColor: (unit) => [...STATUS_COLORS[unit.status], 255],
      getSize: ARROW_SIZE,
      sizeUnits: 'pixels',
    }),
  );
  // Clusters, unit badges and names: one picture each from the picture atlas, all in one layer (one draw).
  const markers: MapMarker[] = [];
  const pictures: Picture[] = [];
  const add = (picture: Picture, position: [number, number], of: Pick<MapMarker, 'unit' | 'cluster'>) => {
    pictures.push(picture);
    markers.push({ key: picture.key, height: picture.height, position, ...of });
  };
  for (const cluster of clusters) add(clusterPicture(cluster.count), cluster.position, { cluster });
  for (const unit of units) add(unitBadgePicture(unit, atlas), [unit.lon!, unit.lat!], { unit });
  if (units.length <= MAX_LABELS && zoom >= 10) {
    for (const unit of placeLabels((lngLat) => c.map.project(lngLat), units, props.selectedId)) add(labelPicture(unit.name), [unit.lon!, unit.lat!], { unit });
  }
  c.pictures.ensure(pictures);
  // Until deck.gl's device exists there is no texture to draw from; `onDeviceInitialized` draws again.
  if (c.pictures.texture) {
    layers.push(
      new IconLayer<MapMarker>({
        id: 'markers',
        data: markers,
        pickable: true,
        iconAtlas: c.pictures.texture,
        iconMapping: c.pictures.mapping,
        getIcon: (marker) => marker.key,
        getPosition: (marker) => marker.position,
        getSize: (marker) => marker.height,
        sizeUnits: 'pixels',
      }),
    );
  }
  if (props.replay) {
    const marker = { ...props.replay };
    layers.push(
      new IconLayer<ReplayMarker>({
        id: 'replay-heading',
        data: marker.course === null ? [] : [marker],
        iconAtlas: atlas.canvas as unknown as string,
        iconMapping: atlas.mapping,
        getIcon: () => 'heading',
        getPosition: (m) => m.position,
        getAngle: (m) => -(m.course ?? 0),
        getColor: [242, 156, 17, 255],
        getSize: ARROW_SIZE,
        sizeUnits: 'pixels',
      }),
      new ScatterplotLayer<ReplayMarker>({
        id: 'replay',
        data: [marker],
        getPosition: (m) => m.position,
        getRadius: 9,
        radiusUnits: 'pixels',
        getFillColor: [242, 156, 17, 255],
        getLineColor: [255, 255, 255, 255],
        stroked: true,
        lineWidthUnits: 'pixels',
        getLineWidth: 3,
      }),
    );
  }
  return layers;
}

function draw(c: Controller): void {
  c.frame = null;
  const { map, store, props } = { map: c.map, store: c.props.store, props: c.props };
  const now = performance.now();
  c.index.maybeBuild(store.units, props.include, props.filterKey, store.listVersion, now);
  const zoom = map.getZoom();
  const bounds = map.getBounds();
  c.index.request([bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()], zoom);
  const changed = store.takeChanged();
  if (changed.size > 0) c.index.markStale();
  // New layers (and a repaint, costly with software WebGL) only when something visible changed: panning alone
  // needs none (deck.gl follows the camera), nor do new states of units inside clusters or out of view (the
  // next clustering pass shows them).
  let visibleChange = false;
  for (const id of changed) {
    if (c.drawnUnits.has(id) || id === props.selectedId) {
      visibleChange = true;
      break;
    }
  }
  // Half zoom steps: label placement follows the scale.
  const signature = [c.index.viewSeq, store.listVersion, props, Math.floor(zoom * 2)];
  if (!visibleChange && c.lastSignature && signature.every((part, i) => part === c.lastSignature![i])) {
    if (c.index.pending) scheduleRecluster(c);
    return;
  }
  c.lastSignature = signature;
  const view = c.index.current((id) => store.get(id), props.include);
  // The selected unit is always drawn on its own, even inside a cluster.
  const selected = props.selectedId === null ? undefined : store.get(props.selectedId);
  if (selected && selected.lat !== null && selected.lon !== null && !view.units.some((unit) => unit.id === selected.id)) view.units.push(selected);
  c.drawnUnits = new Map(view.units.map((unit) => [unit.id, [unit.lon!, unit.lat!]]));
  c.drawnClusters = view.clusters;
  c.clusterOfUnit.clear();
  // Latency probe: units drawn on their own whose new state this draw shows.
  const layersSetAt = Date.now();
  for (const id of changed) if (c.drawnUnits.has(id)) c.pendingDrawn.push([id, layersSetAt]);
  c.overlay.setProps({ layers: buildLayers(c, view.units, view.clusters, zoom) });
  // The load is drawn once the view comes from an index of the loaded list: a frame before that shows no units yet.
  if (store.loadState === 'ready' && store.probe.firstDrawAt === 0 && c.index.answers(props.filterKey, store.listVersion)) {
    c.firstDrawPending = true;
    const build = c.index.lastBuild;
    Object.assign(store.probe.marks, { clustersBuilt: build.at, clustersWaited: build.waited, clustersTook: build.took, clustersDelivered: build.delivered });
    store.probe.marks.layersSet = performance.now();
  }
  c.frames += 1;
  // The popup follows its unit.
  if (selected && selected.lat !== null && selected.lon !== null && c.popup) c.popup.setLngLat([selected.lon, selected.lat]);
  // A busy fleet needs another clustering pass once the interval is over.
  if (c.index.pending) scheduleRecluster(c);
}

/** Share of the full resolution a software renderer draws at while the map moves. */
const MOVING_RESOLUTION = 0.5;
/** The map counts as settled (and is drawn sharp again) this long after its last move. */
const SETTLE_MS = 250;

/** WebGL without a GPU (SwiftShader, llvmpipe): every pixel is computed by the CPU. */
function softwareRenderer(map: MapLibre): boolean {
  const gl = map.getCanvas().getContext('webgl2');
  if (!gl) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  return /swiftshader|llvmpipe|softpipe|software/i.test(renderer);
}

/**
 * On a software renderer a frame's cost follows its pixel count, so while the map is dragged, zoomed or flown
 * it is drawn at half resolution (a quarter of the pixels) and drawn sharp again once it settles, as offices
 * on remote desktops without a GPU need to pan a large fleet smoothly. `node.dataset.resolution` tells which.
 */
function reduceResolutionWhileMoving(map: MapLibre, node: HTMLElement, onResized: () => void): () => void {
  let settle: ReturnType<typeof setTimeout> | null = null;
  // Changing the resolution resizes the map, which itself reports a move: not one of the user's.
  let resizing = false;
  const resolution = (share: number) => {
    resizing = true;
    const ratio = (window.devicePixelRatio || 1) * share;
    try {
      map.setPixelRatio(ratio);
      onResized();
    } finally {
      resizing = false;
    }
    node.dataset.resolution = share === 1 ? 'full' : 'reduced';
  };
  node.dataset.resolution = 'full';
  const onMove = () => {
    if (resizing) return;
    if (settle === null) resolution(MOVING_RESOLUTION);
    else clearTimeout(settle);
    settle = setTimeout(() => {
      settle = null;
      resolution(1);
    }, SETTLE_MS);
  };
  map.on('move', onMove);
  return () => {
    map.off('move', onMove);
    if (settle !== null) clearTimeout(settle);
  };
}

let reclusterTimer: ReturnType<typeof setTimeout> | null = null;
function scheduleRecluster(c: Controller) {
  if (reclusterTimer) return;
  reclusterTimer = setTimeout(() => {
    reclusterTimer = null;
    requestDraw(c);
  }, 2100);
}

function requestDraw(c: Controller): void {
  if (c.frame === null) c.frame = requestAnimationFrame(() => draw(c));
}

/**
 * The map island: MapLibre draws the base map, deck.gl (in a canvas kept in step above it) the
 * vehicles, clusters, labels, history paths and the replay marker. Loaded on demand with its libraries.
 */
export default function MapCanvas(props: MapCanvasProps & { onReady?: (handle: MapHandle | null) => void }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const controllerRef = useRef<Controller | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const [popupNode, setPopupNode] = useState<HTMLDivElement | null>(null);
  const [popupOpen, setPopupOpen] = useState(false);

  // Create the map once.
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    if (!webglAvailable()) {
      propsRef.current.onFailure('webgl');
      return;
    }
    prepareMapLibre();
    let map: MapLibre;
    try {
      map = new MapLibre({
        container,
        style: { version: 8, sources: {}, layers: [{ id: 'water', type: 'background', paint: { 'background-color': '#bcd6ea' } }] },
        center: DEFAULT_CENTER,
        zoom: DEFAULT_ZOOM,
        minZoom: 2,
        maxZoom: 19,
        dragRotate: false,
        pitchWithRotate: false,
        maxPitch: 0,
        fadeDuration: 0,
        attributionControl: { compact: true, customAttribution: 'Natural Earth' },
        canvasContextAttributes: { antialias: false, preserveDrawingBuffer: false },
      });
    } catch (error) {
      propsRef.current.onFailure(String(error));
      return;
    }
    // deck.gl's interleaved mode reads `map.transform`, which MapLibre 6 keeps on its camera: expose it.
    if (!('transform' in map)) {
      Object.defineProperty(map, 'transform', { get: () => (map as unknown as { _camera: { transform: unknown } })._camera.transform });
    }
    map.touchZoomRotate.disableRotation();
    map.keyboard.disableRotation();
    map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    map.getCanvas().setAttribute('aria-label', propsRef.current.ariaLabel);

    const node = document.createElement('div');
    node.className = 'unit-popup-root';
    const controller: Controller = {
      map,
      overlay: new MapboxOverlay({
        // Interleaved: one WebGL context and one canvas, which matters most with software rendering.
        interleaved: INTERLEAVED,
        layers: [],
        getCursor: ({ isHovering, isDragging }) => (isDragging ? 'grabbing' : isHovering ? 'pointer' : 'grab'),
        onClick: (info: PickingInfo) => onPick(info),
        onDeviceInitialized: (device) => {
          const c = controllerRef.current;
          if (!c) return;
          c.pictures.attach(device);
          c.lastSignature = null;
          requestDraw(c);
        },
        onAfterRender: () => {
          const c = controllerRef.current;
          if (!c) return;
          if (c.firstDrawPending) {
            c.firstDrawPending = false;
            c.props.store.probe.firstDrawAt = performance.now();
            c.fleetDrawn();
          }
          if (c.pendingDrawn.length === 0) return;
          c.props.store.recordDrawn(c.pendingDrawn, Date.now());
          c.pendingDrawn = [];
        },
      }),
      atlas: buildIconAtlas(Math.min(2, Math.ceil(window.devicePixelRatio || 1))),
      pictures: new PictureAtlas(Math.min(2, Math.ceil(window.devicePixelRatio || 1))),
      index: propsRef.current.clusters,
      props: propsRef.current,
      frame: null,
      frames: 0,
      drawnUnits: new Map(),
      drawnClusters: [],
      clusterOfUnit: new Map(),
      pendingDrawn: [],
      firstDrawPending: false,
      fleetDrawn: () => {},
      lastSignature: null,
      popup: null,
      popupNode: node,
    };
    controller.index.onView = () => requestDraw(controller);
    controllerRef.current = controller;
    setPopupNode(node);

    function onPick(info: PickingInfo) {
      const c = controllerRef.current;
      if (!c) return;
      const picked = info.layer?.id === 'markers' ? (info.object as MapMarker | undefined) : undefined;
      if (picked?.unit) {
        c.props.onSelect(picked.unit.id);
      } else if (picked?.cluster) {
        const cluster = picked.cluster;
        void c.index.expansionZoom(cluster.id).then((expansion) => {
          const zoom = Math.min(CLUSTER_MAX_ZOOM + 1, Math.max(expansion, map.getZoom() + 1));
          map.easeTo({ center: cluster.position, zoom, duration: 500 });
        });
      } else {
        c.props.onSelect(null);
      }
    }

    map.addControl(controller.overlay);
    // The layers' first draw compiles their WebGL programs and the label font atlas, slow with software
    // rendering: do it now with no data, while the unit list downloads. The real layers keep the same ids,
    // so deck.gl reuses those programs.
    requestDraw(controller);
    const redraw = () => requestDraw(controller);
    map.on('move', redraw);
    map.on('resize', redraw);
    const stopAdapting = softwareRenderer(map)
      ? // deck.gl draws into the map's canvas through a canvas context of its own, which keeps its own idea of the
        // drawing buffer's size (the overlay drops `useDevicePixels` when interleaved): hand it the map's new size,
        // through the Deck the overlay keeps on the map.
        reduceResolutionWhileMoving(map, container, () => {
          const canvas = map.getCanvas();
          const deck = (map as unknown as { __deck?: { device?: { getDefaultCanvasContext(): { setDrawingBufferSize(width: number, height: number): void } } } }).__deck;
          deck?.device?.getDefaultCanvasContext().setDrawingBufferSize(canvas.width, canvas.height);
        })
      : () => {};
    const unsubscribe = propsRef.current.store.subscribe(redraw);
    const resizeObserver = new ResizeObserver(() => map.resize());
    resizeObserver.observe(container);

    // The base map: offline at once (never blank), the brand's online style when it can be fetched.
    const abort = new AbortController();
    // The fleet is drawn first; the world's outlines (not in view at the default place and zoom) follow it.
    const worldAfter = new Promise<void>((resolve) => {
      controller.fleetDrawn = resolve;
    });
    applyBaseMap(map, container, { subsiteId: propsRef.current.subsiteId, language: propsRef.current.language, signal: abort.signal, worldAfter });

    const handle: MapHandle = {
      map,
      markerOf(id) {
        const own = controller.drawnUnits.get(id);
        if (own) return { position: own, as: 'unit' };
        const unit = controller.props.store.get(id);
        if (!unit || unit.lat === null || unit.lon === null) return null;
        // Inside a cluster: the nearest drawn cluster on screen.
        const at = map.project([unit.lon, unit.lat]);
        let best: ClusterMarker | null = null;
        let bestDistance = Number.POSITIVE_INFINITY;
        for (const cluster of controller.drawnClusters) {
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
        units: controller.drawnUnits.size,
        clusters: controller.drawnClusters.length,
        frames: controller.frames,
        paths: controller.props.history?.segments.length ?? 0,
        replay: controller.props.replay?.position ?? null,
      }),
    };
    propsRef.current.onReady?.(handle);
    const marks = propsRef.current.store.probe.marks;
    marks.mapCreated = performance.now();
    map.once('load', () => {
      marks.mapLoaded = performance.now();
      redraw();
    });
    map.once('render', () => {
      marks.firstRender = performance.now();
    });
    map.once('idle', () => {
      marks.firstIdle = performance.now();
    });
    redraw();

    return () => {
      stopAdapting();
      abort.abort();
      unsubscribe();
      resizeObserver.disconnect();
      if (controller.frame !== null) cancelAnimationFrame(controller.frame);
      controller.popup?.remove();
      controller.index.onView = () => {};
      propsRef.current.onReady?.(null);
      controllerRef.current = null;
      try {
        map.removeControl(controller.overlay);
        controller.overlay.finalize();
      } catch {
        // already gone with the map
      }
      controller.pictures.destroy();
      map.remove();
    };
  }, []);

  // Every prop change redraws.
  useEffect(() => {
    const c = controllerRef.current;
    if (!c) return;
    c.props = props;
    requestDraw(c);
  });

  // The popup of the selected unit.
  const selectedId = props.selectedId;
  useEffect(() => {
    const c = controllerRef.current;
    if (!c) return;
    c.popup?.remove();
    c.popup = null;
    setPopupOpen(false);
    if (selectedId === null) return;
    const unit = c.props.store.get(selectedId);
    if (!unit || unit.lat === null || unit.lon === null) return;
    c.popup = new Popup({ closeButton: false, closeOnClick: false, offset: BADGE_SIZE / 2 + 4, maxWidth: '320px', focusAfterOpen: false })
      .setLngLat([unit.lon, unit.lat])
      .setDOMContent(c.popupNode)
      .addTo(c.map);
    setPopupOpen(true);
  }, [selectedId]);

  // Focus requests: fly to the unit.
  const focus = props.focus;
  useEffect(() => {
    const c = controllerRef.current;
    if (!c || !focus) return;
    const unit = c.props.store.get(focus.id);
    if (!unit || unit.lat === null || unit.lon === null) return;
    c.map.easeTo({ center: [unit.lon, unit.lat], zoom: Math.max(c.map.getZoom(), FOCUS_ZOOM), duration: 700 });
  }, [focus]);

  // A loaded day: show all of it.
  const history = props.history;
  useEffect(() => {
    const c = controllerRef.current;
    if (!c || !history || history.positions.length === 0) return;
    let west = 180;
    let south = 90;
    let east = -180;
    let north = -90;
    for (const point of history.positions) {
      west = Math.min(west, point[2]);
      east = Math.max(east, point[2]);
      south = Math.min(south, point[1]);
      north = Math.max(north, point[1]);
    }
    c.map.fitBounds(
      [
        [west, south],
        [east, north],
      ],
      // Room for the history bar along the bottom.
      { padding: { top: 60, left: 50, right: 60, bottom: Math.min(260, c.map.getContainer().clientHeight / 2) }, maxZoom: 16, duration: 600 },
    );
  }, [history]);

  const selected = props.selectedId === null ? undefined : props.store.get(props.selectedId);
  return (
    <>
      <div ref={containerRef} className="map-gl" data-testid="map-gl" />
      {popupNode && popupOpen && selected ? createPortal(props.popup(selected), popupNode) : null}
    </>
  );
}
