import type { TrackPoint } from './passages';

const M_PER_DEG_LAT = 111_320;

/**
 * A scripted drive for tests: along straight legs between waypoints ([lat, lon]) at a constant speed,
 * one fix every `intervalS` seconds, starting at `start`. The first fix is the first waypoint.
 */
export function driveAlong(waypoints: Array<[number, number]>, start: string | Date, options: { speedKmh?: number; intervalS?: number } = {}): TrackPoint[] {
  const speed = (options.speedKmh ?? 50) / 3.6;
  const interval = options.intervalS ?? 10;
  const out: TrackPoint[] = [];
  let t = new Date(start).getTime();
  const [first] = waypoints;
  if (!first) return out;
  out.push({ t, lat: first[0], lon: first[1] });
  let carried = 0;
  for (let leg = 1; leg < waypoints.length; leg++) {
    const [lat1, lon1] = waypoints[leg - 1]!;
    const [lat2, lon2] = waypoints[leg]!;
    const north = (lat2 - lat1) * M_PER_DEG_LAT;
    const east = (lon2 - lon1) * M_PER_DEG_LAT * Math.cos((((lat1 + lat2) / 2) * Math.PI) / 180);
    const length = Math.hypot(north, east);
    const step = speed * interval;
    let at = step - carried;
    while (at <= length) {
      const f = at / length;
      t += interval * 1000;
      out.push({ t, lat: lat1 + f * (lat2 - lat1), lon: lon1 + f * (lon2 - lon1) });
      at += step;
    }
    carried = length - (at - step);
  }
  return out;
}

/** A fix of a scripted drive with what a car tracker reports besides the position. */
export interface DrivePoint extends TrackPoint {
  speedKmh: number;
  ignition: boolean;
}

/** Danviksbron westbound into Södermalm, past the Danvikstull control points. */
export const DANVIKSTULL_WEST: Array<[number, number]> = [
  [59.31397, 18.1125],
  [59.31397, 18.0955],
];
/** Across Södermalm from Danviksbron to the north end of Skansbron. */
export const SODERMALM_TO_SKANSBRON: Array<[number, number]> = [
  [59.31397, 18.0955],
  [59.3082, 18.07943],
];
/** Skansbron southbound, out of the inner city. */
export const SKANSBRON_SOUTH: Array<[number, number]> = [
  [59.3082, 18.07943],
  [59.2995, 18.07943],
];

function moving(points: TrackPoint[], speedKmh: number): DrivePoint[] {
  return points.map((point, i) => ({ ...point, speedKmh: i === 0 ? 0 : speedKmh, ignition: true }));
}

function parked(at: TrackPoint, from: number, seconds: number, intervalS = 30): DrivePoint[] {
  const out: DrivePoint[] = [];
  for (let s = intervalS; s <= seconds; s += intervalS) out.push({ t: from + s * 1000, lat: at.lat, lon: at.lon, speedKmh: 0, ignition: false });
  return out;
}

/**
 * One trip across Stockholm's cordon: in over Danvikstull, across Södermalm, out over Skansbron (or the
 * reverse), at 50 km/h with a fix every 10 s, then parked for ten minutes (the trip ends).
 */
export function cordonTrip(start: string, direction: 'in-out' | 'back' = 'in-out'): DrivePoint[] {
  const route = [...DANVIKSTULL_WEST, ...SODERMALM_TO_SKANSBRON.slice(1), ...SKANSBRON_SOUTH.slice(1)];
  const drive = moving(driveAlong(direction === 'in-out' ? route : [...route].reverse(), start, { speedKmh: 50, intervalS: 10 }), 50);
  const last = drive.at(-1)!;
  return [...drive, ...parked(last, last.t, 600)];
}

/** A trip as the fleet reports read it, written straight into the trip log's table (tests of the reports only). */
export interface FleetTripFixture {
  unitId: number;
  accountId: number;
  start: string;
  minutes: number;
  km: number;
  type?: 'business' | 'private' | 'other';
  driverUserId?: number | null;
  harshAcceleration?: number;
  harshBraking?: number;
  harshCornering?: number;
  maxSpeedKmh?: number;
}

type Rows = <T extends Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export async function insertFleetTrip(query: Rows, trip: FleetTripFixture): Promise<number> {
  const stop = new Date(Date.parse(trip.start) + trip.minutes * 60_000).toISOString();
  const [row] = await query<{ id: number }>(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m, odometer_source,
       distance_m, max_speed_kmh, avg_speed_kmh, driver_user_id, harsh_braking, harsh_acceleration, harsh_cornering, type, type_source, detection, point_count)
     VALUES ($1, $2, $3::timestamptz, $4::timestamptz, ST_SetSRID(ST_MakePoint(18.06, 59.33), 4326), ST_SetSRID(ST_MakePoint(18.1, 59.3), 4326),
       0, $5, 'gps', $5, $6, $7, $8, $9, $10, $11, $12, 'user', 'ignition', 10) RETURNING id`,
    [
      trip.unitId,
      trip.accountId,
      trip.start,
      stop,
      trip.km * 1000,
      trip.maxSpeedKmh ?? 90,
      trip.km / (trip.minutes / 60),
      trip.driverUserId ?? null,
      trip.harshBraking ?? 0,
      trip.harshAcceleration ?? 0,
      trip.harshCornering ?? 0,
      trip.type ?? 'business',
    ],
  );
  return Number(row!.id);
}

/** Stored positions (valid fixes) with speed, ignition and optionally a reported fuel level. */
export async function insertPositions(
  query: Rows,
  unitId: number,
  points: Array<{ time: string; speedKmh: number; ignition: boolean; fuel?: number }>,
): Promise<void> {
  for (const point of points) {
    await query(
      `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, valid, flags, ignition, io)
       VALUES ($1, $2::timestamptz, $2::timestamptz, ST_SetSRID(ST_MakePoint(18.06, 59.33), 4326), $3, true, 0, $4, $5::jsonb)`,
      [unitId, point.time, point.speedKmh, point.ignition, JSON.stringify(point.fuel === undefined ? {} : { fuel: point.fuel })],
    );
  }
}
