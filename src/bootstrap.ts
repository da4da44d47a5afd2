import { join } from 'node:path';
import { createServices, createApi, type Services, servicesSubscriptions } from './app';
import { subscribeAll } from './composition';
import { type Clock, systemClock } from './lib/clock';
import type { Config } from './lib/config';
import { type DatabaseHandle, openPglite, openPostgres } from './lib/db/client';
import { migrate } from './lib/db/migrate';
import { EventBus } from './lib/events';
import { createLogger, type Logger } from './lib/log';
import { createMailer } from './lib/mail';
import type { Platform } from './lib/platform';
import { ensurePositionPartitions } from './modules/tracking/service';
import { JobQueue } from './lib/queue';
import { Outbox } from './lib/outbox';
import { openFanout } from './lib/fanout';

export async function openDatabase(config: Config): Promise<DatabaseHandle> {
  return config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : openPglite(join(config.DATA_DIR, 'pglite'));
}

/** Assembles platform, services and API over an open, migrated database. Shared by main and the tests. */
export async function assemble(
  config: Config,
  database: DatabaseHandle,
  options: { clock?: Clock; log?: Logger } = {},
): Promise<{ platform: Platform; services: Services; api: ReturnType<typeof createApi> }> {
  const log = options.log ?? createLogger(config.LOG_LEVEL);
  await migrate(database);
  const events = new EventBus((event, error) => log.error('event handler failed', { event, error: String(error) }));
  const clock = options.clock ?? systemClock;
  const platform: Platform = {
    config,
    database,
    clock,
    mailer: createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, database, log }),
    events,
    outbox: new Outbox({ database, clock, log }),
    queue: new JobQueue({ database, clock, log, leaseMs: config.JOB_LEASE_SECONDS * 1000, concurrency: config.JOB_CONCURRENCY }),
    fanout: await openFanout({ natsUrl: config.NATS_URL, database, log }),
    log,
  };
  await ensurePositionPartitions(platform);
  const services = await createServices(platform);
  // Every process subscribes what its modules declare and records it, so their events reach them (main.ts starts
  // dispatching where JOBS is on).
  subscribeAll(platform.outbox, servicesSubscriptions(platform, services));
  await platform.outbox.register();
  return { platform, services, api: createApi(platform, services) };
}
