import type { udp } from 'bun';
import type { GatewayContext } from '../context';
import { decodeUdpDatagram, normalize } from '../teltonika';

/**
 * Teltonika over UDP on the TCP port: no handshake and no CRC; each datagram carries the IMEI.
 * The ACK (echoing packet id and AVL packet id) goes out only after the records are stored;
 * retries reuse the AVL packet id and are deduplicated by (unit, time).
 */
export async function startTeltonikaUdp(context: GatewayContext, port: number, hostname = '0.0.0.0'): Promise<udp.Socket<'buffer'>> {
  const { metrics } = context;
  return Bun.udpSocket({
    hostname,
    port,
    socket: {
      async data(socket, buffer, remotePort, address) {
        const receivedAt = new Date();
        metrics.framesReceived += 1;
        let datagram: ReturnType<typeof decodeUdpDatagram>;
        try {
          datagram = decodeUdpDatagram(new Uint8Array(buffer));
        } catch {
          metrics.malformed += 1;
          return;
        }
        const device = await context.devices.find(datagram.imei);
        if (!device) {
          metrics.unknownDevices += 1;
          return;
        }
        // The datagram names its IMEI only inside: its IO is read with the device's own model once that is known.
        const records = datagram.records.map((record) => ({ ...record, normalized: normalize(device.model, record.io, record.eventId) }));
        try {
          await context.ingest.submit({
            unitId: device.unitId,
            accountId: device.accountId,
            protocol: 'teltonika',
            deviceId: datagram.imei,
            records,
            rawFrame: new Uint8Array(buffer),
            remote: address,
            receivedAt,
          });
        } catch {
          metrics.ingestFailures += 1;
          return;
        }
        metrics.recordsStored += datagram.records.length;
        metrics.recordLatency(Date.now() - receivedAt.getTime());
        socket.send(datagram.ack, remotePort, address);
      },
    },
  });
}
