/**
 * Passages of a vehicle's track through congestion-tax payment stations.
 *
 * Choice: a TypeScript geodesy routine over the positions the tracking service hands out, rather than a
 * PostGIS query. The station points ship as a data file with this module (no table, no migration), the
 * positions are read through the tracking service (the module boundary), the same code runs on PGlite and
 * PostgreSQL, and the geometry is small: the distance from a control point to a track segment of at most a
 * few kilometres, in a local equirectangular projection (error well below a centimetre at that scale).
 * Segments are first checked against each city's bounding box, so a year of driving elsewhere costs almost
 * nothing, and the detector is incremental (fed a month at a time, it keeps its state across months).
 *
 * A passage: the track (straight segments between consecutive valid fixes) comes within PASSAGE_RADIUS_M
 * of a station's control point, and leaves that circle on the far side (the angle between the way in and the
 * way out is under 90°). A run of segments near one station is one passage, timed at the closest approach,
 * so a car queueing past a gantry or reporting every second still passes once; a car parked near a station
 * that turns back the way it came does not pass. Segments across a long gap (tracker silent) are not used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { City, PassageInput, StationKind, StationRef, Zone } from './congestion';

/** How close (m) the track must come to a control point. Lanes, GPS error and chords of curves fit in it. */
export const PASSAGE_RADIUS_M = 40;
/** Segments longer than this in time (s) or distance (m) are a guess of the route, not a track. */
export const MAX_SEGMENT_S = 300;
export const MAX_SEGMENT_M = 5000;

export interface ControlPoint {
  id: string;
  lat: number;
  lon: number;
}

export interface Station extends StationRef {
  controlPoints: ControlPoint[];
}

/** Göteborg stations 17-21 (the Backa exception) and the Backa control points K1-K5 (Transportstyrelsen). */
const BACKA_STATIONS = new Set(['Södra Tagenevägen', 'Skälltorpsvägen', 'Backadalen', 'Tingstadsmotet avfart E6', 'Tingstadvägen']);
const BACKA_CONTROLS = new Set(['Bäcktuvevägen', 'Tuvevägen', 'Minelundsvägen', 'Deltavägen', 'Backavägen']);
/** Marieholmstunneln is charged since 16 December 2020 (prop. 2019/20:30). */
const MARIEHOLMSTUNNELN_FROM = '2020-12-16';

function stationKind(city: City, name: string): StationKind {
  if (city !== 'goteborg') return 'charge';
  if (BACKA_CONTROLS.has(name)) return 'control';
  if (BACKA_STATIONS.has(name)) return 'backa';
  return 'charge';
}

/** Parses the control-point file (city, zone, station, control_point, lat_wgs84, lon_wgs84) into stations. */
export function parseStations(csv: string): Station[] {
  const lines = csv.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = lines.shift()?.split(',') ?? [];
  const expected = ['city', 'zone', 'station', 'control_point', 'lat_wgs84', 'lon_wgs84'];
  if (expected.some((name, i) => header[i]?.trim() !== name)) throw new Error(`station file: unexpected header ${header.join(',')}`);
  const byName = new Map<string, Station>();
  for (const line of lines) {
    const [cityText, zoneText, name, id, latText, lonText] = line.split(',').map((part) => part.trim());
    const city: City = cityText === 'Stockholm' ? 'stockholm' : 'goteborg';
    const zone: Zone = city === 'goteborg' ? 'goteborg' : zoneText === 'Essingeleden' ? 'essingeleden' : 'inner';
    const lat = Number(latText);
    const lon = Number(lonText);
    if (!name || !id || !Number.isFinite(lat) || !Number.isFinite(lon)) throw new Error(`station file: bad line ${line}`);
    const key = `${city}/${name}`;
    let station = byName.get(key);
    if (!station) {
      station = { city, zone, name, kind: stationKind(city, name), controlPoints: [] };
      if (name.startsWith('Marieholmstunneln')) station.chargedFrom = MARIEHOLMSTUNNELN_FROM;
      byName.set(key, station);
    }
    station.controlPoints.push({ id, lat, lon });
  }
  return [...byName.values()];
}

let shipped: Station[] | null = null;
/** The stations shipped with the module (stations/betalstationer_sensors.csv; see stations/SOURCE.md). */
export function shippedStations(): Station[] {
  shipped ??= parseStations(readFileSync(join(import.meta.dir, 'stations/betalstationer_sensors.csv'), 'utf8'));
  return shipped;
}

// ---------------------------------------------------------------------------------------------
// Geometry.

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Metres east and north of an origin (equirectangular around the origin's latitude). */
function project(lat: number, lon: number, originLat: number, originLon: number): [number, number] {
  return [(lon - originLon) * RAD * EARTH_RADIUS_M * Math.cos(originLat * RAD), (lat - originLat) * RAD * EARTH_RADIUS_M];
}

/** Closest approach of segment a→b to point p: distance (m) and where along the segment (0..1). */
export function segmentDistance(
  a: { lat: number; lon: number },
  b: { lat: number; lon: number },
  p: { lat: number; lon: number },
): { distanceM: number; along: number } {
  const [ax, ay] = project(a.lat, a.lon, p.lat, p.lon);
  const [bx, by] = project(b.lat, b.lon, p.lat, p.lon);
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSq = dx * dx + dy * dy;
  const along = lengthSq === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / lengthSq));
  const x = ax + along * dx;
  const y = ay + along * dy;
  return { distanceM: Math.hypot(x, y), along };
}

