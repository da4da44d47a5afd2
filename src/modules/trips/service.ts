import { createGeocoder, type Geocoder } from '../../lib/geocoding';
import { AppError } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../accounts/users';
import { FLAG_FUTURE } from '../tracking/ingest';
import type { UnitService } from '../units/service';
import { createDetection, type DetectionOutcome, paramsOf } from './detection';
import type { DetectionParams } from './detector';
import {
  DEFAULT_TRIP_TYPE,
  isCalendarDate,
  MAX_RANGE_MONTHS,
  type TripList,
  type TripListQuery,
  type TripSettingsInput,
  type TripTotal,
  type TripType,
  type TripView,
} from './model';
import { addToDay, dayOf, isTimeZone, startOfDay } from './time';

/** Time zone used when neither the request nor the user names a valid one. */
const FALLBACK_TIME_ZONE = 'Europe/Stockholm';

/**
 * Work queue of units to detect: windows of one unit are merged while it waits, a unit runs once at a
 * time, and a few units run at once. Ingest only enqueues, so a slow detection never holds up acknowledging
 * devices, and a busy unit's batches coalesce into one run.
 */
class DetectionQueue {
  private readonly pending = new Map<number, { minT: number; maxT: number } | null>();
  private readonly running = new Map<number, Promise<void>>();

  constructor(
    private readonly work: (unitId: number, window: { minT: number; maxT: number } | null) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  /** Queues a unit; without a window, only the clock check of its trip in progress. */
  mark(unitId: number, window: { minT: number; maxT: number } | null) {
    if (this.pending.has(unitId)) {
      const queued = this.pending.get(unitId) ?? null;
      if (queued && window) this.pending.set(unitId, { minT: Math.min(queued.minT, window.minT), maxT: Math.max(queued.maxT, window.maxT) });
      else this.pending.set(unitId, queued ?? window);
    } else {
      this.pending.set(unitId, window);
    }
    this.pump();
  }

  private pump() {
    for (const [unitId, window] of this.pending) {
      if (this.running.size >= this.concurrency) return;
      if (this.running.has(unitId)) continue;
      this.pending.delete(unitId);
      const task = this.work(unitId, window).finally(() => {
        this.running.delete(unitId);
        this.pump();
      });
      this.running.set(unitId, task);
    }
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.pending.size > 0) {
      if (this.running.size === 0) this.pump();
      await Promise.race(this.running.values());
    }
  }
}

interface TripRow extends Record<string, unknown> {
  id: number | string;
  unit_id: number;
  start_ms: number;
  stop_ms: number;
  start_lat: number;
  start_lon: number;
  stop_lat: number;
  stop_lon: number;
  start_address: string | null;
  stop_address: string | null;
  odometer_start_m: number;
  odometer_stop_m: number;
  odometer_source: 'device' | 'gps';
  distance_m: number;
  max_speed_kmh: number;
  avg_speed_kmh: number;
  driver_key: string | null;
  driver_user_id: number | null;
  harsh_braking: number;
  harsh_acceleration: number;
  harsh_cornering: number;
  type: TripType;
  purpose: string | null;
  note: string | null;
  passengers: string | null;
  detection: 'ignition' | 'motion';
}

const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(Number(value) * factor) / factor;
};

function toView(row: TripRow): TripView {
  const start = Number(row.start_ms);
  const stop = Number(row.stop_ms);
  return {
    id: Number(row.id),
    unitId: row.unit_id,
    startTime: new Date(start).toISOString(),
    stopTime: new Date(stop).toISOString(),
    durationS: Math.round((stop - start) / 1000),
    startLat: round(row.start_lat, 6),
    startLon: round(row.start_lon, 6),
    stopLat: round(row.stop_lat, 6),
    stopLon: round(row.stop_lon, 6),
    startAddress: row.start_address,
    stopAddress: row.stop_address,
    odometerStartM: Math.round(Number(row.odometer_start_m)),
    odometerStopM: Math.round(Number(row.odometer_stop_m)),
    odometerSource: row.odometer_source,
    distanceM: Math.round(Number(row.distance_m)),
    maxSpeedKmh: round(row.max_speed_kmh, 1),
    avgSpeedKmh: round(row.avg_speed_kmh, 1),
    driverKey: row.driver_key,
    driverUserId: row.driver_user_id,
    harshBraking: row.harsh_braking,
    harshAcceleration: row.harsh_acceleration,
    harshCornering: row.harsh_cornering,
    type: row.type,
    purpose: row.purpose,
    note: row.note,
    passengers: row.passengers,
    detection: row.detection,
  };
}

const rangeError = (key: string) => new AppError(422, 'validation.failed', { fields: { to: [key] } });

