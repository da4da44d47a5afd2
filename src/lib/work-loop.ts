import type { DatabaseHandle } from './db/client';
import { listen } from './db/notify';

export interface WorkLoopOptions {
  pollMs: number;
  onError: (error: unknown) => void;
  /** Wakes on NOTIFY of this channel: every process sharing the database hears a commit that made work. */
  wakeOn: { database: DatabaseHandle; channel: string };
}

/**
 * Runs `pass` whenever woken (a NOTIFY on its channel, a local commit) and at least every `pollMs`, one pass at a
 * time: a wake during a pass runs one more pass right after, so nothing woken for is missed and wakes never pile
 * up. `pass` answers whether it did work, in which case the next pass starts at once. The outbox's dispatcher and
 * the job queue's worker both run on it.
 */
export class WorkLoop {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly options: WorkLoopOptions,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await listen(this.options.wakeOn.database, this.options.wakeOn.channel, () => this.wake());
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.wake();
  }

  /** Stops listening and waking, and waits for a pass under way. */
  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * After this process committed work: the embedded database has one process, so wake at once as well (PGlite
   * delivers NOTIFY too, but a direct wake costs nothing and does not depend on it).
   */
  committed(): void {
    if (this.options.wakeOn.database.kind === 'pglite') queueMicrotask(() => this.wake());
  }

  /** Runs passes of `step` until one handles nothing; the total handled (tests, shutdown). */
  static async drain(step: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const handled = await step();
      total += handled;
      if (handled === 0) return total;
    }
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        if (await this.pass()) this.again = true;
      } catch (error) {
        this.options.onError(error);
      }
    } while (this.again && !this.stopped);
  }
}