/** Distance (m) between two nearby points. */
export function pointDistance(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const [x, y] = project(a.lat, a.lon, b.lat, b.lon);
  return Math.hypot(x, y);
}

interface Box {
  minLat: number;
  maxLat: number;
  minLon: number;
  maxLon: number;
}

/** A city's stations and a box around them widened by the radius. */
interface Area {
  box: Box;
  stations: Station[];
}

function areasOf(stations: Station[]): Area[] {
  const out: Area[] = [];
  for (const city of ['stockholm', 'goteborg'] as const) {
    const list = stations.filter((s) => s.city === city);
    if (list.length === 0) continue;
    const points = list.flatMap((s) => s.controlPoints);
    const margin = (PASSAGE_RADIUS_M * 2) / (RAD * EARTH_RADIUS_M);
    const midLat = points.reduce((sum, p) => sum + p.lat, 0) / points.length;
    const lonMargin = margin / Math.cos(midLat * RAD);
    out.push({
      box: {
        minLat: Math.min(...points.map((p) => p.lat)) - margin,
        maxLat: Math.max(...points.map((p) => p.lat)) + margin,
        minLon: Math.min(...points.map((p) => p.lon)) - lonMargin,
        maxLon: Math.max(...points.map((p) => p.lon)) + lonMargin,
      },
      stations: list,
    });
  }
  return out;
}

const touches = (box: Box, a: TrackPoint, b: TrackPoint) =>
  Math.max(a.lat, b.lat) >= box.minLat && Math.min(a.lat, b.lat) <= box.maxLat && Math.max(a.lon, b.lon) >= box.minLon && Math.min(a.lon, b.lon) <= box.maxLon;

// ---------------------------------------------------------------------------------------------

/** A valid fix: epoch ms and WGS 84. */
export interface TrackPoint {
  t: number;
  lat: number;
  lon: number;
}

export interface DetectedPassage extends PassageInput {
  station: Station;
  /** The control point passed closest, and how close (m). */
  controlPoint: string;
  distanceM: number;
}

/** A station being passed: from the first segment near it to the last. */
interface Run {
  station: Station;
  entry: TrackPoint;
  exit: TrackPoint;
  best: { distanceM: number; t: number; point: ControlPoint };
}

/**
 * Finds passages in a track fed in time order, in pieces of any size (`push`), then `finish`.
 * Points out of order or repeated are skipped.
 */
export class PassageDetector {
  private readonly areas: Area[];
  private last: TrackPoint | null = null;
  private readonly open = new Map<Station, Run>();
  private readonly found: DetectedPassage[] = [];

  constructor(stations: Station[] = shippedStations()) {
    this.areas = areasOf(stations);
  }

  push(points: Iterable<TrackPoint>): void {
    for (const point of points) {
      const previous = this.last;
      if (previous && point.t <= previous.t) continue;
      this.last = point;
      if (previous) this.segment(previous, point);
    }
  }

  /** Closes what is still open and answers every passage found, in time order. */
  finish(): DetectedPassage[] {
    for (const run of [...this.open.values()]) this.close(run, false);
    this.open.clear();
    return this.found.sort((a, b) => a.time.getTime() - b.time.getTime());
  }

  private segment(a: TrackPoint, b: TrackPoint): void {
    const gap = b.t - a.t > MAX_SEGMENT_S * 1000 || pointDistance(a, b) > MAX_SEGMENT_M;
    const near = new Map<Station, Run['best']>();
    if (!gap) {
      for (const area of this.areas) {
        if (!touches(area.box, a, b)) continue;
        for (const station of area.stations) {
          for (const point of station.controlPoints) {
            const { distanceM, along } = segmentDistance(a, b, point);
            if (distanceM > PASSAGE_RADIUS_M) continue;
            const best = near.get(station);
            if (!best || distanceM < best.distanceM) near.set(station, { distanceM, t: a.t + along * (b.t - a.t), point });
          }
        }
      }
    }
    // Runs of stations no longer near end here: b is outside their circles (or the track broke off).
    for (const [station, run] of this.open) {
      if (near.has(station)) continue;
      this.open.delete(station);
      this.close(run, !gap);
    }
    for (const [station, best] of near) {
      const run = this.open.get(station);
      if (!run) this.open.set(station, { station, entry: a, exit: b, best });
      else {
        run.exit = b;
        if (best.distanceM < run.best.distanceM) run.best = best;
      }
    }
  }

  /** A run is a passage when the track left the station's circle on the far side from where it came in. */
  private close(run: Run, left: boolean): void {
    const cp = run.best.point;
    if (!left && pointDistance(run.exit, cp) <= PASSAGE_RADIUS_M) return;
    const [inX, inY] = project(run.entry.lat, run.entry.lon, cp.lat, cp.lon);
    const [outX, outY] = project(run.exit.lat, run.exit.lon, cp.lat, cp.lon);
    // Way in: entry → control point = (-inX, -inY); way out: control point → exit = (outX, outY).
    if (-inX * outX + -inY * outY <= 0) return;
    this.found.push({
      time: new Date(Math.round(run.best.t)),
      station: run.station,
      controlPoint: cp.id,
      distanceM: Math.round(run.best.distanceM * 10) / 10,
    });
  }
}

/** All passages of one track (for tests and small inputs). */
export function findPassages(points: TrackPoint[], stations?: Station[]): DetectedPassage[] {
  const detector = new PassageDetector(stations);
  detector.push(points);
  return detector.finish();
}