/** The period of a trip list as instants: days in the caller's zone, this month by default (spec §5: at most 12 months). */
export function resolveRange(query: { from?: string; to?: string }, timeZone: string, now: Date): { from: Date; to: Date } {
  const today = dayOf(now, timeZone);
  const fromText = query.from ?? `${today.slice(0, 8)}01`;
  const toText = query.to ?? addToDay(`${today.slice(0, 8)}01`, { months: 1, days: -1 });
  const from = isCalendarDate(fromText) ? startOfDay(fromText, timeZone) : new Date(fromText);
  // A day as upper bound includes that day.
  const to = isCalendarDate(toText) ? startOfDay(addToDay(toText, { days: 1 }), timeZone) : new Date(toText);
  if (to.getTime() <= from.getTime()) throw rangeError('validation.dateRange.order');
  let limit: Date;
  if (isCalendarDate(fromText)) limit = startOfDay(addToDay(fromText, { months: MAX_RANGE_MONTHS }), timeZone);
  else {
    limit = new Date(from);
    limit.setUTCMonth(limit.getUTCMonth() + MAX_RANGE_MONTHS);
  }
  if (to.getTime() > limit.getTime()) throw rangeError('validation.dateRange.tooLong');
  return { from, to };
}

/**
 * The trip log: detection fed by the ingest pipeline's events, addresses through the geocoder, and the
 * read API. Trips are stored rows, so any period up to 12 months reads without recomputation.
 */
