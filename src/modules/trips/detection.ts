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
import { DEFAULT_TRIP_TYPE, type TripType } from './model';

/**
 * Detection against the database: one run per unit and affected time window, in one transaction that
 * holds the unit's detector-state row (FOR UPDATE), so concurrent batches of one unit, in this process or
 * another, are detected one after the other.
 *
 * - In order (the window starts after everything detected so far): the machine continues from its stored
 *   snapshot with just the new positions.
 * - Late or out of order: the span is re-detected from the last parked point before it (the stop of the last
 *   trip that ended well before the window, or the start of the trip in progress) until the machine is parked
 *   again past the window and past every stored trip it touched; the trips starting in that span are deleted
 *   and replaced, nothing else. GPS odometers after the span are shifted so they stay continuous.
 * - A trip in progress that the clock alone closes (parked for long enough, or a tracker silent for longer
 *   than the maximum gap) is stored provisionally and replaced by the next run.
 *
 * What people entered on a trip (type, purpose, note, passengers, driver) and its id carry over to the new
 * trip that overlaps it most; unchanged trips keep their ids and addresses.
 */

/** Positions are read in slices of this many rows. */
const CHUNK = 5_000;
/** With no earlier trip to start from, re-detection looks back this far before the window. */
const LOOKBACK_MS = 2 * 86_400_000;

interface StateRow extends Record<string, unknown> {
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
  id: number | string;
  start_ms: number;
  stop_ms: number;
  type: TripType;
  type_source: 'default' | 'rule' | 'user';
  purpose: string | null;
  note: string | null;
  passengers: string | null;
  driver_user_id: number | null;
  start_address: string | null;
  stop_address: string | null;
  start_lat: number;
  start_lon: number;
  stop_lat: number;
  stop_lon: number;
  distance_m: number;
  detected_ms: number;
}

interface Bound {
  t: number;
  inclusive: boolean;
}

