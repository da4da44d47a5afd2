import type { Socket, TCPSocketListener } from 'bun';
import type { QueuedCommand } from '../../modules/io/commands';
import { type CommandChannel, deliverNextCommand, type GatewayContext } from '../context';
import type { KnownDevice } from '../devices';
import {
  CrcError,
  decodeTcpFrame,
  encodeAck,
  encodeCodec12Command,
  encodeImeiReply,
  TeltonikaFramer,
} from '../teltonika';

/** A connection holding a partial frame this long is closed (slow or stuck senders). */
const PARTIAL_FRAME_TIMEOUT_SECONDS = 60;
/** Trackers keep the session open between reports; an idle socket is closed after this. */
const IDLE_TIMEOUT_SECONDS = 30 * 60;
const MAX_FRAME_BYTES = 64 * 1024;

interface Session {
  framer: TeltonikaFramer;
  imei: string | null;
  device: KnownDevice | null;
  /** Frames are handled strictly one after another: a device is stop-and-wait. */
  chain: Promise<void>;
  awaitingResponse: boolean;
  channel: CommandChannel | null;
  closed: boolean;
  remote: string;
}

export function startTeltonikaTcp(context: GatewayContext, port: number, hostname = '0.0.0.0'): TCPSocketListener<Session> {
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
        socket.write(encodeCodec12Command(command.payload));
        return true;
      },
    };
  }

  async function handleFrame(socket: Socket<Session>, frame: ReturnType<TeltonikaFramer['push']>[number], receivedAt: Date) {
    const session = socket.data;
    if (frame.kind === 'ping') return;
    if (frame.kind === 'imei') {
      const device = await context.devices.find(frame.imei);
      if (!device) {
        metrics.unknownDevices += 1;
        socket.write(encodeImeiReply(false));
        close(socket);
        return;
      }
      session.imei = frame.imei;
      session.device = device;
      socket.write(encodeImeiReply(true));
      session.channel = channelFor(socket);
      context.channels.set(device.unitId, session.channel);
      await deliverNextCommand(context, device.unitId, session.channel);
      return;
    }
    if (!session.device || !session.imei) {
      metrics.malformed += 1;
      close(socket);
      return;
    }
    metrics.framesReceived += 1;
    let decoded: ReturnType<typeof decodeTcpFrame>;
    try {
      decoded = decodeTcpFrame(frame.bytes, session.imei, session.device.model);
    } catch (error) {
      if (error instanceof CrcError) {
        // Neither acknowledged nor stored: the device sends the packet again.
        metrics.badCrc += 1;
        return;
      }
      metrics.malformed += 1;
      log.warn('malformed teltonika frame', { imei: session.imei, error: String(error) });
      close(socket);
      return;
    }
    if (decoded.type === 'command-response') {
      // Only a Codec 12 response (type 0x06) answers our command; Codec 13/14 messages are the device's own.
      if (decoded.codec !== 12 || decoded.messageType !== 0x06) {
        log.debug('teltonika device message ignored', { imei: session.imei, codec: decoded.codec, text: decoded.text });
        return;
      }
      session.awaitingResponse = false;
      await context.commands.recordResponse(session.device.unitId, decoded.text);
      await deliverNextCommand(context, session.device.unitId, channelFor(socket));
      return;
    }
    try {
      await context.ingest.submit({
        unitId: session.device.unitId,
        protocol: 'teltonika',
        deviceId: session.imei,
        records: decoded.records,
        rawFrame: frame.bytes,
        remote: session.remote,
        receivedAt,
      });
    } catch {
      // Not stored, so not acknowledged: the device keeps the records and sends them again.
      metrics.ingestFailures += 1;
      close(socket);
      return;
    }
    metrics.recordsStored += decoded.records.length;
    metrics.recordLatency(Date.now() - receivedAt.getTime());
    if (!session.closed) socket.write(encodeAck(decoded.count));
    await deliverNextCommand(context, session.device.unitId, channelFor(socket));
  }

  const listener = Bun.listen<Session>({
    hostname,
    port,
    socket: {
      open(socket) {
        socket.data = {
          framer: new TeltonikaFramer({ maxFrameBytes: MAX_FRAME_BYTES }),
          imei: null,
          device: null,
          chain: Promise.resolve(),
          awaitingResponse: false,
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
        let frames: ReturnType<TeltonikaFramer['push']>;
        try {
          frames = session.framer.push(chunk);
        } catch {
          // Garbage or an oversized length: this connection only.
          metrics.malformed += 1;
          close(socket);
          return;
        }
        socket.timeout(session.framer.buffered > 0 ? PARTIAL_FRAME_TIMEOUT_SECONDS : IDLE_TIMEOUT_SECONDS);
        for (const frame of frames) {
          session.chain = session.chain
            .then(() => (session.closed ? undefined : handleFrame(socket, frame, receivedAt)))
            .catch((error: unknown) => {
              log.error('teltonika session failed', { imei: session.imei, error: String(error) });
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
        // A reconnect may already have replaced this session's channel.
        if (unitId !== undefined && context.channels.get(unitId) === socket.data.channel) context.channels.delete(unitId);
      },
    },
  });
  return listener;
}
