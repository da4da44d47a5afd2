import type { TCPSocketListener } from 'bun';
import type { GatewayContext } from '../context';
import { CrcError, decodeGt06Frame, encodeCommand, encodeReply, Gt06Framer } from '../gt06';
import { attachDevice, closeTracker, deliverNext, listenTrackers, type TrackerSession, type TrackerSocket } from './tracker-tcp';

const MAX_FRAME_BYTES = 4 * 1024;

/** GT06 (Concox and clones): login, locations, status, alarms, and 0x80 commands. */
export function startGt06Tcp(context: GatewayContext, port: number, hostname = '0.0.0.0'): TCPSocketListener<TrackerSession<Uint8Array>> {
  const { metrics } = context;

  async function handleFrame(socket: TrackerSocket<Uint8Array>, bytes: Uint8Array, receivedAt: Date) {
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
        closeTracker(socket);
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
    await deliverNext(context, session);
  }

  return listenTrackers({ context, hostname, port, protocol: 'gt06', framer: () => new Gt06Framer({ maxFrameBytes: MAX_FRAME_BYTES }), handleFrame });
}
