import type { DecodedRecord, IoValue, NormalizedAlarm, NormalizedIo } from '../../lib/tracker-record';
import { FrameError } from './errors';
import { Gt06Protocol, parsePacket, Reader, toHex } from './packet';

/**
 * GT06 family (Concox / Jimi IoT and clones, 2G and 4G): layouts from the Concox GT06 protocol v1.8 and the JM-VL03
 * (4G) protocol, as summarised in the project's protocol reference. Packets that carry a place (GPS, or only cells and
 * Wi-Fi access points) become records; cells and access points stay in the record's IO, so nothing is lost.
 */

export interface Gt06DecodeOptions {
  /** IMEI from the session's login; records carry it as deviceId ('' before login). */
  imei?: string;
  /** The unit's clock offset from UTC: GT06 clones send local time with no zone marker. Default 0 (UTC). */
  timezoneMinutes?: number;
  /** Time of packets that carry none (LBS alarms, information packets): when the frame arrived. Default now. */
  now?: Date;
  /** The unit's GPS model (`units.model`): some families give alarm codes their own meaning (see MODEL_ALARMS). */
  model?: string | null;
}

/** Terminal information byte of status/alarm packets. */
export interface TerminalInfo {
  armed: boolean;
  accOn: boolean;
  charging: boolean;
  /** Bits 3-5: 0 normal, 1 shock, 2 power cut, 3 low battery, 4 SOS, 6 geofence, 7 removal. */
  alarmBits: number;
  gpsTracking: boolean;
  /** Bit 7: oil/electricity cut, i.e. the relay output is active. */
  relayCut: boolean;
}

interface Base {
  protocol: number;
  serial: number;
}

export type Gt06Message =
  | (Base & { type: 'login'; imei: string; typeId: number | null; timezoneMinutes: number | null })
  | (Base & { type: 'location'; record: DecodedRecord })
  | (Base & {
      type: 'status';
      terminal: TerminalInfo;
      voltageLevel: number;
      gsmLevel: number;
      alarmCode: number;
      language: number | null;
      io: Record<string, IoValue>;
      normalized: NormalizedIo;
    })
  /** A heartbeat that reports an alarm (an alarm code, or SOS, power cut… in its status bits): kept as a record without a fix. */
  | (Base & { type: 'alarm-status'; record: DecodedRecord; terminal: TerminalInfo; alarmCode: number })
  | (Base & { type: 'alarm'; record: DecodedRecord; terminal: TerminalInfo; alarmCode: number })
  /** Cells and/or Wi-Fi access points without a GPS fix. `wifiFormTime`: the BCD time a 0x17/0x69 Wi-Fi-form frame echoes. */
  | (Base & { type: 'lbs'; record: DecodedRecord; wifiFormTime?: Uint8Array })
  | (Base & { type: 'time-request' })
  /** The unit asks for an address to text to `phone`; language 1 Chinese, 2 English, 0 no answer needed. */
  | (Base & { type: 'address-request'; record: DecodedRecord; phone: string; language: number })
  | (Base & { type: 'info'; subtype: number; data: Uint8Array; record: DecodedRecord })
  | (Base & { type: 'command-response'; text: string; serverFlag: number })
  | (Base & { type: 'unknown'; content: Uint8Array });

/**
 * Alarm byte (and, for 0x27/0xA4, the language byte's high nibble as an extension) to normalised alarms. Where the
 * documents disagree, the Concox JM-VL03 table wins (0x09 tow, 0x0C power on, 0x30 harsh braking). Codes that report a
 * state rather than an alarm (GPS blind area, first fix, deep sleep) are not alarms; any other unknown code is 'general'.
 */
