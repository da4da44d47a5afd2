import type { GeofencePoint, GeofenceView } from '../../../modules/geofences/model';

/** Zone geometry on the sphere for the screens (no map library here: the list, the live map and tests share it). */

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (degrees: number) => (degrees * Math.PI) / 180;
const deg = (radians: number) => (radians * 180) / Math.PI;

/** Great-circle distance in metres. */
export function distanceM(a: GeofencePoint, b: GeofencePoint): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A circle as a closed ring of `steps` sides on the sphere, [lon, lat] pairs (GeoJSON order). */
export function circleRing(center: GeofencePoint, radiusM: number, steps = 64): Array<[number, number]> {
  const lat = rad(center.latitude);
  const lon = rad(center.longitude);
  const d = radiusM / EARTH_RADIUS_M;
  const ring: Array<[number, number]> = [];
  for (let i = 0; i < steps; i++) {
    const bearing = (2 * Math.PI * i) / steps;
    const lat2 = Math.asin(Math.sin(lat) * Math.cos(d) + Math.cos(lat) * Math.sin(d) * Math.cos(bearing));
    const lon2 = lon + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat), Math.cos(d) - Math.sin(lat) * Math.sin(lat2));
    ring.push([round7(deg(lon2)), round7(deg(lat2))]);
  }
  ring.push(ring[0]!);
  return ring;
}

export const round7 = (value: number) => Math.round(value * 1e7) / 1e7;

/**
 * The circle a drawn ring stands for: its centre (the mean of its corners, which for a regular ring on the sphere
 * is its centre to well under a metre at zone sizes) and the mean distance of the corners from it, in whole metres.
 */
export function circleOfRing(ring: ReadonlyArray<readonly number[]>): { center: GeofencePoint; radiusM: number } | null {
  const corners = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1] ? ring.slice(0, -1) : ring;
  if (corners.length < 3) return null;
  let lat = 0;
  let lon = 0;
  for (const corner of corners) {
    lon += corner[0]!;
    lat += corner[1]!;
  }
  const center = { latitude: round7(lat / corners.length), longitude: round7(lon / corners.length) };
  let sum = 0;
  for (const corner of corners) sum += distanceM(center, { latitude: corner[1]!, longitude: corner[0]! });
  return { center, radiusM: Math.round(sum / corners.length) };
}

/** A polygon's points from a drawn ring (the closing corner dropped, as the API wants them). */
export function pointsOfRing(ring: ReadonlyArray<readonly number[]>): GeofencePoint[] {
  const closed = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1];
  return (closed ? ring.slice(0, -1) : ring).map((corner) => ({ latitude: round7(corner[1]!), longitude: round7(corner[0]!) }));
}

/** The closed ring of a polygon's points. */
export function ringOfPoints(points: readonly GeofencePoint[]): Array<[number, number]> {
  const ring = points.map((point): [number, number] => [point.longitude, point.latitude]);
  if (ring.length > 0) ring.push(ring[0]!);
  return ring;
}

/** A zone's outline, or null when it has no coordinates yet. */
export function zoneRing(zone: Pick<GeofenceView, 'shape' | 'center' | 'radiusM' | 'points'>): Array<[number, number]> | null {
  if (zone.shape === 'circle') return zone.center && zone.radiusM ? circleRing(zone.center, zone.radiusM) : null;
  return zone.points && zone.points.length >= 3 ? ringOfPoints(zone.points) : null;
}

/** Where a zone's name goes: a circle's centre, a polygon's corners' mean. */
export function zoneLabelPoint(zone: Pick<GeofenceView, 'shape' | 'center' | 'points'>): [number, number] | null {
  if (zone.shape === 'circle') return zone.center ? [zone.center.longitude, zone.center.latitude] : null;
  if (!zone.points || zone.points.length === 0) return null;
  const lon = zone.points.reduce((sum, point) => sum + point.longitude, 0) / zone.points.length;
  const lat = zone.points.reduce((sum, point) => sum + point.latitude, 0) / zone.points.length;
  return [lon, lat];
}

/** Every zone as a polygon feature (id, name, active in its properties). */
export function zonesCollection(zones: readonly GeofenceView[]): GeoJSON.FeatureCollection<GeoJSON.Polygon> {
  const features: Array<GeoJSON.Feature<GeoJSON.Polygon>> = [];
  for (const zone of zones) {
    const ring = zoneRing(zone);
    if (!ring) continue;
    features.push({ type: 'Feature', id: zone.id, properties: { id: zone.id, name: zone.name, active: zone.active }, geometry: { type: 'Polygon', coordinates: [ring] } });
  }
  return { type: 'FeatureCollection', features };
}

/** West, south, east, north around every zone; null without zones. */
export function boundsOf(zones: readonly GeofenceView[]): [number, number, number, number] | null {
  let west = 180;
  let south = 90;
  let east = -180;
  let north = -90;
  let any = false;
  for (const zone of zones) {
    for (const [lon, lat] of zoneRing(zone) ?? []) {
      any = true;
      west = Math.min(west, lon);
      east = Math.max(east, lon);
      south = Math.min(south, lat);
      north = Math.max(north, lat);
    }
  }
  return any ? [west, south, east, north] : null;
}
