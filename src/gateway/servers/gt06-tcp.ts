import type { Socket, TCPSocketListener } from 'bun';
import type { QueuedCommand } from '../../modules/io/commands';
import { type CommandChannel, deliverNextCommand, type GatewayContext } from '../context';
import type { KnownDevice } from '../devices';
import { CrcError, decodeGt06Frame, encodeCommand, encodeReply, Gt06Framer } from '../gt06';

const IDLE_TIMEOUT_SECONDS = 30 * 60;
const PARTIAL_FRAME_TIMEOUT_SECONDS = 60;
const MAX_FRAME_BYTES = 4 * 1024;

interface Session {
  framer: Gt06Framer;
  imei: string | null;
  device: KnownDevice | null;
  chain: Promise<void>;
  awaitingResponse: boolean;
  commandSerial: number;
  channel: CommandChannel | null;
  closed: boolean;
  remote: string;
}

/** GT06 (Concox and clones): login, locations, status, alarms, and 0x80 commands. */
export function startGt06Tcp(context: GatewayContext, port: number, hostname = '0.0.0.0'): TCPSocketListener<Session> {
  const { metrics, log } = context;

  function close(socket: Socket<Session>) {
    if (socket.data.closed) return;
    socket.data.closed = true;
    socket.end();
  }

  function channelFor(socket: Socket<Session>): CommandChannel {
    return {
      isIdle: () => !socket.data.closed && !socket.data.awaitingResponse,
      offer(command: QueuedCommand) {
        if (socket.data.closed || socket.data.awaitingResponse) return false;
        socket.data.awaitingResponse = true;
        socket.data.commandSerial = (socket.data.commandSerial + 1) & 0xffff;
        socket.write(encodeCommand(command.payload, socket.data.commandSerial));
        return true;
      },
    };
  }

  async function handleFrame(socket: Socket<Session>, bytes: Uint8Array, receivedAt: Date) {
    const session = socket.data;
    metrics.framesReceived += 1;
    let message: ReturnType<typeof decodeGt06Frame>;
    try {
      message = decodeGt06Frame(bytes, { imei: session.imei ?? undefined, timezoneMinutes: session.device?.timezoneMinutes ?? 0 });
    } catch (error) {
      if (error instanceof CrcError) {
        metrics.badCrc += 1;
        return;
      }
      metrics.malformed += 1;
      close(socket);
      return;
    }
    if (message.type === 'login') {
      const device = await context.devices.find(message.imei);
      if (!device) {
        metrics.unknownDevices += 1;
        close(socket);
        return;
      }
      session.imei = message.imei;
      session.device = device;
      session.channel = channelFor(socket);
      context.channels.set(device.unitId, session.channel);
      socket.write(encodeReply(message.protocol, message.serial));
      await deliverNextCommand(context, device.unitId, session.channel);
      return;
    }
    if (!session.device || !session.imei) {
      // Everything but a login needs a logged-in device.
      close(socket);
      return;
    }
    const unitId = session.device.unitId;
    if (message.type === 'location' || message.type === 'alarm') {
      try {
        await context.ingest.submit({
          unitId,
          protocol: 'gt06',
          deviceId: session.imei,
          records: [message.record],
          rawFrame: bytes,
          remote: session.remote,
          receivedAt,
        });
      } catch {
        metrics.ingestFailures += 1;
        close(socket);
        return;
      }
      metrics.recordsStored += 1;
      metrics.recordLatency(Date.now() - receivedAt.getTime());
      socket.write(encodeReply(message.protocol, message.serial));
    } else if (message.type === 'status') {
      await context.database.query('UPDATE unit_state SET last_seen = GREATEST(last_seen, $2) WHERE unit_id = $1', [
        unitId,
        receivedAt.toISOString(),
      ]);
      socket.write(encodeReply(message.protocol, message.serial));
    } else if (message.type === 'command-response') {
      session.awaitingResponse = false;
      await context.commands.recordResponse(unitId, message.text);
    } else {
      socket.write(encodeReply(message.protocol, message.serial));
    }
    if (session.channel) await deliverNextCommand(context, unitId, session.channel);
  }

  return Bun.listen<Session>({
    hostname,
    port,
    socket: {
      open(socket) {
        socket.data = {
          framer: new Gt06Framer({ maxFrameBytes: MAX_FRAME_BYTES }),
          imei: null,
          device: null,
          chain: Promise.resolve(),
          awaitingResponse: false,
          commandSerial: 0,
          channel: null,
          closed: false,
          remote: `${socket.remoteAddress}`,
        };
        socket.timeout(IDLE_TIMEOUT_SECONDS);
        metrics.connectionsOpen += 1;
        metrics.connectionsTotal += 1;
      },
      data(socket, chunk) {
        const session = socket.data;
        if (session.closed) return;
        const receivedAt = new Date();
        let frames: Uint8Array[];
        try {
          frames = session.framer.push(chunk);
        } catch {
          metrics.malformed += 1;
          close(socket);
          return;
        }
        socket.timeout(session.framer.buffered > 0 ? PARTIAL_FRAME_TIMEOUT_SECONDS : IDLE_TIMEOUT_SECONDS);
        for (const frame of frames) {
          session.chain = session.chain
            .then(() => (session.closed ? undefined : handleFrame(socket, frame, receivedAt)))
            .catch((error: unknown) => {
              log.error('gt06 session failed', { imei: session.imei, error: String(error) });
              close(socket);
            });
        }
      },
      timeout(socket) {
        close(socket);
      },
      error(socket) {
        close(socket);
      },
      close(socket) {
        socket.data.closed = true;
        metrics.connectionsOpen -= 1;
        const unitId = socket.data.device?.unitId;
        if (unitId !== undefined && context.channels.get(unitId) === socket.data.channel) context.channels.delete(unitId);
      },
    },
  });
}
