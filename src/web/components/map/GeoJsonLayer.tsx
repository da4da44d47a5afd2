import type { GeoJSONSource, LayerSpecification } from 'maplibre-gl';
import { useEffect, useRef } from 'react';
import { useMapScene } from './MapView';

/** A MapLibre layer drawn from the child's source (the source's id is filled in). */
export type SourceLayer = LayerSpecification extends infer L ? (L extends { source: unknown } ? Omit<L, 'source'> : never) : never;

export interface GeoJsonLayerProps {
  /** The source's id; unique on the map. */
  id: string;
  /** Keep it the same object while it is unchanged (it is handed to MapLibre's worker on every change). */
  data: GeoJSON.GeoJSON;
  /** Read when the child mounts; give the child another `key` to draw it differently. */
  layers: readonly SourceLayer[];
}

/**
 * A child of `MapView` drawing GeoJSON with MapLibre: adds its source and layers when it mounts (above the base
 * map, and again after the online style replaced the offline one), updates the data in place, and removes both
 * when it unmounts. Places, and the geofences to come, are drawn this way.
 */
export function GeoJsonLayer({ id, data, layers }: GeoJsonLayerProps) {
  const scene = useMapScene();
  const dataRef = useRef(data);
  dataRef.current = data;
  const layersRef = useRef(layers);
  /** The data the source holds. */
  const sentRef = useRef<GeoJSON.GeoJSON | null>(null);

  useEffect(() => {
    const { map } = scene;
    const layerIds = layersRef.current.map((layer) => layer.id);
    let unannounce = () => {};
    const add = () => {
      if (!map.getSource(id)) {
        map.addSource(id, { type: 'geojson', data: dataRef.current });
        sentRef.current = dataRef.current;
      }
      for (const layer of layersRef.current) if (!map.getLayer(layer.id)) map.addLayer({ ...layer, source: id } as LayerSpecification);
      announce();
    };
    // What the map holds of this child now, read back from the map.
    const announce = () => {
      unannounce();
      unannounce = scene.announce(
        add,
        map.getSource(id) ? [id] : [],
        layerIds.filter((layerId) => map.getLayer(layerId)),
      );
    };
    // A new style (the online one replacing the offline one) drops every source and layer: add them again.
    map.on('style.load', add);
    try {
      add();
    } catch {
      // The map's first style is not in yet ("Style is not done loading"): `style.load` adds them.
    }
    return () => {
      map.off('style.load', add);
      if (scene.removed) return unannounce();
      for (const layerId of layerIds) if (map.getLayer(layerId)) map.removeLayer(layerId);
      if (map.getSource(id)) map.removeSource(id);
      announce();
    };
  }, [scene, id]);

  useEffect(() => {
    const source = scene.map.getSource(id) as GeoJSONSource | undefined;
    if (!source || sentRef.current === data) return;
    source.setData(data);
    sentRef.current = data;
  }, [scene, id, data]);

  return null;
}
