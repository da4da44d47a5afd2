/**
 * The contract between protocol decoders (src/gateway) and the ingest pipeline (tracking): both import it from here,
 * the shared floor, so neither depends on the other for it.
 * Every protocol folder (teltonika, gt06, osmand) turns wire bytes into DecodedRecord values;
 * the pipeline never looks at protocol details.
 */

/** A raw IO value as the device sent it: small integers as number, 8-byte values as bigint, NX blobs as bytes. */
export type IoValue = number | bigint | Uint8Array;

export type Protocol = 'teltonika' | 'gt06' | 'osmand';

/** One BLE sensor or beacon reading carried inside a position record. */
export interface BleReading {
  /** Upper-case 12 hex characters, when the device reported a MAC. */
  mac?: string;
  /** Beacon ID (iBeacon/Eddystone) as upper-case hex, when reported. */
  beaconId?: string;
  name?: string;
  /** Slot 1-4 when it came from a fixed sensor slot. */
  slot?: number;
  rssi?: number;
  temperatureC?: number;
  humidityPct?: number;
  /** true = magnet detected. */
  magnet?: boolean;
  batteryMv?: number;
  batteryPct?: number;
  lowBattery?: boolean;
  movementCount?: number;
  moving?: boolean;
}

export type GreenDrivingType = 'acceleration' | 'braking' | 'cornering';

/**
 * The alarms every protocol's decoder maps its own codes to. A stored position's `normalized.alarm` holds one of them
 * (the device's alarm code wins over its status bits), and `normalized.geofence` the device's own fence number when the
 * device reports fences itself; the raw code stays in the record's IO (`alarmCode`, `terminalInfo` for GT06; the event IO
 * for Teltonika). The alarm engine reads these names from stored positions and never a protocol's codes.
 */
export const NORMALIZED_ALARMS = [
  'sos',
  'powerCut',
  'vibration',
  /** Opened, removed from its mounting or unplugged. */
  'tamper',
  'geofenceEnter',
  'geofenceExit',
  /** A fence alarm whose direction the device does not say (GT06 status bits). */
  'geofence',
  'overspeed',
  'lowBattery',
  'accOn',
  'accOff',
  'door',
  'powerOff',
  'powerOn',
  'tow',
  'accident',
  'acceleration',
  'braking',
  'cornering',
  'jamming',
  'fall',
  'simChanged',
  'temperature',
  'fuelLeak',
  'idle',
  /** An alarm the device raised with a code no table here knows. */
  'general',
] as const;
export type NormalizedAlarm = (typeof NORMALIZED_ALARMS)[number];

/** The protocol-independent view of a record that every other module reads. Absent = not reported. */
export interface NormalizedIo {
  ignition?: boolean;
  movement?: boolean;
  /** Total odometer in metres as the device reports it. */
  odometerM?: number;
  externalVoltageV?: number;
  batteryVoltageV?: number;
  batteryPct?: number;
  din1?: boolean;
  din2?: boolean;
  din3?: boolean;
  dout1?: boolean;
  dout2?: boolean;
  dout3?: boolean;
  /** Driver identification: iButton hex or a beacon id/MAC. */
  driverId?: string;
  ble?: BleReading[];
  greenDriving?: { type: GreenDrivingType; value: number; durationMs?: number };
  /** 0-5 (Teltonika) or 0-4 (GT06), as reported. */
  gsmSignal?: number;
  /** The device's alarm, normalised (see NORMALIZED_ALARMS). */
  alarm?: NormalizedAlarm;
  /** The device's own fence number (0 = its first fence) with a geofence alarm it detected itself. */
  geofence?: number;
  /** Seconds of engine/ignition-on time, when the device counts it. */
  engineSeconds?: number;
}

export interface DecodedRecord {
  protocol: Protocol;
  /** IMEI (15 digits) for Teltonika and GT06, the configured device id for OsmAnd. */
  deviceId: string;
  /** Fix time in UTC. */
  time: Date;
  latitude: number;
  longitude: number;
  altitude: number | null;
  speedKmh: number;
  /** Degrees clockwise from north, null when unknown. */
  course: number | null;
  satellites: number | null;
  /** Whether the fix is valid (GNSS fix present). */
  valid: boolean;
  /** Teltonika priority (0 low, 1 high, 2 panic); 0 elsewhere. */
  priority: number;
  /** Teltonika event IO id that triggered this record (0 = periodic); null elsewhere. */
  eventId: number | null;
  /** Raw IO as sent: Teltonika numeric ids as keys; other protocols use named keys. */
  io: Record<string, IoValue>;
  normalized: NormalizedIo;
}

/** JSON-safe rendering (bigint as decimal string, bytes as hex) used by the decode CLI and raw-IO storage. */
export function ioToJson(io: Record<string, IoValue>): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [key, value] of Object.entries(io)) {
    if (typeof value === 'number') out[key] = value;
    else if (typeof value === 'bigint') out[key] = value.toString();
    else out[key] = Buffer.from(value).toString('hex').toUpperCase();
  }
  return out;
}
