/**
 * Structured decoding of the Teltonika BLE NX lists (protocols.md §7). These never throw: a list that
 * does not parse yields the readings decoded before the fault (the raw bytes stay in the record's io).
 */
import type { BleReading } from '../../lib/tracker-record';
import { latin1, toHex } from './bytes';

/** TLV parameter ids inside IO 548 / 10828 / 10829 / 10831 / 11317 entries. */
export const BleParam = {
  rssi: 0,
  beaconId: 1,
  beaconData: 2,
  name: 5,
  temperature: 6,
  humidity: 7,
  magnet: 8,
  movement: 9,
  movementCount: 10,
  pitch: 11,
  roll: 12,
  lowBattery: 13,
  batteryMv: 14,
  mac: 15,
} as const;

const i8 = (b: number) => (b & 0x80 ? b - 0x100 : b);
const u16 = (d: Uint8Array, at: number) => (d[at]! << 8) | d[at + 1]!;
const i16 = (d: Uint8Array, at: number) => {
  const v = u16(d, at);
  return v & 0x8000 ? v - 0x10000 : v;
};

/** Hundredths as a decimal number without binary noise (2703 → 27.03). */
const centi = (v: number) => Math.round(v) / 100;

/**
 * TLV list: `header u8`, then entries `{ len u8, params… }`, each param `{ id u8, len u8, value }`.
 * One BleReading per entry; unknown params are skipped.
 */
export function decodeBleTlvList(data: Uint8Array): BleReading[] {
  const readings: BleReading[] = [];
  let at = 1; // header / data part
  while (at < data.length) {
    const entryLength = data[at]!;
    const start = at + 1;
    const end = start + entryLength;
    if (end > data.length) break;
    const reading: BleReading = {};
    let p = start;
    while (p + 2 <= end) {
      const id = data[p]!;
      const length = data[p + 1]!;
      const value = data.subarray(p + 2, p + 2 + length);
      p += 2 + length;
      if (p > end) break;
      applyParam(reading, id, value);
    }
    if (Object.keys(reading).length > 0) readings.push(reading);
    at = end;
  }
  return readings;
}

function applyParam(r: BleReading, id: number, v: Uint8Array): void {
  switch (id) {
    case BleParam.rssi:
      if (v.length === 1) r.rssi = i8(v[0]!);
      break;
    case BleParam.beaconId:
      if (v.length > 0) r.beaconId = toHex(v);
      break;
    case BleParam.beaconData:
      Object.assign(r, decodeEyeBeaconData(v) ?? {});
      break;
    case BleParam.name: {
      const name = latin1(v).replace(/\0+$/, '').trim();
      if (name) r.name = name;
      break;
    }
    case BleParam.temperature:
      if (v.length === 2) r.temperatureC = centi(i16(v, 0));
      break;
    case BleParam.humidity:
      if (v.length === 1) r.humidityPct = v[0]!;
      break;
    case BleParam.magnet:
      if (v.length === 1) r.magnet = v[0] !== 0;
      break;
    case BleParam.movement:
      if (v.length === 1) r.moving = v[0] !== 0;
      break;
    case BleParam.movementCount:
      if (v.length === 2) r.movementCount = u16(v, 0);
      break;
    case BleParam.lowBattery:
      if (v.length === 1) r.lowBattery = v[0] !== 0;
      break;
    case BleParam.batteryMv:
      if (v.length === 2) r.batteryMv = u16(v, 0);
      break;
    case BleParam.mac:
      if (v.length === 6) r.mac = toHex(v);
      break;
    default:
      break; // pitch/roll and unknown params: kept only in the raw bytes
  }
}

/**
 * EYE Sensor advertising payload (TLV param 2): `flags u8`, then in flag-bit order: bit0 temperature i16
 * (0.01 °C), bit1 humidity u8 (%), bit2 magnet sensor present (no data), bit3 magnet detected (no data),
 * bit4 movement u16 (bit15 moving, bits 0-14 count), bit5 pitch i8 + roll i16, bit6 low battery (no data),
 * bit7 battery u8 (2000 + 10·b mV). Returns null when the length disagrees with the flags (not EYE data).
 */
export function decodeEyeBeaconData(data: Uint8Array): Partial<BleReading> | null {
  if (data.length < 1) return null;
  const flags = data[0]!;
  const expected = 1 + (flags & 0x01 ? 2 : 0) + (flags & 0x02 ? 1 : 0) + (flags & 0x10 ? 2 : 0) + (flags & 0x20 ? 3 : 0) + (flags & 0x80 ? 1 : 0);
  if (data.length !== expected) return null;
  const out: Partial<BleReading> = {};
  let at = 1;
  if (flags & 0x01) {
    out.temperatureC = centi(i16(data, at));
    at += 2;
  }
  if (flags & 0x02) out.humidityPct = data[at++]!;
  if (flags & 0x04) out.magnet = (flags & 0x08) !== 0;
  if (flags & 0x10) {
    const movement = u16(data, at);
    out.moving = (movement & 0x8000) !== 0;
    out.movementCount = movement & 0x7fff;
    at += 2;
  }
  if (flags & 0x20) at += 3; // pitch i8, roll i16
  out.lowBattery = (flags & 0x40) !== 0;
  if (flags & 0x80) out.batteryMv = 2000 + 10 * data[at]!;
  return out;
}

/**
 * Beacon list, simple mode (IO 385): `data part u8`, then per beacon `flags u8` (high nibble ≠ 0: iBeacon
 * UUID+major+minor, 20 B; else Eddystone namespace+instance, 16 B), ID, `rssi i8`, [battery u16, 0.01 V,
 * if flag bit 1], [temperature u16, if flag bit 2 – unit undocumented, not mapped].
 */
export function decodeSimpleBeaconList(data: Uint8Array): BleReading[] {
  const readings: BleReading[] = [];
  let at = 1;
  while (at < data.length) {
    const flags = data[at]!;
    const idLength = flags >> 4 ? 20 : 16;
    const size = 1 + idLength + 1 + (flags & 0x02 ? 2 : 0) + (flags & 0x04 ? 2 : 0);
    if (at + size > data.length) break;
    let p = at + 1;
    const reading: BleReading = { beaconId: toHex(data.subarray(p, p + idLength)) };
    p += idLength;
    reading.rssi = i8(data[p++]!);
    if (flags & 0x02) {
      reading.batteryMv = u16(data, p) * 10;
      p += 2;
    }
    readings.push(reading);
    at += size;
  }
  return readings;
}
