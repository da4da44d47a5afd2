/**
 * Trip detection from the command line: prints each detected trip as one JSON line.
 *
 *   bun run trips --file <drive.csv|drive.gpx>
 *   bun run trips --unit <imei> --from <iso> --to <iso>
 *
 * --file reads a recorded drive:
 *   - CSV (`,`, `;` or tab separated, RFC 4180 quoting) with a header naming at least `time` (ISO 8601 with
 *     offset or Z), `lat` and `lon`; optionally `speed` (km/h), `ignition` (0/1) and `odometer` (metres).
 *     Aliases: timestamp/datetime, latitude, lng/longitude, speed_kmh, ign, odometer_m.
 *   - GPX 1.0/1.1 track points (`<trkpt lat lon>` with `<time>`; speed in m/s from `<speed>` or an
 *     extension such as `gpxtpx:speed` when present).
 *   Without a speed, it is derived from consecutive fixes. The default detection settings apply.
 * --unit reads the unit's stored positions from the configured database (DATABASE_URL, else the embedded one
 *   under DATA_DIR) with that unit's own detection settings.
 *
 * Both run the detector of the live path (src/modules/trips/detector.ts). Exit codes: 0 ok, 1 bad input or
 * unknown IMEI, 2 usage.
 */
import { readFileSync } from 'node:fs';
import { distanceM } from '../src/lib/geocoding/distance';
import { DEFAULT_DETECTION_PARAMS, type DetectedTrip, type DetectionParams, type DetectorPosition, detectTrips } from '../src/modules/trips/detector';

const USAGE = `usage:
  bun run trips --file <drive.csv|drive.gpx>
  bun run trips --unit <imei> --from <iso> --to <iso>`;

export class InputError extends Error {}

/** One trip as the CLI prints it. */
export interface TripLine {
  start: string;
  stop: string;
  startLat: number;
  startLon: number;
  stopLat: number;
  stopLon: number;
  distanceM: number;
  durationS: number;
  detection: DetectedTrip['mode'];
  odometerSource: DetectedTrip['odometerSource'];
  maxSpeedKmh: number;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export function tripLine(trip: DetectedTrip): TripLine {
  return {
    start: new Date(trip.start.t).toISOString(),
    stop: new Date(trip.stop.t).toISOString(),
    startLat: round6(trip.start.lat),
    startLon: round6(trip.start.lon),
    stopLat: round6(trip.stop.lat),
    stopLon: round6(trip.stop.lon),
    distanceM: Math.round(trip.distanceM),
    durationS: Math.round((trip.stop.t - trip.start.t) / 1000),
    detection: trip.mode,
    odometerSource: trip.odometerSource,
    maxSpeedKmh: Math.round(trip.maxSpeedKmh * 10) / 10,
  };
}

// --- Reading drives ---------------------------------------------------------------------------------------

/** ISO 8601 with a date, a time and an offset (or Z): a bare local time would be ambiguous. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

function parseTime(value: string, where: string): number {
  const text = value.trim();
  const t = ISO_TIME.test(text) ? Date.parse(text.replace(' ', 'T')) : Number.NaN;
  if (!Number.isFinite(t)) throw new InputError(`${where}: time "${value}" is not an ISO 8601 date and time with an offset (e.g. 2026-03-01T08:00:00Z)`);
  return t;
}

function parseCoordinate(value: string | undefined, limit: number, name: string, where: string): number {
  const number = Number((value ?? '').trim().replace(',', '.'));
  if ((value ?? '').trim() === '' || !Number.isFinite(number) || Math.abs(number) > limit) {
    throw new InputError(`${where}: ${name} "${value ?? ''}" is not a number between -${limit} and ${limit}`);
  }
  return number;
}

function optionalNumber(value: string | undefined, name: string, where: string, min = 0): number | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  const number = Number(text.replace(',', '.'));
  if (!Number.isFinite(number) || number < min) throw new InputError(`${where}: ${name} "${value}" is not a number ≥ ${min}`);
  return number;
}

function parseIgnition(value: string | undefined, where: string): boolean | null {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '') return null;
  if (text === '1' || text === 'true' || text === 'on') return true;
  if (text === '0' || text === 'false' || text === 'off') return false;
  throw new InputError(`${where}: ignition "${value}" is not 0 or 1`);
}

/** Fills speeds a source did not report from the distance and time to the previous fix. */
function deriveSpeeds(points: Array<Omit<DetectorPosition, 'speedKmh'> & { speedKmh: number | null }>): DetectorPosition[] {
  const sorted = [...points].sort((a, b) => a.t - b.t);
  return sorted.map((point, index) => {
    if (point.speedKmh !== null) return { ...point, speedKmh: point.speedKmh };
    const previous = sorted[index - 1];
    const seconds = previous ? (point.t - previous.t) / 1000 : 0;
    const speedKmh = previous && seconds > 0 ? (distanceM(previous.lat, previous.lon, point.lat, point.lon) / seconds) * 3.6 : 0;
    return { ...point, speedKmh };
  });
}

function splitCsvLine(line: string, separator: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === separator) {
      fields.push(field);
      field = '';
    } else field += char;
  }
  if (quoted) throw new InputError('unterminated quoted field');
  fields.push(field);
  return fields;
}

