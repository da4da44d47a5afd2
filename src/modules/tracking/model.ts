import type { BleReading, DecodedRecord } from '../../lib/tracker-record';
import { joinQueryValue, z } from '../../lib/validation';

/**
 * Live map and route history: schemas, wire types and the status rule. Shared with the web app:
 * no server-only imports here (the one import above is a type and disappears in the bundle).
 */

/** Bits of a stored position's `flags`: the device reported no valid GNSS fix. */
export const FLAG_INVALID_FIX = 1;
/** The fix time lies further ahead of the server clock than the allowed skew (`FIX_FUTURE_SKEW_SECONDS`). */
export const FLAG_FUTURE = 2;
/**
 * The record cannot be a real fix: coordinates outside ±90/±180 or not numbers, a date that does not exist, a time before
 * 2000, or a value no column can hold. Kept with its raw frame for support (stored as not valid), never a fix.
 */
export const FLAG_IMPLAUSIBLE = 4;
/** Records with any of these flags are never a unit's latest position and never part of a trip. */
export const FLAGS_NOT_A_FIX = FLAG_FUTURE | FLAG_IMPLAUSIBLE;
/** No tracker of this product reports a fix from before 2000 (GT06 years are 2000 + a byte, Teltonika's clock starts at GPS lock). */
export const EARLIEST_FIX_MS = Date.UTC(2000, 0, 1);

/**
 * Plausibility per record, before it is stored: a time that is no date (an out-of-range timestamp, a month 13) or lies
 * before 2000, or coordinates outside ±90/±180 (or not numbers) make the record implausible; a time further ahead than
 * the allowed skew makes it a future one; and the device's own "no fix" stays `FLAG_INVALID_FIX`.
 */
export function recordFlags(record: DecodedRecord, now: number, futureSkewMs: number): number {
  let flags = record.valid ? 0 : FLAG_INVALID_FIX;
  const ms = record.time.getTime();
  if (!(ms >= EARLIEST_FIX_MS)) flags |= FLAG_IMPLAUSIBLE;
  else if (ms > now + futureSkewMs) flags |= FLAG_FUTURE;
  if (!(Math.abs(record.latitude) <= 90 && Math.abs(record.longitude) <= 180)) flags |= FLAG_IMPLAUSIBLE;
  return flags;
}

/** A unit that has not been in contact for this long is offline. */
export const OFFLINE_AFTER_MS = 30 * 60 * 1000;
/** Above this speed (km/h), with ignition not off, a unit is moving; otherwise parked. */
export const MOVING_MIN_SPEED_KMH = 3;
/** Spec §5/§9: the map shows history of the last 7 days (today and the six days before), one day at a time. */
export const MAP_HISTORY_DAYS = 7;
/** Live updates are gathered for this long and sent as one message per socket. */
export const LIVE_BATCH_MS = 250;

export const UNIT_STATUSES = ['moving', 'parked', 'offline'] as const;
export type UnitStatus = (typeof UNIT_STATUSES)[number];

/**
 * offline: no contact for 30 min (or never); moving: speed above 3 km/h and ignition not off;
 * parked otherwise. The web app uses the same function to age markers between messages.
 */
export function unitStatus(
  state: { lastSeen: string | Date | null; speed: number | null; ignition: boolean | null },
  now: Date | number,
): UnitStatus {
  if (state.lastSeen === null) return 'offline';
  const nowMs = typeof now === 'number' ? now : now.getTime();
  if (nowMs - new Date(state.lastSeen).getTime() > OFFLINE_AFTER_MS) return 'offline';
  if ((state.speed ?? 0) > MOVING_MIN_SPEED_KMH && state.ignition !== false) return 'moving';
  return 'parked';
}

/** A BLE sensor or beacon value as the unit last reported it (temperature, humidity, door magnet, battery…). */
export type BleValue = BleReading;

/**
 * A unit's latest state, as `GET /api/tracking/units` lists it and every live message carries it.
 * Each item is the whole state of the unit (not a diff): a client replaces what it holds.
 */
export interface LiveState {
  /** Unit id. */
  id: number;
  /** WGS 84, 6 decimals: the last valid fix (null when the unit never had one). */
  lat: number | null;
  lon: number | null;
  /** km/h, 1 decimal. */
  speed: number | null;
  /** Degrees clockwise from north, 0-359; null when unknown. */
  course: number | null;
  ignition: boolean | null;
  /** Whether the newest record had a GNSS fix (false: lat/lon are from an earlier record). */
  valid: boolean | null;
  /** Fix time of the newest record (ISO, UTC). */
  time: string | null;
  /** Last contact of any kind (ISO, UTC). */
  lastSeen: string | null;
  status: UnitStatus;
  /** Total odometer in metres as the tracker counts it. */
  odometerM: number | null;
  /** Volts, 2 decimals. */
  externalVoltageV: number | null;
  din1: boolean | null;
  din2: boolean | null;
  din3: boolean | null;
  dout1: boolean | null;
  dout2: boolean | null;
  dout3: boolean | null;
  /** BLE sensor and beacon values of the newest record; empty when none. */
  ble: BleValue[];
  /** Identified driver (iButton or beacon id) of the newest record. */
  driverId: string | null;
}

