import type { Clock } from '../clock';
import type { DatabaseHandle, Querier } from '../db/client';
import type { Logger } from '../log';
import { WorkLoop } from '../work-loop';

/**
 * The transactional outbox: durable domain events.
 *
 * A module publishes an event with the querier of the transaction that makes the change it reports, so
 * the event exists exactly when the change does. `publish` also writes one delivery row per subscriber
 * of the event's type (subscribers are registered in `outbox_subscriptions` at start). Dispatchers in any
 * number of processes claim due deliveries with FOR UPDATE SKIP LOCKED and hand each to its subscriber
 * inside the claiming transaction; the delivery is marked done in that same transaction, so a subscriber
 * whose effect is written through the given querier has that effect exactly once, however often a
 * process dies on the way. Effects outside the database (a message sent) are enqueued as jobs from the
 * subscriber, with a unique key, for the same reason. A failing subscriber is retried with exponential
 * backoff and dead-lettered after `maxAttempts`; support retries dead letters by hand.
 *
 * `Events` maps each event type to its payload; payloads travel as JSON (a Date arrives as its ISO text).
 * Delivery order is not guaranteed: subscribers must not rely on it.
 */
export interface OutboxEvent<Events extends object, K extends keyof Events = keyof Events> {
  id: number;
  type: K;
  payload: Events[K];
  createdAt: Date;
}

export type OutboxSubscriber<Events extends object, K extends keyof Events> = (
  event: OutboxEvent<Events, K>,
  tx: Querier,
) => Promise<void>;

/**
 * A subscriber handed every due event of its type claimed in one pass at once (in event order), in the dispatcher's
 * transaction: one set of statements for a storm of events instead of one per event. When it fails, the next pass of
 * this dispatcher hands it the events one at a time, so the failure is recorded against the one event that causes it.
 */
export type OutboxBatchSubscriber<Events extends object, K extends keyof Events> = (
  events: ReadonlyArray<OutboxEvent<Events, K>>,
  tx: Querier,
) => Promise<void>;

export interface OutboxOptions {
  database: DatabaseHandle;
  clock: Clock;
  log: Logger;
  /** Attempts before a delivery is dead-lettered (default 10). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled for each further one (default 1 s), capped at `maxBackoffMs` (1 h). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Deliveries claimed per transaction (default 500). */
  batchSize?: number;
  /** A pass runs at least this often, for retries coming due (default 1 s; NOTIFY wakes it for new events). */
  pollMs?: number;
  /** Batches dispatched side by side by this process (default 2 on PostgreSQL, 1 on the single-connection PGlite). */
  concurrency?: number;
}

export interface DeadDelivery {
  eventId: number;
  type: string;
  subscriber: string;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  failedAt: Date | null;
}

interface ClaimedRow extends Record<string, unknown> {
  event_id: string | number | bigint;
  subscriber: string;
  attempts: number;
  type: string;
  payload: unknown;
  created_at: Date | string;
}

const CHANNEL = 'outbox';

// Publishing is one statement: the event, its deliveries and the NOTIFY (sent by PostgreSQL at commit).
const PUBLISH_MANY_SQL = `
  WITH input AS (
    SELECT item->>'type' AS type, item->'payload' AS payload, ord
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS items(item, ord)
  ),
  events AS (INSERT INTO outbox_events (type, payload) SELECT type, payload FROM input ORDER BY ord RETURNING id, type),
  deliveries AS (
    INSERT INTO outbox_deliveries (event_id, subscriber)
    SELECT events.id, s.subscriber FROM events JOIN outbox_subscriptions s ON s.event_type = events.type
  )
  SELECT pg_notify('${CHANNEL}', '')`;

export class Outbox<Events extends object> {
  private readonly subscribers = new Map<
    string,
    { type: string; handle: OutboxSubscriber<Events, keyof Events> | null; handleMany: OutboxBatchSubscriber<Events, keyof Events> | null }
  >();
  /** A batch subscriber failed: the next pass hands every event on its own, to find the one that fails. */
  private isolate = false;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly batchSize: number;
  private readonly loop: WorkLoop;

  constructor(private readonly options: OutboxOptions) {
    this.maxAttempts = options.maxAttempts ?? 10;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 3_600_000;
    this.batchSize = options.batchSize ?? 500;
    const concurrency = options.concurrency ?? (options.database.kind === 'postgres' ? 2 : 1);
    // Side-by-side batches claim different rows (SKIP LOCKED); while one waits for the database the other runs subscribers.
    this.loop = new WorkLoop(async () => (await Promise.all(Array.from({ length: concurrency }, () => this.dispatchOnce()))).some((handled) => handled > 0), {
      pollMs: options.pollMs ?? 1_000,
      onError: (error) => options.log.error('outbox dispatch failed', { error: String(error) }),
      wakeOn: { database: options.database, channel: CHANNEL },
    });
  }

