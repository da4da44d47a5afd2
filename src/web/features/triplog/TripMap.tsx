import { LngLatBounds } from 'maplibre-gl';
import { useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { TripLogEntry } from '../../../modules/trips/model';
import { useBrand } from '../../brands/BrandProvider';
import { DEFAULT_CENTER } from '../../components/map/basemap';
import { GeoJsonLayer, type SourceLayer } from '../../components/map/GeoJsonLayer';
import { softwareWebgl, webglAvailable } from '../../components/map/maplibre-setup';
import { MapView, useMapScene } from '../../components/map/MapView';
import { useIdleStart } from '../../lib/idle';

/**
 * The trip log's small map (loaded on demand, like the other maps): the selected trip's route from its positions,
 * with its start and stop; a trip without positions (not sent for a private trip, or none stored) shows its start and
 * stop joined by a dashed line. The map fits the trip whenever another is chosen.
 */
export interface TripMapProps {
  trip: TripLogEntry | null;
  /** The trip's fixes, [lon, lat], oldest first; null while they load. */
  path: Array<[number, number]> | null;
  label: string;
  /** The user asked for this trip on the map (its row's map button): the map opens also where it waits to be asked. */
  asked: boolean;
}

const ROUTE_LAYERS: SourceLayer[] = [
  {
    id: 'trip-route-casing',
    type: 'line',
    filter: ['==', ['get', 'kind'], 'route'],
    layout: { 'line-join': 'round', 'line-cap': 'round' },
    paint: { 'line-color': '#ffffff', 'line-width': 7 },
  },
  {
    id: 'trip-route',
    type: 'line',
    filter: ['==', ['get', 'kind'], 'route'],
    layout: { 'line-join': 'round', 'line-cap': 'round' },
    paint: { 'line-color': '#0b5cad', 'line-width': 4 },
  },
  {
    id: 'trip-direct',
    type: 'line',
    filter: ['==', ['get', 'kind'], 'direct'],
    paint: { 'line-color': '#4d5966', 'line-width': 2, 'line-dasharray': [2, 2] },
  },
  {
    id: 'trip-ends',
    type: 'circle',
    filter: ['==', '$type', 'Point'],
    paint: {
      'circle-radius': 6,
      'circle-color': ['match', ['get', 'kind'], 'start', '#067647', '#b3261e'],
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
    },
  },
];

function tripData(trip: TripLogEntry, path: Array<[number, number]>): GeoJSON.FeatureCollection {
  const start: [number, number] = [trip.startLon, trip.startLat];
  const stop: [number, number] = [trip.stopLon, trip.stopLat];
  const line: GeoJSON.Feature =
    path.length >= 2
      ? { type: 'Feature', properties: { kind: 'route' }, geometry: { type: 'LineString', coordinates: path } }
      : { type: 'Feature', properties: { kind: 'direct' }, geometry: { type: 'LineString', coordinates: [start, stop] } };
  return {
    type: 'FeatureCollection',
    features: [
      line,
      { type: 'Feature', properties: { kind: 'start' }, geometry: { type: 'Point', coordinates: start } },
      { type: 'Feature', properties: { kind: 'stop' }, geometry: { type: 'Point', coordinates: stop } },
    ],
  };
}

/** The trip on the map; the map fits it, and its container names the trip and its number of fixes (read by tests). */
function TripRoute({ trip, path }: { trip: TripLogEntry; path: Array<[number, number]> }) {
  const { map, container } = useMapScene();
  const data = useMemo(() => tripData(trip, path), [trip, path]);
  useEffect(() => {
    const bounds = new LngLatBounds([trip.startLon, trip.startLat], [trip.startLon, trip.startLat]);
    bounds.extend([trip.stopLon, trip.stopLat]);
    for (const point of path) bounds.extend(point);
    // Fitted again when the map's box changes size (the page's layout settling, a window resized).
    const fit = () => map.fitBounds(bounds, { padding: 36, maxZoom: 15, duration: 0 });
    fit();
    map.on('resize', fit);
    container.dataset.trip = String(trip.id);
    container.dataset.points = String(path.length);
    return () => {
      map.off('resize', fit);
    };
  }, [map, container, trip, path]);
  return <GeoJsonLayer id="trip" data={data} layers={ROUTE_LAYERS} />;
}

export default function TripMap({ trip, path, label, asked }: TripMapProps) {
  const { t, i18n } = useTranslation();
  const brand = useBrand();
  // Without a GPU a new map's first frames cost the CPU 70-150 ms each (its shaders are compiled and every pixel is
  // drawn in software), and the page waits for each: opened together with the trip log they blocked input right after
  // the click that opened it. There the map opens when asked for, and stays open while the trip log is shown.
  const [opened, setOpened] = useState(() => typeof document === 'undefined' || !softwareWebgl());
  // With a GPU it starts after the trip log around it is drawn, in a task of its own, not in the trip log's commit.
  const started = useIdleStart();
  // A trip asked for on the map opens it, and it stays open for the trips after.
  useEffect(() => {
    if (asked) setOpened(true);
  }, [asked]);
  if (typeof document !== 'undefined' && !webglAvailable()) return null;
  if (!opened && !asked) {
    return (
      <div className="triplog-map triplog-map--closed" data-testid="triplog-map-closed">
        <p className="triplog-map-note">{t('triplog.mapSoftware')}</p>
        <Button className="btn btn-secondary" onPress={() => setOpened(true)} data-testid="triplog-map-open">
          {t('triplog.mapOpen')}
        </Button>
      </div>
    );
  }
  if (!started) return <div className="triplog-map triplog-map--loading">{t('common.loading')}</div>;
  return (
    // A new brand or language builds the map anew (its base map follows both).
    <MapView
      key={`${brand.subsiteId}|${i18n.language}`}
      center={trip ? [trip.startLon, trip.startLat] : DEFAULT_CENTER}
      zoom={12}
      flat
      subsiteId={brand.subsiteId}
      language={i18n.language}
      label={label}
      className="triplog-map"
      testId="triplog-map"
    >
      {trip && path && <TripRoute trip={trip} path={path} />}
    </MapView>
  );
}
