import type { DecodedRecord, IoValue, NormalizedIo } from '../types';
import { FrameError } from './errors';
import { Gt06Protocol, parsePacket, Reader, toHex } from './packet';

export interface Gt06DecodeOptions {
  /** IMEI from the session's login; records carry it as deviceId ('' before login). */
  imei?: string;
  /** The unit's clock offset from UTC: GT06 clones send local time with no zone marker. Default 0 (UTC). */
  timezoneMinutes?: number;
}

/** Terminal information byte of status/alarm packets. */
export interface TerminalInfo {
  armed: boolean;
  accOn: boolean;
  charging: boolean;
  /** Bits 3-5: 0 normal, 1 shock, 2 power cut, 3 low battery, 4 SOS. */
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
  | (Base & { type: 'alarm'; record: DecodedRecord; terminal: TerminalInfo; alarmCode: number })
  | (Base & {
      type: 'info';
      subtype: number;
      data: Uint8Array;
      imei?: string;
      imsi?: string;
      iccid?: string;
      externalVoltageV?: number;
    })
  | (Base & { type: 'command-response'; text: string; serverFlag: number })
  | (Base & { type: 'unknown'; content: Uint8Array });

/** Alarm byte of 0x16/0x26 (and 0x13) packets, traccar's mapping; many codes are model-specific. */
const ALARM_CODES = new Map<number, string>([
  [0x01, 'sos'],
  [0x02, 'powerCut'],
  [0x03, 'vibration'],
  [0x04, 'geofenceEnter'],
  [0x05, 'geofenceExit'],
  [0x06, 'overspeed'],
  [0x0e, 'lowBattery'],
  [0x0f, 'lowBattery'],
  [0x11, 'powerOff'],
  [0x13, 'tampering'],
  [0x14, 'door'],
  [0x26, 'hardAcceleration'],
  [0x27, 'hardBraking'],
  [0x2a, 'hardCornering'],
  [0x2c, 'accident'],
]);

const TERMINAL_ALARMS: Record<number, string> = { 1: 'vibration', 2: 'powerCut', 3: 'lowBattery', 4: 'sos' };

/** Alarm name for an alarm byte; unknown non-zero codes still signal an alarm. */
export function alarmName(code: number): string | undefined {
  if (code === 0) return undefined;
  return ALARM_CODES.get(code) ?? 'general';
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

/** Decodes one whole frame (start to 0D0A). Throws FrameError (malformed) or CrcError. */
export function decodeGt06Frame(bytes: Uint8Array, options: Gt06DecodeOptions = {}): Gt06Message {
  const packet = parsePacket(bytes);
  const { protocol, serial } = packet;
  const deviceId = options.imei ?? '';
  const tz = options.timezoneMinutes ?? 0;
  const r = new Reader(packet.content, `0x${protocol.toString(16).padStart(2, '0')}`);
  switch (protocol) {
    case Gt06Protocol.login:
      return { type: 'login', protocol, serial, ...decodeLogin(r) };
    case Gt06Protocol.gpsLbs:
    case Gt06Protocol.gps:
      return { type: 'location', protocol, serial, record: decodeLocation(r, protocol, deviceId, tz) };
    case Gt06Protocol.status:
      return { type: 'status', protocol, serial, ...decodeStatus(r) };
    case Gt06Protocol.alarm:
    case Gt06Protocol.alarm2:
      return { type: 'alarm', protocol, serial, ...decodeAlarm(r, deviceId, tz) };
    case Gt06Protocol.info:
      return { type: 'info', protocol, serial, ...decodeInfo(r) };
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
    default:
      return { type: 'unknown', protocol, serial, content: packet.content.slice() };
  }
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

/** datetime 6 · GPS info 1 · lat 4 · lon 4 · speed 1 · course/status 2 (shared by 0x12/0x22/0x16/0x26). */
function readGps(r: Reader, timezoneMinutes: number): GpsBlock {
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  // The fields are the unit's local time; subtracting its offset gives UTC.
  const time = new Date(Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss) - timezoneMinutes * 60_000);
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

/** MCC 2 (bit 15 set = 2-byte MNC) · MNC 1|2 · LAC 2 · cell 3. */
function readLbs(r: Reader, io: Record<string, IoValue>): void {
  const mccRaw = r.u16();
  io.mcc = mccRaw & 0x7fff;
  io.mnc = mccRaw & 0x8000 ? r.u16() : r.u8();
  io.lac = r.u16();
  io.cellId = r.u24();
}

/** Bit 14 says bit 15 carries ACC; without it the unit does not report ACC here. */
function accFromCourseStatus(courseStatus: number, io: Record<string, IoValue>, normalized: NormalizedIo): void {
  if (courseStatus & 0x4000) {
    const on = (courseStatus & 0x8000) !== 0;
    io.acc = on ? 1 : 0;
    normalized.ignition = on;
  }
}

function record(deviceId: string, gps: GpsBlock, io: Record<string, IoValue>, normalized: NormalizedIo): DecodedRecord {
  return {
    protocol: 'gt06',
    deviceId,
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

function decodeLocation(r: Reader, protocol: number, deviceId: string, tz: number): DecodedRecord {
  const gps = readGps(r, tz);
  const io: Record<string, IoValue> = { courseStatus: gps.courseStatus };
  const normalized: NormalizedIo = {};
  accFromCourseStatus(gps.courseStatus, io, normalized);
  // Clones vary in length: read the optional tails only when present.
  if (r.remaining >= 8) readLbs(r, io);
  if (protocol === Gt06Protocol.gps && r.remaining >= 3) {
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
  return record(deviceId, gps, io, normalized);
}

interface StatusBlock {
  terminal: TerminalInfo;
  voltageLevel: number;
  gsmLevel: number;
  alarmCode: number;
  language: number | null;
}

/** terminal info 1 · voltage level 1 · GSM level 1 · alarm 1 [· language 1]. */
function readStatus(r: Reader, io: Record<string, IoValue>, normalized: NormalizedIo): StatusBlock {
  const terminalByte = r.u8();
  const terminal = decodeTerminalInfo(terminalByte);
  const voltageLevel = r.u8();
  const gsmLevel = r.u8();
  const alarmCode = r.remaining >= 1 ? r.u8() : 0;
  const language = r.remaining >= 1 ? r.u8() : null;
  io.terminalInfo = terminalByte;
  io.voltageLevel = voltageLevel;
  io.gsmLevel = gsmLevel;
  io.alarmCode = alarmCode;
  if (language !== null) io.language = language;
  normalized.ignition = terminal.accOn;
  normalized.gsmSignal = gsmLevel;
  normalized.dout1 = terminal.relayCut;
  const alarm = alarmName(alarmCode) ?? TERMINAL_ALARMS[terminal.alarmBits];
  if (alarm !== undefined) normalized.alarm = alarm;
  return { terminal, voltageLevel, gsmLevel, alarmCode, language };
}

function decodeStatus(r: Reader): StatusBlock & { io: Record<string, IoValue>; normalized: NormalizedIo } {
  const io: Record<string, IoValue> = {};
  const normalized: NormalizedIo = {};
  return { ...readStatus(r, io, normalized), io, normalized };
}

function decodeAlarm(r: Reader, deviceId: string, tz: number): { record: DecodedRecord; terminal: TerminalInfo; alarmCode: number } {
  const gps = readGps(r, tz);
  const io: Record<string, IoValue> = { courseStatus: gps.courseStatus };
  const normalized: NormalizedIo = {};
  accFromCourseStatus(gps.courseStatus, io, normalized);
  // The LBS length byte counts itself; use it to find the status block even if the LBS layout differs.
  const lbsLength = r.u8();
  if (lbsLength > 1) {
    const lbs = new Reader(r.take(lbsLength - 1), 'alarm LBS');
    if (lbs.remaining >= 8) readLbs(lbs, io);
  }
  const status = readStatus(r, io, normalized);
  return { record: record(deviceId, gps, io, normalized), terminal: status.terminal, alarmCode: status.alarmCode };
}

function decodeInfo(r: Reader): { subtype: number; data: Uint8Array; imei?: string; imsi?: string; iccid?: string; externalVoltageV?: number } {
  const subtype = r.u8();
  const data = r.rest().slice();
  if (subtype === 0x00 && data.length >= 2) {
    // External power in 1/100 V.
    return { subtype, data, externalVoltageV: ((data[0]! << 8) | data[1]!) / 100 };
  }
  if (subtype === 0x0a && data.length >= 26) {
    // IMEI 8 · IMSI 8 · ICCID 10, all BCD; leading 0 / trailing F are padding.
    return {
      subtype,
      data,
      imei: toHex(data.subarray(0, 8)).replace(/^0/, ''),
      imsi: toHex(data.subarray(8, 16)).replace(/^0/, ''),
      iccid: toHex(data.subarray(16, 26)).replace(/F+$/, ''),
    };
  }
  return { subtype, data };
}

function ascii(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes).replace(/\0+$/, '');
}

function utf16be(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
  return out.replace(/\0+$/, '');
}