const HEADER_ALIASES: Record<string, string[]> = {
  time: ['time', 'timestamp', 'datetime', 'date_time', 'fixtime', 'fix_time'],
  lat: ['lat', 'latitude'],
  lon: ['lon', 'lng', 'long', 'longitude'],
  speed: ['speed', 'speed_kmh', 'speedkmh', 'speed_km_h', 'speed(km/h)'],
  ignition: ['ignition', 'ign', 'ignition_on'],
  odometer: ['odometer', 'odometer_m', 'odometerm', 'odometer(m)'],
};

export function parseDriveCsv(text: string): DetectorPosition[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((line) => line.trim() !== '');
  if (headerIndex < 0) throw new InputError('the file is empty');
  const headerLine = lines[headerIndex]!;
  const separator = [',', ';', '\t'].map((s) => [s, headerLine.split(s).length] as const).sort((a, b) => b[1] - a[1])[0]![0];
  const header = splitCsvLine(headerLine, separator).map((name) => name.trim().toLowerCase().replace(/\s+/g, '_'));
  const column: Record<string, number> = {};
  for (const [key, aliases] of Object.entries(HEADER_ALIASES)) {
    const index = header.findIndex((name) => aliases.includes(name));
    if (index >= 0) column[key] = index;
  }
  const missing = ['time', 'lat', 'lon'].filter((key) => column[key] === undefined);
  if (missing.length > 0) {
    throw new InputError(`line ${headerIndex + 1}: the header must name ${missing.join(', ')} (found: ${header.join(', ') || 'nothing'})`);
  }
  const points: Parameters<typeof deriveSpeeds>[0] = [];
  for (let index = headerIndex + 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const where = `line ${index + 1}`;
    let fields: string[];
    try {
      fields = splitCsvLine(line, separator);
    } catch (error) {
      throw new InputError(`${where}: ${(error as Error).message}`);
    }
    if (fields.length < header.length) throw new InputError(`${where}: ${fields.length} fields, the header has ${header.length}`);
    const get = (key: string) => (column[key] === undefined ? undefined : fields[column[key]!]);
    points.push({
      t: parseTime(get('time') ?? '', where),
      lat: parseCoordinate(get('lat'), 90, 'lat', where),
      lon: parseCoordinate(get('lon'), 180, 'lon', where),
      speedKmh: optionalNumber(get('speed'), 'speed', where),
      valid: true,
      ignition: parseIgnition(get('ignition'), where),
      odometerM: optionalNumber(get('odometer'), 'odometer', where),
      driverKey: null,
      harsh: null,
    });
  }
  if (points.length === 0) throw new InputError('no positions after the header');
  return deriveSpeeds(points);
}

const decodeXml = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function parseGpx(text: string): DetectorPosition[] {
  if (!/<gpx[\s>]/.test(text)) throw new InputError('not a GPX file: no <gpx> element');
  if (!/<\/gpx>\s*$/.test(text)) throw new InputError('not a complete GPX file: it does not end with </gpx>');
  const points: Parameters<typeof deriveSpeeds>[0] = [];
  const pattern = /<trkpt\b([^>]*?)(\/>|>([\s\S]*?)<\/trkpt>)/g;
  for (const match of text.matchAll(pattern)) {
    const where = `line ${lineOf(text, match.index)}`;
    const attributes = match[1]!;
    const body = match[3] ?? '';
    const attribute = (name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes);
    const lat = attribute('lat');
    const lon = attribute('lon');
    const time = /<time>\s*([^<]*?)\s*<\/time>/.exec(body)?.[1];
    if (!time) throw new InputError(`${where}: a track point without <time>`);
    // GPX 1.0 <speed> and the common extensions (gpxtpx:speed, OsmAnd's <speed>) are metres per second.
    const speed = /<(?:[\w-]+:)?speed>\s*([^<]*?)\s*<\/(?:[\w-]+:)?speed>/.exec(body)?.[1];
    const speedMs = optionalNumber(speed === undefined ? undefined : decodeXml(speed), 'speed', where);
    points.push({
      t: parseTime(decodeXml(time), where),
      lat: parseCoordinate(lat?.[1] ?? lat?.[2], 90, 'lat', where),
      lon: parseCoordinate(lon?.[1] ?? lon?.[2], 180, 'lon', where),
      speedKmh: speedMs === null ? null : speedMs * 3.6,
      valid: true,
      ignition: null,
      odometerM: null,
      driverKey: null,
      harsh: null,
    });
  }
  if (points.length === 0) throw new InputError('no track points (<trkpt>) in the GPX file');
  return deriveSpeeds(points);
}

