import type { Layer, PickingInfo } from '@deck.gl/core';
import { IconLayer, ScatterplotLayer } from '@deck.gl/layers';
import { Popup } from 'maplibre-gl';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { FOCUS_ZOOM } from '../../components/map/basemap';
import { type DeckLayerSource, useDeckLayers } from '../../components/map/DeckOverlay';
import { useMapScene } from '../../components/map/MapView';
import type { ClusterIndex, ClusterMarker } from './clusters';
import { labelPicture, placeLabels } from './labels';
import type { Picture, PictureAtlas } from './pictures';
import type { FleetStore, TrackedUnit } from './store';
import { ARROW_SIZE, BADGE_SIZE, STATUS_COLORS, sharedIconAtlas, unitBadgePicture } from './symbols';

/** Unit names are drawn next to the markers while no more than this many units are drawn on their own. */
const MAX_LABELS = 400;
/** A busy fleet's next clustering pass is asked for this long after the last (the index rebuilds every 2 s at most). */
const RECLUSTER_RETRY_MS = 2100;

/** What the units and clusters layers drew last (the page's probe for tests and the benchmark reads it). */
export interface FleetDrawing {
  units: Map<number, [number, number]>;
  clusters: ClusterMarker[];
  /** How many times new layers were built. */
  frames: number;
}

export function emptyFleetDrawing(): FleetDrawing {
  return { units: new Map(), clusters: [], frames: 0 };
}

export interface UnitsLayerProps {
  store: FleetStore;
  /**
   * The page's cluster index of its units (built as soon as the list is in): this layer asks it for the view and
   * draws the units it leaves on their own (`ClustersLayer` draws its clusters). Without it every unit is drawn.
   */
  clusters?: ClusterIndex;
  /** The atlas its badges and names are drawn into (shared with the clusters layer). */
  pictures: PictureAtlas;
  /** The panel's filter: which units the map shows. `filterKey` changes whenever the filter does. */
  include: (unit: TrackedUnit) => boolean;
  filterKey: string;
  selectedId: number | null;
  onSelect: (id: number | null) => void;
  /** Fly to a unit; `seq` repeats a request for the same unit. */
  focus: { id: number; seq: number } | null;
  /** The popup of the selected unit. */
  popup: (unit: TrackedUnit) => ReactNode;
  /** Filled in as the layer draws. */
  drawing: FleetDrawing;
  /** Called once the loaded fleet is first on screen. */
  onFirstDraw: () => void;
}

/** What the markers layer draws: a unit's badge or its name. */
interface MapMarker {
  key: string;
  height: number;
  position: [number, number];
  unit: TrackedUnit;
}

/** Where the popup is a sheet at the bottom of the screen rather than a bubble on the map. */
const SHEET_MEDIA = '(max-width: 600px)';
/** Room kept between a popup and the map's edge, in pixels. */
const POPUP_MARGIN = 8;

/**
 * How far to pan the map so that the popup lies inside it (null: it does). A popup taller than the map gets the map's
 * height and scrolls; one wider is kept left-aligned (its close button in view).
 */
export function keepInside(popup: HTMLElement, content: HTMLElement, container: HTMLElement): [number, number] | null {
  const frame = container.getBoundingClientRect();
  const maxHeight = Math.max(120, frame.height - 2 * POPUP_MARGIN - 24);
  if (content.style.maxHeight !== `${maxHeight}px`) content.style.maxHeight = `${maxHeight}px`;
  const box = popup.getBoundingClientRect();
  let dx = 0;
  let dy = 0;
  if (box.right > frame.right - POPUP_MARGIN) dx = box.right - frame.right + POPUP_MARGIN;
  if (box.left - dx < frame.left + POPUP_MARGIN) dx = box.left - frame.left - POPUP_MARGIN;
  if (box.bottom > frame.bottom - POPUP_MARGIN) dy = box.bottom - frame.bottom + POPUP_MARGIN;
  if (box.top - dy < frame.top + POPUP_MARGIN) dy = box.top - frame.top - POPUP_MARGIN;
  return Math.abs(dx) >= 1 || Math.abs(dy) >= 1 ? [Math.round(dx), Math.round(dy)] : null;
}

