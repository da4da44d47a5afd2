import type { Gt06Message, TerminalInfo } from './decoder';
import { buildPacket, Gt06Protocol } from './packet';

/** Server acknowledgement: 78 78 05 <protocol> <serial echo> <crc> 0D 0A. */
export function encodeReply(protocolNumber: number, serial: number): Uint8Array {
  return buildPacket(protocolNumber, new Uint8Array(0), serial);
}

/** Answer to the time request 0x8A: the current UTC time as D6, the request's serial echoed (JM-VL03). */
export function encodeTimeReply(now: Date, serial: number): Uint8Array {
  const w = new Writer();
  writeDate(w, now);
  return buildPacket(Gt06Protocol.timeRequest, w.done(), serial);
}

export interface Gt06AddressReplyValues {
  /** 1 Chinese form (0x17, 78 78), otherwise the English form (0x97, 79 79). */
  language: number;
  address: string;
  /** The number the unit texts the address to, as the request named it. */
  phone: string;
  serial: number;
  serverFlag?: number;
}

/**
 * Address reply (GT06 v1.8, JM-VL03): command length (1 byte in the Chinese form, 2 in the English) = 4 + text ·
 * server flag 4 · `ADDRESS&&` · address in UTF-16BE · `&&` · phone 21 (ASCII, 0-padded) · `##`.
 */
export function encodeAddressReply(values: Gt06AddressReplyValues): Uint8Array {
  const text = new Writer();
  text.bytes(new TextEncoder().encode('ADDRESS&&'));
  for (const char of values.address) {
    const code = char.charCodeAt(0);
    text.u16(code);
  }
  text.bytes(new TextEncoder().encode('&&'));
  const phone = new Uint8Array(21);
  phone.set(new TextEncoder().encode(values.phone).subarray(0, 21));
  text.bytes(phone);
  text.bytes(new TextEncoder().encode('##'));
  const body = text.done();
  const w = new Writer();
  const chinese = values.language === 1;
  if (chinese) w.u8(4 + body.length);
  else w.u16(4 + body.length);
  w.u32(values.serverFlag ?? 1);
  w.bytes(body);
  return chinese
    ? buildPacket(Gt06Protocol.addressReplyChinese, w.done(), values.serial)
    : buildPacket(Gt06Protocol.addressReplyEnglish, w.done(), values.serial, true);
}

/** Reply to a 0x17/0x69 Wi-Fi-form frame: `78 78 00 <protocol> <its 6 BCD time bytes> 0D 0A`, no serial, no CRC. */
export function encodeWifiFormReply(protocol: number, bcdTime: Uint8Array): Uint8Array {
  return Uint8Array.from([0x78, 0x78, 0x00, protocol, ...bcdTime, 0x0d, 0x0a]);
}

/**
 * What the server answers to a decoded message, or null for none. Records are answered only once stored (the caller
 * sends this after the commit). The information packet 0x94 and command answers get no reply (GT06 v1.8, JM-VL03); an
 * address request gets an address (the fix's coordinates; a cell-only request cannot be placed), so the unit stops
 * asking; a request whose language byte is 0 needs no answer and gets the plain acknowledgement.
 */
export function replyTo(message: Gt06Message, now: Date): Uint8Array | null {
  switch (message.type) {
    case 'info':
    case 'command-response':
      return null;
    case 'time-request':
      return encodeTimeReply(now, message.serial);
    case 'lbs':
      return message.wifiFormTime ? encodeWifiFormReply(message.protocol, message.wifiFormTime) : encodeReply(message.protocol, message.serial);
    case 'address-request': {
      if (message.language === 0) return encodeReply(message.protocol, message.serial);
      const { record } = message;
      const address = record.valid ? `${record.latitude.toFixed(6)},${record.longitude.toFixed(6)}` : 'Position unknown';
      return encodeAddressReply({ language: message.language, address, phone: message.phone, serial: message.serial });
    }
    default:
      return encodeReply(message.protocol, message.serial);
  }
}

/** Longest ASCII command that still fits a 1-byte frame length (1 proto + 1 len + 4 flag + n + 4 ≤ 255). */
const MAX_COMMAND_BYTES = 245;

/** Server command 0x80: cmd length (4 + n) · server flag 4 · ASCII text, e.g. `Relay,1#`. */
export function encodeCommand(text: string, serial: number, serverFlag = 0): Uint8Array {
  const ascii = new TextEncoder().encode(text);
  if (ascii.length > MAX_COMMAND_BYTES) throw new RangeError(`GT06 command of ${ascii.length} bytes exceeds ${MAX_COMMAND_BYTES}`);
  const w = new Writer();
  w.u8(4 + ascii.length);
  w.u32(serverFlag);
  w.bytes(ascii);
  return buildPacket(Gt06Protocol.command, w.done(), serial);
}

export interface Gt06LoginValues {
  imei: string;
  serial: number;
  /** Adds the newer-firmware extension (type id + time zone word). */
  typeId?: number;
  timezoneMinutes?: number;
}

export function encodeLogin(values: Gt06LoginValues): Uint8Array {
  if (!/^\d{15}$/.test(values.imei)) throw new RangeError(`IMEI must be 15 digits: ${values.imei}`);
  const w = new Writer();
  w.bytes(Buffer.from(`0${values.imei}`, 'hex'));
  if (values.typeId !== undefined || values.timezoneMinutes !== undefined) {
    w.u16(values.typeId ?? 0);
    const tz = values.timezoneMinutes ?? 0;
    const abs = Math.abs(tz);
    const hhmm = Math.floor(abs / 60) * 100 + (abs % 60);
    w.u16((hhmm << 4) | (tz < 0 ? 0x08 : 0));
  }
  return buildPacket(Gt06Protocol.login, w.done(), values.serial);
}

