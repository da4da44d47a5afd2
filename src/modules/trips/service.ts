import { createGeocoder, type Geocoder } from '../../lib/geocoding';
import { AppError } from '../../lib/http';
import { Pacer } from '../../lib/pace';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { FLAGS_NOT_A_FIX } from '../tracking/model';
import type { UnitService } from '../units/service';
import { createTripAttest } from './attest';
import { createTripEditing } from './editing';
import { type BatchOutcome, createDetection, paramsOf, type TripClassifier, type UnitWork, type Window } from './detection';

/** What the places module implements to categorise trips as they are detected. */
export type { ClassifiableTrip, TripClassifier } from './detection';
import { ATTESTED } from './attest';
import { DEFAULT_DETECTION_PARAMS, type DetectionParams } from './detector';
import {
  DEFAULT_TRIP_TYPE,
  isCalendarDate,
  MAX_RANGE_MONTHS,
  type TripApplyRulesInput,
  type TripApplyRulesResult,
  type TripList,
  type TripListQuery,
  type TripSettingsInput,
  type TripTotal,
  type TripType,
  type TripLogEntry,
} from './model';
import { addToDay, dayOf, isTimeZone, startOfDay } from '../../lib/time';

/** Time zone used when neither the request nor the user names a valid one. */
const FALLBACK_TIME_ZONE = 'Europe/Stockholm';
/** Trip detection starts a pass at most once a second (see `Pacer`); the trip log needs no fresher data. */
const DETECTION_PASS_EVERY_MS = 1000;

/**
 * Work queue of units to detect. Ingest only enqueues, so detection never holds up acknowledging devices.
 * A unit's windows merge while it waits; the worker takes every waiting unit (up to a batch) into one run,
 * so under load many batches of many units become a few transactions; one unit is never in two runs at once.
 */
class DetectionQueue {
  private readonly pending = new Map<number, Window | null>();
  private readonly running = new Set<number>();
  private readonly active = new Set<Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly work: (batch: UnitWork[]) => Promise<void>,
    private readonly concurrency: number,
    private readonly maxBatch: number,
    /** Passes start at most this often, so a trickle of positions is detected in few, larger batches. */
    private readonly pace: Pacer,
  ) {}

  /** Queues a unit; without a window, only the clock check of its trip in progress. */
  mark(unitId: number, window: Window | null) {
    const queued = this.pending.get(unitId) ?? null;
    if (queued && window) this.pending.set(unitId, { minT: Math.min(queued.minT, window.minT), maxT: Math.max(queued.maxT, window.maxT) });
    else this.pending.set(unitId, queued ?? window);
    this.schedule();
  }

  /** Starts the next pass once the pace allows (at once when a full batch is waiting), at least on the next turn so one ingest batch's events land in one detection batch. */
  private schedule() {
    if (this.timer || this.pending.size === 0) return;
    const delay = this.pending.size >= this.maxBatch ? 0 : this.pace.waitMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, delay);
  }

  private pump() {
    while (this.active.size < this.concurrency) {
      const batch: UnitWork[] = [];
      for (const [unitId, window] of this.pending) {
        if (this.running.has(unitId)) continue;
        batch.push({ unitId, window });
        if (batch.length >= this.maxBatch) break;
      }
      if (batch.length === 0) return;
      this.pace.started();
      for (const { unitId } of batch) {
        this.pending.delete(unitId);
        this.running.add(unitId);
      }
      const task: Promise<void> = this.work(batch).finally(() => {
        for (const { unitId } of batch) this.running.delete(unitId);
        this.active.delete(task);
        this.schedule();
      });
      this.active.add(task);
    }
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    const release = this.pace.hold();
    try {
      while (this.active.size > 0 || this.pending.size > 0) {
        if (this.active.size === 0) this.pump();
        if (this.active.size === 0) return;
        await Promise.race(this.active);
      }
    } finally {
      release();
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
  merged: boolean;
  driver_name: string | null;
  driver_source: 'checkin' | 'booking' | null;
}

const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(Number(value) * factor) / factor;
};

