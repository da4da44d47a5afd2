import { setWorkerUrl } from 'maplibre-gl';
import mapLibreCss from 'maplibre-gl/dist/maplibre-gl.css' with { type: 'text' };
import mapLibreWorker from 'maplibre-gl/dist/maplibre-gl-worker.mjs' with { type: 'text' };

let workerUrl: string | null = null;

/** MapLibre's worker and CSS travel inside the place map's chunk (no separate files to serve). */
export function prepareMapLibre() {
  if (!workerUrl) {
    workerUrl = URL.createObjectURL(new Blob([mapLibreWorker], { type: 'text/javascript' }));
    setWorkerUrl(workerUrl);
  }
  if (!document.querySelector('style[data-source="maplibre-gl"]')) {
    const style = document.createElement('style');
    style.dataset.source = 'maplibre-gl';
    style.textContent = mapLibreCss;
    document.head.appendChild(style);
  }
}
