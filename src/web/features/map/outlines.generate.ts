/**
 * Generates `nordic-outlines.json`: the 1:10m Natural Earth outlines (world-atlas) of the markets'
 * countries and their neighbours, coordinates rounded to 4 decimals (~11 m). The offline base map draws
 * these instead of the 1:50m world outlines, where the coarser coast would put central Stockholm at sea.
 *
 *   bun run src/web/features/map/outlines.generate.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { feature } from 'topojson-client';
import countries10m from 'world-atlas/countries-10m.json';

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

const round = (value: number) => Math.round(value * 1e4) / 1e4;

function roundRing(ring: number[][]): number[][] {
  const out: number[][] = [];
  for (const [x, y] of ring) {
    const point = [round(x!), round(y!)];
    const last = out[out.length - 1];
    if (!last || last[0] !== point[0] || last[1] !== point[1]) out.push(point);
  }
  return out;
}

if (import.meta.main) {
  // biome-ignore lint/suspicious/noExplicitAny: TopoJSON typings do not describe the JSON import.
  const topology = countries10m as any;
  const all = feature(topology, topology.objects.countries) as unknown as GeoJSON.FeatureCollection<GeoJSON.Polygon | GeoJSON.MultiPolygon>;
  const features = all.features
    .filter((f) => DETAILED_COUNTRIES.includes(String(f.id)))
    .map((f) => ({
      type: 'Feature' as const,
      id: String(f.id),
      properties: { name: (f.properties as { name?: string } | null)?.name ?? '' },
      geometry:
        f.geometry.type === 'Polygon'
          ? { type: 'Polygon' as const, coordinates: f.geometry.coordinates.map(roundRing) }
          : { type: 'MultiPolygon' as const, coordinates: f.geometry.coordinates.map((polygon) => polygon.map(roundRing)) },
    }));
  const path = join(import.meta.dir, 'nordic-outlines.json');
  writeFileSync(path, JSON.stringify({ type: 'FeatureCollection', features }));
  console.log(`${features.length} countries → ${path}`);
}
