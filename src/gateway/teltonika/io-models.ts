/**
 * Per-device-model IO dictionaries (protocols.md §2, cross-checked with traccar and the wiki AVL ID dump)
 * and `normalize`, which turns a record's raw IO map into the protocol-independent NormalizedIo.
 * IO ids are not global: FMB/FMC/FMM/FMU/FMT/MTB/FMP… share the "FMBXXX" table, FMB640/FMC640/FMC650/
 * FMM640/FMM650 ("FMX6") number many things differently. Raw IO is always stored, so a corrected table
 * can re-normalise old records.
 */
import type { BleReading, GreenDrivingType, IoValue, NormalizedAlarm, NormalizedIo } from '../../lib/tracker-record';
import { decodeBleTlvList, decodeSimpleBeaconList } from './ble';

export type IoFamily = 'fmb' | 'fmx6';
export type IoWidth = 1 | 2 | 4 | 8;

/** Four fixed BLE sensor slots, slot n at index n-1; null = not reported by this family. */
type Slots = readonly [number, number, number, number];

export interface IoModelTable {
  family: IoFamily;
  ignition: number | null;
  movement: number | null;
  /** Total odometer, metres. */
  totalOdometer: number | null;
  /** Trip odometer, metres (raw only: NormalizedIo has no trip field). */
  tripOdometer: number | null;
  /** mV. */
  externalVoltage: number | null;
  /** mV. */
  batteryVoltage: number | null;
  /** %. */
  batteryLevel: number | null;
  din: readonly [number | null, number | null, number | null];
  dout: readonly [number | null, number | null, number | null];
  /** 0-5. */
  gsmSignal: number | null;
  /** 8-byte iButton id, 0 = no key. */
  iButton: number | null;
  /** GNSS status IO and the values that mean "fix". */
  gnssStatus: { id: number; fix: readonly number[] } | null;
  greenDriving: { type: number; value: number; durationMs: number } | null;
  /** Ignition-on seconds counter. */
  engineSeconds: number | null;
  /** Eventual IOs that raise NormalizedIo.alarm when they are the record's event and non-zero. */
  alarms: ReadonlyArray<{ id: number; alarm: NormalizedAlarm }>;
  ble: {
    /** Legacy "BLE sensor" slots: temperature i16 0.01 °C, humidity u16 0.1 %RH, battery u8 %. */
    temperature: Slots;
    humidity: Slots;
    batteryPct: Slots;
    /** EYE sensor slots. */
    eyeTemperature: Slots;
    eyeHumidity: Slots;
    eyeMagnet: Slots;
    eyeMovement: Slots;
    eyeLowBattery: Slots;
    eyeMovementCount: Slots;
    /** NX TLV lists (advanced beacons 548, EYE sensor list 11317, …). */
    tlvLists: readonly number[];
    /** NX simple-mode beacon list. */
    simpleBeacons: number | null;
  } | null;
  /** Nominal value width of known ids (the encoder uses it; signed values are interpreted at this width). */
  widths: Readonly<Record<number, IoWidth>>;
}

const range = (from: number): Slots => [from, from + 1, from + 2, from + 3];

