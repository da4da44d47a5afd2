import type { Config } from '../lib/config';
import type { DatabaseHandle } from '../lib/db/client';
import type { Logger } from '../lib/log';
import type { CommandService, QueuedCommand } from '../modules/io/service';
import type { IngestWriter } from '../modules/tracking/service';
import type { DeviceDirectory } from './devices';
import type { GatewayMetrics } from './metrics';

/** A live device session that can be handed a command while it is idle. */
export interface CommandChannel {
  /** Sends the command if the session is idle; false when busy (it is retried after the next ACK). */
  offer(command: QueuedCommand): boolean;
  isIdle(): boolean;
}

export interface GatewayContext {
  config: Config;
  database: DatabaseHandle;
  ingest: IngestWriter;
  devices: DeviceDirectory;
  commands: CommandService;
  metrics: GatewayMetrics;
  log: Logger;
  /** Units with queued commands; only these are asked for work after an ACK. */
  unitsWithCommands: Set<number>;
  /** Open sessions by unit, so a new command reaches a connected device at once. */
  channels: Map<number, CommandChannel>;
}

/** After a session goes idle: claim and send the unit's next command, if any is queued. */
export async function deliverNextCommand(context: GatewayContext, unitId: number, channel: CommandChannel): Promise<void> {
  if (!context.unitsWithCommands.has(unitId) || !channel.isIdle()) return;
  const command = await context.commands.claimNext(unitId);
  if (!command) {
    const pending = await context.commands.hasQueued(unitId);
    if (!pending) context.unitsWithCommands.delete(unitId);
    return;
  }
  if (!channel.offer(command)) await context.commands.requeue(command.id);
}