const ALARM_CODES = new Map<number, NormalizedAlarm | null>([
  [0x01, 'sos'],
  [0x02, 'powerCut'],
  [0x03, 'vibration'],
  [0x04, 'geofenceEnter'],
  [0x05, 'geofenceExit'],
  [0x06, 'overspeed'],
  [0x09, 'tow'],
  [0x0a, null],
  [0x0b, null],
  [0x0c, 'powerOn'],
  [0x0d, null],
  [0x0e, 'lowBattery'],
  [0x0f, 'lowBattery'],
  [0x10, 'simChanged'],
  [0x11, 'powerOff'],
  [0x12, 'lowBattery'],
  [0x13, 'tamper'],
  [0x14, 'door'],
  [0x15, 'powerOff'],
  [0x16, 'general'],
  [0x17, 'jamming'],
  [0x18, 'tamper'],
  [0x19, 'lowBattery'],
  [0x1a, 'braking'],
  [0x1b, 'cornering'],
  [0x20, null],
  [0x23, 'fall'],
  [0x25, 'tamper'],
  [0x26, 'acceleration'],
  [0x27, 'braking'],
  [0x28, 'braking'],
  [0x29, 'acceleration'],
  [0x2a, 'cornering'],
  [0x2b, 'cornering'],
  [0x2c, 'accident'],
  [0x2e, 'cornering'],
  [0x30, 'braking'],
  [0x32, 'tamper'],
  [0x53, 'fuelLeak'],
  [0x5b, 'temperature'],
  [0x5c, 'temperature'],
  [0xc9, 'idle'],
  [0xf0, 'acceleration'],
  [0xf1, 'braking'],
  [0xf2, 'accident'],
  [0xfe, 'accOn'],
  [0xff, 'accOff'],
  [0x0107, 'jamming'],
  [0x010b, 'jamming'],
]);

/**
 * Alarm codes whose meaning depends on the model family, as traccar's per-model decoding reads them: the unit's GPS model
 * (matched by its start, case-insensitive) picks the variant, the default table covers the rest.
 */
const MODEL_ALARMS: ReadonlyArray<{ prefix: string; codes: ReadonlyMap<number, NormalizedAlarm> }> = [
  { prefix: 'TRX16', codes: new Map([[0x09, 'geofence'], [0x0e, 'lowBattery']]) },
  { prefix: 'LW', codes: new Map([[0x18, 'accident'], [0x19, 'acceleration']]) },
  { prefix: 'SEEWORLD', codes: new Map([[0x28, 'cornering'], [0x29, 'accident']]) },
  { prefix: 'VL', codes: new Map([[0x28, 'powerOff'], [0x30, 'braking']]) },
];

function modelAlarms(model: string | null | undefined): ReadonlyMap<number, NormalizedAlarm> | undefined {
  const name = (model ?? '').toUpperCase();
  return name === '' ? undefined : MODEL_ALARMS.find((variant) => name.startsWith(variant.prefix))?.codes;
}

/** Terminal information bits 3-5. */
const TERMINAL_ALARMS: Record<number, NormalizedAlarm> = { 1: 'vibration', 2: 'powerCut', 3: 'lowBattery', 4: 'sos', 6: 'geofence', 7: 'tamper' };

/** Normalised alarm of an alarm code (for the unit's model, when given); undefined for no alarm or a state report. */
export function alarmName(code: number, model?: string | null): NormalizedAlarm | undefined {
  if (code === 0) return undefined;
  const variant = modelAlarms(model)?.get(code);
  if (variant !== undefined) return variant;
  const known = ALARM_CODES.get(code);
  return known === null ? undefined : (known ?? 'general');
}

export function decodeTerminalInfo(byte: number): TerminalInfo {
  return {
    armed: (byte & 0x01) !== 0,
    accOn: (byte & 0x02) !== 0,
    charging: (byte & 0x04) !== 0,
    alarmBits: (byte >> 3) & 0x07,
    gpsTracking: (byte & 0x40) !== 0,
    relayCut: (byte & 0x80) !== 0,
  };
}

/** 0x17 and 0x69 have a Wi-Fi form without length, serial or CRC (the length byte counts access points). */
export const WIFI_FORM_PROTOCOLS: ReadonlySet<number> = new Set([0x17, 0x69]);

/**
 * Size of a Wi-Fi-form frame at `offset` (78 78 · AP count n · 0x17|0x69 · BCD time 6 · n × (MAC 6, RSSI 1) · cell
 * count m · MCC 2 · MNC 1 · m × (LAC 2, CI 2, RSSI 1) · 0D 0A), null if more bytes are needed.
 */
export function wifiFormSize(bytes: Uint8Array, offset = 0): number | null {
  const cellsAt = offset + 10 + 7 * bytes[offset + 2]!;
  if (bytes.length <= cellsAt) return null;
  return cellsAt - offset + 1 + 3 + 5 * bytes[cellsAt]! + 2;
}

