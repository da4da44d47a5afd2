import type { TCPSocketListener } from 'bun';
import type { GatewayContext } from '../context';
import { CrcError, decodeTcpFrame, encodeAck, encodeCodec12Command, encodeImeiReply, TeltonikaFramer } from '../teltonika';
import { attachDevice, closeTracker, deliverNext, listenTrackers, type TrackerSession, type TrackerSocket } from './tracker-tcp';

const MAX_FRAME_BYTES = 64 * 1024;
type TeltonikaFrame = ReturnType<TeltonikaFramer['push']>[number];

/** Teltonika over TCP: the IMEI handshake, AVL data (codecs 8, 8E, 16) acknowledged once stored, Codec 12 commands. */
export function startTeltonikaTcp(context: GatewayContext, port: number, hostname = '0.0.0.0'): TCPSocketListener<TrackerSession<TeltonikaFrame>> {
  const { metrics, log } = context;

  async function handleFrame(socket: TrackerSocket<TeltonikaFrame>, frame: TeltonikaFrame, receivedAt: Date) {
    const session = socket.data;
    if (frame.kind === 'ping') return;
    if (frame.kind === 'imei') {
      const device = await context.devices.find(frame.imei);
      if (!device) {
        metrics.unknownDevices += 1;
        socket.write(encodeImeiReply(false));
        closeTracker(socket);
        return;
      }
      await attachDevice(
        context,
        socket,
        { imei: frame.imei, known: device },
        () => socket.write(encodeImeiReply(true)),
        (payload) => encodeCodec12Command(payload),
      );
      return;
    }
    if (!session.device || !session.imei) {
      metrics.malformed += 1;
      closeTracker(socket);
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
      closeTracker(socket);
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
      await deliverNext(context, session);
      return;
    }
    try {
      await context.ingest.submit({
        unitId: session.device.unitId,
        accountId: session.device.accountId,
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
      closeTracker(socket);
      return;
    }
    metrics.recordsStored += decoded.records.length;
    metrics.recordLatency(Date.now() - receivedAt.getTime());
    if (!session.closed) socket.write(encodeAck(decoded.count));
    await deliverNext(context, session);
  }

  return listenTrackers({ context, hostname, port, protocol: 'teltonika', framer: () => new TeltonikaFramer({ maxFrameBytes: MAX_FRAME_BYTES }), handleFrame });
}
