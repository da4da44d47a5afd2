import type { Layer, PickingInfo } from '@deck.gl/core';
import { PolygonLayer, ScatterplotLayer, TextLayer } from '@deck.gl/layers';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { GeofenceEventView, GeofenceView } from '../../../modules/geofences/model';
import { type DeckLayerSource, useDeckLayers } from '../map/DeckOverlay';
import { zoneLabelPoint, zoneRing } from './geometry';

/** A zone as the live map draws it. */
interface DrawnZone {
  zone: GeofenceView;
  ring: Array<[number, number]>;
  label: [number, number] | null;
}

const ACTIVE: [number, number, number] = [11, 92, 173];
const INACTIVE: [number, number, number] = [122, 122, 122];
const THEFT: [number, number, number] = [179, 38, 30];

function zoneColor(zone: GeofenceView): [number, number, number] {
  if (!zone.active) return INACTIVE;
  return zone.theftMode ? THEFT : ACTIVE;
}

function zoneLayers(zones: readonly DrawnZone[]): Layer[] {
  return [
    new PolygonLayer<DrawnZone>({
      id: 'geofence-zones',
      data: zones,
      getPolygon: (drawn) => drawn.ring,
      getFillColor: (drawn) => [...zoneColor(drawn.zone), 40],
      getLineColor: (drawn) => [...zoneColor(drawn.zone), 220],
      getLineWidth: 2,
      lineWidthUnits: 'pixels',
      stroked: true,
      filled: true,
      pickable: true,
    }),
    new TextLayer<DrawnZone>({
      id: 'geofence-names',
      data: zones.filter((drawn) => drawn.label !== null),
      getPosition: (drawn) => drawn.label!,
      getText: (drawn) => drawn.zone.name,
      // Zone names in Swedish and Norwegian: the font atlas is built from the names themselves.
      characterSet: 'auto',
      getSize: 13,
      sizeUnits: 'pixels',
      getColor: (drawn) => [...zoneColor(drawn.zone), 255],
      fontFamily: 'system-ui, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
      fontWeight: 600,
      outlineWidth: 3,
      outlineColor: [255, 255, 255, 230],
      fontSettings: { sdf: true },
      getTextAnchor: 'middle',
      getAlignmentBaseline: 'center',
    }),
  ];
}

/**
 * The live map's geofence layer (a child of the map's `DeckOverlay`): every zone with its name, beneath the
 * fleet; a click on a zone (where no unit is) hands the zone to `onPick`.
 */
export function GeofenceMapLayer({ zones, onPick }: { zones: readonly GeofenceView[]; onPick: (zone: GeofenceView) => void }) {
  const layers = useMemo(() => {
    const drawn: DrawnZone[] = [];
    for (const zone of zones) {
      const ring = zoneRing(zone);
      if (ring) drawn.push({ zone, ring, label: zoneLabelPoint(zone) });
    }
    return zoneLayers(drawn);
  }, [zones]);
  const layersRef = useRef(layers);
  layersRef.current = layers;
  const pickRef = useRef(onPick);
  pickRef.current = onPick;
  const [source] = useState<DeckLayerSource>(() => ({
    // Beneath the day's history (10) and the fleet's clusters and units.
    order: 5,
    layers: () => layersRef.current,
    onClick(info: PickingInfo) {
      if (info.layer?.id === 'geofence-zones' && info.object) pickRef.current((info.object as DrawnZone).zone);
    },
  }));
  const deck = useDeckLayers(source);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new layers are drawn in the next frame.
  useEffect(() => deck.redraw(), [deck, layers]);
  return null;
}

/** A unit's zone entries and exits of the day on the map: green where it entered, red where it left. */
export function GeofenceEventsLayer({ events }: { events: readonly GeofenceEventView[] }) {
  const layers = useMemo(
    () => [
      new ScatterplotLayer<GeofenceEventView>({
        id: 'geofence-events',
        data: events,
        getPosition: (event) => [event.longitude, event.latitude],
        getFillColor: (event) => (event.transition === 'entered' ? [30, 125, 52, 255] : [179, 38, 30, 255]),
        getLineColor: [255, 255, 255, 255],
        getRadius: 6,
        radiusUnits: 'pixels',
        stroked: true,
        lineWidthUnits: 'pixels',
        getLineWidth: 2,
      }),
    ],
    [events],
  );
  const layersRef = useRef<Layer[]>(layers);
  layersRef.current = layers;
  const [source] = useState<DeckLayerSource>(() => ({ order: 11, layers: () => layersRef.current }));
  const deck = useDeckLayers(source);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new layers are drawn in the next frame.
  useEffect(() => deck.redraw(), [deck, layers]);
  return null;
}
