import type { DecodedRecord, IoValue, NormalizedIo } from '../../lib/tracker-record';

/** A request the decoder refuses; `status` is the HTTP status to answer with. */
export class OsmandError extends Error {
  override name = 'OsmandError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface OsmandRequest {
  method: string;
  /** Absolute URL or path with query string. */
  url: string;
  contentType: string;
  body: string;
  /** Server time for reports without a timestamp; defaults to now. */
  now?: Date;
}

export interface OsmandDecoded {
  deviceId: string;
  records: DecodedRecord[];
  /** True when some record had no coordinates (latitude/longitude NaN): the caller reuses the last fix. */
  missingPosition: boolean;
}

const KNOTS_TO_KMH = 1.852;
const MPS_TO_KMH = 3.6;

/**
 * Decodes an OsmAnd / Traccar Client request in any of its three encodings (query string, form body, JSON body).
 * A value that is no number is refused (400); a coordinate that is a number but outside ±90/±180 is decoded as it
 * came, so the ingest stores it with its raw frame flagged implausible, as for every protocol.
 */
export function decodeOsmand(request: OsmandRequest): OsmandDecoded {
  const now = request.now ?? new Date();
  let url: URL;
  try {
    url = new URL(request.url, 'http://localhost');
  } catch {
    throw new OsmandError(400, 'Malformed URL');
  }
  const hasQuery = [...url.searchParams.keys()].length > 0;
  const body = request.body.trim();
  const json = request.contentType.toLowerCase().includes('json') || (!hasQuery && body.startsWith('{'));
  if (json) return decodeJson(body, now);
  // Old clients put the params in the URL even on POST; newer ones send a form body with a bare URL.
  const params = hasQuery ? url.searchParams : new URLSearchParams(body);
  return decodeParams(params, now);
}

function decodeParams(params: URLSearchParams, now: Date): OsmandDecoded {
  const deviceId = (params.get('id') ?? params.get('deviceid') ?? '').trim();
  if (!deviceId) throw new OsmandError(400, 'Missing device id');
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  let time = now;
  let latitude = Number.NaN;
  let longitude = Number.NaN;
  let speedKmh = 0;
  let course: number | null = null;
  let altitude: number | null = null;
  let valid: boolean | null = null;
  let cells = 0;
  let wifis = 0;
  for (const [key, value] of params) {
    switch (key) {
      case 'id':
      case 'deviceid':
        break;
      case 'timestamp':
        time = parseTimestamp(value);
        break;
      case 'lat':
        latitude = parseNumber(key, value);
        break;
      case 'lon':
        longitude = parseNumber(key, value);
        break;
      case 'location': {
        const [lat, lon, extra] = value.split(',');
        if (lat === undefined || lon === undefined || extra !== undefined) throw new OsmandError(400, 'Malformed location');
        latitude = parseNumber('lat', lat);
        longitude = parseNumber('lon', lon);
        break;
      }
      case 'speed':
        // Knots: the OsmAnd / Traccar Client default.
        speedKmh = Math.max(0, parseNumber(key, value)) * KNOTS_TO_KMH;
        break;
      case 'bearing':
      case 'heading':
        course = parseCourse(parseNumber(key, value));
        break;
      case 'altitude':
        altitude = parseNumber(key, value);
        break;
      case 'accuracy':
      case 'hdop':
        io[key] = parseNumber(key, value);
        break;
      case 'batt':
        normalized.batteryPct = parseNumber(key, value);
        break;
      case 'charge':
        io.charge = parseBoolean(key, value) ? 1 : 0;
        break;
      case 'valid':
        valid = parseBoolean(key, value);
        break;
      case 'ignition':
        normalized.ignition = parseBoolean(key, value);
        break;
      case 'is_moving':
        normalized.movement = parseBoolean(key, value);
        break;
      case 'odometer':
        normalized.odometerM = parseNumber(key, value);
        break;
      case 'driverUniqueId':
        if (value) normalized.driverId = value;
        break;
      case 'cell':
        cells += 1;
        parseCell(value, cells, io);
        break;
      case 'wifi':
        wifis += 1;
        parseWifi(value, wifis, io);
        break;
      default:
        io[key] = attributeValue(value);
    }
  }
  const hasFix = !Number.isNaN(latitude) && !Number.isNaN(longitude);
  const record: DecodedRecord = {
    protocol: 'osmand',
    deviceId,
    time,
    latitude: hasFix ? latitude : Number.NaN,
    longitude: hasFix ? longitude : Number.NaN,
    altitude,
    speedKmh,
    course,
    satellites: null,
    valid: hasFix && (valid ?? true),
    priority: 0,
    eventId: null,
    io,
    normalized,
  };
  return { deviceId, records: [record], missingPosition: !hasFix };
}

