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

let probed: { webgl: boolean; software: boolean } | null = null;

/** Asks once for a WebGL 2 context and its renderer, and gives the context back at once (a browser keeps only a few). */
function probeWebgl(): { webgl: boolean; software: boolean } {
  if (probed !== null) return probed;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    const renderer = gl ? String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER)) : '';
    probed = { webgl: Boolean(gl), software: /swiftshader|llvmpipe|softpipe|software/i.test(renderer) };
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    probed = { webgl: false, software: false };
  }
  return probed;
}

/** Whether WebGL 2 can be had here. */
export function webglAvailable(): boolean {
  return probeWebgl().webgl;
}

/**
 * WebGL without a GPU (SwiftShader, llvmpipe; remote desktops and virtual machines): every pixel, and every new map's
 * shaders, are computed by the CPU.
 */
export function softwareWebgl(): boolean {
  return probeWebgl().software;
}
