import type { Clock } from '../../lib/clock';
import type { DatabaseHandle } from '../../lib/db/client';
import type { Geocoder } from '../../lib/geocoding';
import { fieldError, forbidden, notFound } from '../../lib/http';
import { ServerTiming } from '../../lib/server-timing';
import { addToDay, dayOf, isTimeZone, startOfDay } from '../../lib/time';
import type { Actor } from '../auth/model';
import type { UnitService } from '../units/service';
import { type StoredBatchHook, StoredBatchHooks, type WrittenState } from './ingest';
import {
  type BleValue,
  HISTORY_FIELDS,
  type HistoryDay,
  type HistoryPoint,
  type LiveState,
  MAP_HISTORY_DAYS,
  MOVING_MIN_SPEED_KMH,
  OFFLINE_AFTER_MS,
  type UnitAccess,
  UNIT_LIST_FIELDS,
  unitStatus,
  visibleOnMap,
  withinWorkingHours,
} from './model';

/** The ingest writer every protocol feeds (the gateway) and its position flags. */
export { IngestWriter, type IngestSubmission, type StoredBatchHook, StoredBatchHooks, type StoredPosition } from './ingest';
export { ensurePositionPartitions, trackingJobs } from './storage';

/** The zone used when neither the request nor the user names a valid one. */
export const DEFAULT_TIME_ZONE = 'Europe/Stockholm';

/** A stretch of time whose positions must not be shown (private trips, spec §5). */
export interface HiddenInterval {
  from: Date;
  to: Date;
}

export interface TrackingServiceOptions {
  /**
   * The intervals of a unit's day that the map must leave out: private trips (spec §5), as the trip log
   * of the caller knows them. The composition root wires the trips module in; without a provider nothing
   * is left out.
   */
  hiddenIntervals?: (actor: Actor, unitId: number, from: Date, to: Date) => Promise<HiddenInterval[]>;
  /**
   * Spec §6: lock state, the user's access and working hours of the caller's units (all of the account
   * when `unitIds` is null). Units absent from the map are not locked. The units module provides it once
   * it stores locks, access and working hours; without a provider no unit is locked.
   */
  unitAccess?: (actor: Actor, unitIds: number[] | null) => Promise<Map<number, UnitAccess>>;
  /** Spec §3/§4: the driver checked in on each unit of the account (trip log), by name. */
  checkedInDrivers?: (accountId: number) => Promise<Map<number, { name: string }>>;
  /** Spec §6: the units an ordinary user was given (null: the caller sees every unit of the account). */
  visibleUnits?: (actor: Actor) => Promise<Set<number> | null>;
}

/** Whether a unit may be on a user's map now; null: every unit of the account may. */
export type MapVisibility = ((unitId: number, now: Date) => boolean) & { key: (now: Date) => string };

/** Spec §3/issue: the list and the popup show each unit's last address; at most this many per request. */
export const MAX_ADDRESS_UNITS = 100;

export interface UnitAddress {
  unitId: number;
  lat: number | null;
  lon: number | null;
  address: string | null;
}

/** A unit's latest state together with the account it belongs to (for the live fan-out). */
export type AccountState = LiveState & { accountId: number };

interface StateRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  name: string;
  registration_number: string;
  imei: string;
  vehicle_type: string;
  time: Date | string | null;
  last_seen: Date | string | null;
  speed_kmh: number | null;
  course: number | null;
  valid: boolean | null;
  ignition: boolean | null;
  odometer_m: number | null;
  lat: number | null;
  lon: number | null;
  external_voltage: number | null;
  din1: boolean | null;
  din2: boolean | null;
  din3: boolean | null;
  dout1: boolean | null;
  dout2: boolean | null;
  dout3: boolean | null;
  driver_id: string | null;
  ble: unknown;
}

/** The inputs and outputs a unit's newest record reported (`normalized` keys, also the state's and list's names). */
const FLAGS = ['din1', 'din2', 'din3', 'dout1', 'dout2', 'dout3'] as const;
const flag = (key: (typeof FLAGS)[number]) => `(s.normalized -> '${key}') = 'true'::jsonb`;

