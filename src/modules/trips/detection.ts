import type { Clock } from '../../lib/clock';
import type { DatabaseHandle, Querier } from '../../lib/db/client';
import {
  DEFAULT_DETECTION_PARAMS,
  type DetectedTrip,
  type DetectionParams,
  type DetectorPosition,
  type HarshType,
  type MachineState,
  resolveMode,
  TripMachine,
} from './detector';
import { FLAGS_NOT_A_FIX } from '../tracking/model';
import { DEFAULT_TRIP_TYPE, type TripType } from './model';
import { ATTESTED } from './attest';

/** A trip as place rules see it (the places module categorizes it; see `createDetection`'s `classifier`). */
export interface ClassifiableTrip {
  unitId: number;
  accountId: number;
  startMs: number;
  stopMs: number;
  startLat: number;
  startLon: number;
  stopLat: number;
  stopLon: number;
}

/** Categorizes trips by place rules inside the detection's transaction: per trip the type a rule gives, or null. */
export type TripClassifier = (query: Querier, trips: ClassifiableTrip[]) => Promise<Array<TripType | null>>;

/**
 * Detection against the database. A run holds the detector-state rows of its units (FOR UPDATE, in unit
 * order), so batches of one unit, in this process or another, are detected one after the other.
 *
 * - In order (the window starts after everything detected so far): the machine continues from its stored
 *   snapshot with just the new positions. Many units go through one transaction and a handful of statements.
 * - Late or out of order (one unit per transaction): the span is re-detected from the last parked point before
 *   it (the stop of the last trip that ended well before the window, or the start of the trip in progress)
 *   until the machine is parked again past the window and past every stored trip it touched; the trips starting
 *   in that span are deleted and replaced, nothing else. GPS odometers after the span are shifted so they stay
 *   continuous.
 * - A trip in progress that the clock alone closes (parked for long enough, or a tracker silent for longer
 *   than the maximum gap) is stored provisionally and replaced by the next run.
 *
 * What people entered on a trip (type, purpose, note, passengers, driver) carries over to the new trips that
 * overlap it; the id goes to the new trip that overlaps it most; a trip found again unchanged keeps its
 * detection time and address.
 */

/** Positions are read in slices of this many rows (per unit). */
const CHUNK = 5_000;
/** With no earlier trip to start from, re-detection looks back this far before the window. */
const LOOKBACK_MS = 2 * 86_400_000;

export interface Window {
  /** Epoch ms of the oldest and newest position stored. */
  minT: number;
  maxT: number;
}

export interface UnitWork {
  unitId: number;
  /** Null: no new positions, only judge the trip in progress against the clock. */
  window: Window | null;
}

interface StateRow extends Record<string, unknown> {
  unit_id: number;
  account_id: number;
  last_ms: number | null;
  machine: MachineState | string | null;
  open_since_ms: number | null;
  reports_ignition: boolean;
  detection: DetectionParams['detection'] | null;
  min_distance_m: number | null;
  min_duration_s: number | null;
  time_till_parked_s: number | null;
  max_gap_s: number | null;
  moving_speed_kmh: number | null;
  default_trip_type: TripType | null;
}

interface OldTrip extends Record<string, unknown> {
  unit_id: number;
  id: number | string;
  start_ms: number;
  stop_ms: number;
  type: TripType;
  type_source: 'default' | 'rule' | 'user';
  purpose: string | null;
  note: string | null;
  passengers: string | null;
  driver_user_id: number | null;
  driver_source: DriverSource | null;
  start_address: string | null;
  stop_address: string | null;
  start_lat: number;
  start_lon: number;
  stop_lat: number;
  stop_lon: number;
  distance_m: number;
  detected_ms: number;
  /** In an attested period of its driver: its type stays as it was. */
  attested: boolean;
}

interface Bound {
  t: number;
  inclusive: boolean;
}

/** Trips to write for one unit, and the rows they replace. */
interface Write {
  unitId: number;
  accountId: number;
  defaultType: TripType;
  trips: DetectedTrip[];
  old: OldTrip[];
}

interface StateUpdate {
  unitId: number;
  last: number | null;
  machine: MachineState;
  openSince: number | null;
  recheckAt: number | null;
  reportsIgnition: boolean;
}

type DriverSource = 'checkin' | 'booking';