function decodeJson(body: string, now: Date): OsmandDecoded {
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch {
    throw new OsmandError(400, 'Malformed JSON');
  }
  if (!isObject(root)) throw new OsmandError(400, 'JSON body must be an object');
  const rawId = root.device_id ?? root.id ?? root.deviceid;
  const deviceId = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId).trim() : '';
  if (!deviceId) throw new OsmandError(400, 'Missing device id');
  // The SDK sends one location; tolerate a batch array as well.
  const locations = Array.isArray(root.location) ? root.location : [root.location];
  if (locations.length === 0) throw new OsmandError(400, 'Missing location');
  const records = locations.map((location) => decodeJsonLocation(location, deviceId, now));
  return { deviceId, records, missingPosition: records.some((r) => Number.isNaN(r.latitude)) };
}

function decodeJsonLocation(location: unknown, deviceId: string, now: Date): DecodedRecord {
  if (!isObject(location)) throw new OsmandError(400, 'Missing location');
  const coords = isObject(location.coords) ? location.coords : {};
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  const latitude = jsonNumber('latitude', coords.latitude) ?? Number.NaN;
  const longitude = jsonNumber('longitude', coords.longitude) ?? Number.NaN;
  const hasFix = !Number.isNaN(latitude) && !Number.isNaN(longitude);

  let time = now;
  if (typeof location.timestamp === 'string') time = parseTimestamp(location.timestamp);
  else if (typeof location.timestamp === 'number') time = parseTimestamp(String(location.timestamp));
  else if (location.timestamp !== undefined) throw new OsmandError(400, 'Malformed timestamp');

  // m/s; negative means unknown.
  const speed = jsonNumber('speed', coords.speed);
  const heading = jsonNumber('heading', coords.heading);
  const altitude = jsonNumber('altitude', coords.altitude);
  const accuracy = jsonNumber('accuracy', coords.accuracy);
  if (accuracy !== null) io.accuracy = accuracy;

  const odometer = jsonNumber('odometer', location.odometer);
  if (odometer !== null) normalized.odometerM = odometer;
  if (typeof location.is_moving === 'boolean') normalized.movement = location.is_moving;
  if (typeof location.event === 'string') io.event = attributeValue(location.event);
  if (typeof location.mock === 'boolean') io.mock = location.mock ? 1 : 0;
  if (isObject(location.activity) && typeof location.activity.type === 'string') io.activity = attributeValue(location.activity.type);
  if (isObject(location.battery)) {
    const level = jsonNumber('battery.level', location.battery.level);
    // 0..1, −1 when unknown.
    if (level !== null && level >= 0) normalized.batteryPct = Math.round(level * 1000) / 10;
    if (typeof location.battery.is_charging === 'boolean') io.charge = location.battery.is_charging ? 1 : 0;
  }
  if (isObject(location.extras)) {
    for (const [key, value] of Object.entries(location.extras)) {
      if (typeof value === 'number' && Number.isFinite(value)) io[key] = value;
      else if (typeof value === 'boolean') io[key] = value ? 1 : 0;
      else if (typeof value === 'string') io[key] = attributeValue(value);
    }
    if (typeof location.extras.ignition === 'boolean') normalized.ignition = location.extras.ignition;
    if (typeof location.extras.driverUniqueId === 'string') normalized.driverId = location.extras.driverUniqueId;
  }
  return {
    protocol: 'osmand',
    deviceId,
    time,
    latitude,
    longitude,
    altitude,
    speedKmh: speed !== null && speed > 0 ? speed * MPS_TO_KMH : 0,
    course: heading === null ? null : parseCourse(heading),
    satellites: null,
    valid: hasFix,
    priority: 0,
    eventId: null,
    io,
    normalized,
  };
}

