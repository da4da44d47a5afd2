/**
 * The domain events, by name. The platform knows none of them: each module declares its own in its `events.ts`
 * (`declare module '../../lib/events' { interface EventMap { … } }`), and the compiler merges them into this one map.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each module's events.ts
export interface EventMap {}

type Handler<T> = (payload: T) => void | Promise<void>;

/**
 * In-process domain-event bus. Modules publish facts (a position stored, ignition changed, a user
 * registered) and others subscribe, so no module reaches into another's tables.
 * A failing subscriber is logged and never breaks the publisher.
 */
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
