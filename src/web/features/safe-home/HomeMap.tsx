import type { MapLayerMouseEvent, MapLayerTouchEvent, Map as MapLibre } from 'maplibre-gl';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useBrand } from '../../brands/BrandProvider';
import { GeoJsonLayer, type SourceLayer } from '../../components/map/GeoJsonLayer';
import { webglAvailable } from '../../components/map/maplibre-setup';
import { MapView, useMapScene } from '../../components/map/MapView';
import { circleRing } from '../../components/geofences/geometry';
import { roundCoordinate } from '../../../modules/safe-home/model';

/**
 * The home's map in the map modal (loaded on demand): the home circle on the brand's base map. The circle is dragged
 * with the mouse or a finger to move the home; a click elsewhere on the map moves it there too. The map follows the
 * circle only when the form moves it (an address chosen: `follow` counts those moves), never while it is dragged.
 */
export interface HomeMapProps {
  latitude: number;
  longitude: number;
  radiusM: number;
  zoom: number;
  /** Bumped when the home moved by other means than the map (an address chosen): the map goes there. */
  follow: number;
  label: string;
  /** The centre moved on the map (dragged or clicked), rounded to 6 decimals. */
  onMove: (latitude: number, longitude: number) => void;
  /** A drag ended: the form looks up the address of the new centre. */
  onMoved: (latitude: number, longitude: number) => void;
}

const FILL = 'home-fill';
const LAYERS: SourceLayer[] = [
  { id: FILL, type: 'fill', filter: ['==', '$type', 'Polygon'], paint: { 'fill-color': '#0b5cad', 'fill-opacity': 0.22 } },
  { id: 'home-outline', type: 'line', filter: ['==', '$type', 'Polygon'], paint: { 'line-color': '#0b5cad', 'line-width': 2 } },
  {
    id: 'home-centre',
    type: 'circle',
    filter: ['==', '$type', 'Point'],
    paint: { 'circle-radius': 5, 'circle-color': '#b3261e', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
  },
];

function circleData(latitude: number, longitude: number, radiusM: number): GeoJSON.FeatureCollection {
  return {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [circleRing({ latitude, longitude }, radiusM)] } },
      { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [longitude, latitude] } },
    ],
  };
}

/** Drags the circle: a press on it holds the map still and moves the centre with the pointer, keeping the grip offset. */
function useCircleDrag(map: MapLibre, container: HTMLElement, propsRef: { current: HomeMapProps }) {
  useEffect(() => {
    let grip: { dLat: number; dLng: number } | null = null;
    let last: { lat: number; lng: number } | null = null;
    const canvas = map.getCanvas();
    const moveTo = (lngLat: { lat: number; lng: number }) => {
      if (!grip) return;
      const lat = roundCoordinate(Math.max(-85, Math.min(85, lngLat.lat + grip.dLat)));
      const lng = roundCoordinate(lngLat.lng + grip.dLng);
      last = { lat, lng };
      propsRef.current.onMove(lat, lng);
    };
    const begin = (lngLat: { lat: number; lng: number }) => {
      const { latitude, longitude } = propsRef.current;
      grip = { dLat: latitude - lngLat.lat, dLng: longitude - lngLat.lng };
      last = null;
      canvas.style.cursor = 'grabbing';
      container.dataset.dragging = 'true';
    };
    const end = () => {
      if (!grip) return;
      grip = null;
      canvas.style.cursor = '';
      delete container.dataset.dragging;
      if (last) propsRef.current.onMoved(last.lat, last.lng);
    };
    const onMouseMove = (event: MapLayerMouseEvent) => moveTo(event.lngLat);
    const onMouseUp = () => {
      map.off('mousemove', onMouseMove);
      end();
    };
    const onMouseDown = (event: MapLayerMouseEvent) => {
      if (event.originalEvent.button !== 0) return;
      // Holds the map's own drag-pan for this gesture.
      event.preventDefault();
      begin(event.lngLat);
      map.on('mousemove', onMouseMove);
      map.once('mouseup', onMouseUp);
    };
    const onTouchMove = (event: MapLayerTouchEvent) => {
      event.preventDefault();
      moveTo(event.lngLat);
    };
    const onTouchEnd = () => {
      map.off('touchmove', onTouchMove);
      end();
    };
    const onTouchStart = (event: MapLayerTouchEvent) => {
      if (event.points.length !== 1) return;
      event.preventDefault();
      begin(event.lngLat);
      map.on('touchmove', onTouchMove);
      map.once('touchend', onTouchEnd);
    };
    const hover = () => {
      if (!grip) canvas.style.cursor = 'grab';
    };
    const leave = () => {
      if (!grip) canvas.style.cursor = '';
    };
    map.on('mousedown', FILL, onMouseDown);
    map.on('touchstart', FILL, onTouchStart);
    map.on('mouseenter', FILL, hover);
    map.on('mouseleave', FILL, leave);
    return () => {
      map.off('mousedown', FILL, onMouseDown);
      map.off('touchstart', FILL, onTouchStart);
      map.off('mouseenter', FILL, hover);
      map.off('mouseleave', FILL, leave);
      map.off('mousemove', onMouseMove);
      map.off('touchmove', onTouchMove);
    };
  }, [map, container, propsRef]);
}

