import type { Clock } from './clock';
import type { Config } from './config';
import type { DatabaseHandle } from './db/client';
import type { EventBus } from './events';
import type { Logger } from './log';
import type { Mailer } from './mail';

/** What every module is built from; assembled once in src/main.ts (and in tests). */
export interface Platform {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  mailer: Mailer;
  events: EventBus;
  log: Logger;
}
