/**
 * Generates the offline base map's outlines (Natural Earth via world-atlas) as GeoJSON files, which the web
 * build ships as hashed assets and MapLibre's worker fetches and parses off the page's main thread:
 * - `nordic-outlines.geojson`: the 1:10m outlines of the markets' countries and their neighbours, coordinates
 *   rounded to 4 decimals (~11 m); drawn instead of the 1:50m ones, where the coarser coast would put central
 *   Stockholm at sea;
 * - `world-outlines.geojson`: every country at 1:50m, 3 decimals (~110 m, below that scale's accuracy), each
 *   marked `detailed` when the file above replaces it from zoom 7 on.
 *
 *   bun run src/web/components/map/outlines.generate.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { feature } from 'topojson-client';
import countries10m from 'world-atlas/countries-10m.json';
import countries50m from 'world-atlas/countries-50m.json';

/** ISO 3166-1 numeric ids (world-atlas feature ids). */
const DETAILED_COUNTRIES = [
  '752', // Sweden
  '578', // Norway
  '246', // Finland
  '208', // Denmark
  '352', // Iceland
  '826', // United Kingdom
  '372', // Ireland
  '233', // Estonia
  '428', // Latvia
  '440', // Lithuania
  '276', // Germany
  '616', // Poland
  '528', // Netherlands
];

type Outline = GeoJSON.Feature<GeoJSON.Polygon | GeoJSON.MultiPolygon>;

function roundRing(ring: number[][], decimals: number): number[][] {
  const factor = 10 ** decimals;
  const out: number[][] = [];
  for (const [x, y] of ring) {
    const point = [Math.round(x! * factor) / factor, Math.round(y! * factor) / factor];
    const last = out[out.length - 1];
    if (!last || last[0] !== point[0] || last[1] !== point[1]) out.push(point);
  }
  return out;
}

function rounded(geometry: Outline['geometry'], decimals: number): Outline['geometry'] {
  return geometry.type === 'Polygon'
    ? { type: 'Polygon', coordinates: geometry.coordinates.map((ring) => roundRing(ring, decimals)) }
    : { type: 'MultiPolygon', coordinates: geometry.coordinates.map((polygon) => polygon.map((ring) => roundRing(ring, decimals))) };
}

// biome-ignore lint/suspicious/noExplicitAny: TopoJSON typings do not describe the JSON import.
function countriesOf(topology: any): Outline[] {
  return (feature(topology, topology.objects.countries) as unknown as GeoJSON.FeatureCollection<Outline['geometry']>).features.filter(
    (f) => f.geometry !== null,
  );
}

function write(name: string, features: Outline[]) {
  const path = join(import.meta.dir, name);
  writeFileSync(path, JSON.stringify({ type: 'FeatureCollection', features }));
  console.log(`${features.length} countries → ${path}`);
}

if (import.meta.main) {
  write(
    'nordic-outlines.geojson',
    countriesOf(countries10m)
      .filter((f) => DETAILED_COUNTRIES.includes(String(f.id)))
      .map((f) => ({ type: 'Feature', properties: { name: (f.properties as { name?: string } | null)?.name ?? '' }, geometry: rounded(f.geometry, 4) })),
  );
  write(
    'world-outlines.geojson',
    countriesOf(countries50m).map((f) => ({ type: 'Feature', properties: { detailed: DETAILED_COUNTRIES.includes(String(f.id)) }, geometry: rounded(f.geometry, 3) })),
  );
}
