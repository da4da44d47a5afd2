/**
 * What the geofences module publishes, through the durable outbox in the same transaction as the (unit, zone) state
 * that changed, so a restart neither repeats nor misses a crossing. The alarm engine and theft mode consume them.
 */
export interface GeofenceCrossing {
  accountId: number;
  unitId: number;
  geofenceId: number;
  geofenceName: string;
  /** The zone has the theft-mode flag: leaving it switches the unit to theft mode. */
  theftMode: boolean;
  /** ISO instant of the fix that confirmed the crossing. */
  at: string;
  latitude: number;
  longitude: number;
}

declare module '../../lib/events' {
  interface EventMap {
    'geofence.entered': GeofenceCrossing;
    'geofence.exited': GeofenceCrossing;
  }
}