function widths(groups: Array<[IoWidth, number[]]>): Record<number, IoWidth> {
  const out: Record<number, IoWidth> = {};
  for (const [width, ids] of groups) for (const id of ids) out[id] = width;
  return out;
}

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** FMBXXX family: FMB0xx/1xx/2xx/9xx, FMC/FMM/FMU 1xx/2xx/8xx/9xx, FMT100, FMP100, MTB100, MSP500, FM3001 … */
export const FMB_TABLE: IoModelTable = {
  family: 'fmb',
  ignition: 239,
  movement: 240,
  totalOdometer: 16,
  tripOdometer: 199,
  externalVoltage: 66,
  batteryVoltage: 67,
  batteryLevel: 113,
  din: [1, 2, 3],
  dout: [179, 180, 380],
  gsmSignal: 21,
  iButton: 78,
  gnssStatus: { id: 69, fix: [1] },
  greenDriving: { type: 253, value: 254, durationMs: 243 },
  engineSeconds: 449,
  alarms: [
    { id: 236, alarm: 'general' },
    { id: 246, alarm: 'tow' },
    { id: 247, alarm: 'accident' },
    { id: 249, alarm: 'jamming' },
    { id: 252, alarm: 'powerCut' },
    { id: 255, alarm: 'overspeed' },
  ],
  ble: {
    temperature: [25, 26, 27, 28],
    humidity: [86, 104, 106, 108],
    batteryPct: [29, 20, 22, 23],
    eyeTemperature: range(10800),
    eyeHumidity: range(10804),
    eyeMagnet: range(10808),
    eyeMovement: range(10812),
    eyeLowBattery: range(10820),
    eyeMovementCount: range(10836),
    tlvLists: [548, 10828, 10829, 10831, 11317],
    simpleBeacons: 385,
  },
  widths: widths([
    [1, [1, 2, 3, 10, 20, 21, 22, 23, 29, 69, 80, 113, 179, 180, 200, 236, 239, 240, 246, 247, 249, 250, 251, 252, 253, 254, 255, 380]],
    [1, [...ids(10804, 10811), ...ids(10816, 10827)]],
    [2, [6, 9, 13, 15, 17, 18, 19, 24, 25, 26, 27, 28, 66, 67, 68, 86, 104, 106, 108, 181, 182, 205, 206, 243]],
    [2, [...ids(10800, 10803), ...ids(10812, 10815), ...ids(10832, 10843)]],
    [4, [4, 5, 12, 16, 72, 73, 74, 75, 199, 241, 449, 636]],
    [8, [11, 14, 71, 76, 77, 78, 79, 207]],
  ]),
};

/**
 * FMX6 family (FMB640/641, FMC640/650, FMM640/650): only the rows known to match are mapped; 16 is a CAN
 * mileage there, GNSS status is 71 (3 = fix), DIN4 = 4; BLE slots use other ids and are not mapped.
 */
export const FMX6_TABLE: IoModelTable = {
  family: 'fmx6',
  ignition: 239,
  movement: 240,
  totalOdometer: null,
  tripOdometer: null,
  externalVoltage: 66,
  batteryVoltage: 67,
  batteryLevel: null,
  din: [1, 2, 3],
  dout: [179, 180, null],
  gsmSignal: 21,
  iButton: 78,
  gnssStatus: { id: 71, fix: [3] },
  greenDriving: null,
  engineSeconds: null,
  alarms: [],
  ble: null,
  widths: widths([
    [1, [1, 2, 3, 4, 21, 71, 179, 180, 239, 240]],
    [2, [24, 66, 67]],
    [8, [78]],
  ]),
};

export const IO_MODEL_TABLES: Readonly<Record<IoFamily, IoModelTable>> = { fmb: FMB_TABLE, fmx6: FMX6_TABLE };

/** Models known to use the FMBXXX table (others fall back to it too, unless they match FMX6). */
export const FMB_MODELS: readonly string[] = [
  'FM3001', 'FMB001', 'FMB002', 'FMB003', 'FMB010', 'FMB020', 'FMB110', 'FMB120', 'FMB122', 'FMB125', 'FMB130',
  'FMB140', 'FMB150', 'FMB202', 'FMB204', 'FMB206', 'FMB208', 'FMB209', 'FMB225', 'FMB900', 'FMB910', 'FMB920',
  'FMB962', 'FMB964', 'FMB965', 'FMC001', 'FMC003', 'FMC125', 'FMC130', 'FMC150', 'FMC225', 'FMC250', 'FMC800',
  'FMC880', 'FMC920', 'FMM001', 'FMM003', 'FMM125', 'FMM130', 'FMM150', 'FMM250', 'FMM800', 'FMM880', 'FMM920',
  'FMP100', 'FMT100', 'FMU125', 'FMU126', 'FMU130', 'MSP500', 'MTB100',
];

const FMX6_PATTERN = /^FM[A-Z]6\d\d/;