/** Decodes one whole frame (start to 0D0A). Throws FrameError (malformed) or CrcError. */
export function decodeGt06Frame(bytes: Uint8Array, options: Gt06DecodeOptions = {}): Gt06Message {
  const context: Context = { deviceId: options.imei ?? '', tz: options.timezoneMinutes ?? 0, now: options.now ?? new Date(), model: options.model ?? null };
  if (isWifiForm(bytes)) return decodeWifiForm(bytes, context);
  const packet = parsePacket(bytes);
  const { protocol, serial } = packet;
  const r = new Reader(packet.content, `0x${protocol.toString(16).padStart(2, '0')}`);
  switch (protocol) {
    case Gt06Protocol.login:
      return { type: 'login', protocol, serial, ...decodeLogin(r) };
    case Gt06Protocol.gpsLbs:
    case Gt06Protocol.gps:
    case Gt06Protocol.gps4g:
      return { type: 'location', protocol, serial, record: decodeLocation(r, protocol, context) };
    case Gt06Protocol.status:
    case Gt06Protocol.status2:
    {
      const status = decodeStatus(r, protocol, context.model);
      // An alarm must reach the alarm engine, which reads stored records; a plain heartbeat only marks the contact.
      if (status.normalized.alarm === undefined) return { type: 'status', protocol, serial, ...status };
      const record = noFixRecord(context, context.now, status.io, status.normalized);
      return { type: 'alarm-status', protocol, serial, record, terminal: status.terminal, alarmCode: status.alarmCode };
    }
    case Gt06Protocol.alarm:
    case Gt06Protocol.alarm2:
    case Gt06Protocol.fenceAlarm:
    case Gt06Protocol.fenceAlarm4g:
      return { type: 'alarm', protocol, serial, ...decodeAlarm(r, protocol, context) };
    case Gt06Protocol.lbsAlarm:
    case Gt06Protocol.lbsAlarm4g:
      return { type: 'alarm', protocol, serial, ...decodeLbsAlarm(r, protocol, context) };
    case Gt06Protocol.lbsExtend:
    case Gt06Protocol.lbsMultiple:
    case Gt06Protocol.lbsMultiple2:
    case Gt06Protocol.lbsMultiple4g:
    case Gt06Protocol.lbsWifi:
      return { type: 'lbs', protocol, serial, record: decodeMultiCell(r, protocol, context) };
    case Gt06Protocol.lbsWifi4g:
      // Two unrelated layouts share 0xA2; only the 4G LBS + Wi-Fi one (length 0x6B + 7n) is documented well enough.
      if ((packet.content.length - 102) % 7 !== 0 && (packet.content.length - 103) % 7 !== 0) break;
      return { type: 'lbs', protocol, serial, record: decodeMultiCell(r, protocol, context) };
    case Gt06Protocol.timeRequest:
      return { type: 'time-request', protocol, serial };
    case Gt06Protocol.addressRequest:
    case Gt06Protocol.addressRequest2:
    case Gt06Protocol.addressRequest4g:
      return { type: 'address-request', protocol, serial, ...decodeAddressRequest(r, protocol, context) };
    case Gt06Protocol.info:
      return { type: 'info', protocol, serial, ...decodeInfo(r, packet.extended, context) };
    case Gt06Protocol.stringInfo: {
      // cmd length (= 4 + text) · server flag 4 · text [· language 2 on some models]
      const commandLength = r.u8();
      if (commandLength < 4) throw new FrameError('GT06 0x15 command length below 4');
      const serverFlag = r.u32();
      return { type: 'command-response', protocol, serial, serverFlag, text: ascii(r.take(commandLength - 4)) };
    }
    case Gt06Protocol.commandReply: {
      // server flag 4 · encoding 1 (1 ASCII, 2 UTF-16BE) · text
      const serverFlag = r.u32();
      const encoding = r.u8();
      const raw = r.rest();
      return { type: 'command-response', protocol, serial, serverFlag, text: encoding === 2 ? utf16be(raw) : ascii(raw) };
    }
  }
  return { type: 'unknown', protocol, serial, content: packet.content.slice() };
}

interface Context {
  deviceId: string;
  tz: number;
  now: Date;
  model: string | null;
}

function decodeLogin(r: Reader): { imei: string; typeId: number | null; timezoneMinutes: number | null } {
  // Terminal ID is the IMEI as 16 BCD digits with a leading 0.
  const digits = toHex(r.take(8));
  const imei = digits.slice(1);
  if (!/^\d{15}$/.test(imei)) throw new FrameError(`GT06 login terminal id ${digits} is not a BCD IMEI`);
  const typeId = r.remaining >= 2 ? r.u16() : null;
  let timezoneMinutes: number | null = null;
  if (r.remaining >= 2) {
    // Bits 15-4: zone as decimal HHMM; bit 3: west (negative).
    const word = r.u16();
    const hhmm = word >> 4;
    timezoneMinutes = Math.floor(hhmm / 100) * 60 + (hhmm % 100);
    if (word & 0x08) timezoneMinutes = -timezoneMinutes;
  }
  return { imei, typeId, timezoneMinutes };
}