  /**
   * Registers `subscriber` (a name unique across the product and stable across releases: deliveries are
   * recorded under it) for events of `type`. Call before `register()`.
   */
  subscribe<K extends keyof Events & string>(type: K, subscriber: string, handle: OutboxSubscriber<Events, K>): void {
    const key = `${type}\u0000${subscriber}`;
    if (this.subscribers.has(key)) throw new Error(`outbox subscriber ${subscriber} is registered twice for ${type}`);
    this.subscribers.set(key, { type, handle: handle as unknown as OutboxSubscriber<Events, keyof Events>, handleMany: null });
  }

  /**
   * Registers a batch subscriber: `handleMany` gets all of a pass's due events of `type` for `subscriber` at once (see
   * `OutboxBatchSubscriber`). Its effects must hold for each event as if handled alone.
   */
  subscribeMany<K extends keyof Events & string>(type: K, subscriber: string, handleMany: OutboxBatchSubscriber<Events, K>): void {
    const key = `${type}\u0000${subscriber}`;
    if (this.subscribers.has(key)) throw new Error(`outbox subscriber ${subscriber} is registered twice for ${type}`);
    this.subscribers.set(key, { type, handle: null, handleMany: handleMany as unknown as OutboxBatchSubscriber<Events, keyof Events> });
  }