/** The IO family of a device model string (case and surrounding text tolerated); unknown → FMB. */
export function ioFamily(model?: string | null): IoFamily {
  const m = (model ?? '').trim().toUpperCase();
  return FMX6_PATTERN.test(m) ? 'fmx6' : 'fmb';
}

export function ioModelTable(model?: string | null): IoModelTable {
  return IO_MODEL_TABLES[ioFamily(model)];
}

/** Nominal width in bytes of an IO id for a model (undefined = not in the table). */
export function ioWidth(id: number, model?: string | null): IoWidth | undefined {
  return ioModelTable(model).widths[id];
}

/** A raw IO value as a number (8-byte values only when exact); NX blobs are not numbers. */
function num(io: Record<string, IoValue>, id: number | null): number | undefined {
  if (id === null) return undefined;
  const v = io[id];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  return undefined;
}

function bytes(io: Record<string, IoValue>, id: number): Uint8Array | undefined {
  const v = io[id];
  return v instanceof Uint8Array ? v : undefined;
}

const signed = (v: number, bits: number) => (v >= 2 ** (bits - 1) ? v - 2 ** bits : v);
const round = (v: number, decimals: number) => Number(v.toFixed(decimals));

const GREEN_DRIVING: Record<number, GreenDrivingType> = { 1: 'acceleration', 2: 'braking', 3: 'cornering' };
/** BLE slot temperature error codes: FW ≥ 03.28 (32767 not found, 32766 parse fail, 32765 abnormal). */
const TEMPERATURE_ERRORS = new Set([32767, 32766, 32765]);
/** Legacy-slot error codes (4000 abnormal, 3000 not found, 2000 parse fail) – indistinguishable from 40/30/20 °C. */
const LEGACY_TEMPERATURE_ERRORS = new Set([4000, 3000, 2000]);

/**
 * Fills NormalizedIo from a raw IO map (ids as keys). `eventId` gates alarms: an eventual alarm IO counts
 * only in the record it triggered (omit eventId to accept any present alarm IO).
 */
export function normalize(model: string | null | undefined, io: Record<string, IoValue>, eventId?: number | null): NormalizedIo {
  const t = ioModelTable(model);
  const out: NormalizedIo = {};
  const flag = (id: number | null) => {
    const v = num(io, id);
    return v === undefined ? undefined : v !== 0;
  };

  const ignition = flag(t.ignition);
  if (ignition !== undefined) out.ignition = ignition;
  const movement = flag(t.movement);
  if (movement !== undefined) out.movement = movement;
  const odometer = num(io, t.totalOdometer);
  if (odometer !== undefined) out.odometerM = odometer;
  const external = num(io, t.externalVoltage);
  if (external !== undefined) out.externalVoltageV = round(external / 1000, 3);
  const battery = num(io, t.batteryVoltage);
  if (battery !== undefined) out.batteryVoltageV = round(battery / 1000, 3);
  const batteryPct = num(io, t.batteryLevel);
  if (batteryPct !== undefined) out.batteryPct = batteryPct;

  const keys = ['din1', 'din2', 'din3'] as const;
  t.din.forEach((id, i) => {
    const v = flag(id);
    if (v !== undefined) out[keys[i]!] = v;
  });
  const outKeys = ['dout1', 'dout2', 'dout3'] as const;
  t.dout.forEach((id, i) => {
    const v = flag(id);
    if (v !== undefined) out[outKeys[i]!] = v;
  });

  const gsm = num(io, t.gsmSignal);
  if (gsm !== undefined) out.gsmSignal = gsm;

  if (t.iButton !== null) {
    const key = io[t.iButton];
    if (typeof key === 'bigint' && key !== 0n) out.driverId = iButtonId(key);
  }

  if (t.greenDriving) {
    const type = GREEN_DRIVING[num(io, t.greenDriving.type) ?? 0];
    if (type) {
      const value = num(io, t.greenDriving.value);
      const duration = num(io, t.greenDriving.durationMs);
      out.greenDriving = { type, value: value === undefined ? 0 : value / 100 };
      if (duration !== undefined) out.greenDriving.durationMs = duration;
    }
  }

  const engineSeconds = num(io, t.engineSeconds);
  if (engineSeconds !== undefined) out.engineSeconds = engineSeconds;

  for (const { id, alarm } of t.alarms) {
    if (eventId !== undefined && eventId !== null && eventId !== id) continue;
    const v = num(io, id);
    if (v !== undefined && v !== 0) {
      out.alarm = alarm;
      break;
    }
  }

  if (t.ble) {
    const ble = bleReadings(t, io);
    if (ble.length > 0) out.ble = ble;
  }
  return out;
}

