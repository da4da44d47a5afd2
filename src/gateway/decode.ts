import { type DecodedRecord, ioToJson } from '../lib/tracker-record';
import { decodeGt06Frame, Gt06Error, Gt06Framer } from './gt06';
import { decodeOsmand, OsmandError } from './osmand';
import { decodeTcpFrame, decodeUdpDatagram, normalize, TeltonikaError, TeltonikaFramer } from './teltonika';

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
    // A time that is no date (a month 13, a timestamp past the range) prints as null; the gateway stores it flagged.
    time: Number.isNaN(record.time.getTime()) ? null : record.time.toISOString(),
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

/** The Teltonika TCP ping: one 0xFF byte a device sends to keep its connection open. */
const TELTONIKA_PING = 0xff;

/**
 * Decodes a captured payload the way the gateway would: Teltonika TCP frames (with or without the IMEI
 * handshake or a ping in front) or a UDP datagram; one or more GT06 frames; an OsmAnd query string or JSON body.
 * `model` is the unit's GPS model, as the gateway reads the IO with it (Teltonika's IO tables differ per model).
 * A payload the protocol refuses throws PayloadError; anything else thrown is a fault of the decoder itself.
 */
export function decodePayload(protocol: DecodeProtocol, payload: string, imei = '', model: string | null = null): DecodedLine[] {
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
        const message = decodeGt06Frame(frame, { imei: deviceImei, model });
        if (message.type === 'login') deviceImei = message.imei;
        if ('record' in message) return { message: message.type, ...recordLine(message.record) };
        return { message: message.type, serial: message.serial, ...(message.type === 'login' ? { imei: message.imei } : {}) };
      });
    }
    // Teltonika: a TCP frame starts with the 4-byte zero preamble (or a ping, or the IMEI handshake); a UDP datagram
    // with its length.
    const tcp = bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0 && bytes[3] === 0;
    const imeiHandshake = bytes.length >= 2 && ((bytes[0]! << 8) | bytes[1]!) === 15 && bytes.length >= 17;
    if (!tcp && !imeiHandshake && bytes[0] !== TELTONIKA_PING) {
      const datagram = decodeUdpDatagram(bytes);
      return datagram.records.map((record) => recordLine(model ? { ...record, normalized: normalize(model, record.io, record.eventId) } : record));
    }
    const framer = new TeltonikaFramer({ maxFrameBytes: 1 << 20 });
    let deviceImei = imei;
    const lines: DecodedLine[] = [];
    for (const frame of framer.push(bytes)) {
      if (frame.kind === 'imei') {
        deviceImei = frame.imei;
        lines.push({ message: 'imei', imei: frame.imei });
      } else if (frame.kind === 'ping') {
        lines.push({ message: 'ping' });
      } else {
        const decoded = decodeTcpFrame(frame.bytes, deviceImei, model);
        if (decoded.type === 'avl') lines.push(...decoded.records.map((record) => ({ codec: decoded.codec, ...recordLine(record) })));
        else {
          // Codec 12/13/14 GPRS messages: type 0x05 is a command, 0x06 its response (0x11 a Codec 14 refusal).
          const message = decoded.messageType === 0x05 ? 'command' : decoded.messageType === 0x06 ? 'response' : 'gprs-message';
          lines.push({ message, codec: decoded.codec, messageType: decoded.messageType, text: decoded.text });
        }
      }
    }
    if (framer.buffered > 0) throw new PayloadError(`the payload ends inside a frame (${framer.buffered} bytes left over)`);
    if (lines.length === 0) throw new PayloadError('the payload holds no Teltonika frame');
    return lines;
  } catch (error) {
    // What the protocols refuse is a malformed payload; anything else is the decoder's own fault and stays as it is.
    if (error instanceof TeltonikaError || error instanceof Gt06Error || error instanceof OsmandError) throw new PayloadError(error.message);
    throw error;
  }
}

/** Exit codes of `bun run decode`. */
export const DECODE_EXIT = { ok: 0, malformed: 1, usage: 2, internal: 3 } as const;

const USAGE = `usage: bun run decode <${DECODE_PROTOCOLS.join('|')}> <payload> [imei] [--model <model>]`;

/**
 * `bun run decode`: prints each decoded line as JSON; exits 1 on a malformed payload, 2 on bad arguments and 3 when the
 * decoder itself failed (a fault to report, not a problem of the payload).
 */
export function runDecodeCommand(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void,
  decode: typeof decodePayload = decodePayload,
): number {
  const args = [...argv];
  let model: string | null = null;
  const modelAt = args.indexOf('--model');
  if (modelAt >= 0) {
    model = args[modelAt + 1] ?? '';
    args.splice(modelAt, 2);
  }
  const [protocol, payload, imei] = args;
  if (!protocol || !DECODE_PROTOCOLS.includes(protocol as DecodeProtocol) || payload === undefined || model === '' || args.length > 3) {
    err(USAGE);
    return DECODE_EXIT.usage;
  }
  let lines: DecodedLine[];
  try {
    lines = decode(protocol as DecodeProtocol, payload, imei, model);
  } catch (error) {
    if (error instanceof PayloadError) {
      err(`malformed ${protocol} payload: ${error.message}`);
      return DECODE_EXIT.malformed;
    }
    err(`internal error of the ${protocol} decoder (not a problem of the payload; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return DECODE_EXIT.internal;
  }
  for (const line of lines) out(JSON.stringify(line));
  return DECODE_EXIT.ok;
}