/** The driver an old trip it overlaps had, and where that driver came from: both carry over to the trip found again. */
function drivenBy(overlapping: OldTrip[]): { driverUserId: number | null; driverSource: DriverSource | null } {
  const had = overlapping.find((candidate) => candidate.driver_user_id !== null && candidate.driver_user_id !== undefined);
  return { driverUserId: had ? had.driver_user_id : null, driverSource: had ? (had.driver_source ?? 'checkin') : null };
}

const iso = (t: number) => new Date(t).toISOString();
const isoOrNull = (t: number | null) => (t === null ? null : iso(t));
const EPOCH_MS = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export function paramsOf(row: Partial<StateRow>): DetectionParams {
  return {
    detection: row.detection ?? DEFAULT_DETECTION_PARAMS.detection,
    minDistanceM: row.min_distance_m ?? DEFAULT_DETECTION_PARAMS.minDistanceM,
    minDurationS: row.min_duration_s ?? DEFAULT_DETECTION_PARAMS.minDurationS,
    timeTillParkedS: row.time_till_parked_s ?? DEFAULT_DETECTION_PARAMS.timeTillParkedS,
    maxGapS: row.max_gap_s ?? DEFAULT_DETECTION_PARAMS.maxGapS,
    movingSpeedKmh: row.moving_speed_kmh ?? DEFAULT_DETECTION_PARAMS.movingSpeedKmh,
  };
}

function parseMachine(value: StateRow['machine']): MachineState | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? (JSON.parse(value) as MachineState) : value;
}

interface PositionRow extends Record<string, unknown> {
  unit_id?: number;
  t: number;
  lat: number;
  lon: number;
  speed_kmh: number;
  valid: boolean;
  ignition: boolean | null;
  odometer_m: number | null;
  driver_key: string | null;
  harsh: string | null;
}

const HARSH = new Set<string>(['acceleration', 'braking', 'cornering']);
const POSITION_COLUMNS = `${EPOCH_MS('time')} AS t, ST_Y(geom) AS lat, ST_X(geom) AS lon, speed_kmh, valid, ignition, odometer_m,
  normalized->>'driverId' AS driver_key, normalized->'greenDriving'->>'type' AS harsh`;

function toPosition(row: PositionRow): DetectorPosition {
  return {
    t: Number(row.t),
    lat: Number(row.lat),
    lon: Number(row.lon),
    speedKmh: Number(row.speed_kmh ?? 0),
    valid: row.valid,
    ignition: row.ignition ?? null,
    odometerM: numberOrNull(row.odometer_m),
    driverKey: row.driver_key || null,
    harsh: row.harsh && HARSH.has(row.harsh) ? (row.harsh as HarshType) : null,
  };
}

/** The unit's stored positions after `from` up to `to` (inclusive), oldest first, in slices; future-dated fixes left out. */
export async function* loadPositions(query: Querier, unitId: number, from: Bound | null, to: number): AsyncGenerator<DetectorPosition[]> {
  let cursor = from;
  for (;;) {
    const params: unknown[] = [unitId, iso(to), CHUNK];
    let lower = '';
    if (cursor) {
      params.push(iso(cursor.t));
      lower = `AND time ${cursor.inclusive ? '>=' : '>'} $4::timestamptz`;
    }
    const rows = await query<PositionRow>(
      `SELECT ${POSITION_COLUMNS} FROM position_history
       WHERE unit_id = $1 AND time <= $2::timestamptz ${lower} AND (flags & ${FLAGS_NOT_A_FIX}) = 0
       ORDER BY time LIMIT $3`,
      params,
    );
    if (rows.length === 0) return;
    yield rows.map(toPosition);
    if (rows.length < CHUNK) return;
    cursor = { t: Number(rows.at(-1)!.t), inclusive: false };
  }
}

/** New positions of many units at once: each unit's positions after `after` up to `until`, oldest first. */
async function loadNewPositions(
  query: Querier,
  items: Array<{ unitId: number; after: number | null; until: number }>,
): Promise<Map<number, DetectorPosition[]>> {
  const byUnit = new Map<number, DetectorPosition[]>(items.map((item) => [item.unitId, []]));
  if (items.length === 0) return byUnit;
  const rows = await query<PositionRow>(
    `SELECT x.u AS unit_id, p.*
     FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS x(u, lo, hi)
     CROSS JOIN LATERAL (
       SELECT ${POSITION_COLUMNS} FROM position_history
       WHERE unit_id = x.u AND time > COALESCE(x.lo, '-infinity'::timestamptz) AND time <= x.hi AND (flags & ${FLAGS_NOT_A_FIX}) = 0
       ORDER BY time LIMIT $4
     ) AS p
     ORDER BY x.u, p.t`,
    [items.map((item) => item.unitId), items.map((item) => isoOrNull(item.after)), items.map((item) => iso(item.until)), CHUNK],
  );
  for (const row of rows) byUnit.get(Number(row.unit_id))!.push(toPosition(row));
  // A unit with a backlog larger than one slice reads the rest on its own.
  for (const item of items) {
    const list = byUnit.get(item.unitId)!;
    if (list.length < CHUNK) continue;
    for await (const slice of loadPositions(query, item.unitId, { t: list.at(-1)!.t, inclusive: false }, item.until)) list.push(...slice);
  }
  return byUnit;
}

