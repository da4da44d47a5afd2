import type { TCPSocketListener } from 'bun';
import type { GatewayContext } from '../context';
import { CrcError, decodeGt06Frame, encodeCommand, encodeReply, Gt06Framer, replyTo } from '../gt06';
import { attachDevice, closeTracker, deliverNext, listenTrackers, type TrackerSession, type TrackerSocket } from './tracker-tcp';

const MAX_FRAME_BYTES = 4 * 1024;

/**
 * The zone each session's unit reported at login. A session's D6 times are read in the unit's configured zone when one
 * is set, else in this one (firmware that sends local time says so there), else as UTC.
 */
const loginZones = new WeakMap<TrackerSession<Uint8Array>, number>();

/** GT06 family (Concox/Jimi 2G and 4G, and clones): login, locations, cells and Wi-Fi, status, alarms, requests, and 0x80 commands. */
export function startGt06Tcp(context: GatewayContext, port: number, hostname = '0.0.0.0'): TCPSocketListener<TrackerSession<Uint8Array>> {
  const { metrics } = context;

  async function handleFrame(socket: TrackerSocket<Uint8Array>, bytes: Uint8Array, receivedAt: Date) {
    const session = socket.data;
    metrics.framesReceived += 1;
    let message: ReturnType<typeof decodeGt06Frame>;
    try {
      const configured = session.device?.timezoneMinutes ?? 0;
      message = decodeGt06Frame(bytes, {
        imei: session.imei ?? undefined,
        model: session.device?.model,
        timezoneMinutes: configured !== 0 ? configured : (loginZones.get(session) ?? 0),
        now: receivedAt,
      });
    } catch (error) {
      if (error instanceof CrcError) {
        metrics.badCrc += 1;
        return;
      }
      metrics.malformed += 1;
      closeTracker(socket);
      return;
    }
    if (message.type === 'login') {
      const device = await context.devices.find(message.imei);
      if (!device) {
        metrics.unknownDevices += 1;
        closeTracker(socket);
        return;
      }
      if (message.timezoneMinutes !== null) loginZones.set(session, message.timezoneMinutes);
      await attachDevice(
        context,
        socket,
        { imei: message.imei, known: device },
        () => socket.write(encodeReply(message.protocol, message.serial)),
        (payload, session) => encodeCommand(payload, session.commandsSent & 0xffff),
      );
      return;
    }
    if (!session.device || !session.imei) {
      // Everything but a login needs a logged-in device.
      closeTracker(socket);
      return;
    }
    const { unitId, accountId } = session.device;
    if ('record' in message) {
      try {
        await context.ingest.submit({
          unitId,
          accountId,
          protocol: 'gt06',
          deviceId: session.imei,
          records: [message.record],
          rawFrame: bytes,
          remote: session.remote,
          receivedAt,
        });
      } catch {
        metrics.ingestFailures += 1;
        closeTracker(socket);
        return;
      }
      metrics.recordsStored += 1;
      metrics.recordLatency(Date.now() - receivedAt.getTime());
    } else if (message.type === 'status') {
      context.ingest.touch(unitId, accountId, receivedAt);
    } else if (message.type === 'command-response') {
      session.awaitingResponse = false;
      await context.commands.recordResponse(unitId, message.text);
    }
    const reply = replyTo(message, new Date());
    if (reply && !session.closed) socket.write(reply);
    await deliverNext(context, session);
  }

  return listenTrackers({ context, hostname, port, protocol: 'gt06', framer: () => new Gt06Framer({ maxFrameBytes: MAX_FRAME_BYTES }), handleFrame });
}
