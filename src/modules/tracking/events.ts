import type { BleReading } from '../../lib/tracker-record';
import type { StoredPosition, WrittenState } from './ingest';

export type { StoredPosition, WrittenState };

/** What tracking publishes as positions are stored and units' states written. */
declare module '../../lib/events' {
  interface EventMap {
    /** Positions durably stored for one unit, oldest first. */
    'positions.stored': { unitId: number; positions: StoredPosition[] };
    /** Units' latest states as the state writer has just written them (the live map sends them without reading them back). */
    'unit.states': { rows: WrittenState[] };
    'ignition.changed': { unitId: number; time: Date; ignition: boolean };
    /** A digital input (DIN1-3) changed against the unit's previous record. */
    'input.changed': { unitId: number; time: Date; input: 'din1' | 'din2' | 'din3'; value: boolean };
    /** A BLE sensor or beacon reading carried by a stored position. */
    'sensor.reading': { unitId: number; time: Date; reading: BleReading };
  }
}
