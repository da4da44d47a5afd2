import type { GeoJSONSource } from 'maplibre-gl';
import { Map as MapLibre, NavigationControl, ScaleControl } from 'maplibre-gl';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useBrand } from '../../brands/BrandProvider';
import { applyBaseMap, FOCUS_ZOOM } from '../map/basemap';
import { prepareMapLibre, webglAvailable } from '../map/maplibre-setup';

/**
 * A small map for the place form (loaded on demand, like the live map): the place's circle on the brand's base
 * map (offline outlines at once, the online style when it can be fetched); a click moves the centre there.
 */
export interface PlaceMapProps {
  latitude: number;
  longitude: number;
  radiusM: number;
  /** False until the place has coordinates: the map shows the default centre without a circle. */
  hasPoint: boolean;
  readOnly: boolean;
  label: string;
  onPick: (latitude: number, longitude: number) => void;
}

/** The circle as a 64-gon on the sphere (metres), for a fill and an outline. */
export function circlePolygon(latitude: number, longitude: number, radiusM: number, steps = 64): GeoJSON.Feature<GeoJSON.Polygon> {
  const R = 6_371_008.8;
  const lat = (latitude * Math.PI) / 180;
  const lon = (longitude * Math.PI) / 180;
  const d = radiusM / R;
  const ring: Array<[number, number]> = [];
  for (let i = 0; i <= steps; i++) {
    const bearing = (2 * Math.PI * i) / steps;
    const lat2 = Math.asin(Math.sin(lat) * Math.cos(d) + Math.cos(lat) * Math.sin(d) * Math.cos(bearing));
    const lon2 = lon + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat), Math.cos(d) - Math.sin(lat) * Math.sin(lat2));
    ring.push([(lon2 * 180) / Math.PI, (lat2 * 180) / Math.PI]);
  }
  return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } };
}

function circleData({ latitude, longitude, radiusM, hasPoint }: Pick<PlaceMapProps, 'latitude' | 'longitude' | 'radiusM' | 'hasPoint'>): GeoJSON.FeatureCollection {
  if (!hasPoint) return { type: 'FeatureCollection', features: [] };
  return {
    type: 'FeatureCollection',
    features: [
      circlePolygon(latitude, longitude, radiusM),
      { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [longitude, latitude] } },
    ],
  };
}

/** Zoom that shows the whole circle in a map about 320 px tall. */
function zoomFor(latitude: number, radiusM: number): number {
  const metresPerPixel = (radiusM * 2.6) / 320;
  // MapLibre's 512-pixel tiles: 78 271.52 m per pixel at zoom 0 on the equator.
  const zoom = Math.log2((78_271.52 * Math.cos((latitude * Math.PI) / 180)) / metresPerPixel);
  return Math.max(3, Math.min(FOCUS_ZOOM + 2, zoom));
}

export default function PlaceMap(props: PlaceMapProps) {
  const { i18n } = useTranslation();
  const brand = useBrand();
  const container = useRef<HTMLDivElement>(null);
  const mapRef = useRef<MapLibre | null>(null);
  const propsRef = useRef(props);
  propsRef.current = props;

  useEffect(() => {
    const node = container.current;
    if (!node || !webglAvailable()) return;
    prepareMapLibre();
    const start = propsRef.current;
    const map = new MapLibre({
      container: node,
      style: { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#dfe7ef' } }] },
      center: [start.longitude, start.latitude],
      zoom: start.hasPoint ? zoomFor(start.latitude, start.radiusM) : FOCUS_ZOOM - 1,
      attributionControl: false,
    });
    mapRef.current = map;
    map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    // A new style drops our layers: add them again whenever a style has loaded.
    const addCircle = () => {
      if (map.getSource('place')) return;
      map.addSource('place', { type: 'geojson', data: circleData(propsRef.current) });
      map.addLayer({ id: 'place-fill', type: 'fill', source: 'place', filter: ['==', '$type', 'Polygon'], paint: { 'fill-color': '#0b5cad', 'fill-opacity': 0.18 } });
      map.addLayer({ id: 'place-outline', type: 'line', source: 'place', filter: ['==', '$type', 'Polygon'], paint: { 'line-color': '#0b5cad', 'line-width': 2 } });
      map.addLayer({
        id: 'place-centre',
        type: 'circle',
        source: 'place',
        filter: ['==', '$type', 'Point'],
        paint: { 'circle-radius': 5, 'circle-color': '#b3261e', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
      });
    };
    map.on('style.load', addCircle);
    map.on('click', (event) => {
      if (propsRef.current.readOnly) return;
      propsRef.current.onPick(Math.round(event.lngLat.lat * 1e6) / 1e6, Math.round(event.lngLat.lng * 1e6) / 1e6);
    });
    const abort = new AbortController();
    applyBaseMap(map, node, { subsiteId: brand.subsiteId, language: i18n.language, signal: abort.signal });
    const resize = new ResizeObserver(() => map.resize());
    resize.observe(node);
    return () => {
      abort.abort();
      resize.disconnect();
      map.remove();
      mapRef.current = null;
    };
    // The map is built once; later props go through the effect below.
  }, [brand.subsiteId, i18n.language]);

  const { latitude, longitude, radiusM, hasPoint } = props;
  useEffect(() => {
    const map = mapRef.current;
    if (!map) return;
    (map.getSource('place') as GeoJSONSource | undefined)?.setData(circleData({ latitude, longitude, radiusM, hasPoint }));
    if (hasPoint) map.easeTo({ center: [longitude, latitude], zoom: zoomFor(latitude, radiusM), duration: 300 });
  }, [latitude, longitude, radiusM, hasPoint]);

  if (typeof document !== 'undefined' && !webglAvailable()) {
    return <p className="places-hint">{props.label}</p>;
  }
  return <div ref={container} className="place-map" role="application" aria-label={props.label} data-testid="place-map" />;
}
