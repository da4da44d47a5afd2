import { join } from 'node:path';
import { createServices, createApi, type Services } from './app';
import { type Clock, systemClock } from './lib/clock';
import type { Config } from './lib/config';
import { type DatabaseHandle, openPglite, openPostgres } from './lib/db/client';
import { migrate } from './lib/db/migrate';
import { EventBus } from './lib/events';
import { createLogger, type Logger } from './lib/log';
import { createMailer } from './lib/mail';
import type { Platform } from './lib/platform';
import { ensurePositionPartitions } from './jobs';

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
  const platform: Platform = {
    config,
    database,
    clock: options.clock ?? systemClock,
    mailer: createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, database, log }),
    events,
    log,
  };
  await ensurePositionPartitions(platform);
  const services = await createServices(platform);
  return { platform, services, api: createApi(platform, services) };
}
