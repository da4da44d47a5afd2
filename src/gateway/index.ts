import type { Platform } from '../lib/platform';
import type { CommandService } from '../modules/io/service';
import { IngestWriter, type StoredBatchHooks } from '../modules/tracking/service';
import type { GatewayContext } from './context';
import { deliverNextCommand } from './context';
import { DeviceDirectory } from './devices';
import { GatewayMetrics } from './metrics';
import { startGt06Tcp } from './servers/gt06-tcp';
import { startOsmandHttp } from './servers/osmand-http';
import { startTeltonikaTcp } from './servers/teltonika-tcp';
import { startTeltonikaUdp } from './servers/teltonika-udp';

/** How often the gateway asks for queued commands of its connected devices it has not been told of. */
export const COMMAND_POLL_MS = 10_000;

export interface GatewayPorts {
  teltonika: number;
  gt06: number;
  osmand: number;
}

/**
 * Starts every tracker listener over one ingest pipeline. Port 0 picks a free port (tests). `storedBatchHooks`
 * (the tracking service's) run in each ingest batch's transaction: geofence matching.
 */
export async function startGateway(
  platform: Platform,
  commands: CommandService,
  ports?: Partial<GatewayPorts>,
  options: { storedBatchHooks?: StoredBatchHooks } = {},
) {
  const { config, database, log, events } = platform;
  const context: GatewayContext = {
    config,
    database,
    // RAW_FRAME_RETENTION_DAYS=0 means raw frames are not kept at all.
    ingest: new IngestWriter(database, events, log, {
      hooks: options.storedBatchHooks,
      keepRawFrames: config.RAW_FRAME_RETENTION_DAYS > 0,
      futureSkewMs: config.FIX_FUTURE_SKEW_SECONDS * 1000,
    }),
    devices: new DeviceDirectory(database),
    commands,
    metrics: new GatewayMetrics(),
    log,
    unitsWithCommands: new Set(await commands.unitsWithPending()),
    channels: new Map(),
  };
  const queued = async (unitId: number) => {
    context.unitsWithCommands.add(unitId);
    const channel = context.channels.get(unitId);
    if (channel) await deliverNextCommand(context, unitId, channel);
  };
  const failed = (error: unknown) => log.error('command delivery failed', { error: String(error) });
  // A command queued in this process, and (the notification of its commit) in any process: the API, an outbox
  // subscriber or a job may run elsewhere.
  const offQueued = events.on('command.queued', ({ unitId }) => queued(unitId));
  const stopListening = await commands.onQueued((unitId) => {
    queued(unitId).catch(failed);
  });
  // A notification missed while the listening connection was down: connected units' queued commands are asked for.
  const poller = setInterval(() => {
    commands
      .withQueued([...context.channels.keys()])
      .then(async (unitIds) => {
        for (const unitId of unitIds) await queued(unitId);
      })
      .catch(failed);
  }, COMMAND_POLL_MS);
  // A replaced tracker's old IMEI must be refused at once, not when its cache entry runs out.
  const offReplaced = events.on('unit.tracker_replaced', ({ oldImei, newImei }) => {
    context.devices.forget(oldImei);
    context.devices.forget(newImei);
  });
  const sweeper = setInterval(() => {
    commands.sweep().catch((error: unknown) => log.error('command sweep failed', { error: String(error) }));
  }, 5_000);

  const teltonika = startTeltonikaTcp(context, ports?.teltonika ?? config.TELTONIKA_PORT);
  const teltonikaUdp = await startTeltonikaUdp(context, teltonika.port);
  const gt06 = startGt06Tcp(context, ports?.gt06 ?? config.GT06_PORT);
  const osmand = startOsmandHttp(context, ports?.osmand ?? config.OSMAND_PORT);
  log.info('gateway listening', { teltonika: teltonika.port, gt06: gt06.port, osmand: osmand.port });

  return {
    context,
    ports: { teltonika: teltonika.port, gt06: gt06.port, osmand: osmand.port ?? 0 },
    async stop() {
      offQueued();
      offReplaced();
      clearInterval(sweeper);
      clearInterval(poller);
      await stopListening();
      teltonika.stop(true);
      teltonikaUdp.close();
      gt06.stop(true);
      await osmand.stop(true);
      await context.ingest.drain();
    },
  };
}
export type Gateway = Awaited<ReturnType<typeof startGateway>>;