/** UNIX seconds (ms when ≥ 2^31), ISO-8601, or `yyyy-MM-dd HH:mm:ss` (UTC). */
export function parseTimestamp(value: string): Date {
  const text = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    ms = n >= 2 ** 31 ? n : n * 1000;
  } else {
    const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?$/.exec(text);
    if (local) {
      // No zone given: traccar reads it as UTC, and a server's local zone must not leak in.
      const [y, mo, d, h, mi, s] = local.slice(1, 7).map(Number) as [number, number, number, number, number, number];
      ms = Date.UTC(y, mo - 1, d, h, mi, s, Math.round(Number(local[7] ?? 0) * 1000));
      const check = new Date(ms);
      if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) ms = Number.NaN;
    } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
      ms = Date.parse(text);
    } else {
      ms = Number.NaN;
    }
  }
  if (!Number.isFinite(ms)) throw new OsmandError(400, `Malformed timestamp: ${value}`);
  return new Date(Math.round(ms));
}

function parseNumber(key: string, value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n)) throw new OsmandError(400, `Malformed ${key}: ${value}`);
  return n;
}

function parseBoolean(key: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new OsmandError(400, `Malformed ${key}: ${value}`);
}

/** Negative bearings mean unknown; others are folded into 0-360. */
function parseCourse(n: number): number | null {
  return n < 0 ? null : n % 360;
}

/** `mcc,mnc,lac,cid[,rssi]`; the first cell uses the same keys as GT06, later ones are numbered. */
function parseCell(value: string, index: number, io: Record<string, IoValue>): void {
  const parts = value.split(',');
  if (parts.length < 4 || parts.length > 5) throw new OsmandError(400, `Malformed cell: ${value}`);
  const [mcc, mnc, lac, cellId, rssi] = parts.map((p) => parseNumber('cell', p));
  const prefix = index === 1 ? '' : `cell${index}.`;
  io[`${prefix}mcc`] = mcc!;
  io[`${prefix}mnc`] = mnc!;
  io[`${prefix}lac`] = lac!;
  io[`${prefix}cellId`] = cellId!;
  if (rssi !== undefined) io[`${prefix}rssi`] = rssi;
}

/** `mac,rssi`, mac with `:` or `-`; stored as 6 bytes so it renders as 12 hex characters. */
function parseWifi(value: string, index: number, io: Record<string, IoValue>): void {
  const [mac, rssi, extra] = value.split(',');
  const hex = (mac ?? '').replace(/[-:]/g, '');
  if (!/^[0-9a-fA-F]{12}$/.test(hex) || rssi === undefined || extra !== undefined) throw new OsmandError(400, `Malformed wifi: ${value}`);
  io[`wifi${index}.mac`] = Uint8Array.from(Buffer.from(hex, 'hex'));
  io[`wifi${index}.rssi`] = parseNumber('wifi', rssi);
}

/** The IO map holds numbers or bytes: booleans become 1/0, numbers stay numbers, text is kept as UTF-8 bytes. */
function attributeValue(value: string): IoValue {
  const v = value.trim();
  if (v === 'true') return 1;
  if (v === 'false') return 0;
  if (/^-?\d+(\.\d+)?$/.test(v) && Number.isFinite(Number(v))) return Number(v);
  return new TextEncoder().encode(value);
}

function jsonNumber(key: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new OsmandError(400, `Malformed ${key}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
