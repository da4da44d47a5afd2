import { servicesJobs, stopServices } from './app';
import { assemble, openDatabase } from './bootstrap';
import { completeDemoHistory, writeDemoPositions } from './demo/history';
import { demoFleetDevices } from './demo/live';
import { seedDemo } from './demo/seed';
import { startGateway } from './gateway';
import { startFleet } from './gateway/simulator/fleet';
import { platformJobs } from './jobs';
import { JobScheduler } from './jobs/scheduler';
import { ConfigError, demoEnabled, loadConfig } from './lib/config';
import { SchemaTooNewError } from './lib/db/migrate';
import { createLogger } from './lib/log';
import { SERVER_MAX_BODY_BYTES } from './lib/api';

/** Composition root: one process serves the API, the web app, the tracker gateway and the jobs. */
async function main() {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const database = await openDatabase(config);
  const { platform, services, api } = await assemble(config, database, { log });
  const server = api.listen({ hostname: config.HOST, port: config.PORT, maxRequestBodySize: SERVER_MAX_BODY_BYTES });

  const gateway = config.GATEWAY ? await startGateway(platform, services.commands, undefined, { storedBatchHooks: services.tracking.storedBatchHooks }) : null;
  const scheduler = config.JOBS ? new JobScheduler(database, [...platformJobs(platform), ...servicesJobs(platform, services)], log) : null;
  if (scheduler) {
    await scheduler.register();
    scheduler.start();
    await platform.outbox.start();
    await platform.queue.start();
  }
  let fleet: ReturnType<typeof startFleet> | null = null;
  if (demoEnabled(config)) {
    const devices = await seedDemo(platform);
    // The first start writes 90 days of past driving (later starts find it and add nothing); the cars drive on from
    // where it ends while the trip log's detection makes the past trips.
    const history = await writeDemoPositions(platform, services, devices);
    if (history) {
      void completeDemoHistory(platform, services, history).catch((error: unknown) => log.error('demo history not completed', { error: String(error) }));
    }
    if (gateway && devices.length > 0) {
      // The demo vehicles report to this process's own gateway over real sockets, like real trackers.
      fleet = startFleet({
        host: '127.0.0.1',
        ports: gateway.ports,
        devices: await demoFleetDevices(platform, devices),
        intervalMs: 5_000,
        onError: (imei, error) => log.debug('simulated tracker retrying', { imei, error }),
      });
    }
  }
  log.info('portal started', {
    url: `http://localhost:${server.server?.port}`,
    database: database.kind,
    gateway: gateway?.ports ?? 'off',
    jobs: scheduler ? 'on' : 'off',
    demo: demoEnabled(config) ? `${config.DEMO_EMAIL} / ${config.DEMO_PASSWORD}` : 'off',
  });

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down');
    await fleet?.stop();
    services.live.stop(); // open maps get a clean 1001 close
    scheduler?.stop();
    if (scheduler) await Promise.all([platform.outbox.stop(), platform.queue.stop()]); // lets a running delivery or job finish
    await gateway?.stop(); // drains the ingest queue: everything acknowledged is on disk
    await services.trips.idle(); // lets a running trip detection finish
    await server.stop();
    await stopServices(services); // e.g. the rate limits' Redis connection
    await platform.fanout.stop();
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
