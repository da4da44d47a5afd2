import { assemble, openDatabase } from './bootstrap';
import { ConfigError, demoEnabled, loadConfig } from './lib/config';
import { SchemaTooNewError } from './lib/db/migrate';
import { createLogger } from './lib/log';

/** Composition root: one process serves the API, the web app, the tracker gateway and the jobs. */
async function main() {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const database = await openDatabase(config);
  const { api } = await assemble(config, database, { log });
  const server = api.listen({ hostname: config.HOST, port: config.PORT });
  log.info('portal started', {
    url: `http://localhost:${server.server?.port}`,
    database: database.kind,
    demo: demoEnabled(config),
  });
  const shutdown = async () => {
    log.info('shutting down');
    await server.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof SchemaTooNewError) {
    console.error(error.message);
  } else {
    console.error('The portal could not start:', error instanceof Error ? error.stack : error);
  }
  process.exit(1);
});