export interface Gt06FixValues {
  serial: number;
  /** UTC fix time; written as the unit's local time using timezoneMinutes. */
  time: Date;
  timezoneMinutes?: number;
  latitude: number;
  longitude: number;
  speedKmh: number;
  course: number;
  satellites: number;
  valid: boolean;
  mcc?: number;
  mnc?: number;
  lac?: number;
  cellId?: number;
}

export interface Gt06LocationValues extends Gt06FixValues {
  protocol?: typeof Gt06Protocol.gpsLbs | typeof Gt06Protocol.gps;
  /** 0x12: course/status bits 14-15; 0x22: the ACC byte (absent = 0). */
  acc?: boolean;
  uploadMode?: number;
  reupload?: boolean;
  /** 0x22 only: optional trailing mileage in metres. */
  mileage?: number;
}

export function encodeLocation(values: Gt06LocationValues): Uint8Array {
  const protocol = values.protocol ?? Gt06Protocol.gpsLbs;
  const w = new Writer();
  writeGps(w, values, protocol === Gt06Protocol.gpsLbs ? values.acc : undefined);
  writeLbs(w, values);
  if (protocol === Gt06Protocol.gps) {
    w.u8(values.acc ? 1 : 0);
    w.u8(values.uploadMode ?? 0);
    w.u8(values.reupload ? 1 : 0);
    if (values.mileage !== undefined) w.u32(values.mileage);
  }
  return buildPacket(protocol, w.done(), values.serial);
}

export interface Gt06StatusValues {
  serial: number;
  terminal: Partial<TerminalInfo>;
  voltageLevel: number;
  gsmLevel: number;
  alarmCode?: number;
  /** 0x01 Chinese, 0x02 English. */
  language?: number;
}

export function encodeTerminalInfo(t: Partial<TerminalInfo>): number {
  return (
    (t.armed ? 0x01 : 0) |
    (t.accOn ? 0x02 : 0) |
    (t.charging ? 0x04 : 0) |
    (((t.alarmBits ?? 0) & 0x07) << 3) |
    (t.gpsTracking ? 0x40 : 0) |
    (t.relayCut ? 0x80 : 0)
  );
}

export function encodeStatus(values: Gt06StatusValues): Uint8Array {
  const w = new Writer();
  writeStatus(w, values);
  return buildPacket(Gt06Protocol.status, w.done(), values.serial);
}

export interface Gt06AlarmValues extends Gt06FixValues, Omit<Gt06StatusValues, 'serial'> {
  protocol?: typeof Gt06Protocol.alarm | typeof Gt06Protocol.alarm2;
}

export function encodeAlarm(values: Gt06AlarmValues): Uint8Array {
  const w = new Writer();
  writeGps(w, values, undefined);
  const lbs = new Writer();
  writeLbs(lbs, values);
  const lbsBytes = lbs.done();
  w.u8(lbsBytes.length + 1);
  w.bytes(lbsBytes);
  writeStatus(w, values);
  return buildPacket(values.protocol ?? Gt06Protocol.alarm, w.done(), values.serial);
}

/** D6 of a moment as UTC fields (year − 2000). */
function writeDate(w: Writer, time: Date): void {
  w.u8(time.getUTCFullYear() - 2000);
  w.u8(time.getUTCMonth() + 1);
  w.u8(time.getUTCDate());
  w.u8(time.getUTCHours());
  w.u8(time.getUTCMinutes());
  w.u8(time.getUTCSeconds());
}

function writeGps(w: Writer, v: Gt06FixValues, acc: boolean | undefined): void {
  writeDate(w, new Date(v.time.getTime() + (v.timezoneMinutes ?? 0) * 60_000));
  w.u8(0xc0 | clamp(v.satellites, 0, 15));
  w.u32(Math.round(Math.abs(v.latitude) * 1_800_000));
  w.u32(Math.round(Math.abs(v.longitude) * 1_800_000));
  w.u8(clamp(v.speedKmh, 0, 255));
  let courseStatus = ((Math.round(v.course) % 360) + 360) % 360;
  if (v.latitude >= 0) courseStatus |= 0x0400;
  if (v.longitude < 0) courseStatus |= 0x0800;
  if (v.valid) courseStatus |= 0x1000;
  if (acc !== undefined) courseStatus |= 0x4000 | (acc ? 0x8000 : 0);
  w.u16(courseStatus);
}

function writeLbs(w: Writer, v: Gt06FixValues): void {
  const mnc = v.mnc ?? 0;
  // An MNC above 255 needs the 2-byte form, flagged by MCC bit 15.
  w.u16((v.mcc ?? 0) | (mnc > 0xff ? 0x8000 : 0));
  if (mnc > 0xff) w.u16(mnc);
  else w.u8(mnc);
  w.u16(v.lac ?? 0);
  w.u24(v.cellId ?? 0);
}

function writeStatus(w: Writer, v: Omit<Gt06StatusValues, 'serial'>): void {
  w.u8(encodeTerminalInfo(v.terminal));
  w.u8(v.voltageLevel);
  w.u8(v.gsmLevel);
  w.u8(v.alarmCode ?? 0);
  w.u8(v.language ?? 0x02);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}

class Writer {
  private readonly out: number[] = [];
  u8(v: number): void {
    this.out.push(v & 0xff);
  }
  u16(v: number): void {
    this.u8(v >>> 8);
    this.u8(v);
  }
  u24(v: number): void {
    this.u8(v >>> 16);
    this.u16(v);
  }
  u32(v: number): void {
    this.u16(Math.floor(v / 0x10000));
    this.u16(v);
  }
  bytes(b: Uint8Array): void {
    for (const byte of b) this.out.push(byte);
  }
  done(): Uint8Array {
    return Uint8Array.from(this.out);
  }
}
