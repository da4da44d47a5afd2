/** Values for one OsmAnd query-string report (what the simulator sends). */
export interface OsmandQueryValues {
  id: string;
  time?: Date;
  latitude?: number;
  longitude?: number;
  /** Sent as knots, the protocol's default unit. */
  speedKmh?: number;
  course?: number;
  altitude?: number;
  accuracy?: number;
  hdop?: number;
  batteryPct?: number;
  charging?: boolean;
  valid?: boolean;
  ignition?: boolean;
  driverUniqueId?: string;
  /** `mcc,mnc,lac,cid[,rssi]` each. */
  cells?: string[];
  /** `mac,rssi` each. */
  wifi?: string[];
  attributes?: Record<string, string | number | boolean>;
}

/** Builds the query string (without `?`). Whole-second times are sent as seconds, others as milliseconds. */
export function encodeOsmandQuery(values: OsmandQueryValues): string {
  const p = new URLSearchParams();
  p.set('id', values.id);
  if (values.time) {
    const ms = values.time.getTime();
    p.set('timestamp', String(ms % 1000 === 0 ? ms / 1000 : ms));
  }
  if (values.latitude !== undefined) p.set('lat', String(values.latitude));
  if (values.longitude !== undefined) p.set('lon', String(values.longitude));
  if (values.speedKmh !== undefined) p.set('speed', String(values.speedKmh / 1.852));
  if (values.course !== undefined) p.set('bearing', String(values.course));
  if (values.altitude !== undefined) p.set('altitude', String(values.altitude));
  if (values.accuracy !== undefined) p.set('accuracy', String(values.accuracy));
  if (values.hdop !== undefined) p.set('hdop', String(values.hdop));
  if (values.batteryPct !== undefined) p.set('batt', String(values.batteryPct));
  if (values.charging !== undefined) p.set('charge', String(values.charging));
  if (values.valid !== undefined) p.set('valid', String(values.valid));
  if (values.ignition !== undefined) p.set('ignition', String(values.ignition));
  if (values.driverUniqueId !== undefined) p.set('driverUniqueId', values.driverUniqueId);
  for (const cell of values.cells ?? []) p.append('cell', cell);
  for (const wifi of values.wifi ?? []) p.append('wifi', wifi);
  for (const [key, value] of Object.entries(values.attributes ?? {})) p.set(key, String(value));
  return p.toString();
}
