import { decodeGt06Frame, Gt06Framer } from './gt06';
import { decodeOsmand } from './osmand';
import { decodeTcpFrame, decodeUdpDatagram, TeltonikaFramer } from './teltonika';
import { type DecodedRecord, ioToJson } from './types';

export const DECODE_PROTOCOLS = ['teltonika', 'gt06', 'osmand'] as const;
export type DecodeProtocol = (typeof DECODE_PROTOCOLS)[number];

export class PayloadError extends Error {
  override name = 'PayloadError';
}

/** One line of `bun run decode` output: a record or a non-position message. */
export type DecodedLine = Record<string, unknown>;

function hexBytes(payload: string): Uint8Array {
  const clean = payload.replace(/\s+/g, '').replace(/^0x/i, '');
  if (clean.length === 0 || clean.length % 2 !== 0 || !/^[0-9a-f]+$/i.test(clean)) {
    throw new PayloadError('the payload must be an even number of hexadecimal digits');
  }
  return Uint8Array.from(Buffer.from(clean, 'hex'));
}

function recordLine(record: DecodedRecord): DecodedLine {
  return {
    protocol: record.protocol,
    deviceId: record.deviceId,
    time: record.time.toISOString(),
    latitude: record.latitude,
    longitude: record.longitude,
    altitude: record.altitude,
    speedKmh: record.speedKmh,
    course: record.course,
    satellites: record.satellites,
    valid: record.valid,
    priority: record.priority,
    eventId: record.eventId,
    normalized: record.normalized,
    io: ioToJson(record.io),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Decodes a captured payload the way the gateway would: Teltonika TCP frames (with or without the IMEI
 * handshake in front) or a UDP datagram; one or more GT06 frames; an OsmAnd query string or JSON body.
 */
export function decodePayload(protocol: DecodeProtocol, payload: string, imei = ''): DecodedLine[] {
  const text = payload.trim();
  if (text === '') throw new PayloadError('the payload is empty');
  try {
    if (protocol === 'osmand') {
      const json = text.startsWith('{');
      const decoded = decodeOsmand({
        method: 'POST',
        url: json ? '/' : `/?${text.replace(/^\?/, '')}`,
        contentType: json ? 'application/json' : 'application/x-www-form-urlencoded',
        body: json ? text : '',
      });
      return decoded.records.map(recordLine);
    }
    const bytes = hexBytes(text);
    if (protocol === 'gt06') {
      const framer = new Gt06Framer();
      const frames = framer.push(bytes);
      if (frames.length === 0 || framer.buffered > 0) throw new PayloadError('the payload is not a whole GT06 frame');
      let deviceImei = imei;
      return frames.map((frame) => {
        const message = decodeGt06Frame(frame, { imei: deviceImei });
        if (message.type === 'login') deviceImei = message.imei;
        if (message.type === 'location' || message.type === 'alarm') return { message: message.type, ...recordLine(message.record) };
        return { message: message.type, serial: message.serial, ...(message.type === 'login' ? { imei: message.imei } : {}) };
      });
    }
    // Teltonika: a TCP frame starts with the 4-byte zero preamble; a UDP datagram with its length.
    const tcp = bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0 && bytes[3] === 0;
    const imeiHandshake = bytes.length >= 2 && ((bytes[0]! << 8) | bytes[1]!) === 15 && bytes.length >= 17;
    if (!tcp && !imeiHandshake) {
      const datagram = decodeUdpDatagram(bytes);
      return datagram.records.map(recordLine);
    }
    const framer = new TeltonikaFramer({ maxFrameBytes: 1 << 20 });
    let deviceImei = imei;
    const lines: DecodedLine[] = [];
    for (const frame of framer.push(bytes)) {
      if (frame.kind === 'imei') {
        deviceImei = frame.imei;
        lines.push({ message: 'imei', imei: frame.imei });
      } else if (frame.kind === 'data') {
        const decoded = decodeTcpFrame(frame.bytes, deviceImei);
        if (decoded.type === 'avl') lines.push(...decoded.records.map(recordLine));
        else lines.push({ message: 'command-response', codec: 12, text: decoded.text });
      }
    }
    if (framer.buffered > 0) throw new PayloadError(`the payload ends inside a frame (${framer.buffered} bytes left over)`);
    if (lines.length === 0) throw new PayloadError('the payload holds no Teltonika frame');
    return lines;
  } catch (error) {
    if (error instanceof PayloadError) throw error;
    throw new PayloadError(errorText(error));
  }
}