/**
 * The units on the map, each drawn on its own: badge (a picture of the fleet's atlas), heading wedge, name where
 * it fits, the selected one's ring, and its popup. Zoomed out, the clustering leaves most units to the clusters
 * layer; the units layer drives it (a view question per camera move, a rebuild when positions changed).
 *
 * It draws without React: a live message asks for a frame, and the frame rebuilds the layers only when a unit
 * drawn on its own (or the selected one) changed, a clustering answer arrived, the filter or selection changed, or
 * the zoom crossed a half step (label placement); panning alone rebuilds nothing (deck.gl follows the camera).
 */
export function UnitsLayer(props: UnitsLayerProps) {
  const { map } = useMapScene();
  const propsRef = useRef(props);
  propsRef.current = props;
  const [popupNode] = useState(() => {
    const node = document.createElement('div');
    node.className = 'unit-popup-root';
    return node;
  });
  const [popupOpen, setPopupOpen] = useState(false);
  const popupRef = useRef<Popup | null>(null);

  const [source] = useState(() => {
    const atlas = sharedIconAtlas(Math.min(2, Math.ceil(window.devicePixelRatio || 1)));
    let drawn: readonly Layer[] = [];
    /** What the last layers were built from (skip rebuilding while only the camera moves). */
    let lastSignature: unknown[] | null = null;
    /** Units whose new state went into a draw, with when, waiting for it to reach the screen (latency probe). */
    let pendingDrawn: Array<[id: number, layersSetAt: number]> = [];
    /** The first draw after the unit list arrived is on its way (initial-load probe). */
    let firstDrawPending = false;
    let reclusterTimer: ReturnType<typeof setTimeout> | null = null;

    const build = (units: TrackedUnit[], zoom: number): Layer[] => {
      const { selectedId, pictures } = propsRef.current;
      const layers: Layer[] = [];
      const selected = selectedId === null ? undefined : units.find((unit) => unit.id === selectedId);
      // An open security alarm: a wide red halo behind the badge (and the theft ring, if any).
      const { security } = propsRef.current.store;
      const alarmed = security.size === 0 ? [] : units.filter((unit) => security.has(unit.id));
      if (alarmed.length > 0) {
        layers.push(
          new ScatterplotLayer<TrackedUnit>({
            id: 'security-alarm-halos',
            data: alarmed,
            getPosition: (unit) => [unit.lon!, unit.lat!],
            getRadius: BADGE_SIZE / 2 + 16,
            radiusUnits: 'pixels',
            getFillColor: [220, 20, 20, 90],
            getLineColor: [220, 20, 20, 200],
            stroked: true,
            lineWidthUnits: 'pixels',
            getLineWidth: 2,
          }),
        );
      }
      // Spec §4: a unit in theft mode stands out: a red ring around its badge.
      const stolen = units.filter((unit) => unit.operatingMode === 'theft');
      if (stolen.length > 0) {
        layers.push(
          new ScatterplotLayer<TrackedUnit>({
            id: 'theft-rings',
            data: stolen,
            getPosition: (unit) => [unit.lon!, unit.lat!],
            getRadius: BADGE_SIZE / 2 + 9,
            radiusUnits: 'pixels',
            getFillColor: [179, 38, 30, 60],
            getLineColor: [179, 38, 30, 255],
            stroked: true,
            lineWidthUnits: 'pixels',
            getLineWidth: 4,
          }),
        );
      }
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
      // Unit badges and names: one picture each from the picture atlas, all in one layer (one draw).
      const markers: MapMarker[] = [];
      const shown: Picture[] = [];
      const add = (picture: Picture, unit: TrackedUnit) => {
        shown.push(picture);
        markers.push({ key: picture.key, height: picture.height, position: [unit.lon!, unit.lat!], unit });
      };
      for (const unit of units) add(unitBadgePicture(unit, atlas), unit);
      if (units.length <= MAX_LABELS && zoom >= 10) {
        for (const unit of placeLabels((lngLat) => map.project(lngLat), units, selectedId)) add(labelPicture(unit.name), unit);
      }
      // The atlas started over: the clusters' layer, drawn from its earlier pictures, is built again too.
      if (pictures.ensure(shown)) deck.redraw();
      // Until deck.gl's device exists there is no texture to draw from; `onDevice` draws again.
      if (pictures.texture) {
        layers.push(
          new IconLayer<MapMarker>({
            id: 'markers',
            data: markers,
            pickable: true,
            iconAtlas: pictures.texture,
            iconMapping: pictures.mapping,
            getIcon: (marker) => marker.key,
            getPosition: (marker) => marker.position,
            getSize: (marker) => marker.height,
            sizeUnits: 'pixels',
          }),
        );
      }
      return layers;
    };

    /** The units to draw on their own: those the clustering leaves, or every one shown without clustering. */
    const unitsOnTheirOwn = (store: FleetStore, index: ClusterIndex | undefined, include: (unit: TrackedUnit) => boolean): TrackedUnit[] =>
      index ? index.unitsOnTheirOwn((id) => store.get(id), include) : store.units.filter((unit) => unit.lat !== null && unit.lon !== null && include(unit));

    const source: DeckLayerSource & { dispose(): void } = {
      order: 20,
      layers() {
        const { store, clusters: index, include, filterKey, selectedId, drawing, pictures } = propsRef.current;
        const zoom = map.getZoom();
        if (index) {
          index.maybeBuild(store.units, include, filterKey, store.listVersion, performance.now());
          const bounds = map.getBounds();
          index.request([bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()], zoom);
        }
        const changed = store.takeChanged();
        if (changed.size > 0) index?.markStale();
        // New layers (and a repaint, costly with software WebGL) only when something visible changed: panning alone
        // needs none (deck.gl follows the camera), nor do new states of units inside clusters or out of view (the
        // next clustering pass shows them).
        let visibleChange = !index && changed.size > 0;
        for (const id of changed) {
          if (drawing.units.has(id) || id === selectedId) {
            visibleChange = true;
            break;
          }
        }
        // Half zoom steps: label placement follows the scale.
        const signature = [index?.viewSeq, store.security, store.listVersion, include, filterKey, selectedId, Math.floor(zoom * 2), pictures.generation, pictures.texture];
        if (!visibleChange && lastSignature && signature.every((part, i) => part === lastSignature![i])) {
          if (index?.pending) scheduleRecluster();
          return drawn;
        }
        const units = unitsOnTheirOwn(store, index, include);
        // The selected unit is always drawn on its own, even inside a cluster.
        const selected = selectedId === null ? undefined : store.get(selectedId);
        if (selected && selected.lat !== null && selected.lon !== null && !units.some((unit) => unit.id === selected.id)) units.push(selected);
        drawing.units = new Map(units.map((unit) => [unit.id, [unit.lon!, unit.lat!]]));
        // Latency probe: units drawn on their own whose new state this draw shows.
        const layersSetAt = Date.now();
        for (const id of changed) if (drawing.units.has(id)) pendingDrawn.push([id, layersSetAt]);
        drawn = build(units, zoom);
        lastSignature = [index?.viewSeq, store.security, store.listVersion, include, filterKey, selectedId, Math.floor(zoom * 2), pictures.generation, pictures.texture];
        // The load is drawn once the view comes from an index of the loaded list: a frame before that shows no units yet.
        if (store.loadState === 'ready' && store.probe.firstDrawAt === 0 && (!index || index.answers(filterKey, store.listVersion))) {
          firstDrawPending = true;
          if (index) {
            const last = index.lastBuild;
            Object.assign(store.probe.marks, { clustersBuilt: last.at, clustersWaited: last.waited, clustersTook: last.took, clustersDelivered: last.delivered });
          }
          store.probe.marks.layersSet = performance.now();
        }
        drawing.frames += 1;
        // The popup follows its unit.
        if (selected && selected.lat !== null && selected.lon !== null) popupRef.current?.setLngLat([selected.lon, selected.lat]);
        // A busy fleet needs another clustering pass once the interval is over.
        if (index?.pending) scheduleRecluster();
        return drawn;
      },
      onClick(info: PickingInfo) {
        if (info.layer?.id === 'markers' && info.object) propsRef.current.onSelect((info.object as MapMarker).unit.id);
        // A click on nothing closes the popup (one on another layer's object, a cluster, is that layer's).
        else if (!info.object) propsRef.current.onSelect(null);
      },
      onAfterRender() {
        const { store, onFirstDraw } = propsRef.current;
        if (firstDrawPending) {
          firstDrawPending = false;
          store.probe.firstDrawAt = performance.now();
          onFirstDraw();
        }
        if (pendingDrawn.length === 0) return;
        store.recordDrawn(pendingDrawn, Date.now());
        pendingDrawn = [];
      },
      onDevice(device) {
        propsRef.current.pictures.attach(device);
        lastSignature = null;
      },
      dispose() {
        if (reclusterTimer) clearTimeout(reclusterTimer);
      },
    };
    const scheduleRecluster = () => {
      if (reclusterTimer) return;
      reclusterTimer = setTimeout(() => {
        reclusterTimer = null;
        deck.redraw();
      }, RECLUSTER_RETRY_MS);
    };
    return source;
  });
  const deck = useDeckLayers(source);

  // Live messages, clustering answers and camera moves ask for a frame (the frame decides whether anything changed).
  useEffect(() => {
    const redraw = () => deck.redraw();
    const { store, clusters } = propsRef.current;
    if (clusters) clusters.onView = redraw;
    const unsubscribe = store.subscribe(redraw);
    map.on('move', redraw);
    map.on('resize', redraw);
    map.once('load', redraw);
    return () => {
      if (clusters) clusters.onView = () => {};
      unsubscribe();
      map.off('move', redraw);
      map.off('resize', redraw);
      map.off('load', redraw);
      source.dispose();
    };
  }, [deck, map, source]);

  // A new filter or selection is drawn in the next frame.
  const { include, filterKey, selectedId } = props;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each of these changes what the next frame draws.
  useEffect(() => deck.redraw(), [deck, include, filterKey, selectedId]);

  // The popup of the selected unit: beside it on the map, moved into view when it would stick out (the map pans, and
  // a popup taller than the map scrolls); at phone width a sheet at the bottom of the screen instead.
  useEffect(() => {
    popupRef.current?.remove();
    popupRef.current = null;
    popupNode.remove();
    setPopupOpen(false);
    if (selectedId === null) return;
    const unit = propsRef.current.store.get(selectedId);
    if (!unit || unit.lat === null || unit.lon === null) return;
    if (window.matchMedia(SHEET_MEDIA).matches) {
      popupNode.className = 'unit-popup-root unit-sheet';
      popupNode.style.maxHeight = '';
      document.body.appendChild(popupNode);
      setPopupOpen(true);
      return () => popupNode.remove();
    }
    popupNode.className = 'unit-popup-root';
    const popup = new Popup({ closeButton: false, closeOnClick: false, offset: BADGE_SIZE / 2 + 4, maxWidth: '320px', focusAfterOpen: false })
      .setLngLat([unit.lon, unit.lat])
      .setDOMContent(popupNode)
      .addTo(map);
    popupRef.current = popup;
    setPopupOpen(true);
    let frame = 0;
    const fit = () => {
      frame = 0;
      if (popupRef.current !== popup) return;
      // A pan now would cut short the flight to the unit (a focus from the list): fit once the map stands still.
      if (map.isMoving()) {
        map.once('moveend', refit);
        return;
      }
      const into = keepInside(popup.getElement(), popupNode, map.getContainer());
      if (into) map.panBy(into, { duration: 0 });
    };
    const refit = () => {
      if (!frame) frame = requestAnimationFrame(fit);
    };
    // Once drawn, and again when its content changes size (the address comes in).
    const resized = new ResizeObserver(refit);
    resized.observe(popupNode);
    refit();
    return () => {
      resized.disconnect();
      map.off('moveend', refit);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [selectedId, map, popupNode]);
  useEffect(
    () => () => {
      popupRef.current?.remove();
      popupNode.remove();
    },
    [popupNode],
  );

  // Focus requests: fly to the unit.
  const focus = props.focus;
  useEffect(() => {
    if (!focus) return;
    const unit = propsRef.current.store.get(focus.id);
    if (!unit || unit.lat === null || unit.lon === null) return;
    map.easeTo({ center: [unit.lon, unit.lat], zoom: Math.max(map.getZoom(), FOCUS_ZOOM), duration: 700 });
  }, [focus, map]);

  const selected = selectedId === null ? undefined : props.store.get(selectedId);
  return popupOpen && selected ? createPortal(props.popup(selected), popupNode) : null;
}
