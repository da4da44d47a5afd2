import type { HistoryDay, HistoryPoint } from '../../../modules/tracking/model';
import type { TripList, TripView } from '../../../modules/trips/model';
import { api, isApiError } from '../../lib/api';

/**
 * A unit's day on the map (spec §5: one day within the last 7 days; private trips never shown). The
 * server already leaves private trips' positions out; the trip log names the day's trips, which are
 * drawn each in its own colour with start and stop markers. Without trips (the trip log not reachable)
 * the day is split where the ignition went off or the tracker fell silent.
 */

/** A path of the day: one trip, or one stretch of driving the trip log does not (yet) hold. */
export interface HistorySegment {
  key: string;
  kind: 'trip' | 'drive';
  tripId: number | null;
  color: [number, number, number];
  path: Array<[number, number]>;
  from: number;
  to: number;
  distanceM: number | null;
  startAddress: string | null;
  stopAddress: string | null;
}

export interface HistoryView {
  unitId: number;
  date: string;
  positions: HistoryPoint[];
  segments: HistorySegment[];
  /** Where the trips came from: the trip log, or the split by ignition. */
  source: 'trips' | 'ignition';
  /** The day's private trips, left off the map (spec §5): the summary says so. */
  privateHidden?: number;
}

export const TRIP_COLORS: Array<[number, number, number]> = [
  [0, 114, 178],
  [213, 94, 0],
  [0, 158, 115],
  [204, 121, 167],
  [86, 180, 233],
  [230, 159, 0],
  [117, 80, 176],
  [153, 102, 51],
];
const DRIVE_COLOR: [number, number, number] = [96, 105, 117];
/** Splits the day where the tracker was silent this long (ignition split). */
const GAP_MS = 5 * 60_000;

const lonLat = (point: HistoryPoint): [number, number] => [point[2], point[1]];

/** Stretches of driving: consecutive points with the ignition not off, split at gaps. */
export function splitByIgnition(points: HistoryPoint[]): HistoryPoint[][] {
  const runs: HistoryPoint[][] = [];
  let run: HistoryPoint[] = [];
  let previous: HistoryPoint | null = null;
  for (const point of points) {
    const off = point[5] === 0;
    const gap = previous !== null && point[0] - previous[0] > GAP_MS;
    if (off || gap) {
      // The point where the ignition went off ends the trip it belongs to.
      if (off && run.length > 0) run.push(point);
      if (run.length >= 2) runs.push(run);
      run = [];
      if (!off) run.push(point);
    } else run.push(point);
    previous = point;
  }
  if (run.length >= 2) runs.push(run);
  // A run without movement is a parked unit's jitter, not a trip.
  return runs.filter((r) => r.some((point) => point[3] > 3));
}

export function buildSegments(points: HistoryPoint[], trips: TripView[] | null): { segments: HistorySegment[]; source: HistoryView['source'] } {
  if (trips === null) {
    return {
      source: 'ignition',
      segments: splitByIgnition(points).map((run, index) => ({
        key: `drive-${index}`,
        kind: 'trip',
        tripId: null,
        color: TRIP_COLORS[index % TRIP_COLORS.length]!,
        path: run.map(lonLat),
        from: run[0]![0],
        to: run[run.length - 1]![0],
        distanceM: null,
        startAddress: null,
        stopAddress: null,
      })),
    };
  }
  const segments: HistorySegment[] = [];
  const shown = trips.filter((trip) => trip.type !== 'private').sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
  const covered: Array<[number, number]> = [];
  shown.forEach((trip, index) => {
    const from = Date.parse(trip.startTime);
    const to = Date.parse(trip.stopTime);
    covered.push([from, to]);
    const inside = points.filter((point) => point[0] >= from && point[0] <= to).map(lonLat);
    const path: Array<[number, number]> = [[trip.startLon, trip.startLat], ...inside, [trip.stopLon, trip.stopLat]];
    segments.push({
      key: `trip-${trip.id}`,
      kind: 'trip',
      tripId: trip.id,
      color: TRIP_COLORS[index % TRIP_COLORS.length]!,
      path,
      from,
      to,
      distanceM: trip.distanceM,
      startAddress: trip.startAddress,
      stopAddress: trip.stopAddress,
    });
  });
  // Private trips are hidden too: their time spans are covered, and the server sent no points for them.
  for (const trip of trips) if (trip.type === 'private') covered.push([Date.parse(trip.startTime), Date.parse(trip.stopTime)]);
  // Driving the trip log does not hold yet (a trip still in progress): drawn grey.
  const outside = points.filter((point) => !covered.some(([from, to]) => point[0] >= from && point[0] <= to));
  splitByIgnition(outside).forEach((run, index) => {
    segments.push({
      key: `drive-${index}`,
      kind: 'drive',
      tripId: null,
      color: DRIVE_COLOR,
      path: run.map(lonLat),
      from: run[0]![0],
      to: run[run.length - 1]![0],
      distanceM: null,
      startAddress: null,
      stopAddress: null,
    });
  });
  segments.sort((a, b) => a.from - b.from);
  return { segments, source: 'trips' };
}

export async function loadHistory(unitId: number, date: string, signal?: AbortSignal): Promise<HistoryView> {
  const day = await api.get<HistoryDay>('/api/tracking/history', { query: { unitId, date }, signal });
  let trips: TripView[] | null = null;
  try {
    trips = (await api.get<TripList>('/api/trips', { query: { unitId, from: date, to: date }, signal })).trips;
  } catch (error) {
    // Without the trip log (not deployed, or no access) the day is split by ignition instead.
    if (!isApiError(error)) throw error;
  }
  const { segments, source } = buildSegments(day.positions, trips);
  const privateHidden = trips?.filter((trip) => trip.type === 'private').length ?? 0;
  return { unitId, date, positions: day.positions, segments, source, privateHidden };
}

/** The replayed position at a time: interpolated between the two fixes around it. */
export function positionAt(points: HistoryPoint[], t: number): { position: [number, number]; course: number | null; speed: number; time: number } | null {
  if (points.length === 0) return null;
  let lo = 0;
  let hi = points.length - 1;
  if (t <= points[0]![0]) return at(points[0]!);
  if (t >= points[hi]![0]) return at(points[hi]!);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid]![0] <= t) lo = mid;
    else hi = mid;
  }
  const a = points[lo]!;
  const b = points[hi]!;
  const f = b[0] === a[0] ? 0 : (t - a[0]) / (b[0] - a[0]);
  return {
    position: [a[2] + (b[2] - a[2]) * f, a[1] + (b[1] - a[1]) * f],
    course: b[4] ?? a[4],
    speed: a[3] + (b[3] - a[3]) * f,
    time: t,
  };
}

function at(point: HistoryPoint) {
  return { position: lonLat(point), course: point[4], speed: point[3], time: point[0] };
}
