import type { Map as MapLibre } from 'maplibre-gl';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type GeoJSONStoreFeatures,
  TerraDraw,
  TerraDrawCircleMode,
  TerraDrawPolygonMode,
  TerraDrawSelectMode,
} from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import type { GeofencePoint, GeofenceShape } from '../../../modules/geofences/model';
import { useBrand } from '../../brands/BrandProvider';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from '../../components/map/basemap';
import { webglAvailable } from '../../components/map/maplibre-setup';
import { MapView, useMapScene } from '../../components/map/MapView';
import { circleOfRing, pointsOfRing, zoneRing } from '../../components/geofences/geometry';

/** The zone being edited, as the form holds it. */
export interface ZoneGeometry {
  shape: GeofenceShape;
  center: GeofencePoint | null;
  radiusM: number | null;
  points: GeofencePoint[] | null;
}

export interface GeofenceDrawMapProps {
  geometry: ZoneGeometry;
  /** Which tool is on: drawing a new shape (the old one goes once the new one is finished) or editing the drawn one. */
  tool: 'draw' | 'edit';
  readOnly: boolean;
  /** Move the map there (an address found); `seq` repeats a request for the same place. */
  flyTo: { latitude: number; longitude: number; seq: number } | null;
  label: string;
  /** The drawn shape changed (null: the user deleted it). */
  onGeometry: (geometry: ZoneGeometry | null) => void;
  /** A new shape was finished: the form switches the tool to editing. */
  onFinished: () => void;
}

/** The text a geometry stands for, to tell the form's changes from the drawing's own. */
function keyOf(geometry: ZoneGeometry): string {
  return geometry.shape === 'circle'
    ? `c|${geometry.center?.latitude},${geometry.center?.longitude}|${geometry.radiusM}`
    : `p|${(geometry.points ?? []).map((point) => `${point.latitude},${point.longitude}`).join(';')}`;
}

function geometryOf(feature: GeoJSONStoreFeatures, shape: GeofenceShape): ZoneGeometry | null {
  if (feature.geometry.type !== 'Polygon') return null;
  const ring = feature.geometry.coordinates[0] ?? [];
  if (shape === 'circle') {
    const circle = circleOfRing(ring);
    return circle ? { shape, center: circle.center, radiusM: circle.radiusM, points: null } : null;
  }
  return { shape, center: null, radiusM: null, points: pointsOfRing(ring) };
}

const STYLE = { fillColor: '#0b5cad', outlineColor: '#0b5cad', fillOpacity: 0.2, outlineWidth: 2 } as const;

function createDraw(map: MapLibre): TerraDraw {
  return new TerraDraw({
    adapter: new TerraDrawMapLibreGLAdapter({ map, prefixId: 'geofence-draw' }),
    modes: [
      // Circles on the sphere, as the server matches them (geography distance).
      new TerraDrawCircleMode({ projection: 'globe', styles: { fillColor: STYLE.fillColor, outlineColor: STYLE.outlineColor, fillOpacity: STYLE.fillOpacity, outlineWidth: STYLE.outlineWidth } }),
      new TerraDrawPolygonMode({ styles: { fillColor: STYLE.fillColor, outlineColor: STYLE.outlineColor, fillOpacity: STYLE.fillOpacity, outlineWidth: STYLE.outlineWidth } }),
      new TerraDrawSelectMode({
        flags: {
          // A circle moves as a whole, and any of its corners is a radius handle (the centre stays).
          circle: { feature: { draggable: true, coordinates: { resizable: 'center-fixed' } } },
          // A polygon's corners are dragged, added between two (the midpoints) and removed (right click).
          polygon: { feature: { draggable: true, coordinates: { draggable: true, midpoints: true, deletable: true } } },
        },
        styles: { selectedPolygonColor: STYLE.fillColor, selectedPolygonOutlineColor: '#b3261e', selectedPolygonFillOpacity: 0.25, selectedPolygonOutlineWidth: 2 },
      }),
    ],
  });
}

/** Puts the form's geometry into the drawing, replacing what it held; the key of what it holds now. */
function placeGeometry(draw: TerraDraw, geometry: ZoneGeometry, select: boolean): string {
  draw.clear();
  const ring = zoneRing(geometry);
  if (!ring) return keyOf(geometry);
  const id = draw.getFeatureId();
  const [result] = draw.addFeatures([
    { id, type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties: { mode: geometry.shape === 'circle' ? 'circle' : 'polygon' } },
  ]);
  if (result?.valid && select) draw.selectFeature(id);
  return keyOf(geometry);
}

/** The drawing's mode for the form's tool: the shape's drawing mode, editing (select) or nothing (read-only). */
function applyToolTo(draw: TerraDraw, container: HTMLElement, props: Pick<GeofenceDrawMapProps, 'tool' | 'readOnly' | 'geometry'>): void {
  const { tool, readOnly, geometry } = props;
  draw.setMode(readOnly ? 'static' : tool === 'draw' ? (geometry.shape === 'circle' ? 'circle' : 'polygon') : 'select');
  container.dataset.tool = draw.getMode();
  if (!readOnly && tool === 'edit') {
    const [feature] = draw.getSnapshot();
    if (feature) draw.selectFeature(feature.id as string);
  }
}