export function createTripService(platform: Platform, units: UnitService, options: { geocoder?: Geocoder } = {}) {
  const { database, clock, log, events } = platform;
  const geocoder = options.geocoder ?? createGeocoder(platform.config, database, log);
  const detection = createDetection(database, clock);
  /** Units seen reporting ignition by this process (a hint; the detector state keeps it for good). */
  const reportsIgnition = new Set<number>();
  /** Counters for benchmarks and health: detection runs, how many re-detected a span, how many failed. */
  const stats = { runs: 0, redetections: 0, failures: 0 };
  /** Addresses being looked up after a detection run. */
  const addressing = new Set<Promise<void>>();

  async function fillAddresses(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await database.query<{
      id: number | string;
      start_lat: number;
      start_lon: number;
      stop_lat: number;
      stop_lon: number;
      start_address: string | null;
      stop_address: string | null;
    }>(
      `SELECT id, ST_Y(start_geom) AS start_lat, ST_X(start_geom) AS start_lon, ST_Y(stop_geom) AS stop_lat, ST_X(stop_geom) AS stop_lon,
              start_address, stop_address
       FROM trips WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
    for (const row of rows) {
      const start = row.start_address ?? (await geocoder.reverse(Number(row.start_lat), Number(row.start_lon)));
      const stop = row.stop_address ?? (await geocoder.reverse(Number(row.stop_lat), Number(row.stop_lon)));
      if (start === row.start_address && stop === row.stop_address) continue;
      // A later re-detection may have replaced the row meanwhile; then this changes nothing.
      await database.query(
        `UPDATE trips SET start_address = COALESCE(start_address, $2), stop_address = COALESCE(stop_address, $3)
         WHERE id = $1 AND ST_Y(start_geom) = $4 AND ST_X(start_geom) = $5 AND ST_Y(stop_geom) = $6 AND ST_X(stop_geom) = $7`,
        [Number(row.id), start, stop, row.start_lat, row.start_lon, row.stop_lat, row.stop_lon],
      );
    }
  }

  async function runDetection(unitId: number, window: { minT: number; maxT: number } | null): Promise<void> {
    let outcome: DetectionOutcome;
    stats.runs += 1;
    try {
      outcome = await detection.detect(unitId, window, { reportsIgnition: reportsIgnition.has(unitId) });
      if (outcome.redetected) stats.redetections += 1;
    } catch (error) {
      stats.failures += 1;
      // Nothing was written; the unit's next batch continues from the last good state.
      log.error('trip detection failed', { unitId, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (outcome.needAddresses.length === 0) return;
    const task = fillAddresses(outcome.needAddresses)
      .catch((error: unknown) => log.warn('trip addresses not filled', { unitId, error: String(error) }))
      .finally(() => addressing.delete(task));
    addressing.add(task);
  }

  const queue = new DetectionQueue(runDetection, database.kind === 'pglite' ? 1 : 4);

  events.on('positions.stored', ({ unitId, positions }) => {
    let minT = Number.POSITIVE_INFINITY;
    let maxT = Number.NEGATIVE_INFINITY;
    for (const position of positions) {
      if (position.flags & FLAG_FUTURE) continue;
      const t = position.time.getTime();
      if (t < minT) minT = t;
      if (t > maxT) maxT = t;
    }
    if (minT <= maxT) queue.mark(unitId, { minT, maxT });
  });
  // Positions carry ignition too; the change event tells without a query that the unit reports it.
  events.on('ignition.changed', ({ unitId }) => {
    reportsIgnition.add(unitId);
  });

  async function unitParams(unitId: number): Promise<DetectionParams & { defaultTripType: TripType }> {
    const [row] = await database.query<Record<string, unknown>>('SELECT * FROM trip_unit_settings WHERE unit_id = $1', [unitId]);
    return { ...paramsOf(row ?? {}), defaultTripType: (row?.default_trip_type as TripType | null) ?? DEFAULT_TRIP_TYPE };
  }

  return {
    geocoder,

    stats(): Readonly<typeof stats> {
      return { ...stats };
    },

    /** Detects a unit now (as an ingest event would); windows in epoch ms. */
    detect(unitId: number, window: { minT: number; maxT: number } | null = null) {
      queue.mark(unitId, window);
    },

    /** Waits until every queued detection and address look-up has finished (tests, shutdown, the CLI). */
    async idle(): Promise<void> {
      for (;;) {
        await queue.idle();
        if (addressing.size === 0) return;
        await Promise.allSettled([...addressing]);
      }
    },

    /** Closes trips in progress that the clock alone ends (a tracker silent after parking). Returns how many units were checked. */
    async recheckDue(): Promise<number> {
      const due = await database.query<{ unit_id: number }>(
        'SELECT unit_id FROM trip_detector_state WHERE recheck_at <= $1::timestamptz ORDER BY recheck_at LIMIT 1000',
        [clock.now().toISOString()],
      );
      for (const { unit_id } of due) queue.mark(unit_id, null);
      await queue.idle();
      return due.length;
    },

    /** Looks up addresses that are still missing (the geocoder was down when the trips were detected). */
    async fillMissingAddresses(limit = 500): Promise<number> {
      const rows = await database.query<{ id: number | string }>(
        'SELECT id FROM trips WHERE start_address IS NULL OR stop_address IS NULL ORDER BY id DESC LIMIT $1',
        [limit],
      );
      await fillAddresses(rows.map((row) => Number(row.id)));
      return rows.length;
    },

    /** Scheduled work for the job scheduler (src/jobs): clock-closed trips and missing addresses. */
    jobs() {
      return [
        { name: 'trips.recheck', intervalSeconds: 60, run: async () => void (await this.recheckDue()) },
        { name: 'trips.addresses', intervalSeconds: 15 * 60, run: async () => void (await this.fillMissingAddresses()) },
      ];
    },

    settings: unitParams,

    /** Sets a unit's detection overrides (null restores a default) and re-detects its recent trips with them. */
    async updateSettings(unitId: number, input: TripSettingsInput): Promise<void> {
      const value = (v: unknown) => (v === undefined ? null : v);
      await database.query(
        `INSERT INTO trip_unit_settings (unit_id, detection, min_distance_m, min_duration_s, time_till_parked_s, max_gap_s, moving_speed_kmh,
                                         default_trip_type, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz)
         ON CONFLICT (unit_id) DO UPDATE SET detection = EXCLUDED.detection, min_distance_m = EXCLUDED.min_distance_m,
           min_duration_s = EXCLUDED.min_duration_s, time_till_parked_s = EXCLUDED.time_till_parked_s, max_gap_s = EXCLUDED.max_gap_s,
           moving_speed_kmh = EXCLUDED.moving_speed_kmh, default_trip_type = EXCLUDED.default_trip_type, updated_at = EXCLUDED.updated_at`,
        [
          unitId,
          value(input.detection),
          value(input.minDistanceM),
          value(input.minDurationS),
          value(input.timeTillParkedS),
          value(input.maxGapS),
          value(input.movingSpeedKmh),
          value(input.defaultTripType),
          clock.now().toISOString(),
        ],
      );
    },

    /** Spec §3/§5: the trips of one unit of the caller's account that start in a period of at most 12 months, with totals per type. */
    async list(actor: Actor, query: TripListQuery, requestTimeZone?: string | null): Promise<TripList> {
      // Another account's unit answers 404 exactly like a missing one.
      const unit = await units.get(actor, query.unitId);
      const timeZone = isTimeZone(requestTimeZone) ? requestTimeZone : isTimeZone(actor.timezone) ? actor.timezone : FALLBACK_TIME_ZONE;
      const { from, to } = resolveRange(query, timeZone, clock.now());
      const rows = await database.query<TripRow>(
        `SELECT id, unit_id, (extract(epoch from start_time) * 1000)::float8 AS start_ms, (extract(epoch from stop_time) * 1000)::float8 AS stop_ms,
                ST_Y(start_geom) AS start_lat, ST_X(start_geom) AS start_lon, ST_Y(stop_geom) AS stop_lat, ST_X(stop_geom) AS stop_lon,
                start_address, stop_address, odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh,
                driver_key, driver_user_id, harsh_braking, harsh_acceleration, harsh_cornering, type, purpose, note, passengers, detection
         FROM trips
         WHERE unit_id = $1 AND account_id = $2 AND start_time >= $3::timestamptz AND start_time < $4::timestamptz
         ORDER BY start_time`,
        [unit.ID, actor.accountId, from.toISOString(), to.toISOString()],
      );
      const trips = rows.map(toView);
      const empty = (): TripTotal => ({ trips: 0, distanceM: 0, durationS: 0 });
      const totals = { business: empty(), private: empty(), other: empty(), all: empty() };
      for (const trip of trips) {
        for (const total of [totals[trip.type], totals.all]) {
          total.trips += 1;
          total.distanceM += trip.distanceM;
          total.durationS += trip.durationS;
        }
      }
      return { unitId: unit.ID, from: from.toISOString(), to: to.toISOString(), timeZone, trips, totals };
    },
  };
}

export type TripService = ReturnType<typeof createTripService>;
