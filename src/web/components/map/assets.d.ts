/** Files the map code imports as text (Bun's `with { type: 'text' }`): CSS to inject. */
declare module '*.css' {
  const text: string;
  export default text;
}

/** MapLibre's worker, shipped as a hashed file (`with { type: 'file' }`): its URL. */
declare module 'maplibre-gl/dist/maplibre-gl-worker.mjs' {
  const url: string;
  export default url;
}

/** GeoJSON the web build ships as a hashed file (`with { type: 'file' }`): its URL. */
declare module '*.geojson' {
  const url: string;
  export default url;
}

/** The texts of the signed-out pages in one language, made by the web build (scripts/build-web.ts). */
declare module 'public-texts:*' {
  const texts: { translation: Record<string, unknown>; server: Record<string, string> };
  export default texts;
}