/** A drive file by its extension, else by its content. */
export function readDrive(path: string): DetectorPosition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const gpx = path.toLowerCase().endsWith('.gpx') || (!path.toLowerCase().endsWith('.csv') && /^\s*(<\?xml|<gpx)/.test(text));
  return gpx ? parseGpx(text) : parseDriveCsv(text);
}

// --- Command line ---------------------------------------------------------------------------------------

type Command =
  | { kind: 'file'; path: string }
  | { kind: 'unit'; imei: string; from: number; to: number }
  | { kind: 'usage'; code: number; message: string };

export function parseCommand(argv: string[]): Command {
  const options: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--help' || argument === '-h') return { kind: 'usage', code: 0, message: USAGE };
    if (!argument.startsWith('--')) return { kind: 'usage', code: 2, message: `unexpected argument "${argument}"\n${USAGE}` };
    const [name, inline] = argument.slice(2).split('=', 2) as [string, string | undefined];
    const value = inline ?? argv[index + 1];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) return { kind: 'usage', code: 2, message: `--${name} needs a value\n${USAGE}` };
    if (inline === undefined) index += 1;
    options[name] = value;
  }
  if (options.file !== undefined) {
    if (Object.keys(options).length > 1) return { kind: 'usage', code: 2, message: `--file takes no other options\n${USAGE}` };
    return { kind: 'file', path: options.file };
  }
  if (options.unit !== undefined) {
    if (!/^\d{15}$/.test(options.unit)) return { kind: 'usage', code: 2, message: `--unit must be a 15-digit IMEI, got "${options.unit}"` };
    if (options.from === undefined || options.to === undefined) return { kind: 'usage', code: 2, message: `--unit needs --from and --to\n${USAGE}` };
    const bound = (value: string) => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : ISO_TIME.test(value) ? Date.parse(value) : Number.NaN);
    const from = bound(options.from);
    const to = bound(options.to);
    if (!Number.isFinite(from) || !Number.isFinite(to)) {
      return { kind: 'usage', code: 2, message: '--from and --to must be ISO 8601 dates (UTC days) or date-times with an offset' };
    }
    if (to <= from) return { kind: 'usage', code: 2, message: '--to must be after --from' };
    return { kind: 'unit', imei: options.unit, from, to };
  }
  return { kind: 'usage', code: 2, message: USAGE };
}

/** The embedded database belongs to one process at a time (as in scripts/stock.ts): is a portal using it? */
async function embeddedDatabaseBusy(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await response.json()) as { data?: { database?: string } };
    return body.data?.database === 'pglite';
  } catch {
    return false;
  }
}

/** The unit's positions in [from, to) and its detection settings, from the configured database. */
async function unitDrive(imei: string, from: number, to: number): Promise<{ positions: DetectorPosition[]; params: DetectionParams }> {
  const { loadConfig } = await import('../src/lib/config');
  const { openDatabase } = await import('../src/bootstrap');
  const { migrate } = await import('../src/lib/db/migrate');
  const { loadPositions, paramsOf } = await import('../src/modules/trips/detection');
  const config = loadConfig();
  if (!config.DATABASE_URL && (await embeddedDatabaseBusy(config.PORT))) {
    throw new InputError(`the portal is running on the embedded database (port ${config.PORT}); stop it first, or read the trips through GET /api/trips`);
  }
  const database = await openDatabase(config);
  try {
    await migrate(database);
    const [unit] = await database.query<{ id: number }>('SELECT id FROM units WHERE imei = $1', [imei]);
    if (!unit) throw new InputError(`unknown IMEI ${imei}: no unit has it in this database`);
    const [settings] = await database.query<Record<string, unknown>>('SELECT * FROM trip_unit_settings WHERE unit_id = $1', [unit.id]);
    const positions: DetectorPosition[] = [];
    for await (const slice of loadPositions(database.query, unit.id, { t: from, inclusive: true }, to - 1)) positions.push(...slice);
    return { positions, params: settings ? paramsOf(settings) : DEFAULT_DETECTION_PARAMS };
  } finally {
    await database.close();
  }
}

export async function run(argv: string[], print: (line: string) => void, printError: (line: string) => void): Promise<number> {
  const command = parseCommand(argv);
  if (command.kind === 'usage') {
    (command.code === 0 ? print : printError)(command.message);
    return command.code;
  }
  try {
    let trips: DetectedTrip[];
    if (command.kind === 'file') trips = detectTrips(readDrive(command.path), DEFAULT_DETECTION_PARAMS);
    else {
      const { positions, params } = await unitDrive(command.imei, command.from, command.to);
      // A trip still running at the end of the period (by the clock now) is not a finished trip yet.
      trips = detectTrips(positions, params, Math.min(Date.now(), command.to));
    }
    for (const trip of trips) print(JSON.stringify(tripLine(trip)));
    return 0;
  } catch (error) {
    if (error instanceof InputError) {
      printError(command.kind === 'file' ? `${command.path}: ${error.message}` : error.message);
      return 1;
    }
    printError(`trips failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) {
  process.exit(await run(process.argv.slice(2), console.log, console.error));
}
