import type { DecodedRecord } from '../../lib/tracker-record';
import type { DetectorPosition, HarshType } from './detector';

/**
 * Scripted drives for tests and benchmarks: a vehicle moving along a bearing, stopping, parking and
 * falling silent, reporting at a fixed interval. Produces detector positions (epoch-ms times).
 */
export type DriveStep =
  /** Moving at a speed for a while (ignition on). */
  | { move: number; speedKmh: number; bearing?: number }
  /** Standing still with the engine running (traffic lights, queue). */
  | { idle: number }
  /** Parked with ignition off, still reporting. */
  | { park: number }
  /** No reports at all for a while (the vehicle stays where it is). */
  | { silent: number }
  /** One record with a green-driving event or a driver id at the current place. */
  | { harsh: HarshType }
  | { driver: string };

export interface DriveOptions {
  start: string | Date;
  lat?: number;
  lon?: number;
  /** Seconds between reports. */
  interval?: number;
  /** Report ignition (a Teltonika in a car) or not (a phone or a motion-only tracker). */
  ignition?: boolean;
  /** Report the device odometer, starting at this many metres. */
  odometerM?: number;
}

const M_PER_DEG_LAT = 111_320;

export function scriptDrive(options: DriveOptions, steps: DriveStep[]): DetectorPosition[] {
  const interval = (options.interval ?? 10) * 1000;
  let t = new Date(options.start).getTime();
  let lat = options.lat ?? 59.3293;
  let lon = options.lon ?? 18.0686;
  let odometer = options.odometerM ?? null;
  const out: DetectorPosition[] = [];
  const emit = (speedKmh: number, ignition: boolean, extra: Partial<DetectorPosition> = {}) => {
    out.push({
      t,
      lat,
      lon,
      speedKmh,
      valid: true,
      ignition: options.ignition === false ? null : ignition,
      odometerM: odometer === null ? null : Math.round(odometer),
      driverKey: null,
      harsh: null,
      ...extra,
    });
  };
  for (const step of steps) {
    if ('move' in step) {
      const bearing = ((step.bearing ?? 90) * Math.PI) / 180;
      const count = Math.max(1, Math.round((step.move * 1000) / interval));
      for (let i = 0; i < count; i++) {
        const metres = (step.speedKmh / 3.6) * (interval / 1000);
        lat += (metres * Math.cos(bearing)) / M_PER_DEG_LAT;
        lon += (metres * Math.sin(bearing)) / (M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180));
        if (odometer !== null) odometer += metres;
        t += interval;
        emit(step.speedKmh, true);
      }
    } else if ('idle' in step || 'park' in step) {
      const seconds = 'idle' in step ? step.idle : step.park;
      const count = Math.max(1, Math.round((seconds * 1000) / interval));
      for (let i = 0; i < count; i++) {
        t += interval;
        emit(0, 'idle' in step);
      }
    } else if ('silent' in step) {
      t += step.silent * 1000;
    } else if ('harsh' in step) {
      t += 1000;
      emit(30, true, { harsh: step.harsh });
    } else {
      t += 1000;
      emit(0, true, { driverKey: step.driver });
    }
  }
  return out;
}

/** A deterministic pseudo-random sequence (mulberry32), so jitter tests are repeatable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A point of a scripted drive as the ingest pipeline receives it from a tracker (tests and benchmarks feed drives through it). */
export function driveRecord(p: Pick<DetectorPosition, 't' | 'lat' | 'lon' | 'speedKmh'> & Partial<Pick<DetectorPosition, 'valid' | 'ignition' | 'odometerM' | 'driverKey' | 'harsh'>>): DecodedRecord {
  const valid = p.valid ?? true;
  return {
    protocol: 'teltonika',
    deviceId: 'test',
    time: new Date(p.t),
    latitude: p.lat,
    longitude: p.lon,
    altitude: 30,
    speedKmh: p.speedKmh,
    course: 90,
    satellites: valid ? 10 : 0,
    valid,
    priority: 0,
    eventId: 0,
    io: {},
    normalized: {
      ...(p.ignition === null || p.ignition === undefined ? {} : { ignition: p.ignition }),
      ...(p.odometerM === null || p.odometerM === undefined ? {} : { odometerM: p.odometerM }),
      ...(p.driverKey ? { driverId: p.driverKey } : {}),
      ...(p.harsh ? { greenDriving: { type: p.harsh, value: 1.2 } } : {}),
    },
  };
}