/**
 * Date-time fields as UTC, or an Invalid Date when they name no moment (month 13, 31 April, hour 24): a date never
 * rolls over into another one. The ingest stores such a record flagged as implausible.
 */
export function fieldsToUtc(year: number, month: number, day: number, hour: number, minute: number, second: number, offsetMinutes = 0): Date {
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  const exists =
    check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day && check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute && check.getUTCSeconds() === second;
  // The fields are the unit's local time; subtracting its offset gives UTC.
  return new Date(exists ? ms - offsetMinutes * 60_000 : Number.NaN);
}

/** D6: YY MM DD hh mm ss, binary, year 2000 + YY. */
function readDate(r: Reader, tz: number): Date {
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return fieldsToUtc(2000 + yy, mo, dd, hh, mi, ss, tz);
}

interface GpsBlock {
  time: Date;
  satellites: number;
  latitude: number;
  longitude: number;
  speedKmh: number;
  course: number;
  valid: boolean;
  courseStatus: number;
}

/** datetime 6 · GPS info 1 · lat 4 · lon 4 · speed 1 · course/status 2 (shared by the GPS-bearing packets). */
function readGps(r: Reader, tz: number): GpsBlock {
  const time = readDate(r, tz);
  const gpsInfo = r.u8();
  const latRaw = r.u32();
  const lonRaw = r.u32();
  const speedKmh = r.u8();
  const courseStatus = r.u16();
  // Bit 10 set = north, bit 11 set = west.
  const latitude = ((courseStatus & 0x0400) !== 0 ? 1 : -1) * (latRaw / 1_800_000);
  const longitude = ((courseStatus & 0x0800) !== 0 ? -1 : 1) * (lonRaw / 1_800_000);
  return {
    time,
    // Low nibble = satellites (high nibble is the GPS info length, 12).
    satellites: gpsInfo & 0x0f,
    latitude,
    longitude,
    speedKmh,
    course: courseStatus & 0x03ff,
    valid: (courseStatus & 0x1000) !== 0,
    courseStatus,
  };
}

/** A 64-bit field as a number when exact, else a bigint. */
function u64(r: Reader): number | bigint {
  const high = r.u32();
  const low = r.u32();
  return high < 0x200000 ? high * 0x1_0000_0000 + low : (BigInt(high) << 32n) | BigInt(low);
}

/** MCC word (bit 15 set = 2-byte MNC) · MNC 1|2. */
function readOperator(r: Reader, io: Record<string, IoValue>): void {
  const mccRaw = r.u16();
  io.mcc = mccRaw & 0x7fff;
  io.mnc = mccRaw & 0x8000 ? r.u16() : r.u8();
}

/** One cell: LAC 2 · CI 3 (2G) or LAC 4 · CI 8 (4G), under `prefix`. */
function readCell(r: Reader, io: Record<string, IoValue>, prefix: string, wide: boolean): void {
  io[`${prefix}lac`] = wide ? r.u32() : r.u16();
  io[`${prefix}cellId`] = wide ? u64(r) : r.u24();
}

/** MCC word · MNC · one cell (2G: 8 or 9 bytes, 4G: 15 or 16). */
function readLbs(r: Reader, io: Record<string, IoValue>, wide: boolean): void {
  readOperator(r, io);
  readCell(r, io, '', wide);
}

/** Bit 14 says bit 15 carries ACC; without it the unit does not report ACC here. */
function accFromCourseStatus(courseStatus: number, io: Record<string, IoValue>, normalized: NormalizedIo): void {
  if (courseStatus & 0x4000) {
    const on = (courseStatus & 0x8000) !== 0;
    io.acc = on ? 1 : 0;
    normalized.ignition = on;
  }
}

function gpsRecord(context: Context, gps: GpsBlock, io: Record<string, IoValue>, normalized: NormalizedIo): DecodedRecord {
  return {
    protocol: 'gt06',
    deviceId: context.deviceId,
    time: gps.time,
    latitude: gps.latitude,
    longitude: gps.longitude,
    altitude: null,
    speedKmh: gps.speedKmh,
    course: gps.course,
    satellites: gps.satellites,
    valid: gps.valid,
    priority: 0,
    eventId: null,
    io,
    normalized,
  };
}

