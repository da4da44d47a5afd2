import { setWorkerUrl } from 'maplibre-gl';
import mapLibreCss from 'maplibre-gl/dist/maplibre-gl.css' with { type: 'text' };
import mapLibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs' with { type: 'file' };

/** MapLibre's set-up for every map of the app (the live map and the place map). */

let workerSet = false;

/**
 * MapLibre's worker is a hashed file of its own (cached, and fetched by the worker itself rather than parsed as
 * half a megabyte of text in a map chunk); its CSS ships inside the chunk and is injected once.
 */
export function prepareMapLibre(): void {
  if (!workerSet) {
    setWorkerUrl(new URL(mapLibreWorkerUrl, window.location.href).href);
    workerSet = true;
  }
  if (!document.querySelector('style[data-source="maplibre-gl"]')) {
    const style = document.createElement('style');
    style.dataset.source = 'maplibre-gl';
    style.textContent = mapLibreCss;
    document.head.appendChild(style);
  }
}

export function webglAvailable(): boolean {
  try {
    return Boolean(document.createElement('canvas').getContext('webgl2'));
  } catch {
    return false;
  }
}
