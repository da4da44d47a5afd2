import type { JobQueue } from './queue';
import type { Clock } from './clock';
import type { Config } from './config';
import type { DatabaseHandle } from './db/client';
import type { EventBus, EventMap } from './events';
import type { Fanout } from './fanout';
import type { Logger } from './log';
import type { Mailer } from './mail';
import type { Outbox } from './outbox';

/** What every module is built from; assembled once in src/main.ts (and in tests). */
export interface Platform {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  mailer: Mailer;
  /** In-process events: for what may be lost without harm (the live map's pushes). */
  events: EventBus;
  /** Durable events, written in the transaction of their cause (src/lib/outbox). */
  outbox: Outbox<EventMap>;
  /** Queued jobs: now or at a time, unique keys, retries, dead letters (src/lib/queue.ts). */
  queue: JobQueue;
  /** Live events between the instances sharing the database (src/lib/fanout). */
  fanout: Fanout;
  log: Logger;
}
