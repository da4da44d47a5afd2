import type { Layer, PickingInfo } from '@deck.gl/core';
import { IconLayer } from '@deck.gl/layers';
import { useState } from 'react';
import { type DeckLayerSource, useDeckLayers } from '../../components/map/DeckOverlay';
import { useMapScene } from '../../components/map/MapView';
import { CLUSTER_MAX_ZOOM, type ClusterIndex, type ClusterMarker } from './clusters';
import type { PictureAtlas } from './pictures';
import { clusterPicture } from './symbols';
import type { FleetDrawing } from './UnitsLayer';

export interface ClustersLayerProps {
  /** The clustering the units layer asks for views (its answers are drawn here). */
  clusters: ClusterIndex;
  /** The atlas the units layer draws its badges and names from too. */
  pictures: PictureAtlas;
  /** Filled in as the layer draws. */
  drawing: FleetDrawing;
}

/**
 * The clusters of the fleet zoomed out, beneath the units drawn on their own: a badge with the count each, from
 * the fleet's picture atlas; a click zooms in until the cluster comes apart. Rebuilt only when a clustering
 * answer arrives (the units layer asks for them as the camera moves and positions change).
 */
export function ClustersLayer(props: ClustersLayerProps) {
  const { map } = useMapScene();
  const [source] = useState(() => {
    const { clusters: index, pictures, drawing } = props;
    let drawn: readonly Layer[] = [];
    let lastSignature: unknown[] | null = null;
    const source: DeckLayerSource = {
      order: 15,
      layers() {
        const signature = [index.viewSeq, pictures.generation, pictures.texture];
        if (lastSignature && signature.every((part, i) => part === lastSignature![i])) return drawn;
        const clusters = index.clusterMarkers();
        drawing.clusters = clusters;
        const badges = clusters.map((cluster) => ({ cluster, picture: clusterPicture(cluster.count) }));
        // The atlas started over: the units' layer, drawn from its earlier pictures, is built again too.
        if (pictures.ensure(badges.map((badge) => badge.picture))) deck.redraw();
        lastSignature = [index.viewSeq, pictures.generation, pictures.texture];
        // Until deck.gl's device exists there is no texture to draw from; `onDevice` draws again.
        drawn = pictures.texture
          ? [
              new IconLayer<(typeof badges)[number]>({
                id: 'clusters',
                data: badges,
                pickable: true,
                iconAtlas: pictures.texture,
                iconMapping: pictures.mapping,
                getIcon: (badge) => badge.picture.key,
                getPosition: (badge) => badge.cluster.position,
                getSize: (badge) => badge.picture.height,
                sizeUnits: 'pixels',
              }),
            ]
          : [];
        return drawn;
      },
      onClick(info: PickingInfo) {
        if (info.layer?.id !== 'clusters' || !info.object) return;
        const { cluster } = info.object as { cluster: ClusterMarker };
        void index.expansionZoom(cluster.id).then((expansion) => {
          const zoom = Math.min(CLUSTER_MAX_ZOOM + 1, Math.max(expansion, map.getZoom() + 1));
          map.easeTo({ center: cluster.position, zoom, duration: 500 });
        });
      },
      onDevice(device) {
        pictures.attach(device);
        lastSignature = null;
      },
    };
    return source;
  });
  const deck = useDeckLayers(source);
  return null;
}
