/** Files the map island imports as text (Bun's `with { type: 'text' }`): CSS to inject and MapLibre's worker. */
declare module '*.css' {
  const text: string;
  export default text;
}

declare module 'maplibre-gl/dist/maplibre-gl-worker.mjs' {
  const source: string;
  export default source;
}

/** GeoJSON the web build ships as a hashed file (`with { type: 'file' }`): its URL. */
declare module '*.geojson' {
  const url: string;
  export default url;
}
