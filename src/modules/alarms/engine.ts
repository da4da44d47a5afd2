import type { NormalizedAlarm, NormalizedIo } from '../../lib/tracker-record';
import type { AlarmType } from './model';

/**
 * The device rules of the alarm engine: what a unit's stored positions (in time order) raise, given what the engine
 * remembered of its inputs. Pure: the service reads and writes the remembered inputs and raises the alarms in the
 * ingest batch's transaction. Episodes and the cool-down are the service's (`raise`): a rule may fire on every
 * position of an episode (an overspeed lasting minutes); they fold into one alarm.
 */

/** The normalised device alarms the engine raises, and as what. */
export const DEVICE_ALARMS: Partial<Record<NormalizedAlarm, AlarmType>> = {
  sos: 'sos',
  powerCut: 'power_cut',
  tamper: 'tamper',
  tow: 'towing',
  lowBattery: 'low_battery',
  overspeed: 'overspeed',
};

/** Moving this fast with the ignition off is towing (GPS drift of a parked unit stays well below). */
export const TOWING_MIN_KMH = 15;
/** External power below this after being above `EXTERNAL_POWER_ON_V` is a power cut. */
export const EXTERNAL_POWER_OFF_V = 3;
export const EXTERNAL_POWER_ON_V = 6;

export interface JudgedPosition {
  time: Date;
  /** A usable fix (coordinates to show); else the alarm carries no position. */
  fix: boolean;
  latitude: number;
  longitude: number;
  speedKmh: number;
  ignition: boolean | undefined;
  odometerM: number | undefined;
  normalized: NormalizedIo;
}

export interface UnitSettings {
  overspeedKmh: number | null;
  serviceIntervalKm: number | null;
}

export interface UnitInputs {
  din2: boolean | null;
  din3: boolean | null;
  externalPower: boolean | null;
  serviceStep: number | null;
  /** Epoch ms of the newest position judged; older or equal ones are history (resent records). */
  lastFix: number | null;
}

export interface Candidate {
  type: AlarmType;
  at: Date;
  latitude: number | null;
  longitude: number | null;
  details: Record<string, string | number | boolean | null>;
}

export const NO_INPUTS: UnitInputs = { din2: null, din3: null, externalPower: null, serviceStep: null, lastFix: null };

/** Judges one unit's positions (sorted by time) against its settings and remembered inputs. */
export function judge(positions: readonly JudgedPosition[], settings: UnitSettings, start: UnitInputs): { inputs: UnitInputs; alarms: Candidate[] } {
  const inputs = { ...start };
  const alarms: Candidate[] = [];
  for (const position of positions) {
    const ms = position.time.getTime();
    if (inputs.lastFix !== null && ms <= inputs.lastFix) continue;
    inputs.lastFix = ms;
    const where = { at: position.time, latitude: position.fix ? position.latitude : null, longitude: position.fix ? position.longitude : null };
    const io = position.normalized;
    const raise = (type: AlarmType, details: Candidate['details'] = {}) => {
      if (!alarms.some((alarm) => alarm.type === type && alarm.at.getTime() === ms)) alarms.push({ type, ...where, details });
    };

    const device = io.alarm ? DEVICE_ALARMS[io.alarm] : undefined;
    if (device === 'overspeed') raise('overspeed', { speed: Math.round(position.speedKmh), limit: settings.overspeedKmh ?? '–' });
    else if (device === 'low_battery') raise('low_battery', { battery: io.batteryPct ?? io.batteryVoltageV ?? '–' });
    else if (device) raise(device, device === 'power_cut' ? { voltage: io.externalVoltageV ?? '–' } : {});

    // External power lost: from above the on level to below the off level (the device said nothing itself).
    if (io.externalVoltageV !== undefined) {
      const voltage = io.externalVoltageV;
      if (voltage >= EXTERNAL_POWER_ON_V) inputs.externalPower = true;
      else if (voltage < EXTERNAL_POWER_OFF_V) {
        if (inputs.externalPower === true) raise('power_cut', { voltage: Math.round(voltage * 10) / 10 });
        inputs.externalPower = false;
      }
    }

    // Towing: moving with the ignition off.
    if (position.fix && position.ignition === false && position.speedKmh >= TOWING_MIN_KMH) raise('towing', { speed: Math.round(position.speedKmh) });

    // Overspeed over the feature profile's threshold.
    if (position.fix && settings.overspeedKmh !== null && position.speedKmh > settings.overspeedKmh) {
      raise('overspeed', { speed: Math.round(position.speedKmh), limit: settings.overspeedKmh });
    }

    // Digital inputs 2 and 3: a change (the first value seen is no change).
    for (const input of ['din2', 'din3'] as const) {
      const value = io[input];
      if (value === undefined) continue;
      if (inputs[input] !== null && inputs[input] !== value) raise(input, { value });
      inputs[input] = value;
    }

    // Service due by odometer: every `serviceIntervalKm` the odometer passes.
    const odometerM = position.odometerM ?? io.odometerM;
    if (settings.serviceIntervalKm !== null && odometerM !== undefined && odometerM > 0) {
      const step = Math.floor(odometerM / 1000 / settings.serviceIntervalKm);
      if (inputs.serviceStep !== null && step > inputs.serviceStep) {
        raise('service_due', { reason: 'odometer', odometer: Math.round(odometerM / 1000), interval: settings.serviceIntervalKm });
      }
      inputs.serviceStep = step;
    }
  }
  return { inputs, alarms };
}

/** Whether a position can matter to `judge` at all (most periodic records cannot): checked before any query. */
export function mayMatter(position: JudgedPosition): boolean {
  const io = position.normalized;
  return (
    (io.alarm !== undefined && DEVICE_ALARMS[io.alarm] !== undefined) ||
    io.din2 !== undefined ||
    io.din3 !== undefined ||
    io.externalVoltageV !== undefined ||
    (position.fix && position.ignition === false && position.speedKmh >= TOWING_MIN_KMH) ||
    (position.fix && position.speedKmh > 0) ||
    position.odometerM !== undefined ||
    io.odometerM !== undefined
  );
}
