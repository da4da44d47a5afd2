import type { Layer } from '@deck.gl/core';
import { IconLayer, PathLayer, ScatterplotLayer } from '@deck.gl/layers';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type DeckLayerSource, useDeckLayers } from '../../components/map/DeckOverlay';
import { useMapScene } from '../../components/map/MapView';
import type { HistoryView } from './history';
import { ARROW_SIZE, sharedIconAtlas } from './symbols';

function historyLayers(history: HistoryView): Layer[] {
  const ends = history.segments
    .filter((segment) => segment.kind === 'trip' && segment.path.length > 0)
    .flatMap((segment) => [
      { position: segment.path[0]!, start: true },
      { position: segment.path[segment.path.length - 1]!, start: false },
    ]);
  return [
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
  ];
}

/** A deck.gl child drawing `layers` (rebuilt only when they change) while it is mounted. */
function useStaticDeckLayers(order: number, layers: readonly Layer[]): void {
  const layersRef = useRef(layers);
  layersRef.current = layers;
  const [source] = useState<DeckLayerSource>(() => ({ order, layers: () => layersRef.current }));
  const deck = useDeckLayers(source);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new layers are drawn in the next frame.
  useEffect(() => deck.redraw(), [deck, layers]);
}

/** A unit's day on the map: its trips' paths (and the gaps between them) with start and end markers; shows all of it. */
export function HistoryLayer({ history }: { history: HistoryView }) {
  const { map } = useMapScene();
  // Beneath the fleet.
  useStaticDeckLayers(10, useMemo(() => historyLayers(history), [history]));

  useEffect(() => {
    if (history.positions.length === 0) return;
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
    map.fitBounds(
      [
        [west, south],
        [east, north],
      ],
      // Room for the history bar along the bottom.
      { padding: { top: 60, left: 50, right: 60, bottom: Math.min(260, map.getContainer().clientHeight / 2) }, maxZoom: 16, duration: 600 },
    );
  }, [history, map]);
  return null;
}

export interface ReplayMarker {
  position: [number, number];
  course: number | null;
}

/** The replayed position along a day: a disc, with a heading wedge when the course is known. Above the fleet. */
export function ReplayLayer({ replay }: { replay: ReplayMarker }) {
  useStaticDeckLayers(30, useMemo(() => replayLayers(replay), [replay]));
  return null;
}

function replayLayers(replay: ReplayMarker): Layer[] {
  // The heading sprite of the fleet's atlas (drawn once for the page).
  const atlas = sharedIconAtlas(Math.min(2, Math.ceil(window.devicePixelRatio || 1)));
  const marker = { ...replay };
  return [
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
  ];
}