export interface BatchOutcome {
  /** Trips written that still lack an address. */
  needAddresses: number[];
  /** Units whose data arrived late or out of order: detect them one by one with `detect`. */
  deferred: UnitWork[];
}

export interface DetectionOutcome {
  needAddresses: number[];
  /** Whether the run re-detected an earlier span (late or out-of-order data). */
  redetected: boolean;
}

/**
 * `classifier` (the places module, connected after construction) categorizes trips by place rules as they are
 * written: a person's type wins over a rule, a rule over the unit's default, and an attested trip keeps its type.
 */
export function createDetection(database: DatabaseHandle, clock: Clock, classifier: () => TripClassifier | null = () => null) {
  /** Creates missing state rows and locks the units' rows, in unit order (no deadlock between two runs). */
  async function lockStates(query: Querier, unitIds: number[]): Promise<Map<number, StateRow>> {
    await query(
      `INSERT INTO trip_detector_state (unit_id) SELECT id FROM unit_directory WHERE id = ANY($1::int[]) ORDER BY id ON CONFLICT (unit_id) DO NOTHING`,
      [unitIds],
    );
    const rows = await query<StateRow>(
      `SELECT s.unit_id, u.account_id, ${EPOCH_MS('s.last_position_time')} AS last_ms, s.machine, ${EPOCH_MS('s.open_since')} AS open_since_ms,
              s.reports_ignition, t.detection, t.min_distance_m, t.min_duration_s, t.time_till_parked_s, t.max_gap_s,
              t.moving_speed_kmh, t.default_trip_type
       FROM trip_detector_state s
       JOIN unit_directory u ON u.id = s.unit_id
       LEFT JOIN trip_unit_settings t ON t.unit_id = s.unit_id
       WHERE s.unit_id = ANY($1::int[])
       ORDER BY s.unit_id
       FOR UPDATE OF s`,
      [unitIds],
    );
    return new Map(rows.map((row) => [Number(row.unit_id), row]));
  }

  const OLD_TRIP_COLUMNS = `t.unit_id, t.id, ${EPOCH_MS('t.start_time')} AS start_ms, ${EPOCH_MS('t.stop_time')} AS stop_ms, t.type, t.type_source,
    t.purpose, t.note, t.passengers, t.driver_user_id, t.driver_source, t.start_address, t.stop_address, ST_Y(t.start_geom) AS start_lat,
    ST_X(t.start_geom) AS start_lon, ST_Y(t.stop_geom) AS stop_lat, ST_X(t.stop_geom) AS stop_lon, t.distance_m,
    ${EPOCH_MS('t.detected_at')} AS detected_ms, ${ATTESTED} AS attested`;

  /** Removes one unit's trips starting in [from, to] and returns what they held. */
  async function deleteRange(query: Querier, unitId: number, from: Bound, to: number | null): Promise<OldTrip[]> {
    const params: unknown[] = [unitId, iso(from.t)];
    let upper = '';
    if (to !== null) {
      params.push(iso(to));
      upper = 'AND t.start_time <= $3::timestamptz';
    }
    return query<OldTrip>(
      `DELETE FROM trips t WHERE t.unit_id = $1 AND t.start_time ${from.inclusive ? '>=' : '>'} $2::timestamptz ${upper}
       RETURNING ${OLD_TRIP_COLUMNS}`,
      params,
    );
  }

  /** Removes each unit's trips from its trip in progress on (the provisional ones). */
  async function deleteProvisional(query: Querier, items: Array<{ unitId: number; since: number }>): Promise<Map<number, OldTrip[]>> {
    const byUnit = new Map<number, OldTrip[]>();
    if (items.length === 0) return byUnit;
    const rows = await query<OldTrip>(
      `DELETE FROM trips t USING unnest($1::int[], $2::timestamptz[]) AS x(u, since)
       WHERE t.unit_id = x.u AND t.start_time >= x.since
       RETURNING ${OLD_TRIP_COLUMNS}`,
      [items.map((item) => item.unitId), items.map((item) => iso(item.since))],
    );
    for (const row of rows) {
      const list = byUnit.get(Number(row.unit_id)) ?? [];
      list.push(row);
      byUnit.set(Number(row.unit_id), list);
    }
    return byUnit;
  }

  /**
   * Pairs each new trip with the old trip it overlaps most, one to one (its id carries over), and lists every
   * old trip it overlaps, most first (what people entered on any of them carries over).
   */
  function matchOld(trips: DetectedTrip[], old: OldTrip[]): Array<{ same: OldTrip | null; overlapping: OldTrip[] }> {
    const pairs: Array<{ i: number; j: number; overlap: number }> = [];
    for (let i = 0; i < trips.length; i++) {
      const trip = trips[i]!;
      for (let j = 0; j < old.length; j++) {
        const previous = old[j]!;
        const overlap = Math.min(trip.stop.t, Number(previous.stop_ms)) - Math.max(trip.start.t, Number(previous.start_ms));
        if (overlap > 0) pairs.push({ i, j, overlap });
      }
    }
    pairs.sort((a, b) => b.overlap - a.overlap || a.j - b.j);
    const matched = trips.map(() => ({ same: null as OldTrip | null, overlapping: [] as OldTrip[] }));
    const used = new Set<number>();
    for (const { i, j } of pairs) {
      matched[i]!.overlapping.push(old[j]!);
      if (matched[i]!.same || used.has(j)) continue;
      matched[i]!.same = old[j]!;
      used.add(j);
    }
    return matched;
  }

  /** Writes the trips of several units in one statement; returns the ids that still need addresses. */
  async function insertTrips(query: Querier, writes: Write[], now: number): Promise<number[]> {
    const pending = writes.filter((write) => write.trips.length > 0);
    if (pending.length === 0) return [];
    // Each unit's GPS odometer runs on from its previous trip.
    const previous = await query<{ u: number; odometer_stop_m: number }>(
      `SELECT x.u, p.odometer_stop_m
       FROM unnest($1::int[], $2::timestamptz[]) AS x(u, before)
       CROSS JOIN LATERAL (
         SELECT odometer_stop_m FROM trips WHERE unit_id = x.u AND start_time < x.before ORDER BY start_time DESC LIMIT 1
       ) AS p`,
      [pending.map((write) => write.unitId), pending.map((write) => iso(write.trips[0]!.start.t))],
    );
    const base = new Map(previous.map((row) => [Number(row.u), Number(row.odometer_stop_m)]));
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-5;
    // Place rules, for every trip written (in the order below).
    const classify = classifier();
    const ruled = classify
      ? await classify(
          query,
          pending.flatMap((write) =>
            write.trips.map((trip) => ({
              unitId: write.unitId,
              accountId: write.accountId,
              startMs: trip.start.t,
              stopMs: trip.stop.t,
              startLat: trip.start.lat,
              startLon: trip.start.lon,
              stopLat: trip.stop.lat,
              stopLon: trip.stop.lon,
            })),
          ),
        )
      : [];
    let written = 0;
    const rows = pending.flatMap((write) => {
      let odometer = base.get(write.unitId) ?? 0;
      const matched = matchOld(write.trips, write.old);
      return write.trips.map((trip, i) => {
        let start = odometer;
        let stop = odometer + trip.distanceM;
        if (trip.odometerSource === 'device') {
          start = trip.startOdometerM!;
          stop = trip.stopOdometerM!;
        }
        odometer = stop;
        const { same: was, overlapping } = matched[i]!;
        const sameStart = was && near(Number(was.start_lat), trip.start.lat) && near(Number(was.start_lon), trip.start.lon);
        const sameStop = was && near(Number(was.stop_lat), trip.stop.lat) && near(Number(was.stop_lon), trip.stop.lon);
        const unchanged =
          sameStart &&
          sameStop &&
          Number(was.start_ms) === trip.start.t &&
          Number(was.stop_ms) === trip.stop.t &&
          Math.abs(Number(was.distance_m) - trip.distanceM) < 0.01;
        const entered = <K extends 'purpose' | 'note' | 'passengers'>(key: K): OldTrip[K] | null =>
          overlapping.find((candidate) => candidate[key] !== null && candidate[key] !== undefined)?.[key] ?? null;
        const typed = overlapping.find((candidate) => candidate.type_source === 'user');
        const rule = ruled[written++] ?? null;
        // A person's type wins; an attested trip keeps its type; then a place rule; then the unit's default.
        const kept = typed ?? (was?.attested ? was : null);
        return {
          id: was ? Number(was.id) : null,
          unitId: write.unitId,
          accountId: write.accountId,
          start: iso(trip.start.t),
          stop: iso(trip.stop.t),
          startLat: trip.start.lat,
          startLon: trip.start.lon,
          stopLat: trip.stop.lat,
          stopLon: trip.stop.lon,
          startAddress: sameStart ? was.start_address : null,
          stopAddress: sameStop ? was.stop_address : null,
          odometerStart: start,
          odometerStop: stop,
          source: trip.odometerSource,
          distance: trip.distanceM,
          maxSpeed: trip.maxSpeedKmh,
          avgSpeed: trip.avgSpeedKmh,
          driverKey: trip.driverKey,
          ...drivenBy(overlapping),
          braking: trip.harshBraking,
          acceleration: trip.harshAcceleration,
          cornering: trip.harshCornering,
          type: kept ? kept.type : (rule ?? write.defaultType),
          typeSource: kept ? kept.type_source : rule ? 'rule' : 'default',
          purpose: entered('purpose'),
          note: entered('note'),
          passengers: entered('passengers'),
          detection: trip.mode,
          points: trip.points,
          // A trip found again exactly as it was keeps its detection time: only what changed looks new.
          detectedAt: unchanged ? iso(Number(was.detected_ms)) : iso(now),
        };
      });
    });
    const inserted = await query<{ id: number | string; needs_address: boolean }>(
      `INSERT INTO trips (id, unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                          odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, driver_key,
                          driver_user_id, driver_source, harsh_braking, harsh_acceleration, harsh_cornering, type, type_source, purpose,
                          note, passengers, detection, point_count, detected_at)
       SELECT COALESCE(x.id, nextval('trips_id_seq')), x.u, x.a, x.st, x.sp, ST_SetSRID(ST_MakePoint(x.slon, x.slat), 4326),
              ST_SetSRID(ST_MakePoint(x.plon, x.plat), 4326), x.sa, x.pa, x.os, x.oe, x.src, x.dist, x.mx, x.av, x.dk,
              -- The driver the trip had before it was found again; else the driver checked in on the unit when the trip
              -- started (spec §4 check-in); else the driver of the booking it started in (a pool car's booked driver).
              COALESCE(x.du, checkin.user_id, booked.user_id),
              CASE WHEN x.du IS NOT NULL THEN x.dsrc WHEN checkin.user_id IS NOT NULL THEN 'checkin' WHEN booked.user_id IS NOT NULL THEN 'booking' END,
              x.hb, x.ha, x.hc, x.ty, x.ts, x.pu, x.nt, x.ps, x.de, x.pc, x.da
       FROM unnest($1::bigint[], $2::int[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::float8[], $7::float8[], $8::float8[],
                   $9::float8[], $10::text[], $11::text[], $12::float8[], $13::float8[], $14::text[], $15::float8[], $16::real[],
                   $17::real[], $18::text[], $19::int[], $20::int[], $21::int[], $22::int[], $23::text[], $24::text[], $25::text[],
                   $26::text[], $27::text[], $28::text[], $29::int[], $30::timestamptz[], $31::text[])
         AS x(id, u, a, st, sp, slat, slon, plat, plon, sa, pa, os, oe, src, dist, mx, av, dk, du, hb, ha, hc, ty, ts, pu, nt, ps, de, pc, da, dsrc)
       LEFT JOIN LATERAL (SELECT c.user_id FROM trip_driver_checkins c
                          WHERE c.unit_id = x.u AND c.checked_in_at <= x.st AND (c.checked_out_at IS NULL OR c.checked_out_at > x.st)
                          ORDER BY c.checked_in_at DESC LIMIT 1) checkin ON x.du IS NULL
       LEFT JOIN LATERAL (SELECT b.user_id FROM unit_booked_drivers b
                          WHERE b.unit_id = x.u AND tstzrange(b.starts_at, b.ends_at) @> x.st LIMIT 1) booked ON x.du IS NULL
       RETURNING id, (start_address IS NULL OR stop_address IS NULL) AS needs_address`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.unitId),
        rows.map((r) => r.accountId),
        rows.map((r) => r.start),
        rows.map((r) => r.stop),
        rows.map((r) => r.startLat),
        rows.map((r) => r.startLon),
        rows.map((r) => r.stopLat),
        rows.map((r) => r.stopLon),
        rows.map((r) => r.startAddress),
        rows.map((r) => r.stopAddress),
        rows.map((r) => r.odometerStart),
        rows.map((r) => r.odometerStop),
        rows.map((r) => r.source),
        rows.map((r) => r.distance),
        rows.map((r) => r.maxSpeed),
        rows.map((r) => r.avgSpeed),
        rows.map((r) => r.driverKey),
        rows.map((r) => r.driverUserId),
        rows.map((r) => r.braking),
        rows.map((r) => r.acceleration),
        rows.map((r) => r.cornering),
        rows.map((r) => r.type),
        rows.map((r) => r.typeSource),
        rows.map((r) => r.purpose),
        rows.map((r) => r.note),
        rows.map((r) => r.passengers),
        rows.map((r) => r.detection),
        rows.map((r) => r.points),
        rows.map((r) => r.detectedAt),
        rows.map((r) => r.driverSource),
      ],
    );
    return inserted.filter((row) => row.needs_address).map((row) => Number(row.id));
  }

  /** Keeps GPS odometers continuous past a re-detected span: shifts the following GPS trips up to the next device reading. */
  async function shiftOdometersAfter(query: Querier, unitId: number, after: number) {
    const [previous] = await query<{ odometer_stop_m: number }>(
      'SELECT odometer_stop_m FROM trips WHERE unit_id = $1 AND start_time <= $2::timestamptz ORDER BY start_time DESC LIMIT 1',
      [unitId, iso(after)],
    );
    const [next] = await query<{ odometer_start_m: number; odometer_source: string }>(
      'SELECT odometer_start_m, odometer_source FROM trips WHERE unit_id = $1 AND start_time > $2::timestamptz ORDER BY start_time LIMIT 1',
      [unitId, iso(after)],
    );
    if (next?.odometer_source !== 'gps') return;
    const delta = (previous ? Number(previous.odometer_stop_m) : 0) - Number(next.odometer_start_m);
    if (Math.abs(delta) < 1e-6) return;
    await query(
      `UPDATE trips SET odometer_start_m = odometer_start_m + $3, odometer_stop_m = odometer_stop_m + $3
       WHERE unit_id = $1 AND start_time > $2::timestamptz AND odometer_source = 'gps'
         AND start_time < COALESCE((SELECT min(start_time) FROM trips
                                     WHERE unit_id = $1 AND start_time > $2::timestamptz AND odometer_source = 'device'), 'infinity')`,
      [unitId, iso(after), delta],
    );
  }

  async function saveStates(query: Querier, updates: StateUpdate[], now: number) {
    if (updates.length === 0) return;
    await query(
      `UPDATE trip_detector_state s SET last_position_time = x.last, machine = x.machine::jsonb, open_since = x.open_since,
              recheck_at = x.recheck_at, reports_ignition = x.ignition, updated_at = $7::timestamptz
       FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::boolean[])
         AS x(u, last, machine, open_since, recheck_at, ignition)
       WHERE s.unit_id = x.u`,
      [
        updates.map((update) => update.unitId),
        updates.map((update) => isoOrNull(update.last)),
        updates.map((update) => JSON.stringify(update.machine)),
        updates.map((update) => isoOrNull(update.openSince)),
        updates.map((update) => isoOrNull(update.recheckAt)),
        updates.map((update) => update.reportsIgnition),
        iso(now),
      ],
    );
  }

  /**
   * In-order detection for many units in one transaction: each unit's machine continues from its snapshot
   * with the positions stored after it. Units whose new data is older than what was detected (or whose
   * detection mode changed in the middle of a trip) are handed back to be re-detected one by one.
   */
  async function detectBatch(works: UnitWork[], hints: { reportsIgnition?: (unitId: number) => boolean } = {}): Promise<BatchOutcome> {
    const now = clock.now().getTime();
    return database.transaction(async (query) => {
      const states = await lockStates(query, works.map((work) => work.unitId));
      const deferred: UnitWork[] = [];
      const inOrder: Array<{ work: UnitWork; state: StateRow; last: number | null }> = [];
      for (const work of works) {
        const state = states.get(work.unitId);
        if (!state) continue; // the unit is gone
        const last = numberOrNull(state.last_ms);
        if (work.window && last !== null && work.window.minT <= last) deferred.push(work);
        else inOrder.push({ work, state, last });
      }
      const positions = await loadNewPositions(
        query,
        inOrder.filter(({ work }) => work.window).map(({ work, last }) => ({ unitId: work.unitId, after: last, until: work.window!.maxT })),
      );
      const runs: Array<{ unitId: number; state: StateRow; openSince: number | null; machine: TripMachine; update: StateUpdate; written: DetectedTrip[] }> = [];
      for (const { work, state, last } of inOrder) {
        const params = paramsOf(state);
        const fresh = positions.get(work.unitId) ?? [];
        const reportsIgnition =
          state.reports_ignition || hints.reportsIgnition?.(work.unitId) === true || fresh.some((position) => position.ignition !== null);
        const mode = resolveMode(params.detection, reportsIgnition);
        const snapshot = parseMachine(state.machine);
        if (work.window && snapshot?.trip && snapshot.mode !== mode) {
          deferred.push(work); // the trip in progress is re-detected in the new mode
          continue;
        }
        const machine = new TripMachine(params, mode, snapshot);
        for (const position of fresh) machine.push(position);
        const pending = machine.pending(now);
        runs.push({
          unitId: work.unitId,
          state,
          openSince: numberOrNull(state.open_since_ms),
          machine,
          written: pending.trip ? [...machine.closed, pending.trip] : machine.closed,
          update: {
            unitId: work.unitId,
            last: fresh.at(-1)?.t ?? last,
            machine: machine.snapshot(),
            openSince: pending.openSince,
            recheckAt: pending.recheckAt,
            reportsIgnition,
          },
        });
      }
      const provisional = await deleteProvisional(
        query,
        runs.filter((run) => run.openSince !== null).map((run) => ({ unitId: run.unitId, since: run.openSince! })),
      );
      const needAddresses = await insertTrips(
        query,
        runs.map((run) => ({
          unitId: run.unitId,
          accountId: run.state.account_id,
          defaultType: run.state.default_trip_type ?? DEFAULT_TRIP_TYPE,
          trips: run.written,
          old: provisional.get(run.unitId) ?? [],
        })),
        now,
      );
      await saveStates(
        query,
        runs.map((run) => run.update),
        now,
      );
      return { needAddresses, deferred };
    });
  }

  /**
   * Detects one unit after positions in the window were stored (in order or not); without a window, only
   * judges the trip in progress against the clock. Idempotent: the same data again changes nothing.
   */
  async function detect(unitId: number, window: Window | null, hints: { reportsIgnition?: boolean } = {}): Promise<DetectionOutcome> {
    const last = await database.query<{ last_ms: number | null }>(
      `SELECT ${EPOCH_MS('last_position_time')} AS last_ms FROM trip_detector_state WHERE unit_id = $1`,
      [unitId],
    );
    const lastMs = numberOrNull(last[0]?.last_ms);
    if (!window || lastMs === null || window.minT > lastMs) {
      // Probably in order: the batch path checks again under the lock and hands it back if not.
      const outcome = await detectBatch([{ unitId, window }], { reportsIgnition: () => hints.reportsIgnition === true });
      if (outcome.deferred.length === 0) return { needAddresses: outcome.needAddresses, redetected: false };
    }
    return redetect(unitId, window!, hints);
  }

  /** Late or out-of-order data of one unit: re-detects the span it touches. */
  async function redetect(unitId: number, window: Window, hints: { reportsIgnition?: boolean }): Promise<DetectionOutcome> {
    const now = clock.now().getTime();
    return database.transaction(async (query) => {
      const state = (await lockStates(query, [unitId])).get(unitId);
      if (!state) return { needAddresses: [], redetected: false };
      const params = paramsOf(state);
      const last = numberOrNull(state.last_ms);
      const openSince = numberOrNull(state.open_since_ms);
      const { minT, maxT } = window;

      let reportsIgnition = state.reports_ignition || hints.reportsIgnition === true;
      if (!reportsIgnition && params.detection === 'auto') {
        const [hit] = await query(
          `SELECT 1 AS one FROM position_history WHERE unit_id = $1 AND time >= $2::timestamptz AND time <= $3::timestamptz
             AND ignition IS NOT NULL LIMIT 1`,
          [unitId, iso(Math.min(minT, last ?? minT)), iso(maxT)],
        );
        reportsIgnition = hit !== undefined;
      }
      const mode = resolveMode(params.detection, reportsIgnition);

      // Start at the last parked point before the window.
      const reach = Math.max(params.timeTillParkedS, params.maxGapS) * 1000 + 1000;
      let from: Bound;
      if (openSince !== null && minT >= openSince) {
        from = { t: openSince, inclusive: true };
      } else {
        const [previous] = await query<{ stop_ms: number }>(
          `SELECT ${EPOCH_MS('stop_time')} AS stop_ms FROM trips WHERE unit_id = $1 AND stop_time < $2::timestamptz ORDER BY stop_time DESC LIMIT 1`,
          [unitId, iso(minT - reach)],
        );
        if (previous) {
          from = { t: Number(previous.stop_ms), inclusive: false };
        } else {
          let start = minT - LOOKBACK_MS;
          const [first] = await query<{ start_ms: number | null }>(
            `SELECT ${EPOCH_MS('min(start_time)')} AS start_ms FROM trips WHERE unit_id = $1 AND stop_time >= $2::timestamptz`,
            [unitId, iso(start)],
          );
          const firstStart = numberOrNull(first?.start_ms);
          if (firstStart !== null && firstStart < start) start = firstStart;
          from = { t: start, inclusive: true };
        }
      }
      // Go on until parked past the window and past every stored trip near it.
      const [touched] = await query<{ stop_ms: number | null }>(
        `SELECT ${EPOCH_MS('max(stop_time)')} AS stop_ms FROM trips
         WHERE unit_id = $1 AND start_time <= $2::timestamptz AND stop_time >= $3::timestamptz`,
        [unitId, iso(maxT + reach), iso(minT - reach)],
      );
      const settledAfter = Math.max(maxT, numberOrNull(touched?.stop_ms) ?? maxT) + reach;
      const until = Math.max(last ?? maxT, maxT);

      const machine = new TripMachine(params, mode);
      let lastLoaded: number | null = null;
      let stopAt: number | null = null;
      let insideUntil = Number.NEGATIVE_INFINITY;
      scan: for await (const slice of loadPositions(query, unitId, from, until)) {
        for (const position of slice) {
          machine.push(position);
          lastLoaded = position.t;
          if (position.t <= settledAfter || position.t <= insideUntil || !machine.isParked()) continue;
          // The stored state holds a trip in progress from openSince: the span must reach it.
          if (openSince !== null && position.t >= openSince) continue;
          // Parked past the window: stop here unless an old trip still runs across this point.
          const [inside] = await query<{ stop_ms: number }>(
            `SELECT ${EPOCH_MS('stop_time')} AS stop_ms FROM trips
             WHERE unit_id = $1 AND start_time <= $2::timestamptz AND stop_time >= $2::timestamptz LIMIT 1`,
            [unitId, iso(position.t)],
          );
          if (inside) {
            insideUntil = Number(inside.stop_ms);
            continue;
          }
          stopAt = position.t;
          break scan;
        }
      }

      const write = (trips: DetectedTrip[], old: OldTrip[]): Write => ({
        unitId,
        accountId: state.account_id,
        defaultType: state.default_trip_type ?? DEFAULT_TRIP_TYPE,
        trips,
        old,
      });
      if (stopAt !== null) {
        const old = await deleteRange(query, unitId, from, stopAt);
        const needAddresses = await insertTrips(query, [write(machine.closed, old)], now);
        await shiftOdometersAfter(query, unitId, stopAt);
        if (reportsIgnition !== state.reports_ignition) {
          await query('UPDATE trip_detector_state SET reports_ignition = $2 WHERE unit_id = $1', [unitId, reportsIgnition]);
        }
        return { needAddresses, redetected: true };
      }
      // The span reached the newest detected position: the machine's state is the unit's state now.
      const pending = machine.pending(now);
      const old = await deleteRange(query, unitId, from, null);
      const needAddresses = await insertTrips(query, [write(pending.trip ? [...machine.closed, pending.trip] : machine.closed, old)], now);
      await saveStates(
        query,
        [{ unitId, last: lastLoaded ?? last, machine: machine.snapshot(), openSince: pending.openSince, recheckAt: pending.recheckAt, reportsIgnition }],
        now,
      );
      return { needAddresses, redetected: true };
    });
  }

  return { detect, detectBatch, redetect };
}

export type Detection = ReturnType<typeof createDetection>;