function toView(row: TripRow): TripLogEntry {
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
    startAddress: row.start_address || null,
    stopAddress: row.stop_address || null,
    odometerStartM: Math.round(Number(row.odometer_start_m)),
    odometerStopM: Math.round(Number(row.odometer_stop_m)),
    odometerSource: row.odometer_source,
    distanceM: Math.round(Number(row.distance_m)),
    maxSpeedKmh: round(row.max_speed_kmh, 1),
    avgSpeedKmh: round(row.avg_speed_kmh, 1),
    driverKey: row.driver_key,
    driverUserId: row.driver_user_id,
    driverName: row.driver_user_id === null ? null : row.driver_name || null,
    driverSource: row.driver_user_id === null ? null : (row.driver_source ?? 'checkin'),
    harshBraking: row.harsh_braking,
    harshAcceleration: row.harsh_acceleration,
    harshCornering: row.harsh_cornering,
    type: row.type,
    purpose: row.purpose,
    note: row.note,
    passengers: row.passengers,
    detection: row.detection,
    merged: row.merged,
  };
}

/** What the trip log asks of places (the places module's `tripPort()`, given when the trip log is created). */
export interface TripPlaces {
  classify: TripClassifier;
  /** Per point the label of the unit's place it lies in, or null. */
  labels(unitId: number, accountId: number, points: Array<{ lat: number; lon: number }>): Promise<Array<{ id: number; label: string } | null>>;
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
export function createTripService(platform: Platform, units: UnitService, options: { geocoder?: Geocoder; places?: TripPlaces } = {}) {
  const { database, clock, log, events } = platform;
  const geocoder = options.geocoder ?? createGeocoder(platform.config, database, log);
  // Places categorize trips by their rules and name the trips' ends; the trip log sees them only through this port.
  const places = options.places ?? null;
  const detection = createDetection(database, clock, () => places?.classify ?? null);
  const timeZoneOf = (actor: Actor, requestTimeZone?: string | null): string =>
    isTimeZone(requestTimeZone) ? requestTimeZone : isTimeZone(actor.timezone) ? actor.timezone : FALLBACK_TIME_ZONE;
  const editing = createTripEditing(platform, timeZoneOf, (actor, unitId) => units.get(actor, unitId));
  const attest = createTripAttest(platform);
  /** Units seen reporting ignition by this process (a hint; the detector state keeps it for good). */
  const reportsIgnition = new Set<number>();
  /** Counters for benchmarks and health: units detected, spans re-detected (late data), failed detections. */
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
      // No address known there (open sea, far from any locality) is stored as '' so it is not asked again.
      await database.query(
        `UPDATE trips SET start_address = COALESCE(start_address, $2), stop_address = COALESCE(stop_address, $3)
         WHERE id = $1 AND ST_Y(start_geom) = $4 AND ST_X(start_geom) = $5 AND ST_Y(stop_geom) = $6 AND ST_X(stop_geom) = $7`,
        [Number(row.id), start ?? '', stop ?? '', row.start_lat, row.start_lon, row.stop_lat, row.stop_lon],
      );
    }
  }

  function address(ids: number[]) {
    if (ids.length === 0) return;
    const task = fillAddresses(ids)
      .catch((error: unknown) => log.warn('trip addresses not filled', { error: String(error) }))
      .finally(() => addressing.delete(task));
    addressing.add(task);
  }

  /** Late or out-of-order data of one unit; a failure leaves that unit's trips as they were. */
  async function redetectOne(work: UnitWork): Promise<void> {
    try {
      const outcome = work.window
        ? await detection.redetect(work.unitId, work.window, { reportsIgnition: reportsIgnition.has(work.unitId) })
        : await detection.detect(work.unitId, null, { reportsIgnition: reportsIgnition.has(work.unitId) });
      if (outcome.redetected) stats.redetections += 1;
      address(outcome.needAddresses);
    } catch (error) {
      stats.failures += 1;
      log.error('trip detection failed', { unitId: work.unitId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  async function runBatch(batch: UnitWork[]): Promise<void> {
    stats.runs += batch.length;
    let outcome: BatchOutcome;
    try {
      outcome = await detection.detectBatch(batch, { reportsIgnition: (unitId) => reportsIgnition.has(unitId) });
    } catch (error) {
      // Nothing of the batch was written. One unit's bad data must not hold up the others: go one by one.
      log.warn('trip detection batch failed; detecting its units one by one', { units: batch.length, error: String(error) });
      for (const work of batch) await redetectOne(work);
      return;
    }
    address(outcome.needAddresses);
    for (const work of outcome.deferred) await redetectOne(work);
  }

  const queue = new DetectionQueue(runBatch, database.kind === 'pglite' ? 1 : 2, 500, new Pacer(DETECTION_PASS_EVERY_MS));

  events.on('positions.stored', ({ unitId, positions }) => {
    let minT = Number.POSITIVE_INFINITY;
    let maxT = Number.NEGATIVE_INFINITY;
    for (const position of positions) {
      if (position.flags & FLAGS_NOT_A_FIX) continue;
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

  /** Closes trips in progress that the clock alone ends (a tracker silent after parking). Returns how many units were checked. */
  async function recheckDue(): Promise<number> {
    const due = await database.query<{ unit_id: number }>(
      'SELECT unit_id FROM trip_detector_state WHERE recheck_at <= $1::timestamptz ORDER BY recheck_at LIMIT 1000',
      [clock.now().toISOString()],
    );
    for (const { unit_id } of due) queue.mark(unit_id, null);
    await queue.idle();
    return due.length;
  }

  /** Looks up addresses that are still missing (the geocoder was down when the trips were detected). */
  async function fillMissingAddresses(limit = 500): Promise<number> {
    const rows = await database.query<{ id: number | string }>(
      'SELECT id FROM trips WHERE start_address IS NULL OR stop_address IS NULL ORDER BY id DESC LIMIT $1',
      [limit],
    );
    await fillAddresses(rows.map((row) => Number(row.id)));
    return rows.length;
  }

  const service = {
    ...editing,
    ...attest,
    geocoder,
    /** The unit service and platform the trip log exports (export.ts) build on. */
    units,
    platform,

    /**
     * Applies the place rules to a unit's trips of a period: a trip a rule matches gets its category (type source
     * "rule"); a trip an earlier rule categorized that no rule matches now goes back to the unit's default. Trips
     * typed by a person and attested trips are left as they are.
     */
    async applyPlaceRules(actor: Actor, input: TripApplyRulesInput, requestTimeZone?: string | null): Promise<TripApplyRulesResult> {
      const unit = await units.get(actor, input.unitId);
      const { from, to } = resolveRange(input, timeZoneOf(actor, requestTimeZone), clock.now());
      const port = places;
      if (!port) return { checked: 0, categorized: 0, changed: 0 };
      return database.transaction(async (query) => {
        const rows = await query<{
          id: number | string;
          type: TripType;
          type_source: 'default' | 'rule';
          start_ms: number;
          stop_ms: number;
          start_lat: number;
          start_lon: number;
          stop_lat: number;
          stop_lon: number;
          default_type: TripType | null;
        }>(
          `SELECT t.id, t.type, t.type_source, (extract(epoch from t.start_time) * 1000)::float8 AS start_ms,
                  (extract(epoch from t.stop_time) * 1000)::float8 AS stop_ms, ST_Y(t.start_geom) AS start_lat, ST_X(t.start_geom) AS start_lon,
                  ST_Y(t.stop_geom) AS stop_lat, ST_X(t.stop_geom) AS stop_lon, s.default_trip_type AS default_type
           FROM trips t LEFT JOIN trip_unit_settings s ON s.unit_id = t.unit_id
           WHERE t.unit_id = $1 AND t.account_id = $2 AND t.start_time >= $3::timestamptz AND t.start_time < $4::timestamptz
             AND t.type_source <> 'user' AND NOT ${ATTESTED}
           ORDER BY t.start_time
           FOR UPDATE OF t`,
          [unit.ID, actor.accountId, from.toISOString(), to.toISOString()],
        );
        const ruled = await port.classify(
          query,
          rows.map((row) => ({
            unitId: unit.ID,
            accountId: actor.accountId,
            startMs: Number(row.start_ms),
            stopMs: Number(row.stop_ms),
            startLat: Number(row.start_lat),
            startLon: Number(row.start_lon),
            stopLat: Number(row.stop_lat),
            stopLon: Number(row.stop_lon),
          })),
        );
        const updates: Array<{ id: number; type: TripType; source: 'rule' | 'default' }> = [];
        let changed = 0;
        rows.forEach((row, index) => {
          const rule = ruled[index] ?? null;
          let next: { type: TripType; source: 'rule' | 'default' } | null = null;
          if (rule) next = { type: rule, source: 'rule' };
          else if (row.type_source === 'rule') next = { type: row.default_type ?? DEFAULT_TRIP_TYPE, source: 'default' };
          if (!next || (next.type === row.type && next.source === row.type_source)) return;
          if (next.type !== row.type) changed += 1;
          updates.push({ id: Number(row.id), ...next });
        });
        if (updates.length > 0) {
          await query(
            `UPDATE trips t SET type = x.ty, type_source = x.ts FROM unnest($1::bigint[], $2::text[], $3::text[]) AS x(id, ty, ts) WHERE t.id = x.id`,
            [updates.map((u) => u.id), updates.map((u) => u.type), updates.map((u) => u.source)],
          );
        }
        return { checked: rows.length, categorized: ruled.filter((type) => type !== null).length, changed };
      });
    },

    stats(): Readonly<typeof stats> {
      return { ...stats };
    },

    /** The driver checked in on each of these units now (spec §3 checked-in driver), by unit id; for the unit list. */
    async checkedInDrivers(unitIds: number[]): Promise<Map<number, { userId: number; name: string }>> {
      if (unitIds.length === 0) return new Map();
      const rows = await database.query<{ unit_id: number; user_id: number; name: string }>(
        `SELECT c.unit_id, c.user_id, COALESCE(NULLIF(trim(u.first_name || ' ' || u.last_name), ''), u.email) AS name
         FROM trip_driver_checkins c JOIN user_directory u ON u.id = c.user_id
         WHERE c.unit_id = ANY($1::int[]) AND c.checked_out_at IS NULL`,
        [unitIds],
      );
      return new Map(rows.map((row) => [row.unit_id, { userId: row.user_id, name: row.name }]));
    },

    /** The driver checked in on each unit of the account now, by unit id; for the live map's list (all of the account, read alongside it). */
    async checkedInDriversOfAccount(accountId: number): Promise<Map<number, { userId: number; name: string }>> {
      const rows = await database.query<{ unit_id: number; user_id: number; name: string }>(
        `SELECT c.unit_id, c.user_id, COALESCE(NULLIF(trim(u.first_name || ' ' || u.last_name), ''), u.email) AS name
         FROM trip_driver_checkins c JOIN user_directory u ON u.id = c.user_id JOIN unit_directory un ON un.id = c.unit_id
         WHERE un.account_id = $1 AND c.checked_out_at IS NULL`,
        [accountId],
      );
      return new Map(rows.map((row) => [row.unit_id, { userId: row.user_id, name: row.name }]));
    },

    /** Detects a unit now (as an ingest event would); windows in epoch ms. */
    detect(unitId: number, window: Window | null = null) {
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

    recheckDue,
    fillMissingAddresses,

    /** Scheduled work for the job scheduler (src/jobs): clock-closed trips and missing addresses. */
    jobs() {
      return [
        { name: 'trips.recheck', intervalSeconds: 60, run: async () => void (await recheckDue()) },
        { name: 'trips.addresses', intervalSeconds: 15 * 60, run: async () => void (await fillMissingAddresses()) },
        { name: 'trips.attestReminders', intervalSeconds: 60 * 60, run: async () => void (await attest.sendAttestReminders()) },
      ];
    },

    /** Re-detects a unit's trips starting in a period (after its detection settings changed); resolves when done. */
    async redetect(unitId: number, from: Date, to: Date): Promise<void> {
      queue.mark(unitId, { minT: from.getTime(), maxT: to.getTime() });
      await queue.idle();
    },

    settings: unitParams,

    /** Sets a unit's detection overrides (null restores a default). They apply from the next detection run; `redetect` applies them to a past period. */
    async updateSettings(unitId: number, input: TripSettingsInput): Promise<void> {
      const value = (v: unknown) => (v === undefined ? null : v);
      await database.query(
        `INSERT INTO trip_unit_settings (unit_id, account_id, detection, min_distance_m, min_duration_s, time_till_parked_s, max_gap_s,
                                         moving_speed_kmh, default_trip_type, updated_at)
         SELECT u.id, u.account_id, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz FROM unit_directory u WHERE u.id = $1
         ON CONFLICT (unit_id, account_id) DO UPDATE SET detection = EXCLUDED.detection, min_distance_m = EXCLUDED.min_distance_m,
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

    /**
     * Spec §5: a unit's private trips (as intervals) that the map hides, for a period. A trip that began the evening
     * before still counts. An administrator sees a locked car in working hours without reading its trip log: its
     * private trips stay hidden all the same, so they are read with support's reach when the caller's falls short.
     */
    async hiddenOnMap(actor: Actor, unitId: number, from: Date, to: Date): Promise<Array<{ from: Date; to: Date }>> {
      const reader = (await units.canReadTracks(actor, unitId)) ? actor : { ...actor, role: 'support' as const };
      const list = await service.list(reader, { unitId, from: new Date(from.getTime() - 86_400_000).toISOString(), to: to.toISOString() });
      return list.trips.filter((trip) => trip.type === 'private').map((trip) => ({ from: new Date(trip.startTime), to: new Date(trip.stopTime) }));
    },

    /**
     * Sets only the time till parked (the unit edit screen's setting). The trip log keeps all overrides in one row: the
     * others carry over, and a value equal to its default stays a default.
     */
    async setTimeTillParked(unitId: number, seconds: number): Promise<void> {
      const current = await unitParams(unitId);
      const override = <K extends keyof typeof DEFAULT_DETECTION_PARAMS>(key: K) => (current[key] === DEFAULT_DETECTION_PARAMS[key] ? null : current[key]);
      await service.updateSettings(unitId, {
        detection: override('detection'),
        minDistanceM: override('minDistanceM'),
        minDurationS: override('minDurationS'),
        maxGapS: override('maxGapS'),
        movingSpeedKmh: override('movingSpeedKmh'),
        defaultTripType: current.defaultTripType === DEFAULT_TRIP_TYPE ? null : current.defaultTripType,
        timeTillParkedS: seconds,
      });
    },

    /** Spec §3/§5: the trips of one unit of the caller's account that start in a period of at most 12 months, with totals per type. */
    async list(actor: Actor, query: TripListQuery, requestTimeZone?: string | null): Promise<TripList> {
      // Another account's unit answers 404 exactly like a missing one.
      const unit = await units.get(actor, query.unitId);
      const timeZone = timeZoneOf(actor, requestTimeZone);
      const { from, to } = resolveRange(query, timeZone, clock.now());
      const rows = await database.query<TripRow>(
        `SELECT t.id, t.unit_id, (extract(epoch from t.start_time) * 1000)::float8 AS start_ms, (extract(epoch from t.stop_time) * 1000)::float8 AS stop_ms,
                ST_Y(t.start_geom) AS start_lat, ST_X(t.start_geom) AS start_lon, ST_Y(t.stop_geom) AS stop_lat, ST_X(t.stop_geom) AS stop_lon,
                t.start_address, t.stop_address, t.odometer_start_m, t.odometer_stop_m, t.odometer_source, t.distance_m, t.max_speed_kmh,
                t.avg_speed_kmh, t.driver_key, t.driver_user_id, t.driver_source, t.harsh_braking, t.harsh_acceleration, t.harsh_cornering, t.type, t.purpose,
                t.note, t.passengers, t.detection, t.merged, COALESCE(NULLIF(trim(d.first_name || ' ' || d.last_name), ''), d.email) AS driver_name
         FROM trips t LEFT JOIN user_names d ON d.id = t.driver_user_id
         WHERE t.unit_id = $1 AND t.account_id = $2 AND t.start_time >= $3::timestamptz AND t.start_time < $4::timestamptz
         ORDER BY t.start_time`,
        [unit.ID, actor.accountId, from.toISOString(), to.toISOString()],
      );
      const trips = rows.map(toView);
      // A trip that starts or ends in one of the unit's places shows the place's label (the stored address stays).
      if (places && trips.length > 0) {
        const points = trips.flatMap((trip) => [
          { lat: trip.startLat, lon: trip.startLon },
          { lat: trip.stopLat, lon: trip.stopLon },
        ]);
        const named = await places.labels(unit.ID, actor.accountId, points);
        trips.forEach((trip, index) => {
          const start = named[index * 2];
          const stop = named[index * 2 + 1];
          if (start) {
            trip.startPlace = start.label;
            trip.startAddress = start.label;
          }
          if (stop) {
            trip.stopPlace = stop.label;
            trip.stopAddress = stop.label;
          }
        });
      }
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
  return service;
}

export type TripService = ReturnType<typeof createTripService>;
