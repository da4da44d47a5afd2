import type { Socket, TCPSocketListener } from 'bun';
import type { QueuedCommand } from '../../modules/io/service';
import { type CommandChannel, deliverNextCommand, type GatewayContext } from '../context';
import type { KnownDevice } from '../devices';

/**
 * What every tracker protocol on TCP shares (Teltonika, GT06): a session per connection, frames cut from the byte
 * stream and handled strictly one after another, idle and partial-frame timeouts, and the command channel the
 * queue reaches the device through once it has said who it is. Each protocol brings its framer and frame handler.
 */

/** Trackers keep the session open between reports; an idle socket is closed after this. */
const IDLE_TIMEOUT_SECONDS = 30 * 60;
/** A connection holding a partial frame this long is closed (slow or stuck senders). */
const PARTIAL_FRAME_TIMEOUT_SECONDS = 60;

/** Cuts a protocol's frames from a byte stream; throws on garbage or an oversized length. */
export interface StreamFramer<Frame> {
  push(chunk: Uint8Array): Frame[];
  /** Bytes of a frame not yet complete. */
  readonly buffered: number;
}

/** One tracker's connection. */
export interface TrackerSession<Frame> {
  framer: StreamFramer<Frame>;
  imei: string | null;
  device: KnownDevice | null;
  /** Frames are handled strictly one after another: a device is stop-and-wait. */
  chain: Promise<void>;
  /** A command went out and its answer has not come yet: the next one waits. */
  awaitingResponse: boolean;
  /** Commands sent on this connection so far (GT06 numbers them). */
  commandsSent: number;
  /** How the command queue reaches this connection, once the device is known. */
  channel: CommandChannel | null;
  closed: boolean;
  remote: string;
}

export type TrackerSocket<Frame> = Socket<TrackerSession<Frame>>;

export function closeTracker<Frame>(socket: TrackerSocket<Frame>): void {
  if (socket.data.closed) return;
  socket.data.closed = true;
  socket.end();
}

/**
 * The device said who it is and is known: it is answered with `accept`, and from then on the command queue reaches it
 * through this connection (a reconnect replaces an older connection's channel), starting with what is waiting: what an
 * earlier connection was sent and did not answer first, then what is queued.
 * `encodeCommand` writes a queued command in the protocol's framing.
 */
export async function attachDevice<Frame>(
  context: GatewayContext,
  socket: TrackerSocket<Frame>,
  device: { imei: string; known: KnownDevice },
  accept: () => void,
  encodeCommand: (payload: QueuedCommand['payload'], session: TrackerSession<Frame>) => Uint8Array,
): Promise<void> {
  const session = socket.data;
  session.imei = device.imei;
  session.device = device.known;
  session.channel = {
    isIdle: () => !session.closed && !session.awaitingResponse,
    offer(command: QueuedCommand) {
      if (session.closed || session.awaitingResponse) return false;
      session.awaitingResponse = true;
      session.commandsSent += 1;
      socket.write(encodeCommand(command.payload, session));
      return true;
    },
  };
  context.channels.set(device.known.unitId, session.channel);
  // What an earlier connection was sent and never answered goes out again on this one.
  if ((await context.commands.resumeUnanswered(device.known.unitId)) > 0) context.unitsWithCommands.add(device.known.unitId);
  accept();
  await deliverNextCommand(context, device.known.unitId, session.channel);
}

/** After a report or a command's answer: the next queued command, if the device is idle. */
export async function deliverNext<Frame>(context: GatewayContext, session: TrackerSession<Frame>): Promise<void> {
  if (session.device && session.channel) await deliverNextCommand(context, session.device.unitId, session.channel);
}

/** Listens for one protocol's trackers: `handleFrame` gets each complete frame in order, with when its bytes arrived. */
export function listenTrackers<Frame>(options: {
  context: GatewayContext;
  hostname: string;
  port: number;
  /** For the log. */
  protocol: string;
  framer: () => StreamFramer<Frame>;
  handleFrame: (socket: TrackerSocket<Frame>, frame: Frame, receivedAt: Date) => Promise<void>;
}): TCPSocketListener<TrackerSession<Frame>> {
  const { context, handleFrame } = options;
  const { metrics, log } = context;
  return Bun.listen<TrackerSession<Frame>>({
    hostname: options.hostname,
    port: options.port,
    socket: {
      open(socket) {
        socket.data = {
          framer: options.framer(),
          imei: null,
          device: null,
          chain: Promise.resolve(),
          awaitingResponse: false,
          commandsSent: 0,
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
        let frames: Frame[];
        try {
          frames = session.framer.push(chunk);
        } catch {
          // Garbage or an oversized length: this connection only.
          metrics.malformed += 1;
          closeTracker(socket);
          return;
        }
        socket.timeout(session.framer.buffered > 0 ? PARTIAL_FRAME_TIMEOUT_SECONDS : IDLE_TIMEOUT_SECONDS);
        for (const frame of frames) {
          session.chain = session.chain
            .then(() => (session.closed ? undefined : handleFrame(socket, frame, receivedAt)))
            .catch((error: unknown) => {
              log.error(`${options.protocol} session failed`, { imei: session.imei, error: String(error) });
              closeTracker(socket);
            });
        }
      },
      timeout(socket) {
        closeTracker(socket);
      },
      error(socket) {
        closeTracker(socket);
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
}