const iso = (t: number) => new Date(t).toISOString();
const EPOCH_MS = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`;

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
      `SELECT ${EPOCH_MS('time')} AS t, ST_Y(geom) AS lat, ST_X(geom) AS lon, speed_kmh, valid, ignition, odometer_m,
              normalized->>'driverId' AS driver_key, normalized->'greenDriving'->>'type' AS harsh
       FROM positions
       WHERE unit_id = $1 AND time <= $2::timestamptz ${lower} AND (flags & 2) = 0
       ORDER BY time LIMIT $3`,
      params,
    );
    if (rows.length === 0) return;
    yield rows.map((row) => ({
      t: Number(row.t),
      lat: Number(row.lat),
      lon: Number(row.lon),
      speedKmh: Number(row.speed_kmh ?? 0),
      valid: row.valid,
      ignition: row.ignition ?? null,
      odometerM: row.odometer_m === null || row.odometer_m === undefined ? null : Number(row.odometer_m),
      driverKey: row.driver_key || null,
      harsh: row.harsh && HARSH.has(row.harsh) ? (row.harsh as HarshType) : null,
    }));
    if (rows.length < CHUNK) return;
    cursor = { t: Number(rows.at(-1)!.t), inclusive: false };
  }
}

export interface DetectionOutcome {
  /** Trips written by this run that still lack an address. */
  needAddresses: number[];
  /** Whether the run re-detected an earlier span (late or out-of-order data). */
  redetected: boolean;
}

export function createDetection(database: DatabaseHandle, clock: Clock) {
  /** Removes the unit's trips starting in [from, to] and returns what they held. */
  async function deleteTrips(query: Querier, unitId: number, from: Bound, to: number | null): Promise<OldTrip[]> {
    const params: unknown[] = [unitId, iso(from.t)];
    let upper = '';
    if (to !== null) {
      params.push(iso(to));
      upper = 'AND start_time <= $3::timestamptz';
    }
    return query<OldTrip>(
      `DELETE FROM trips WHERE unit_id = $1 AND start_time ${from.inclusive ? '>=' : '>'} $2::timestamptz ${upper}
       RETURNING id, ${EPOCH_MS('start_time')} AS start_ms, ${EPOCH_MS('stop_time')} AS stop_ms, type, type_source, purpose, note,
                 passengers, driver_user_id, start_address, stop_address, ST_Y(start_geom) AS start_lat, ST_X(start_geom) AS start_lon,
                 ST_Y(stop_geom) AS stop_lat, ST_X(stop_geom) AS stop_lon, distance_m, ${EPOCH_MS('detected_at')} AS detected_ms`,
      params,
    );
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

  async function insertTrips(query: Querier, unitId: number, state: StateRow, trips: DetectedTrip[], old: OldTrip[], now: number): Promise<number[]> {
    if (trips.length === 0) return [];
    const [previous] = await query<{ odometer_stop_m: number }>(
      'SELECT odometer_stop_m FROM trips WHERE unit_id = $1 AND start_time < $2::timestamptz ORDER BY start_time DESC LIMIT 1',
      [unitId, iso(trips[0]!.start.t)],
    );
    let odometer = previous ? Number(previous.odometer_stop_m) : 0;
    const matched = matchOld(trips, old);
    const defaultType = state.default_trip_type ?? DEFAULT_TRIP_TYPE;
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-5;
    const rows = trips.map((trip, i) => {
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
        sameStart && sameStop && Number(was.start_ms) === trip.start.t && Number(was.stop_ms) === trip.stop.t && Math.abs(Number(was.distance_m) - trip.distanceM) < 0.01;
      const entered = <K extends 'purpose' | 'note' | 'passengers' | 'driver_user_id'>(key: K): OldTrip[K] | null =>
        overlapping.find((candidate) => candidate[key] !== null && candidate[key] !== undefined)?.[key] ?? null;
      const typed = overlapping.find((candidate) => candidate.type_source === 'user');
      return {
        id: was ? Number(was.id) : null,
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
        driverUserId: entered('driver_user_id'),
        braking: trip.harshBraking,
        acceleration: trip.harshAcceleration,
        cornering: trip.harshCornering,
        type: typed ? typed.type : defaultType,
        typeSource: typed ? 'user' : 'default',
        purpose: entered('purpose'),
        note: entered('note'),
        passengers: entered('passengers'),
        detection: trip.mode,
        points: trip.points,
        // A trip found again exactly as it was keeps its detection time: only what changed looks new.
        detectedAt: unchanged ? iso(Number(was.detected_ms)) : iso(now),
      };
    });
    const inserted = await query<{ id: number | string; needs_address: boolean }>(
      `INSERT INTO trips (id, unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                          odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, driver_key,
                          driver_user_id, harsh_braking, harsh_acceleration, harsh_cornering, type, type_source, purpose, note,
                          passengers, detection, point_count, detected_at)
       SELECT COALESCE(x.id, nextval('trips_id_seq')), $1, $2, x.st, x.sp, ST_SetSRID(ST_MakePoint(x.slon, x.slat), 4326),
              ST_SetSRID(ST_MakePoint(x.plon, x.plat), 4326), x.sa, x.pa, x.os, x.oe, x.src, x.dist, x.mx, x.av, x.dk, x.du,
              x.hb, x.ha, x.hc, x.ty, x.ts, x.pu, x.nt, x.ps, x.de, x.pc, x.da
       FROM unnest($4::bigint[], $5::timestamptz[], $6::timestamptz[], $7::float8[], $8::float8[], $9::float8[], $10::float8[],
                   $11::text[], $12::text[], $13::float8[], $14::float8[], $15::text[], $16::float8[], $17::real[], $18::real[],
                   $19::text[], $20::int[], $21::int[], $22::int[], $23::int[], $24::text[], $25::text[], $26::text[], $27::text[],
                   $28::text[], $29::text[], $30::int[], $3::timestamptz[])
         AS x(id, st, sp, slat, slon, plat, plon, sa, pa, os, oe, src, dist, mx, av, dk, du, hb, ha, hc, ty, ts, pu, nt, ps, de, pc, da)
       RETURNING id, (start_address IS NULL OR stop_address IS NULL) AS needs_address`,
      [
        unitId,
        state.account_id,
        rows.map((r) => r.detectedAt),
        rows.map((r) => r.id),
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

  async function saveState(
    query: Querier,
    unitId: number,
    state: { last: number | null; machine: MachineState; openSince: number | null; recheckAt: number | null; reportsIgnition: boolean },
    now: number,
  ) {
    await query(
      `UPDATE trip_detector_state SET last_position_time = $2::timestamptz, machine = $3::jsonb, open_since = $4::timestamptz,
              recheck_at = $5::timestamptz, reports_ignition = $6, updated_at = $7::timestamptz
       WHERE unit_id = $1`,
      [
        unitId,
        state.last === null ? null : iso(state.last),
        JSON.stringify(state.machine),
        state.openSince === null ? null : iso(state.openSince),
        state.recheckAt === null ? null : iso(state.recheckAt),
        state.reportsIgnition,
        iso(now),
      ],
    );
  }

  /**
   * Detects trips for one unit after positions in [minT, maxT] (epoch ms) were stored; without a window,
   * only judges the trip in progress against the clock. Idempotent: running it again with the same data
   * changes nothing but the detection time of provisional rows.
   */
  async function detect(
    unitId: number,
    window: { minT: number; maxT: number } | null,
    hints: { reportsIgnition?: boolean } = {},
  ): Promise<DetectionOutcome> {
    const now = clock.now().getTime();
    return database.transaction(async (query) => {
      await query('INSERT INTO trip_detector_state (unit_id) SELECT id FROM units WHERE id = $1 ON CONFLICT (unit_id) DO NOTHING', [unitId]);
      const [state] = await query<StateRow>(
        `SELECT u.account_id, ${EPOCH_MS('s.last_position_time')} AS last_ms, s.machine, ${EPOCH_MS('s.open_since')} AS open_since_ms,
                s.reports_ignition, t.detection, t.min_distance_m, t.min_duration_s, t.time_till_parked_s, t.max_gap_s,
                t.moving_speed_kmh, t.default_trip_type
         FROM trip_detector_state s
         JOIN units u ON u.id = s.unit_id
         LEFT JOIN trip_unit_settings t ON t.unit_id = s.unit_id
         WHERE s.unit_id = $1
         FOR UPDATE OF s`,
        [unitId],
      );
      if (!state) return { needAddresses: [], redetected: false }; // the unit is gone
      const params = paramsOf(state);
      const last = state.last_ms === null ? null : Number(state.last_ms);
      const openSince = state.open_since_ms === null ? null : Number(state.open_since_ms);
      const snapshot = parseMachine(state.machine);

      let reportsIgnition = state.reports_ignition || hints.reportsIgnition === true;
      if (!reportsIgnition && params.detection === 'auto' && window) {
        const { minT, maxT } = window;
        const checkFrom = last === null ? null : Math.min(minT, last);
        const [hit] = await query(
          `SELECT 1 AS one FROM positions WHERE unit_id = $1 AND time <= $2::timestamptz ${checkFrom === null ? '' : 'AND time >= $3::timestamptz'}
             AND ignition IS NOT NULL LIMIT 1`,
          checkFrom === null ? [unitId, iso(maxT)] : [unitId, iso(maxT), iso(checkFrom)],
        );
        reportsIgnition = hit !== undefined;
      }
      const mode = resolveMode(params.detection, reportsIgnition);
      const modeChangedMidTrip = snapshot !== null && snapshot.mode !== mode && snapshot.trip !== null;

      if (!window || ((last === null || window.minT > last) && !modeChangedMidTrip)) {
        // In order: continue the machine with the new positions.
        const machine = new TripMachine(params, mode, snapshot);
        let lastLoaded = last;
        if (window) {
          for await (const slice of loadPositions(query, unitId, last === null ? null : { t: last, inclusive: false }, window.maxT)) {
            for (const position of slice) machine.push(position);
            lastLoaded = slice.at(-1)!.t;
          }
        }
        const pending = machine.pending(now);
        const provisional = openSince === null ? [] : await deleteTrips(query, unitId, { t: openSince, inclusive: true }, null);
        const written = pending.trip ? [...machine.closed, pending.trip] : machine.closed;
        const needAddresses = await insertTrips(query, unitId, state, written, provisional, now);
        await saveState(
          query,
          unitId,
          { last: lastLoaded, machine: machine.snapshot(), openSince: pending.openSince, recheckAt: pending.recheckAt, reportsIgnition },
          now,
        );
        return { needAddresses, redetected: false };
      }

      // Late or out of order: re-detect the span the new positions touch.
      const { minT, maxT } = window;
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
          if (first?.start_ms !== null && first?.start_ms !== undefined && Number(first.start_ms) < start) start = Number(first.start_ms);
          from = { t: start, inclusive: true };
        }
      }
      const [touched] = await query<{ stop_ms: number | null }>(
        `SELECT ${EPOCH_MS('max(stop_time)')} AS stop_ms FROM trips
         WHERE unit_id = $1 AND start_time <= $2::timestamptz AND stop_time >= $3::timestamptz`,
        [unitId, iso(maxT + reach), iso(minT - reach)],
      );
      const settledAfter = Math.max(maxT, touched?.stop_ms === null || touched?.stop_ms === undefined ? maxT : Number(touched.stop_ms)) + reach;
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

      if (stopAt !== null) {
        const old = await deleteTrips(query, unitId, from, stopAt);
        const needAddresses = await insertTrips(query, unitId, state, machine.closed, old, now);
        await shiftOdometersAfter(query, unitId, stopAt);
        if (reportsIgnition !== state.reports_ignition) {
          await query('UPDATE trip_detector_state SET reports_ignition = $2 WHERE unit_id = $1', [unitId, reportsIgnition]);
        }
        return { needAddresses, redetected: true };
      }
      // The span reached the newest detected position: the machine's state is the unit's state now.
      const pending = machine.pending(now);
      const old = await deleteTrips(query, unitId, from, null);
      const written = pending.trip ? [...machine.closed, pending.trip] : machine.closed;
      const needAddresses = await insertTrips(query, unitId, state, written, old, now);
      await saveState(
        query,
        unitId,
        { last: lastLoaded ?? last, machine: machine.snapshot(), openSince: pending.openSince, recheckAt: pending.recheckAt, reportsIgnition },
        now,
      );
      return { needAddresses, redetected: true };
    });
  }

  return { detect };
}

export type Detection = ReturnType<typeof createDetection>;