/** A record without a GPS fix (cells, access points, information): not valid, at 0/0, so never drawn as a place. */
function noFixRecord(context: Context, time: Date, io: Record<string, IoValue>, normalized: NormalizedIo): DecodedRecord {
  return {
    protocol: 'gt06',
    deviceId: context.deviceId,
    time,
    latitude: 0,
    longitude: 0,
    altitude: null,
    speedKmh: 0,
    course: null,
    satellites: null,
    valid: false,
    priority: 0,
    eventId: null,
    io,
    normalized,
  };
}

/** 0x12 / 0x22: G · 2G cell [· ACC · upload mode · re-upload [· mileage]]; 0xA0 the same with a 4G cell. */
function decodeLocation(r: Reader, protocol: number, context: Context): DecodedRecord {
  const gps = readGps(r, context.tz);
  const io: Record<string, IoValue> = { courseStatus: gps.courseStatus };
  const normalized: NormalizedIo = {};
  accFromCourseStatus(gps.courseStatus, io, normalized);
  const wide = protocol === Gt06Protocol.gps4g;
  // Clones vary in length: read the optional tails only when present.
  if (r.remaining >= (wide ? 15 : 8)) readLbs(r, io, wide);
  if (protocol !== Gt06Protocol.gpsLbs && r.remaining >= 3) {
    const acc = r.u8();
    io.acc = acc;
    normalized.ignition = acc !== 0;
    io.uploadMode = r.u8();
    io.reupload = r.u8();
    if (r.remaining >= 4) {
      const mileage = r.u32();
      io.mileage = mileage;
      normalized.odometerM = mileage;
    }
  }
  return gpsRecord(context, gps, io, normalized);
}

interface StatusBlock {
  terminal: TerminalInfo;
  voltageLevel: number;
  gsmLevel: number;
  alarmCode: number;
  language: number | null;
}

/** Voltage level 0-6 (D18), or a battery percentage 7-100 from firmware that sends one. */
function voltageLevelToIo(level: number, io: Record<string, IoValue>, normalized: NormalizedIo): void {
  io.voltageLevel = level;
  if (level <= 6) normalized.batteryPct = Math.round((level * 100) / 6);
  else if (level <= 100) normalized.batteryPct = level;
}

/** S5: terminal info 1 · voltage level 1 · GSM level 1 · alarm 1 [· language 1]. */
function readStatus(r: Reader, io: Record<string, IoValue>, normalized: NormalizedIo, model: string | null, extendedCode = false): StatusBlock {
  const terminalByte = r.u8();
  const terminal = decodeTerminalInfo(terminalByte);
  const voltageLevel = r.u8();
  const gsmLevel = r.u8();
  let alarmCode = r.remaining >= 1 ? r.u8() : 0;
  const language = r.remaining >= 1 ? r.u8() : null;
  // 0x27 / 0xA4: the language byte's high nibble extends the alarm code (0x12 + 0x07 → 0x0107).
  if (extendedCode && language !== null && language >> 4 !== 0 && alarmCode !== 0) alarmCode |= (language >> 4) << 8;
  io.terminalInfo = terminalByte;
  voltageLevelToIo(voltageLevel, io, normalized);
  io.gsmLevel = gsmLevel;
  io.alarmCode = alarmCode;
  if (language !== null) io.language = language;
  normalized.ignition = terminal.accOn;
  normalized.gsmSignal = gsmLevel;
  normalized.dout1 = terminal.relayCut;
  const alarm = alarmName(alarmCode, model) ?? TERMINAL_ALARMS[terminal.alarmBits];
  if (alarm !== undefined) normalized.alarm = alarm;
  return { terminal, voltageLevel, gsmLevel, alarmCode, language };
}

/**
 * Heartbeats. 0x13 with 5 content bytes (or 4): S5. 0x13 with 16 (OBD-class): info · satellites 2 · alarm · language ·
 * battery % · mode · voltage 2 · … 0x23 (GK310): info · battery voltage 2 (/100 V) · GSM · language 2.
 */