  /** Records this process's subscribers, so events published from now on (by any process) get their deliveries. */
  async register(): Promise<void> {
    const pairs = [...this.subscribers.keys()].map((key) => key.split('\u0000') as [string, string]);
    if (pairs.length === 0) return;
    await this.options.database.query(
      `INSERT INTO outbox_subscriptions (event_type, subscriber)
       SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
      [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
    );
  }

  /** Writes the event in the caller's transaction (`tx`); it is delivered once that transaction commits. */
  async publish<K extends keyof Events & string>(tx: Querier, type: K, payload: Events[K]): Promise<void> {
    await this.publishMany(tx, [{ type, payload }]);
  }

  /** Several events in one statement (a batch of crossings found in one pass). */
  async publishMany(tx: Querier, events: ReadonlyArray<{ [K in keyof Events & string]: { type: K; payload: Events[K] } }[keyof Events & string]>): Promise<void> {
    if (events.length === 0) return;
    await tx(PUBLISH_MANY_SQL, [JSON.stringify(events)]);
    this.loop.committed();
  }

  /** Starts dispatching in this process: woken by NOTIFY on PostgreSQL, and every `pollMs` for retries. */
  async start(): Promise<void> {
    await this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Delivers everything due now, then returns (tests, shutdown). */
  async drain(): Promise<number> {
    return WorkLoop.drain(() => this.dispatchOnce());
  }

  /**
   * One pass: claims up to `batchSize` due deliveries in one transaction and runs them there. When a
   * subscriber fails, the transaction is rolled back (the deliveries before it in the batch are claimed
   * again by the next pass, their effects undone with it) and the failure is recorded against that one
   * delivery, which waits for its backoff. Returns the deliveries handled: done, or failed once.
   */
  async dispatchOnce(): Promise<number> {
    if (this.subscribers.size === 0) return 0;
    const pairs = [...this.subscribers.keys()].map((key) => key.split('\u0000') as [string, string]);
    let current: ClaimedRow[] | null = null;
    try {
      return await this.options.database.transaction(async (tx) => {
        const claimed = await tx<ClaimedRow>(
          `SELECT d.event_id, d.subscriber, d.attempts, e.type, e.payload, e.created_at
           FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
           WHERE d.status = 'pending' AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= $1)
             AND (e.type, d.subscriber) IN (SELECT * FROM unnest($2::text[], $3::text[]))
           ORDER BY d.next_attempt_at NULLS FIRST, d.event_id
           LIMIT $4
           FOR UPDATE OF d SKIP LOCKED`,
          [this.options.clock.now().toISOString(), pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1]), this.batchSize],
        );
        if (claimed.length === 0) return 0;
        const isolating = this.isolate;
        this.isolate = false;
        // Batch subscribers get their events together (at the place of the first), unless isolating a failure.
        const groups = new Map<string, ClaimedRow[]>();
        const steps: ClaimedRow[][] = [];
        for (const row of claimed) {
          const key = `${row.type}\u0000${row.subscriber}`;
          const entry = this.subscribers.get(key);
          if (entry?.handleMany && !isolating) {
            const group = groups.get(key);
            if (group) group.push(row);
            else {
              const fresh = [row];
              groups.set(key, fresh);
              steps.push(fresh);
            }
          } else steps.push([row]);
        }
        for (const rows of steps) {
          current = rows;
          const entry = this.entryFor(rows[0]!);
          if (entry.handleMany) await entry.handleMany(rows.map((row) => this.eventOf(row)), tx);
          else await entry.handle!(this.eventOf(rows[0]!), tx);
        }
        current = null;
        await tx(
          `UPDATE outbox_deliveries d SET status = 'done', attempts = d.attempts + 1, finished_at = $3, last_error = NULL
           FROM unnest($1::bigint[], $2::text[]) AS done(event_id, subscriber)
           WHERE d.event_id = done.event_id AND d.subscriber = done.subscriber`,
          [claimed.map((row) => String(row.event_id)), claimed.map((row) => row.subscriber), this.options.clock.now().toISOString()],
        );
        return claimed.length;
      });
    } catch (error) {
      const failed = current as ClaimedRow[] | null;
      if (failed === null) throw error; // the database failed, not a subscriber: the next pass tries again
      if (failed.length > 1) {
        // A batch failed: which of its events fails is found by handing them one at a time next.
        this.isolate = true;
        this.options.log.warn('outbox batch delivery failed, retrying its events one at a time', {
          type: failed[0]!.type,
          subscriber: failed[0]!.subscriber,
          events: failed.length,
          error: error instanceof Error ? error.message : String(error),
        });
        return 1;
      }
      await this.recordFailure(failed[0]!, error);
      return 1;
    }
  }

  /**
   * Counts a failed attempt and sets the retry time, or dead-letters. Conditional on the attempt count it
   * saw, so a dispatcher that claimed and delivered the row in between is never overwritten.
   */
  private async recordFailure(row: ClaimedRow, error: unknown): Promise<void> {
    const now = this.options.clock.now();
    const attempts = row.attempts + 1;
    const dead = attempts >= this.maxAttempts;
    const message = error instanceof Error ? error.message : String(error);
    await this.options.database.query(
      `UPDATE outbox_deliveries SET attempts = $4, last_error = $5, status = $6, next_attempt_at = $7, finished_at = $8
       WHERE event_id = $1 AND subscriber = $2 AND status = 'pending' AND attempts = $3`,
      [
        String(row.event_id),
        row.subscriber,
        row.attempts,
        attempts,
        message.slice(0, 2000),
        dead ? 'dead' : 'pending',
        new Date(now.getTime() + this.backoff(attempts)).toISOString(),
        dead ? now.toISOString() : null,
      ],
    );
    const fields = { eventId: Number(row.event_id), type: row.type, subscriber: row.subscriber, attempts, error: message };
    if (dead) this.options.log.error('outbox delivery dead-lettered', fields);
    else this.options.log.warn('outbox delivery failed, retrying', fields);
  }

  /** The delay before retry number `attempts` (1 = the first retry): backoff × 2^(attempts−1), capped. */
  backoff(attempts: number): number {
    return Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempts - 1));
  }

  /** Deletes events created before `cutoff` whose every delivery is done (dead ones stay until retried or looked at). */
  async prune(cutoff: Date): Promise<void> {
    await this.options.database.query(
      `DELETE FROM outbox_events e WHERE e.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.event_id = e.id AND d.status <> 'done')`,
      [cutoff.toISOString()],
    );
  }

  async deadLetters(limit = 100): Promise<DeadDelivery[]> {
    const rows = await this.options.database.query<{
      event_id: string;
      type: string;
      subscriber: string;
      payload: unknown;
      attempts: number;
      last_error: string | null;
      created_at: Date | string;
      finished_at: Date | string | null;
    }>(
      `SELECT d.event_id, e.type, d.subscriber, e.payload, d.attempts, d.last_error, e.created_at, d.finished_at
       FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
       WHERE d.status = 'dead' ORDER BY d.event_id LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      eventId: Number(row.event_id),
      type: row.type,
      subscriber: row.subscriber,
      payload: row.payload,
      attempts: row.attempts,
      lastError: row.last_error,
      createdAt: new Date(row.created_at),
      failedAt: row.finished_at === null ? null : new Date(row.finished_at),
    }));
  }

  /** Puts a dead delivery back in line with a fresh set of attempts; false when there is no such dead letter. */
  async retryDead(eventId: number, subscriber: string): Promise<boolean> {
    const rows = await this.options.database.query(
      `UPDATE outbox_deliveries SET status = 'pending', attempts = 0, next_attempt_at = NULL, finished_at = NULL
       WHERE event_id = $1 AND subscriber = $2 AND status = 'dead' RETURNING event_id`,
      [eventId, subscriber],
    );
    if (rows.length > 0) {
      await this.options.database.query(`SELECT pg_notify('${CHANNEL}', '')`);
      this.loop.wake();
    }
    return rows.length > 0;
  }

  private entryFor(row: ClaimedRow) {
    const entry = this.subscribers.get(`${row.type}\u0000${row.subscriber}`);
    // A subscriber name registered for another type than this event's: no handler here, a failure to record.
    if (!entry) throw new Error(`no subscriber ${row.subscriber} for ${row.type} in this process`);
    return entry;
  }

  private eventOf(row: ClaimedRow): OutboxEvent<Events> {
    return { id: Number(row.event_id), type: row.type as keyof Events, payload: row.payload as Events[keyof Events], createdAt: new Date(row.created_at) };
  }
}
