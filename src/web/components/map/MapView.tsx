import { Map as MapLibre, type MapMouseEvent, NavigationControl, ScaleControl } from 'maplibre-gl';
import { createContext, type ReactNode, useContext, useLayoutEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { whenIdle } from '../../lib/idle';
import { onPathChange } from '../../lib/navigation-guard';
import { applyBaseMap } from './basemap';
import { prepareMapLibre, softwareWebgl, webglAvailable } from './maplibre-setup';

/**
 * The app's map: MapLibre on the brand's base map (offline outlines at once, the online style once it could be
 * fetched), with its controls. Everything drawn on it is a child layer that adds its own sources and layers when
 * it mounts and removes them when it unmounts (`GeoJsonLayer` for MapLibre sources; `DeckOverlay` with its
 * `useDeckLayers` children for deck.gl, interleaved into MapLibre's WebGL context). The map is created once;
 * later changes of these props are not applied (children and the map's own methods move it).
 */
export interface MapViewProps {
  center: [number, number];
  zoom: number;
  minZoom?: number;
  maxZoom?: number;
  /** The brand's sub-site (its online style) and the app's language (the map's labels). */
  subsiteId: number;
  language: string;
  label: string;
  className: string;
  testId: string;
  /** A container role, named by `label` (the place form's map is an `application`: a click picks a point). */
  role?: string;
  /** Extra attribution beside the online style's own (false: no attribution control). */
  attribution?: string | false;
  /** Only panning and zooming (no rotation or pitch): what a fleet map needs. */
  flat?: boolean;
  /** The world's outlines of the offline base map wait for this (see `applyBaseMap`). */
  worldAfter?: Promise<void>;
  /** On a software renderer, draw at half resolution while the map moves (see `reduceResolutionWhileMoving`). */
  reduceWhileMoving?: boolean;
  onClick?: (lngLat: { lat: number; lng: number }) => void;
  /** Called once the map exists (with null when it is removed): for probes, marks and camera moves. */
  onMap?: (map: MapLibre | null) => void;
  /** The map cannot be drawn here (no WebGL, or MapLibre refused): the page shows something else. */
  onFailure?: (reason: string) => void;
  children?: ReactNode;
}

/** What a child layer gets from its map. */
export interface MapScene {
  map: MapLibre;
  container: HTMLElement;
  /**
   * True once the map is removed: React runs a removed parent's clean-ups before its children's, so a child's
   * clean-up finds the map gone and has nothing to take off it.
   */
  readonly removed: boolean;
  /**
   * Hands the map's taking-down a step of a child's (its own clean-up found the map `removed`): the steps run one per
   * idle moment after the page has moved on, before the map itself is removed.
   */
  retire(step: () => void): void;
  /** Called whenever the drawing buffer's pixel ratio changes while moving (deck.gl must follow it). */
  onResolution(listener: () => void): () => void;
  /**
   * Records which sources and layers a child has on the map, so that the container's `data-sources` and
   * `data-layers` list what is drawn (tests read them). Returns the function that takes them off the list.
   */
  announce(owner: object, sources: readonly string[], layers: readonly string[]): () => void;
}

const SceneContext = createContext<MapScene | null>(null);

/** The map a layer child is drawn on. Only used inside `MapView`, which renders its children once the map exists. */
export function useMapScene(): MapScene {
  const scene = useContext(SceneContext);
  if (!scene) throw new Error('a map layer must be a child of MapView');
  return scene;
}

/** Share of the full resolution a software renderer draws at while the map moves. */
const MOVING_RESOLUTION = 0.5;
/** The map counts as settled (and is drawn sharp again) this long after its last move. */
const SETTLE_MS = 250;

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

/**
 * Stops a left map from drawing again before it is taken down. With software rendering a frame of the whole map takes
 * the GPU process up to a second or more, and the compositor's next commit reads the canvas back and waits for it:
 * one frame asked for by the last position update (or by deck.gl) held the click that left the map for seconds.
 */
function haltRendering(map: MapLibre): void {
  // MapLibre keeps the frame it has asked for in `_frameRequest`; its own resize observer redraws at once when the
  // element leaves the page (its size drops to nothing).
  const internal = map as unknown as MapLibreInternals;
  internal._frameRequest?.abort();
  internal._frameRequest = null;
  internal._trackResize = false;
  internal._resizeObserver?.disconnect();
  map.triggerRepaint = () => {};
  map.redraw = () => map;
}

/** Undoes `haltRendering` for a map whose page's path changed while the map stayed on it. */
function resumeRendering(map: MapLibre, container: HTMLElement): void {
  const internal = map as unknown as MapLibreInternals;
  // The halt's stand-ins are the instance's own properties: without them the prototype's methods answer again.
  const standIns = map as unknown as Partial<Pick<MapLibre, 'triggerRepaint' | 'redraw'>>;
  delete standIns.triggerRepaint;
  delete standIns.redraw;
  internal._trackResize = true;
  internal._resizeObserver?.observe(container);
  map.resize();
  map.triggerRepaint();
}

interface MapLibreInternals {
  _frameRequest: AbortController | null;
  _resizeObserver?: ResizeObserver;
  _trackResize: boolean;
}

/**
 * `?teardown=sync` leaves a map as before, for comparison (bench/first-start.ts): taken down at once in the task that
 * leaves it, and free to draw the frames it has asked for until then.
 */
const SYNC_TEARDOWN = new URLSearchParams(window.location.search).get('teardown') === 'sync';

/**
 * Takes a left map down without holding up the page: deck.gl's finalisation, MapLibre's controls and then the map
 * itself (its WebGL resources, style, workers' tiles and at last its WebGL context) each in an idle moment of their
 * own. Done at once, they blocked the click after leaving the map for up to two seconds with software rendering.
 */
function retireMap(map: MapLibre, steps: Array<() => void>): void {
  const run = (step: () => void) => {
    try {
      step();
    } catch (error) {
      console.error(error);
    }
  };
  if (SYNC_TEARDOWN) {
    for (const step of steps) run(step);
    run(() => map.remove());
    return;
  }
  const next = () => {
    const step = steps.shift();
    if (step) {
      run(step);
      whenIdle(next);
    } else run(() => map.remove());
  };
  whenIdle(next);
}

/** The container's `data-sources` / `data-layers`: what the children have on the map now. */
function announcer(container: HTMLElement): MapScene['announce'] {
  const drawn = new Map<object, { sources: readonly string[]; layers: readonly string[] }>();
  const write = () => {
    const sources = [...drawn.values()].flatMap((entry) => entry.sources).join(' ');
    const layers = [...drawn.values()].flatMap((entry) => entry.layers).join(' ');
    if (container.dataset.sources !== sources) container.dataset.sources = sources;
    if (container.dataset.layers !== layers) container.dataset.layers = layers;
  };
  return (owner, sources, layers) => {
    const entry = { sources, layers };
    drawn.set(owner, entry);
    write();
    return () => {
      if (drawn.get(owner) !== entry) return; // announced anew since
      drawn.delete(owner);
      write();
    };
  };
}

export function MapView(props: MapViewProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const propsRef = useRef(props);
  propsRef.current = props;
  const [scene, setScene] = useState<MapScene | null>(null);
  const [failed, setFailed] = useState(false);
  /** The path the app moved to when the map stopped drawing (null while it draws). */
  const haltedFor = useRef<string | null>(null);
  const { pathname } = useLocation();

  // Create the map once. In a layout effect: the children then mount in a synchronous render right after, with
  // their effects, in the same task; from a passive effect their render waited its turn behind the page's own (the
  // live map's panel over the whole fleet), which held back the fleet's first draw by a few hundred milliseconds.
  useLayoutEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const start = propsRef.current;
    const fail = (reason: string) => {
      setFailed(true);
      start.onFailure?.(reason);
    };
    if (!webglAvailable()) return fail('webgl');
    prepareMapLibre();
    let map: MapLibre;
    try {
      map = new MapLibre({
        container,
        // The offline base map's water until its outlines are in.
        style: { version: 8, sources: {}, layers: [{ id: 'water', type: 'background', paint: { 'background-color': '#bcd6ea' } }] },
        center: start.center,
        zoom: start.zoom,
        minZoom: start.minZoom ?? 2,
        maxZoom: start.maxZoom ?? 19,
        ...(start.flat ? { dragRotate: false, pitchWithRotate: false, maxPitch: 0 } : {}),
        fadeDuration: 0,
        attributionControl: start.attribution === false ? false : { compact: true, customAttribution: start.attribution ?? 'Natural Earth' },
        canvasContextAttributes: { antialias: false, preserveDrawingBuffer: false },
      });
    } catch (error) {
      return fail(String(error));
    }
    if (start.flat) {
      map.touchZoomRotate.disableRotation();
      map.keyboard.disableRotation();
    }
    map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    map.getCanvas().setAttribute('aria-label', start.label);
    const onClick = (event: MapMouseEvent) => propsRef.current.onClick?.(event.lngLat);
    map.on('click', onClick);

    const resolutionListeners = new Set<() => void>();
    const stopAdapting =
      start.reduceWhileMoving && softwareWebgl()
        ? reduceResolutionWhileMoving(map, container, () => {
            for (const listener of resolutionListeners) listener();
          })
        : () => {};
    const resizeObserver = new ResizeObserver(() => map.resize());
    resizeObserver.observe(container);
    const abort = new AbortController();
    applyBaseMap(map, container, { subsiteId: start.subsiteId, language: start.language, signal: abort.signal, worldAfter: start.worldAfter });

    let removed = false;
    // What the children leave to the map's taking-down (see `retire`), run after they have all cleaned up.
    const retiring: Array<() => void> = [];
    setScene({
      map,
      container,
      get removed() {
        return removed;
      },
      retire(step) {
        retiring.push(step);
      },
      onResolution(listener) {
        resolutionListeners.add(listener);
        return () => resolutionListeners.delete(listener);
      },
      announce: announcer(container),
    });
    start.onMap?.(map);
    // Nothing more is drawn once the app moves to another path (a flight under way stops, a frame asked for is dropped
    // and none is asked for again): at the click, not once the next screen is ready, so no frame of a map being left
    // holds the page. A map that stays on its page draws again (below).
    const halt = () => {
      if (haltedFor.current !== null || SYNC_TEARDOWN) return;
      haltedFor.current = window.location.pathname;
      map.stop();
      haltRendering(map);
    };
    const stopWatchingPath = onPathChange(halt);
    return () => {
      stopWatchingPath();
      stopAdapting();
      abort.abort();
      resizeObserver.disconnect();
      propsRef.current.onMap?.(null);
      removed = true;
      // The map's element leaves the page with React's; the map itself goes in idle moments after.
      halt();
      retireMap(map, retiring);
    };
  }, []);

  // The path changed and this map is still shown there (its screen stayed): it draws again.
  useLayoutEffect(() => {
    if (!scene || haltedFor.current !== pathname) return;
    haltedFor.current = null;
    resumeRendering(scene.map, scene.container);
  }, [pathname, scene]);

  return (
    <>
      <div
        ref={containerRef}
        className={props.className}
        // Named only with a role: without one the canvas carries the name.
        {...(props.role ? { role: props.role, 'aria-label': props.label } : {})}
        data-testid={props.testId}
        data-failed={failed || undefined}
      />
      {scene && <SceneContext.Provider value={scene}>{props.children}</SceneContext.Provider>}
    </>
  );
}
