/**
 * A security event for the alarm engine (durable, through the outbox): valid fixes of a unit in theft mode, one event per
 * stored batch (not per position), published with the mark of what was published in the same transaction.
 */
export interface TheftMovement {
  accountId: number;
  unitId: number;
  /** ISO instant theft mode was switched on (the episode). */
  since: string;
  cause: 'manual' | 'geofence';
  geofenceId: number | null;
  /** Valid fixes in this batch. */
  positions: number;
  /** ISO fix times of the batch's oldest and newest fix. */
  from: string;
  to: string;
  /** The newest fix. */
  latitude: number;
  longitude: number;
  speedKmh: number;
  maxSpeedKmh: number;
}

/** What the units module publishes. */
declare module '../../lib/events' {
  interface EventMap {
    'unit.theft_movement': TheftMovement;
    /** A unit moved to a new tracker: the old IMEI is no longer a unit's (the gateway drops it from its cache). */
    'unit.tracker_replaced': { unitId: number; accountId: number; oldImei: string; newImei: string };
  }
}
