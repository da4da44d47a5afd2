import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { GeofenceView } from '../../../modules/geofences/model';
import { useBrand } from '../../brands/BrandProvider';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from '../../components/map/basemap';
import { GeoJsonLayer, type SourceLayer } from '../../components/map/GeoJsonLayer';
import { webglAvailable } from '../../components/map/maplibre-setup';
import { MapView, useMapScene } from '../../components/map/MapView';
import { boundsOf, zonesCollection } from '../../components/geofences/geometry';

/** The list screen's map (loaded on demand): every zone the list shows, inactive ones grey; a click on one picks it. */
export interface GeofencesMapProps {
  zones: readonly GeofenceView[];
  label: string;
  onPick: (id: number) => void;
}

const ZONE_LAYERS: SourceLayer[] = [
  {
    id: 'geofences-fill',
    type: 'fill',
    paint: { 'fill-color': ['case', ['get', 'active'], '#0b5cad', '#7a7a7a'], 'fill-opacity': 0.2 },
  },
  {
    id: 'geofences-outline',
    type: 'line',
    paint: { 'line-color': ['case', ['get', 'active'], '#0b5cad', '#7a7a7a'], 'line-width': 2 },
  },
];

function Zones({ zones, onPick }: { zones: readonly GeofenceView[]; onPick: (id: number) => void }) {
  const { map } = useMapScene();
  const data = useMemo(() => zonesCollection(zones), [zones]);
  const bounds = useMemo(() => boundsOf(zones), [zones]);
  const boundsKey = bounds?.join(',') ?? '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key stands for the bounds
  useEffect(() => {
    if (!bounds) return;
    map.fitBounds(
      [
        [bounds[0], bounds[1]],
        [bounds[2], bounds[3]],
      ],
      { padding: 40, maxZoom: 15, duration: 0 },
    );
  }, [map, boundsKey]);
  useEffect(() => {
    const click = (event: { features?: Array<{ properties: Record<string, unknown> }> }) => {
      const id = Number(event.features?.[0]?.properties.id);
      if (Number.isInteger(id)) onPick(id);
    };
    map.on('click', 'geofences-fill', click);
    return () => {
      map.off('click', 'geofences-fill', click);
    };
  }, [map, onPick]);
  return <GeoJsonLayer id="geofences" data={data} layers={ZONE_LAYERS} />;
}

export default function GeofencesMap({ zones, label, onPick }: GeofencesMapProps) {
  const { i18n } = useTranslation();
  const brand = useBrand();
  if (typeof document !== 'undefined' && !webglAvailable()) return null;
  return (
    <MapView
      key={`${brand.subsiteId}|${i18n.language}`}
      center={DEFAULT_CENTER}
      zoom={DEFAULT_ZOOM}
      subsiteId={brand.subsiteId}
      language={i18n.language}
      label={label}
      className="geofences-map"
      testId="geofences-map"
      attribution={false}
      flat
    >
      <Zones zones={zones} onPick={onPick} />
    </MapView>
  );
}