function HomeCircle(props: HomeMapProps) {
  const { map, container } = useMapScene();
  const propsRef = useRef(props);
  propsRef.current = props;
  const { latitude, longitude, radiusM, follow } = props;
  const data = useMemo(() => circleData(latitude, longitude, radiusM), [latitude, longitude, radiusM]);
  useCircleDrag(map, container, propsRef);
  // Only a move from the form (follow) recentres the map; the centre is read through the ref.
  useEffect(() => {
    if (follow > 0) map.easeTo({ center: [propsRef.current.longitude, propsRef.current.latitude], duration: 300 });
  }, [map, follow]);
  // A larger radius typed: the map zooms out until the whole circle shows (it never zooms in by itself).
  useEffect(() => {
    const height = Math.max(160, Math.min(container.clientHeight, container.clientWidth));
    // MapLibre's 512-pixel tiles: 78 271.52 m per pixel at zoom 0 on the equator; the circle gets 80 % of the view.
    const fits = Math.log2((78_271.52 * Math.cos((propsRef.current.latitude * Math.PI) / 180) * height * 0.8) / (2 * radiusM));
    if (Number.isFinite(fits) && map.getZoom() > fits) map.easeTo({ zoom: Math.max(3, fits), duration: 300 });
  }, [map, container, radiusM]);
  // The centre the circle stands at, on the container: tests read it back.
  useEffect(() => {
    container.dataset.centre = `${latitude.toFixed(6)},${longitude.toFixed(6)}`;
  }, [container, latitude, longitude]);
  return <GeoJsonLayer id="home" data={data} layers={LAYERS} />;
}

export default function HomeMap(props: HomeMapProps) {
  const { i18n, t } = useTranslation();
  const brand = useBrand();
  if (typeof document !== 'undefined' && !webglAvailable()) {
    return <p className="safe-home-hint">{t('safeReturnHome.map.noMap')}</p>;
  }
  return (
    <MapView
      key={`${brand.subsiteId}|${i18n.language}`}
      center={[props.longitude, props.latitude]}
      zoom={props.zoom}
      subsiteId={brand.subsiteId}
      language={i18n.language}
      label={props.label}
      role="application"
      className="safe-home-map"
      testId="safe-home-map"
      attribution={false}
      flat
      onClick={({ lat, lng }) => {
        const latitude = roundCoordinate(lat);
        const longitude = roundCoordinate(lng);
        props.onMove(latitude, longitude);
        props.onMoved(latitude, longitude);
      }}
    >
      <HomeCircle {...props} />
    </MapView>
  );
}