/** Whether the record has a GNSS fix: the GNSS-status IO when reported, else satellites in use. */
export function hasFix(model: string | null | undefined, io: Record<string, IoValue>, satellites: number): boolean {
  const status = ioModelTable(model).gnssStatus;
  const v = status ? num(io, status.id) : undefined;
  if (status && v !== undefined) return status.fix.includes(v);
  return satellites > 0;
}

/**
 * iButton 78 as the key's printed id. The device sends the 1-Wire ROM in read order (family code first);
 * like traccar we reverse it so the id reads CRC…serial…family (`%016X` of a little-endian read).
 */
export function iButtonId(value: bigint): string {
  const be = BigInt.asUintN(64, value).toString(16).padStart(16, '0');
  return (be.match(/../g) ?? []).reverse().join('').toUpperCase();
}

function bleReadings(t: IoModelTable, io: Record<string, IoValue>): BleReading[] {
  const b = t.ble!;
  const readings: BleReading[] = [];
  for (let i = 0; i < 4; i++) {
    const r: BleReading = {};
    const legacyTemp = num(io, b.temperature[i]!);
    if (legacyTemp !== undefined && !TEMPERATURE_ERRORS.has(legacyTemp) && !LEGACY_TEMPERATURE_ERRORS.has(legacyTemp)) {
      r.temperatureC = signed(legacyTemp, 16) / 100;
    }
    const legacyHumidity = num(io, b.humidity[i]!);
    if (legacyHumidity !== undefined && legacyHumidity <= 1000) r.humidityPct = legacyHumidity / 10;
    const pct = num(io, b.batteryPct[i]!);
    if (pct !== undefined && pct <= 100) r.batteryPct = pct;

    const eyeTemp = num(io, b.eyeTemperature[i]!);
    // An error code in the temperature means the slot's EYE sensor was not read: its other values are stale zeros.
    const eyeMissing = eyeTemp !== undefined && TEMPERATURE_ERRORS.has(eyeTemp);
    if (!eyeMissing) readEye(r, io, b, i, eyeTemp);
    if (Object.keys(r).length > 0) readings.push({ slot: i + 1, ...r });
  }
  for (const id of b.tlvLists) {
    const data = bytes(io, id);
    if (data) readings.push(...decodeBleTlvList(data));
  }
  if (b.simpleBeacons !== null) {
    const data = bytes(io, b.simpleBeacons);
    if (data) readings.push(...decodeSimpleBeaconList(data));
  }
  return readings;
}

type BleTable = NonNullable<IoModelTable['ble']>;

function readEye(r: BleReading, io: Record<string, IoValue>, b: BleTable, i: number, temperature: number | undefined): void {
  if (temperature !== undefined) r.temperatureC = signed(temperature, 16) / 100;
  const eyeHumidity = num(io, b.eyeHumidity[i]!);
  if (eyeHumidity !== undefined && eyeHumidity <= 100) r.humidityPct = eyeHumidity;
  const magnet = num(io, b.eyeMagnet[i]!);
  if (magnet !== undefined && magnet <= 1) r.magnet = magnet === 1;
  const movement = num(io, b.eyeMovement[i]!);
  // "Movement state": 0/1, or the advertising u16 with bit 15 = moving.
  if (movement !== undefined) r.moving = movement === 1 || (movement & 0x8000) !== 0;
  const low = num(io, b.eyeLowBattery[i]!);
  if (low !== undefined && low <= 1) r.lowBattery = low === 1;
  const count = num(io, b.eyeMovementCount[i]!);
  if (count !== undefined) r.movementCount = count;
}
