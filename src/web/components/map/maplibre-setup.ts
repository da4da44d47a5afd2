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

let webgl: boolean | null = null;

/** Whether WebGL 2 can be had here: asked once, with a context given back at once (a browser keeps only a few). */
export function webglAvailable(): boolean {
  if (webgl !== null) return webgl;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    webgl = Boolean(gl);
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    webgl = false;
  }
  return webgl;
}
