/**
 * In-process domain-event bus. Modules publish facts (a position stored, ignition changed, a user
 * registered) and others subscribe, so no module reaches into another's tables.
 * A failing subscriber is logged and never breaks the publisher.
 */
export interface EventMap {
  'user.registered': { accountId: number; userId: number; unitId: number };
  /** Positions durably stored for one unit, oldest first. */
  'positions.stored': { unitId: number; positions: import('../modules/tracking/ingest').StoredPosition[] };
  /** Units' latest states as the state writer has just written them (the live map sends them without reading them back). */
  'unit.states': { rows: import('../modules/tracking/ingest').WrittenState[] };
  'ignition.changed': { unitId: number; time: Date; ignition: boolean };
  /** A digital input (DIN1-3) changed against the unit's previous record. */
  'input.changed': { unitId: number; time: Date; input: 'din1' | 'din2' | 'din3'; value: boolean };
  /** A BLE sensor or beacon reading carried by a stored position. */
  'sensor.reading': { unitId: number; time: Date; reading: import('../gateway/types').BleReading };
  'command.queued': { commandId: number; unitId: number };
  'command.result': { commandId: number; unitId: number; status: 'answered' | 'no_response' | 'expired'; response: string | null };
  /** A unit moved to a new tracker: the old IMEI is no longer a unit's (the gateway drops it from its cache). */
  'unit.tracker_replaced': { unitId: number; accountId: number; oldImei: string; newImei: string };
  /** A user's department changed (spec §6: their unit access is reset). */
  'user.department_changed': { accountId: number; userId: number; departmentId: number | null };
}

type Handler<T> = (payload: T) => void | Promise<void>;

export class EventBus<Events extends object = EventMap> {
  private handlers = new Map<keyof Events, Set<Handler<never>>>();

  constructor(private readonly onError: (event: string, error: unknown) => void = () => {}) {}

  on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): () => void {
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler as Handler<never>);
    this.handlers.set(event, set);
    return () => set.delete(handler as Handler<never>);
  }

  /** Runs every subscriber; awaits them so a caller can rely on side effects in tests and jobs. */
  async emit<K extends keyof Events>(event: K, payload: Events[K]): Promise<void> {
    const set = this.handlers.get(event);
    if (!set) return;
    for (const handler of set) {
      try {
        await (handler as Handler<Events[K]>)(payload);
      } catch (error) {
        this.onError(String(event), error);
      }
    }
  }
}