function decodeStatus(r: Reader, protocol: number, model: string | null): StatusBlock & { io: Record<string, IoValue>; normalized: NormalizedIo } {
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  if (protocol === Gt06Protocol.status2) {
    const terminalByte = r.u8();
    const terminal = decodeTerminalInfo(terminalByte);
    io.terminalInfo = terminalByte;
    normalized.ignition = terminal.accOn;
    let gsmLevel = 0;
    if (r.remaining >= 3) {
      normalized.batteryVoltageV = r.u16() / 100;
      gsmLevel = r.u8();
      normalized.gsmSignal = gsmLevel;
    }
    return { terminal, voltageLevel: 0, gsmLevel, alarmCode: 0, language: null, io, normalized };
  }
  if (r.remaining >= 11) {
    const terminalByte = r.u8();
    const terminal = decodeTerminalInfo(terminalByte);
    io.terminalInfo = terminalByte;
    normalized.ignition = terminal.accOn;
    io.satellites = r.u16();
    const alarmCode = r.u8();
    io.alarmCode = alarmCode;
    const language = r.u8();
    const batteryPct = r.u8();
    normalized.batteryPct = batteryPct;
    io.mode = r.u8();
    io.workingVoltage = r.u16();
    const alarm = alarmName(alarmCode, model) ?? TERMINAL_ALARMS[terminal.alarmBits];
    if (alarm !== undefined) normalized.alarm = alarm;
    return { terminal, voltageLevel: batteryPct, gsmLevel: 0, alarmCode, language, io, normalized };
  }
  return { ...readStatus(r, io, normalized, model), io, normalized };
}

/** Sizes of the cell block after an LBS length byte: 2G (1- or 2-byte MNC), 4G likewise, or none. */
const LBS_BLOCK_SIZES = new Set([0, 8, 9, 15, 16]);

interface AlarmLayout {
  /** An LBS length byte precedes the cell. */
  lengthByte: boolean;
  /** Bytes of the cell block (MCC word · MNC · LAC · CI). */
  cell: number;
  /** Zero bytes after an LBS length of 0. */
  padding: number;
  /** A 4-byte mileage follows the status block. */
  mileage: boolean;
}

/**
 * Where the cell block and status lie in an alarm packet, from the bytes between the GPS block and the status block:
 * a length byte and a cell of a known size (2G 8/9, 4G 15/16, or none); that plus a 4-byte mileage after the status
 * (0x26 firmware); a cell without a length byte (VXT-01 class); or a zero length followed by zero padding.
 */
function alarmLayout(between: number, fence: boolean, lengthByte: number | undefined): AlarmLayout | null {
  if (between >= 1 && LBS_BLOCK_SIZES.has(between - 1)) return { lengthByte: true, cell: between - 1, padding: 0, mileage: false };
  if (!fence && between >= 5 && LBS_BLOCK_SIZES.has(between - 5)) return { lengthByte: true, cell: between - 5, padding: 0, mileage: true };
  if (between === 8 || between === 9) return { lengthByte: false, cell: between, padding: 0, mileage: false };
  if (between >= 1 && lengthByte === 0) return { lengthByte: true, cell: 0, padding: between - 1, mileage: false };
  return null;
}

/**
 * 0x16 / 0x26: G · LBS length · cell · S5 [· mileage]; 0x27 / 0xA4 add a fence number after S5. Firmware differs in
 * whether the LBS length byte counts itself (VL103, G18 and SEEWORLD-class units send 8 for an 8-byte cell), so the
 * status block is found from the packet's own length, never from that byte: the cell block is what lies between.
 */
function decodeAlarm(r: Reader, protocol: number, context: Context): { record: DecodedRecord; terminal: TerminalInfo; alarmCode: number } {
  const gps = readGps(r, context.tz);
  const io: Record<string, IoValue> = { courseStatus: gps.courseStatus };
  const normalized: NormalizedIo = {};
  accFromCourseStatus(gps.courseStatus, io, normalized);
  const fence = protocol === Gt06Protocol.fenceAlarm || protocol === Gt06Protocol.fenceAlarm4g;
  const layout = alarmLayout(r.remaining - 5 - (fence ? 1 : 0), fence, r.peek());
  if (!layout) throw new FrameError(`GT06 alarm 0x${protocol.toString(16)} of ${r.remaining + 18} bytes has no known layout`);
  if (layout.lengthByte) io.lbsLength = r.u8();
  if (layout.cell > 0) readLbs(new Reader(r.take(layout.cell), 'alarm LBS'), io, layout.cell >= 15);
  r.take(layout.padding);
  const status = readStatus(r, io, normalized, context.model, fence);
  if (fence) {
    const number = r.u8();
    io.fence = number;
    if (number !== 0xff) normalized.geofence = number;
  }
  if (layout.mileage) {
    const metres = r.u32();
    io.mileage = metres;
    normalized.odometerM = metres;
  }
  return { record: gpsRecord(context, gps, io, normalized), terminal: status.terminal, alarmCode: status.alarmCode };
}