/** A list item of `GET /api/tracking/units`: the live state plus what the side panel names and filters by. */
export interface TrackedUnit extends LiveState {
  name: string;
  registrationNumber: string;
  imei: string;
  vehicleType: string;
  /** Spec §3: the unit's marker symbol and colour (#rrggbb) as set on the unit. */
  markerIcon: string;
  color: string;
  /** Spec §4 operating mode the tracker confirmed (24h, 8h, 1h, realtime, theft); null when never set. */
  operatingMode: string | null;
  departmentId: number | null;
  department: string | null;
  /** Tag names, sorted. */
  tags: string[];
  /** The driver checked in on the unit in the trip log (spec §4), by name. */
  driverName: string | null;
}

export interface TrackedUnits {
  /** Server time of the read: pass it as `since` when opening the live socket so nothing falls between. */
  serverTime: string;
  units: TrackedUnit[];
}

/** The columns of one unit in `GET /api/tracking/units`, in order. */
export const UNIT_LIST_FIELDS = [
  'id',
  'name',
  'registrationNumber',
  'imei',
  'vehicleType',
  'markerIcon',
  'color',
  'operatingMode',
  'departmentId',
  'department',
  'tags',
  'lat',
  'lon',
  'speed',
  'course',
  'ignition',
  'valid',
  'time',
  'lastSeen',
  'status',
  'odometerM',
  'externalVoltageV',
  'din1',
  'din2',
  'din3',
  'dout1',
  'dout2',
  'dout3',
  'ble',
  'driverId',
  'driverName',
] as const satisfies ReadonlyArray<keyof TrackedUnit>;
export type UnitListField = (typeof UNIT_LIST_FIELDS)[number];
/** One unit as a row of values in `UNIT_LIST_FIELDS` order. */
type UnitListFields = typeof UNIT_LIST_FIELDS;
export type UnitListRow = { -readonly [I in keyof UnitListFields]: UnitListFields[I] extends keyof TrackedUnit ? TrackedUnit[UnitListFields[I]] : never };

/**
 * `GET /api/tracking/units`: each unit as a row of values, the columns named once in `fields` (as the route
 * history sends positions). A fleet of 20,000 units is then 5 MB of JSON instead of 11 MB of repeated keys,
 * which the server writes and a browser parses two to four times faster. Read it with `decodeUnitList`.
 */
export interface TrackedUnitList {
  serverTime: string;
  fields: readonly UnitListField[];
  units: UnitListRow[];
}

/**
 * One row in `UNIT_LIST_FIELDS` order as a unit. An object literal, not properties set by name in a loop: V8 then
 * builds every unit from one fixed shape, about ten times faster for 20,000 units, and the map reads fast objects
 * (31 properties added by name turned each unit into a slow dictionary object). tracking.test.ts checks the order.
 */
function unitOfRow(row: UnitListRow): TrackedUnit {
  return {
    id: row[0],
    name: row[1],
    registrationNumber: row[2],
    imei: row[3],
    vehicleType: row[4],
    markerIcon: row[5],
    color: row[6],
    operatingMode: row[7],
    departmentId: row[8],
    department: row[9],
    tags: row[10],
    lat: row[11],
    lon: row[12],
    speed: row[13],
    course: row[14],
    ignition: row[15],
    valid: row[16],
    time: row[17],
    lastSeen: row[18],
    status: row[19],
    odometerM: row[20],
    externalVoltageV: row[21],
    din1: row[22],
    din2: row[23],
    din3: row[24],
    dout1: row[25],
    dout2: row[26],
    dout3: row[27],
    // A unit is never without its sensor list: the popup and the panel read it as an array.
    ble: Array.isArray(row[28]) ? row[28] : [],
    driverId: row[29],
    driverName: row[30],
  };
}

/**
 * The list as unit objects. A list whose `fields` differ from this client's (a server of another version) is read
 * column by column by name, so a column added later is simply kept.
 */
export function decodeUnitList(list: TrackedUnitList): TrackedUnits {
  const fields = list.fields;
  if (!Array.isArray(fields) || !Array.isArray(list.units)) throw new TypeError('malformed unit list');
  const known = fields.length === UNIT_LIST_FIELDS.length && fields.every((field, column) => field === UNIT_LIST_FIELDS[column]);
  const units = new Array<TrackedUnit>(list.units.length);
  for (let at = 0; at < list.units.length; at++) {
    const row = list.units[at]!;
    units[at] = known ? unitOfRow(row) : unitByName(fields, row);
  }
  return { serverTime: list.serverTime, units };
}