/**
 * What a unit's newest record reported beyond its position, read from `unit_state.normalized`: one expression per
 * value for the state reads and the list alike; null when the record had none (or one of another type).
 */
const REPORTED = {
  externalVoltageV: `CASE WHEN jsonb_typeof(s.normalized -> 'externalVoltageV') = 'number' THEN (s.normalized ->> 'externalVoltageV')::float8 END`,
  din1: flag('din1'),
  din2: flag('din2'),
  din3: flag('din3'),
  dout1: flag('dout1'),
  dout2: flag('dout2'),
  dout3: flag('dout3'),
  driverId: `CASE WHEN jsonb_typeof(s.normalized -> 'driverId') = 'string' THEN s.normalized ->> 'driverId' END`,
  ble: `CASE WHEN jsonb_typeof(s.normalized -> 'ble') = 'array' THEN s.normalized -> 'ble' END`,
};

/** `pos.geom`: where the unit is shown. When its newest record had no fix, its last valid fix (an index probe, only for those units). */
const LAST_VALID_POSITION = `CROSS JOIN LATERAL (
    SELECT CASE WHEN s.valid IS NOT FALSE THEN s.geom ELSE (
      SELECT p.geom FROM positions p
      WHERE p.unit_id = s.unit_id AND p.flags = 0 AND p.time <= s.time
      ORDER BY p.time DESC LIMIT 1
    ) END AS geom
  ) pos`;

/**
 * Units joined with their latest state, one row each, every value the map shows extracted in SQL so
 * that 20,000 rows cost one query and no JSON blobs travel. When the newest record had no fix, the
 * position is the unit's last valid fix (an index probe, only for those units).
 * Reads the units module's published view for names and the account: a read-only join, so that the map of a
 * large fleet is one query rather than one per module.
 */
const STATE_SELECT = `
  SELECT u.id, u.account_id, u.name, u.registration_number, u.imei, u.vehicle_type,
         s.time, s.last_seen, s.speed_kmh, s.course, s.valid, s.ignition, s.odometer_m,
         ST_Y(pos.geom) AS lat, ST_X(pos.geom) AS lon,
         ${REPORTED.externalVoltageV} AS external_voltage,
         ${FLAGS.map((key) => `${REPORTED[key]} AS ${key}`).join(', ')},
         ${REPORTED.driverId} AS driver_id,
         ${REPORTED.ble} AS ble
  FROM unit_directory u
  LEFT JOIN unit_state s ON s.unit_id = u.id
  ${LAST_VALID_POSITION}`;

/** `Math.round(value * 10^decimals) / 10^decimals` in SQL, with the same float8 operations, so both give the same number. */
const sqlRound = (value: string, decimals: number) =>
  decimals === 0 ? `floor(${value} + 0.5)` : `floor(${value} * 1e${decimals} + 0.5) / 1e${decimals}`;
