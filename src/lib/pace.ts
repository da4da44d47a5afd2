/**
 * Paces a background writer that folds a backlog into the database (the unit-state projection, trip
 * detection, operating hours): a pass starts at most once per `everyMs`, so while positions trickle in
 * each pass carries what gathered meanwhile instead of one tiny transaction per ingest batch. Under load
 * a pass takes longer than `everyMs` and the next one starts at once, as before.
 *
 * `hold()` is for whoever must see the backlog written now (drain in tests, shutdown): while a hold is
 * open no pass waits, and a wait already running ends at once.
 */
export class Pacer {
  private lastStart = Number.NEGATIVE_INFINITY;
  private holds = 0;
  private wake: (() => void) | null = null;

  constructor(private readonly everyMs: number) {}

  /** Resolves when the next pass may start (`everyMs` after the previous one started) and marks its start. */
  async next(): Promise<void> {
    const wait = this.waitMs;
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.wake?.(), wait);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
    this.started();
  }

  /** Milliseconds until the next pass may start: 0 when due or held. */
  get waitMs(): number {
    return this.holds > 0 ? 0 : Math.max(0, this.lastStart + this.everyMs - Date.now());
  }

  /** Marks a pass started now (for writers that schedule themselves with `waitMs`). */
  started(): void {
    this.lastStart = Date.now();
  }

  /** No waiting until the returned release is called; ends a running wait at once. */
  hold(): () => void {
    this.holds += 1;
    this.wake?.();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
    };
  }
}
