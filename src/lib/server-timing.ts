/**
 * The `Server-Timing` header of a response: where the server spent a slow request's time, shown by the browser's
 * developer tools and read by bench/map.ts from the page's resource timing.
 */
export class ServerTiming {
  private readonly entries: Array<[string, number]> = [];

  /** Runs `work` and records how long it took under `name` (phases run side by side each record their own). */
  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.entries.push([name, performance.now() - started]);
    }
  }

  /** Records a synchronous step. */
  timeSync<T>(name: string, work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.entries.push([name, performance.now() - started]);
    }
  }

  header(): string {
    return this.entries.map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`).join(', ');
  }
}