/** An ISO time (UTC, milliseconds) as `Date.toISOString` writes it. */
const sqlIso = (value: string) => `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Each list column's value in SQL, in `UNIT_LIST_FIELDS` order but for `driverName`, which comes last (the trips module knows it). */
const LIST_COLUMNS: Record<Exclude<(typeof UNIT_LIST_FIELDS)[number], 'driverName'>, string> = {
  id: 'u.id',
  name: 'u.name',
  registrationNumber: 'u.registration_number',
  imei: 'u.imei',
  vehicleType: 'u.vehicle_type',
  markerIcon: 'u.marker_icon',
  color: 'u.color',
  operatingMode: 'u.operating_mode',
  departmentId: 'u.department_id',
  department: 'd.name',
  tags: `COALESCE(tg.names, '[]'::json)`,
  lat: sqlRound('ST_Y(pos.geom)', 6),
  lon: sqlRound('ST_X(pos.geom)', 6),
  speed: 'v.speed',
  // float4 read through its text, as a client reads it, before rounding.
  course: `(${sqlRound('s.course::text::float8', 0)})::int % 360`,
  ignition: 's.ignition',
  valid: 's.valid',
  time: sqlIso('s.time'),
  lastSeen: sqlIso('s.last_seen'),
  // unitStatus() in SQL: offline after OFFLINE_AFTER_MS without contact, moving above MOVING_MIN_SPEED_KMH unless the ignition is off.
  status: `CASE WHEN s.last_seen IS NULL OR $2::timestamptz - date_trunc('milliseconds', s.last_seen) > interval '${OFFLINE_AFTER_MS} milliseconds' THEN 'offline'
                WHEN COALESCE(v.speed, 0) > ${MOVING_MIN_SPEED_KMH} AND s.ignition IS DISTINCT FROM false THEN 'moving' ELSE 'parked' END`,
  odometerM: sqlRound('s.odometer_m', 0),
  externalVoltageV: sqlRound(`(${REPORTED.externalVoltageV})`, 2),
  din1: REPORTED.din1,
  din2: REPORTED.din2,
  din3: REPORTED.din3,
  dout1: REPORTED.dout1,
  dout2: REPORTED.dout2,
  dout3: REPORTED.dout3,
  ble: `COALESCE(${REPORTED.ble}, '[]'::jsonb)`,
  driverId: REPORTED.driverId,
};

/**
 * The map's list, each unit written as its JSON row by the database itself: the values are rounded, dated and
 * judged (status) in SQL exactly as `toLiveState` does for live updates, so the server neither parses 30 columns
 * of 20,000 rows nor serialises them again. $1: the account, $2: now. Each unit with its id (for §6 visibility) and
 * its `place` in name order: only the narrow (id, name) pairs are sorted, not megabytes of rows (which spilled to
 * disk); the caller puts the rows in place. Tags are gathered for the account in one pass, not per unit.
 */
const LIST_ROWS_SELECT = `
  WITH listed AS MATERIALIZED (
    SELECT id, (row_number() OVER (ORDER BY name, id))::int AS place FROM unit_directory WHERE account_id = $1
  ), tagged AS (
    SELECT ut.unit_id, json_agg(t.name ORDER BY t.name) AS names
    FROM unit_tag_links ut JOIN tag_directory t ON t.id = ut.tag_id
    WHERE t.account_id = $1
    GROUP BY ut.unit_id
  )
  SELECT u.id, l.place, json_build_array(${UNIT_LIST_FIELDS.filter((field) => field !== 'driverName')
    .map((field) => LIST_COLUMNS[field as keyof typeof LIST_COLUMNS])
    .join(', ')})::text AS row
  FROM listed l
  JOIN unit_directory u ON u.id = l.id
  LEFT JOIN department_directory d ON d.id = u.department_id
  LEFT JOIN tagged tg ON tg.unit_id = u.id
  LEFT JOIN unit_state s ON s.unit_id = u.id
  ${LAST_VALID_POSITION}
  CROSS JOIN LATERAL (SELECT ${sqlRound('s.speed_kmh::text::float8', 1)} AS speed) v`;

const round = (value: number | null, decimals: number): number | null => {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return null;
  const factor = 10 ** decimals;
  return Math.round(Number(value) * factor) / factor;
};
const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

function toLiveState(row: StateRow, now: Date): LiveState {
  const speed = round(row.speed_kmh, 1);
  const lastSeen = iso(row.last_seen);
  const ble = typeof row.ble === 'string' ? (JSON.parse(row.ble) as unknown) : row.ble;
  return {
    id: row.id,
    lat: round(row.lat, 6),
    lon: round(row.lon, 6),
    speed,
    course: row.course === null ? null : Math.round(Number(row.course)) % 360,
    ignition: row.ignition,
    valid: row.valid,
    time: iso(row.time),
    lastSeen,
    status: unitStatus({ lastSeen, speed, ignition: row.ignition }, now),
    odometerM: round(row.odometer_m, 0),
    externalVoltageV: round(row.external_voltage, 2),
    din1: row.din1,
    din2: row.din2,
    din3: row.din3,
    dout1: row.dout1,
    dout2: row.dout2,
    dout3: row.dout3,
    ble: Array.isArray(ble) ? (ble as BleValue[]) : [],
    driverId: row.driver_id,
  };
}

/**
 * The live state of a unit_state row as the state writer has just written it, the same values the map's
 * query extracts in SQL (`stateSelect`). Only for a valid fix: after an invalid one the position to show is
 * an earlier record's, which takes a read.
 */
export function liveStateOfWritten(row: WrittenState, now: Date): AccountState {
  const n = row.normalized;
  const flagOf = (value: boolean | undefined) => (value === undefined ? null : value === true);
  const state = toLiveState(
    {
      id: row.unitId,
      account_id: row.accountId,
      name: '',
      registration_number: '',
      imei: '',
      vehicle_type: '',
      time: row.time,
      last_seen: row.lastSeen,
      speed_kmh: row.speedKmh,
      course: row.course,
      valid: row.valid,
      ignition: row.ignition,
      odometer_m: row.odometerM,
      lat: row.lat,
      lon: row.lon,
      external_voltage: typeof n.externalVoltageV === 'number' ? n.externalVoltageV : null,
      din1: flagOf(n.din1),
      din2: flagOf(n.din2),
      din3: flagOf(n.din3),
      dout1: flagOf(n.dout1),
      dout2: flagOf(n.dout2),
      dout3: flagOf(n.dout3),
      driver_id: typeof n.driverId === 'string' ? n.driverId : null,
      ble: Array.isArray(n.ble) ? n.ble : null,
    },
    now,
  );
  return { ...state, accountId: row.accountId };
}

// ---------------------------------------------------------------------------------------------
// Time zones: a day in the user's zone as UTC bounds.

/** The zone of a request: the client's X-Timezone header when valid, else the user's setting. */
export function requestTimeZone(header: string | null | undefined, actor: Actor): string {
  if (isTimeZone(header?.trim())) return header!.trim();
  return isTimeZone(actor.timezone) ? actor.timezone : DEFAULT_TIME_ZONE;
}

// ---------------------------------------------------------------------------------------------

/**
 * The map's reads: each unit's latest state, a unit's day of positions, and the look-ups behind the
 * live socket. Every read is scoped by the caller's account.
 */
export function createTrackingService(
  deps: { database: DatabaseHandle; clock: Clock; units: UnitService; geocoder?: Geocoder },
  options: TrackingServiceOptions = {},
) {
  const { database, clock, units, geocoder } = deps;
  /** Handed to the ingest writer (the gateway): other modules' work inside each ingest batch's transaction. */
  const storedBatchHooks = new StoredBatchHooks();

  async function states(where: string, params: unknown[], orderBy = ''): Promise<StateRow[]> {
    return database.query<StateRow>(`${STATE_SELECT} WHERE ${where} ${orderBy}`, params);
  }

  /** Spec §1: the real-time map is a module that may be disabled per user (the RealTimeMap flag, read with the caller's session). */
  function mapEnabled(actor: Actor): boolean {
    return actor.realtimeMap;
  }

  /** Spec §6 for one user: null when no unit of the account is locked away from them. */
  async function visibility(actor: Actor): Promise<MapVisibility | null> {
    const [access, given] = await Promise.all([
      options.unitAccess ? options.unitAccess(actor, null) : new Map<number, UnitAccess>(),
      options.visibleUnits ? options.visibleUnits(actor) : null,
    ]);
    const restricted = [...access.entries()].filter(([, unit]) => unit.locked && !unit.hasAccess);
    if (restricted.length === 0 && given === null) return null;
    const visible = ((unitId: number, now: Date) => (given === null || given.has(unitId)) && visibleOnMap(access.get(unitId), actor.role, now)) as MapVisibility;
    // Which restricted units are visible now: when this changes (working hours begin or end), the map reloads.
    const givenKey = given === null ? '' : `${given.size}:${[...given].reduce((sum, id) => (sum * 31 + id) % 1_000_000_007, 0)}|`;
    visible.key = (now) => givenKey + restricted.filter(([, unit]) => visibleOnMap(unit, actor.role, now)).map(([id]) => id).join(',');
    return visible;
  }

  return {
    storedBatchHooks,
    /** Registers work run in every ingest batch's transaction with its stored positions (see `StoredBatchHook`). */
    onStoredBatch(hook: StoredBatchHook): () => void {
      return storedBatchHooks.register(hook);
    },
    mapEnabled,
    visibility,

    /** The map's data follows the map: 403 when it is disabled for the caller. */
    assertMapEnabled(actor: Actor): void {
      if (!mapEnabled(actor)) throw forbidden('tracking.mapDisabled');
    },

    /**
     * Every unit of the caller's account with its latest state, by name: the JSON text of a `TrackedUnitList`
     * (rows written by the database). One query however many units, with the §6 access and the account's checked-in
     * drivers read alongside it.
     */
    async listUnitsJson(actor: Actor, timing = new ServerTiming()): Promise<string> {
      const now = clock.now();
      const [rows, visible, drivers] = await Promise.all([
        timing.time('rows', () => database.query<{ id: number; place: number; row: string }>(LIST_ROWS_SELECT, [actor.accountId, now.toISOString()])),
        timing.time('access', () => visibility(actor)),
        options.checkedInDrivers ? timing.time('drivers', () => options.checkedInDrivers!(actor.accountId)) : new Map<number, { name: string }>(),
      ]);
      const inOrder = new Array<{ id: number; row: string }>(rows.length);
      for (const row of rows) inOrder[row.place - 1] = row;
      const shown = visible ? inOrder.filter((row) => visible(row.id, now)) : inOrder;
      return timing.timeSync('json', () => {
        const units = shown.map((row) => `${row.row.slice(0, -1)}, ${JSON.stringify(drivers.get(row.id)?.name ?? null)}]`);
        return `{"serverTime":${JSON.stringify(now.toISOString())},"fields":${JSON.stringify(UNIT_LIST_FIELDS)},"units":[${units.join(',')}]}`;
      });
    },

    /** The latest state of the given units, each with its account (the live fan-out groups by it). */
    async liveStates(unitIds: number[]): Promise<AccountState[]> {
      if (unitIds.length === 0) return [];
      const now = clock.now();
      const rows = await states('s.unit_id = ANY($1::int[])', [unitIds]);
      return rows.map((row) => ({ ...toLiveState(row, now), accountId: row.account_id }));
    },

    /** Units of an account whose state changed (any contact) after `since`: the socket's catch-up. */
    async changedSince(accountId: number, since: Date, visible: MapVisibility | null = null): Promise<LiveState[]> {
      const now = clock.now();
      const rows = await states('u.account_id = $1 AND s.last_seen > $2::timestamptz', [accountId, since.toISOString()], 'ORDER BY u.id');
      return (visible ? rows.filter((row) => visible(row.id, now)) : rows).map((row) => toLiveState(row, now));
    },

    /**
     * The last address of each given unit of the caller's account (the side panel asks for the rows in
     * view): the geocoder's answer for the unit's last valid fix, cached by the geocoder. Units of other
     * accounts or without a position answer null, like missing ones.
     */
    async addresses(actor: Actor, unitIds: number[]): Promise<UnitAddress[]> {
      const ids = [...new Set(unitIds)].slice(0, MAX_ADDRESS_UNITS);
      if (ids.length === 0) return [];
      const [rows, visible] = await Promise.all([states('u.account_id = $1 AND u.id = ANY($2::int[])', [actor.accountId, ids]), visibility(actor)]);
      const now = clock.now();
      const byId = new Map(rows.filter((row) => !visible || visible(row.id, now)).map((row) => [row.id, row]));
      const out: UnitAddress[] = [];
      for (const id of ids) {
        const row = byId.get(id);
        const lat = row ? round(row.lat, 6) : null;
        const lon = row ? round(row.lon, 6) : null;
        const address = lat !== null && lon !== null && geocoder ? await geocoder.reverse(lat, lon) : null;
        out.push({ unitId: id, lat, lon, address });
      }
      return out;
    },

    /** unitId → accountId for the live index; units that no longer exist are absent. */
    async accountsOf(unitIds: number[]): Promise<Map<number, number>> {
      if (unitIds.length === 0) return new Map();
      const rows = await database.query<{ id: number; account_id: number }>('SELECT id, account_id FROM unit_directory WHERE id = ANY($1::int[])', [
        unitIds,
      ]);
      return new Map(rows.map((row) => [row.id, row.account_id]));
    },

    /** Units of these accounts whose last contact fell in (from, to]: they turn offline as `to` passes 30 min. */
    async lastSeenBetween(accountIds: number[], from: Date, to: Date): Promise<number[]> {
      if (accountIds.length === 0) return [];
      const rows = await database.query<{ id: number }>(
        `SELECT s.unit_id AS id FROM unit_state s JOIN unit_directory u ON u.id = s.unit_id
         WHERE u.account_id = ANY($1::int[]) AND s.last_seen > $2::timestamptz AND s.last_seen <= $3::timestamptz`,
        [accountIds, from.toISOString(), to.toISOString()],
      );
      return rows.map((row) => row.id);
    },

    /**
     * A unit's track in [from, to): valid fixes only, in time order, as epoch ms and WGS 84. No access check
     * and nothing hidden: for reports that have checked the caller's access to the unit themselves and show
     * derived facts (payment-station passages), never the positions. Read a month at a time.
     */
    async track(unitId: number, from: Date, to: Date): Promise<Array<{ t: number; lat: number; lon: number }>> {
      const rows = await database.query<{ t: number; lat: number; lon: number }>(
        `SELECT (extract(epoch FROM time) * 1000)::float8 AS t, ST_Y(geom) AS lat, ST_X(geom) AS lon
         FROM positions WHERE unit_id = $1 AND time >= $2::timestamptz AND time < $3::timestamptz AND flags = 0
         ORDER BY time`,
        [unitId, from.toISOString(), to.toISOString()],
      );
      return rows.map((row) => ({ t: Math.round(Number(row.t)), lat: Number(row.lat), lon: Number(row.lon) }));
    },

    /**
     * A unit's positions of one day in the caller's time zone (spec §5: within the last 7 days, one day
     * at a time), valid fixes only, as compact rows. Another account's unit is a 404.
     */
    async history(actor: Actor, query: { unitId: number; date: string }, timeZone: string): Promise<HistoryDay> {
      await units.visible(actor, query.unitId);
      // Spec §6: a locked car's history follows its live visibility: none for users without access,
      // only the working hours for administrators without access.
      const access = options.unitAccess ? (await options.unitAccess(actor, [query.unitId])).get(query.unitId) : undefined;
      const restricted = access?.locked === true && !access.hasAccess;
      if (restricted && (actor.role !== 'admin' || access.workingHours === null) && !visibleOnMap(access, actor.role, clock.now())) {
        throw notFound('errors.unitNotFound');
      }
      const today = dayOf(clock.now(), timeZone);
      const age = (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${query.date}T00:00:00Z`)) / 86_400_000;
      if (age < 0 || age >= MAP_HISTORY_DAYS) {
        throw fieldError('date', 'tracking.history.dateOutOfRange', { days: MAP_HISTORY_DAYS });
      }
      const from = startOfDay(query.date, timeZone);
      const to = startOfDay(addToDay(query.date, { days: 1 }), timeZone);
      const rows = await database.query<{ t: number; lat: number; lon: number; speed: number; course: number | null; ignition: boolean | null }>(
        `SELECT (extract(epoch FROM time) * 1000)::float8 AS t, ST_Y(geom) AS lat, ST_X(geom) AS lon,
                speed_kmh AS speed, course, ignition
         FROM positions
         WHERE unit_id = $1 AND time >= $2::timestamptz AND time < $3::timestamptz AND flags = 0
         ORDER BY time`,
        [query.unitId, from.toISOString(), to.toISOString()],
      );
      const hidden = options.hiddenIntervals ? await options.hiddenIntervals(actor, query.unitId, from, to) : [];
      const positions: HistoryPoint[] = [];
      for (const row of rows) {
        const t = Math.round(Number(row.t));
        if (hidden.some((interval) => t >= interval.from.getTime() && t <= interval.to.getTime())) continue;
        if (restricted && access.workingHours && !withinWorkingHours(access.workingHours, new Date(t), access.timeZone)) continue;
        positions.push([
          t,
          round(row.lat, 6)!,
          round(row.lon, 6)!,
          round(row.speed, 1) ?? 0,
          row.course === null ? null : Math.round(Number(row.course)) % 360,
          row.ignition === null ? null : row.ignition ? 1 : 0,
        ]);
      }
      return {
        unitId: query.unitId,
        date: query.date,
        timeZone,
        from: from.toISOString(),
        to: to.toISOString(),
        fields: HISTORY_FIELDS,
        positions,
      };
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