/** The drawing tools on the map: one zone at a time, kept in step with the form both ways. */
function DrawLayer(props: Omit<GeofenceDrawMapProps, 'label'>) {
  const { map, container } = useMapScene();
  const propsRef = useRef(props);
  propsRef.current = props;
  const drawRef = useRef<TerraDraw | null>(null);
  /** The geometry the drawing holds now (as the form last heard it or last set it). */
  const syncedRef = useRef<string>('');

  const place = (draw: TerraDraw, geometry: ZoneGeometry) => {
    syncedRef.current = placeGeometry(draw, geometry, propsRef.current.tool === 'edit' && !propsRef.current.readOnly);
  };
  const applyTool = (draw: TerraDraw) => applyToolTo(draw, container, propsRef.current);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the drawing is made once per map; props are read through the ref
  useEffect(() => {
    let draw: TerraDraw | null = null;
    const start = () => {
      const before = draw?.getSnapshot() ?? null;
      if (draw) {
        try {
          draw.stop();
        } catch {
          // The new style took the drawing's layers with it already.
        }
      }
      draw = createDraw(map);
      drawRef.current = draw;
      draw.start();
      const current = draw;
      current.on('finish', (id, context) => {
        if (context.action !== 'draw') return;
        // The new shape replaces the old one.
        const others = current
          .getSnapshot()
          .map((feature) => feature.id as string)
          .filter((other) => other !== id);
        if (others.length > 0) current.removeFeatures(others);
        const feature = current.getSnapshotFeature(id);
        const geometry = feature ? geometryOf(feature, propsRef.current.geometry.shape) : null;
        if (geometry) {
          syncedRef.current = keyOf(geometry);
          propsRef.current.onGeometry(geometry);
        }
        propsRef.current.onFinished();
      });
      current.on('change', (_ids, type) => {
        if (current.getMode() !== 'select') return;
        const [feature] = current.getSnapshot();
        if (!feature) {
          if (type === 'delete' && syncedRef.current !== '') {
            syncedRef.current = '';
            propsRef.current.onGeometry(null);
          }
          return;
        }
        const geometry = geometryOf(feature, propsRef.current.geometry.shape);
        if (!geometry) return;
        const key = keyOf(geometry);
        if (key === syncedRef.current) return;
        syncedRef.current = key;
        propsRef.current.onGeometry(geometry);
      });
      if (before && before.length > 0) current.addFeatures(before);
      else place(current, propsRef.current.geometry);
      applyTool(current);
      container.dataset.drawReady = 'true';
    };
    // A new style (the online one replacing the offline one) drops the drawing's layers: it starts again.
    const restart = () => {
      if (draw) start();
    };
    if (map.isStyleLoaded()) start();
    else map.once('load', start);
    map.on('style.load', restart);
    return () => {
      map.off('load', start);
      map.off('style.load', restart);
      try {
        draw?.stop();
      } catch {
        // The map is gone already.
      }
      drawRef.current = null;
      delete container.dataset.drawReady;
    };
  }, [map, container]);

  // The form changed the zone (typed radius or centre, another shape): the drawing follows.
  const key = keyOf(props.geometry);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the geometry
  useEffect(() => {
    const draw = drawRef.current;
    if (!draw || key === syncedRef.current) return;
    place(draw, propsRef.current.geometry);
    applyTool(draw);
  }, [key]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the tool, the shape and read-only decide the mode
  useEffect(() => {
    const draw = drawRef.current;
    if (draw) applyTool(draw);
  }, [props.tool, props.geometry.shape, props.readOnly]);

  // An address found: the map goes there.
  const fly = props.flyTo;
  useEffect(() => {
    if (fly) map.flyTo({ center: [fly.longitude, fly.latitude], zoom: 15, duration: 600 });
  }, [map, fly]);

  // The zone in view when the page opens (only when the map is new: later the user moves it).
  useEffect(() => {
    const ring = zoneRing(propsRef.current.geometry);
    if (!ring) return;
    const lons = ring.map((corner) => corner[0]);
    const lats = ring.map((corner) => corner[1]);
    map.fitBounds(
      [
        [Math.min(...lons), Math.min(...lats)],
        [Math.max(...lons), Math.max(...lats)],
      ],
      { padding: 40, maxZoom: 16, duration: 0 },
    );
  }, [map]);
  return null;
}

/** The zone form's map (loaded on demand with MapLibre and terra-draw). */
export default function GeofenceDrawMap({ label, ...props }: GeofenceDrawMapProps) {
  const { i18n } = useTranslation();
  const brand = useBrand();
  if (typeof document !== 'undefined' && !webglAvailable()) return null;
  const ring = zoneRing(props.geometry);
  return (
    <MapView
      key={`${brand.subsiteId}|${i18n.language}`}
      center={ring ? [ring[0]![0], ring[0]![1]] : DEFAULT_CENTER}
      zoom={ring ? 14 : DEFAULT_ZOOM - 2}
      subsiteId={brand.subsiteId}
      language={i18n.language}
      label={label}
      role="application"
      className="geofence-draw-map"
      testId="geofence-draw-map"
      attribution={false}
      flat
    >
      <DrawLayer {...props} />
    </MapView>
  );
}