function unitByName(fields: readonly string[], row: readonly unknown[]): TrackedUnit {
  const unit: Record<string, unknown> = {};
  for (let column = 0; column < fields.length; column++) unit[fields[column]!] = row[column];
  if (!Array.isArray(unit.ble)) unit.ble = [];
  return unit as unknown as TrackedUnit;
}

/** The columns of one history position, in order. */
export const HISTORY_FIELDS = ['t', 'lat', 'lon', 'speed', 'course', 'ignition'] as const;
/** [epoch ms, lat, lon, km/h, course or null, ignition 1/0 or null] */
export type HistoryPoint = [number, number, number, number, number | null, 0 | 1 | null];

export interface HistoryDay {
  unitId: number;
  /** The requested day, YYYY-MM-DD in `timeZone`. */
  date: string;
  timeZone: string;
  /** The day's bounds in UTC: from inclusive, to exclusive (23 or 25 hours on DST change days). */
  from: string;
  to: string;
  fields: typeof HISTORY_FIELDS;
  /** Valid fixes of the day, oldest first. */
  positions: HistoryPoint[];
}

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export const historyQuerySchema = z.object({
  unitId: z.coerce.number().int().positive().max(2_147_483_647),
  date: z.string().trim().min(1, { abort: true }).refine(isCalendarDate, 'tracking.history.dateFormat'),
});
export type HistoryQuery = z.output<typeof historyQuerySchema>;

export const liveQuerySchema = z.object({
  /** The bearer token, for browsers (which cannot set headers on a WebSocket); or send it as a subprotocol. */
  token: z.string().min(1).max(4096).optional(),
  /** Catch-up: first send every unit changed since this time. */
  since: z.iso.datetime({ offset: true }).optional(),
});

export const addressQuerySchema = z.object({
  /** Comma-separated unit ids, at most 100. */
  // The HTTP layer may hand over `1,2,3` already split (an array) or a lone id as a number: join it back.
  unitIds: z.preprocess(
    joinQueryValue,
    z
      .string()
      .trim()
      .regex(/^\d{1,10}(,\d{1,10}){0,99}$/)
      .transform((text) => text.split(',').map(Number)),
  ),
});

/** Server → client messages on `/api/tracking/live` (JSON text frames). */
export type LiveMessage =
  | { type: 'hello'; serverTime: string; batchMs: number; offlineAfterMs: number }
  | { type: 'catchup'; serverTime: string; since: string; units: LiveState[] }
  | { type: 'update'; serverTime: string; units: LiveState[] }
  | { type: 'pong'; serverTime: string }
  /** Which units the user may see changed (spec §6 working hours): read `GET /api/tracking/units` again. */
  | { type: 'reload'; serverTime: string }
  /**
   * The caller's alarms changed (one raised or acknowledged among units the user sees): the bell reads
   * `GET /api/alarms/summary` again. `security` lists units with an open security alarm (they stand out on the map).
   */
  | { type: 'alarms'; serverTime: string; unacknowledged: number; security: number[] };

/** Close codes besides the standard ones (1001: server going away). */
export const LIVE_CLOSE = {
  /** The token is no longer valid (logout, expiry, password reset): log in again. */
  unauthenticated: 4401,
  /** The real-time map was disabled for this user. */
  mapDisabled: 4403,
} as const;

// ---------------------------------------------------------------------------------------------
// Spec §6: locked benefit and private cars on the map.

/** Working hours: per ISO weekday (1 Monday … 7 Sunday) a list of [from, to) in minutes after local midnight. */
export type WeeklyHours = Partial<Record<1 | 2 | 3 | 4 | 5 | 6 | 7, Array<[number, number]>>>;

/** What the map needs to know of one unit to apply §6 to one user. */
export interface UnitAccess {
  /** A benefit or private car locked by its user. */
  locked: boolean;
  /** The user may see the locked unit (the one who locked it, or given access). */
  hasAccess: boolean;
  /** The unit's working hours, when set, in `timeZone`. */
  workingHours: WeeklyHours | null;
  timeZone: string;
}

function weekdayAndMinute(now: Date, timeZone: string): { weekday: 1 | 2 | 3 | 4 | 5 | 6 | 7; minute: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  const weekday = (['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1) as 1 | 2 | 3 | 4 | 5 | 6 | 7;
  return { weekday, minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

export function withinWorkingHours(hours: WeeklyHours, now: Date, timeZone: string): boolean {
  const { weekday, minute } = weekdayAndMinute(now, timeZone);
  return (hours[weekday] ?? []).some(([from, to]) => minute >= from && minute < to);
}

/**
 * Spec §6: a locked benefit or private car is on the map only for users with access to it; an
 * administrator without access sees it only within the unit's working hours when those are set (and
 * always when none are set); other users without access never see it (they get only its benefit value
 * and summary reports).
 */
export function visibleOnMap(access: UnitAccess | undefined, role: string, now: Date): boolean {
  if (!access?.locked || access.hasAccess) return true;
  if (role !== 'admin') return false;
  return access.workingHours === null || withinWorkingHours(access.workingHours, now, access.timeZone);
}