/** 0x19 / 0xA5: a cell (2G / 4G, no length byte) and S5; no time of its own. */
function decodeLbsAlarm(r: Reader, protocol: number, context: Context): { record: DecodedRecord; terminal: TerminalInfo; alarmCode: number } {
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  readLbs(r, io, protocol === Gt06Protocol.lbsAlarm4g);
  const status = readStatus(r, io, normalized, context.model);
  return { record: noFixRecord(context, context.now, io, normalized), terminal: status.terminal, alarmCode: status.alarmCode };
}

/**
 * Multi-cell LBS: D6 · MCC word · MNC · 7 cells (serving first; 2G LAC 2 · CI 3 · RSSI 1, 4G LAC 4 · CI 8 · RSSI 1;
 * empty slots zero) · timing advance, then language 2 (0x18, 0x28, 0x2E, 0xA1) or Wi-Fi count n · n × (MAC 6 · RSSI 1)
 * (0x2C, 0xA2). Cells are `lac`, `cellId`, `rssi` for the serving one and `cellN.` for the others, as OsmAnd's.
 */
function decodeMultiCell(r: Reader, protocol: number, context: Context): DecodedRecord {
  const time = readDate(r, context.tz);
  const io: Record<string, IoValue> = {};
  readOperator(r, io);
  const wide = protocol === Gt06Protocol.lbsMultiple4g || protocol === Gt06Protocol.lbsWifi4g;
  let index = 0;
  for (let slot = 1; slot <= 7; slot++) {
    const cell: Record<string, IoValue> = {};
    readCell(r, cell, '', wide);
    const rssi = r.u8();
    if (cell.lac === 0 && cell.cellId === 0) continue;
    index += 1;
    const prefix = index === 1 ? '' : `cell${index}.`;
    io[`${prefix}lac`] = cell.lac!;
    io[`${prefix}cellId`] = cell.cellId!;
    io[`${prefix}rssi`] = rssi;
  }
  io.timingAdvance = r.u8();
  if (protocol === Gt06Protocol.lbsWifi || protocol === Gt06Protocol.lbsWifi4g) {
    const count = r.u8();
    for (let i = 1; i <= count; i++) readAccessPoint(r, io, i);
  } else if (r.remaining >= 2) {
    io.language = r.u16();
  }
  return noFixRecord(context, time, io, {});
}

function readAccessPoint(r: Reader, io: Record<string, IoValue>, index: number): void {
  io[`wifi${index}.mac`] = r.take(6).slice();
  io[`wifi${index}.rssi`] = r.u8();
}

function isWifiForm(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || bytes[0] !== 0x78 || bytes[1] !== 0x78 || !WIFI_FORM_PROTOCOLS.has(bytes[3]!)) return false;
  return wifiFormSize(bytes) === bytes.length && bytes[bytes.length - 2] === 0x0d && bytes[bytes.length - 1] === 0x0a;
}

function bcd(byte: number): number {
  const high = byte >> 4;
  const low = byte & 0x0f;
  return high > 9 || low > 9 ? Number.NaN : high * 10 + low;
}

/** 0x17 / 0x69 Wi-Fi form: BCD time (UTC) · access points · cells (LAC 2 · CI 2 · RSSI 1). No serial, no CRC. */
function decodeWifiForm(bytes: Uint8Array, context: Context): Gt06Message {
  const protocol = bytes[3]!;
  const r = new Reader(bytes.subarray(4, bytes.length - 2), `0x${protocol.toString(16)} Wi-Fi`);
  const timeBytes = r.take(6).slice();
  const [yy, mo, dd, hh, mi, ss] = Array.from(timeBytes, bcd) as [number, number, number, number, number, number];
  const time = fieldsToUtc(2000 + yy, mo, dd, hh, mi, ss);
  const io: Record<string, IoValue> = {};
  for (let i = 1; i <= bytes[2]!; i++) readAccessPoint(r, io, i);
  const cells = r.u8();
  io.mcc = r.u16();
  io.mnc = r.u8();
  for (let i = 1; i <= cells; i++) {
    const prefix = i === 1 ? '' : `cell${i}.`;
    io[`${prefix}lac`] = r.u16();
    io[`${prefix}cellId`] = r.u16();
    io[`${prefix}rssi`] = r.u8();
  }
  return { type: 'lbs', protocol, serial: 0, record: noFixRecord(context, time, io, {}), wifiFormTime: timeBytes };
}

