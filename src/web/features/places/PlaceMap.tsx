import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useBrand } from '../../brands/BrandProvider';
import { FOCUS_ZOOM } from '../../components/map/basemap';
import { GeoJsonLayer, type SourceLayer } from '../../components/map/GeoJsonLayer';
import { webglAvailable } from '../../components/map/maplibre-setup';
import { MapView, useMapScene } from '../../components/map/MapView';

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

function circleData(latitude: number, longitude: number, radiusM: number): GeoJSON.FeatureCollection {
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

const CIRCLE_LAYERS: SourceLayer[] = [
  { id: 'place-fill', type: 'fill', filter: ['==', '$type', 'Polygon'], paint: { 'fill-color': '#0b5cad', 'fill-opacity': 0.18 } },
  { id: 'place-outline', type: 'line', filter: ['==', '$type', 'Polygon'], paint: { 'line-color': '#0b5cad', 'line-width': 2 } },
  {
    id: 'place-centre',
    type: 'circle',
    filter: ['==', '$type', 'Point'],
    paint: { 'circle-radius': 5, 'circle-color': '#b3261e', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
  },
];

/** The place's circle and centre, a layer child of the map; the map follows it as it moves or grows. */
function PlaceCircle({ latitude, longitude, radiusM }: { latitude: number; longitude: number; radiusM: number }) {
  const { map } = useMapScene();
  const data = useMemo(() => circleData(latitude, longitude, radiusM), [latitude, longitude, radiusM]);
  useEffect(() => {
    map.easeTo({ center: [longitude, latitude], zoom: zoomFor(latitude, radiusM), duration: 300 });
  }, [map, latitude, longitude, radiusM]);
  return <GeoJsonLayer id="place" data={data} layers={CIRCLE_LAYERS} />;
}

export default function PlaceMap(props: PlaceMapProps) {
  const { i18n } = useTranslation();
  const brand = useBrand();
  if (typeof document !== 'undefined' && !webglAvailable()) {
    return <p className="places-hint">{props.label}</p>;
  }
  const pick = ({ lat, lng }: { lat: number; lng: number }) => {
    if (props.readOnly) return;
    props.onPick(Math.round(lat * 1e6) / 1e6, Math.round(lng * 1e6) / 1e6);
  };
  return (
    // A new brand or language builds the map anew (its base map follows both).
    <MapView
      key={`${brand.subsiteId}|${i18n.language}`}
      center={[props.longitude, props.latitude]}
      zoom={props.hasPoint ? zoomFor(props.latitude, props.radiusM) : FOCUS_ZOOM - 1}
      subsiteId={brand.subsiteId}
      language={i18n.language}
      label={props.label}
      role="application"
      className="place-map"
      testId="place-map"
      attribution={false}
      onClick={pick}
    >
      {props.hasPoint && <PlaceCircle latitude={props.latitude} longitude={props.longitude} radiusM={props.radiusM} />}
    </MapView>
  );
}