/**
 * Address requests: 0x1A (G · phone 21 · language 2), 0x2A (G · phone 21 · alarm · language), 0xA7 (4G cell · phone
 * 21 · alarm · language). The position is a record like any other; the reply carries the address text.
 */
function decodeAddressRequest(r: Reader, protocol: number, context: Context): { record: DecodedRecord; phone: string; language: number } {
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  let record: DecodedRecord;
  if (protocol === Gt06Protocol.addressRequest4g) {
    const block = r.remaining - 21 - 2;
    readLbs(new Reader(r.take(block), 'address LBS'), io, true);
    record = noFixRecord(context, context.now, io, normalized);
  } else {
    const gps = readGps(r, context.tz);
    io.courseStatus = gps.courseStatus;
    record = gpsRecord(context, gps, io, normalized);
  }
  const phone = ascii(r.take(21));
  let language: number;
  if (protocol === Gt06Protocol.addressRequest) {
    language = r.u16();
  } else {
    const alarmCode = r.u8();
    io.alarmCode = alarmCode;
    const alarm = alarmName(alarmCode, context.model);
    if (alarm !== undefined) normalized.alarm = alarm;
    language = r.u8();
  }
  io.language = language;
  return { record, phone, language };
}

/**
 * 0x94 information: sub-type · data. 0x00 external voltage (/100 V), 0x04 status sync (ASCII KEY=VALUE;), 0x05 door
 * (bit 0 door open, bit 1 trigger level, bit 2 I/O level; a D6 time may precede it), 0x0A IMEI · IMSI · ICCID (BCD),
 * 0x0B network (1 byte: 0 2G, else 4G) or external voltage (2 bytes), 0x1B RFID/iButton (ASCII text, or header ·
 * type · id 4 · checksum · footer), 0x1E temperature and humidity (int32 /10 each). A short 78 78 form without a
 * sub-type carries only the external voltage. Kept as a record without a fix at the time it arrived.
 */
function decodeInfo(r: Reader, extended: boolean, context: Context): { subtype: number; data: Uint8Array; record: DecodedRecord } {
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  let time = context.now;
  if (!extended && r.remaining === 2) {
    const data = r.rest().slice();
    normalized.externalVoltageV = ((data[0]! << 8) | data[1]!) / 100;
    io.externalVoltage = (data[0]! << 8) | data[1]!;
    return { subtype: -1, data, record: noFixRecord(context, time, io, normalized) };
  }
  const subtype = r.u8();
  const data = r.rest().slice();
  const d = new Reader(data, `0x94/0x${subtype.toString(16)}`);
  io.infoType = subtype;
  switch (subtype) {
    case 0x00:
      io.externalVoltage = d.u16();
      normalized.externalVoltageV = Number(io.externalVoltage) / 100;
      break;
    case 0x04:
      io.statusSync = data;
      break;
    case 0x05: {
      if (data.length >= 7) time = readDate(d, context.tz);
      const door = d.u8();
      io.door = door & 0x01;
      io.doorTriggerLevel = (door >> 1) & 0x01;
      io.ioLevel = (door >> 2) & 0x01;
      break;
    }
    case 0x0a:
      // IMEI 8 · IMSI 8 · ICCID 10, all BCD (leading 0 / trailing F are padding); kept as the bytes.
      io.imei = d.take(8).slice();
      io.imsi = d.take(8).slice();
      io.iccid = d.take(10).slice();
      break;
    case 0x0b:
      if (data.length === 1) io.network = d.u8();
      else {
        io.externalVoltage = d.u16();
        normalized.externalVoltageV = Number(io.externalVoltage) / 100;
      }
      break;
    case 0x1b:
      if (data.length > 0 && ((data[0]! >= 0x41 && data[0]! <= 0x5a) || (data[0]! >= 0x61 && data[0]! <= 0x7a))) {
        const text = ascii(data).trim();
        io.rfid = data;
        normalized.driverId = text.replace(/^RFID:/i, '');
      } else {
        d.u8();
        io.rfidType = d.u8();
        normalized.driverId = toHex(d.take(4));
      }
      break;
    case 0x1e: {
      const values = d.take(8);
      const view = new DataView(values.buffer, values.byteOffset, 8);
      io.temperature = view.getInt32(0) / 10;
      io.humidity = view.getInt32(4) / 10;
      break;
    }
    default:
      io.info = data;
  }
  return { subtype, data, record: noFixRecord(context, time, io, normalized) };
}

function ascii(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes).replace(/\0+$/, '');
}

function utf16be(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
  return out.replace(/\0+$/, '');
}
