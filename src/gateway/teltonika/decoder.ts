import type { DecodedRecord, IoValue } from '../../lib/tracker-record';
import { copyBytes, isDigits, latin1, Reader, toHex } from './bytes';
import { type AvlCodec, Codec, type CommandCodec, type IoElement, isAvlCodec } from './codecs';
import { crc16ibm } from './crc';
import { encodeUdpAck } from './encoder';
import { CrcError, FrameError } from './errors';
import { hasFix, normalize } from './io-models';

/** A record as the device encoded it (wire order of IO elements kept, Codec 16 generation type included). */
export interface AvlRecord {
  time: Date;
  /** 0 low, 1 high, 2 panic. */
  priority: number;
  longitude: number;
  latitude: number;
  /** Metres (signed). */
  altitude: number;
  /** Degrees from north. */
  angle: number;
  satellites: number;
  speedKmh: number;
  /** IO id that triggered the record; 0 = periodic. */
  eventId: number;
  /** Codec 16 only: 0 exit, 1 entrance, 2 both, 4 hysteresis, 5 on change, 6 eventual, 7 periodical. */
  generationType: number | null;
  elements: IoElement[];
}

export interface AvlData {
  codec: AvlCodec;
  records: AvlRecord[];
}

export interface TeltonikaAvlMessage {
  type: 'avl';
  codec: AvlCodec;
  records: DecodedRecord[];
  /** Number of Data 1 (= 2): what the ACK must carry. */
  count: number;
}

/**
 * A GPRS message: Codec 12 response (type 0x06), Codec 13 device message (timestamped, sent unsolicited
 * in COM TCP Link mode) or Codec 14 ACK (0x06) / nACK (0x11, IMEI mismatch, not executed).
 * Never acknowledge these with a record count.
 */
export interface TeltonikaCommandResponse {
  type: 'command-response';
  codec: CommandCodec;
  /** 0x05 command, 0x06 response, 0x11 Codec 14 nACK. */
  messageType: number;
  /** ASCII payload (several messages in one frame are joined with "\n"); trailing NULs removed. */
  text: string;
  payload: Uint8Array;
  /** Codec 13: the message timestamp. */
  timestamp?: Date;
  /** Codec 14: the IMEI the message is addressed to / answered for. */
  imei?: string;
}

export type TeltonikaMessage = TeltonikaAvlMessage | TeltonikaCommandResponse;

export interface TeltonikaUdpDatagram {
  /** Echoed in the ACK. */
  packetId: number;
  /** Echoed in the ACK; retries reuse it. */
  avlPacketId: number;
  imei: string;
  codec: AvlCodec;
  records: DecodedRecord[];
  count: number;
  /** The 7-byte acknowledgement to send back once the records are stored. */
  ack: Uint8Array;
}

export interface UdpDecodeOptions {
  /** Device model for IO normalisation (default: the FMB table). */
  model?: string | null;
  /** Reject datagrams whose length field disagrees with their size (default true). */
  checkLength?: boolean;
}

/** preamble 4 + data field length 4 + CRC 4. */
const TCP_OVERHEAD = 12;

/**
 * Decodes one whole TCP data frame as the framer returns it (preamble … CRC).
 * Throws CrcError for a checksum mismatch and FrameError for anything structurally wrong.
 */
export function decodeTcpFrame(bytes: Uint8Array, imei: string, model?: string | null): TeltonikaMessage {
  if (bytes.length < TCP_OVERHEAD + 3) throw new FrameError(`Teltonika frame of ${bytes.length} bytes is too short`);
  if (bytes[0] !== 0 || bytes[1] !== 0 || bytes[2] !== 0 || bytes[3] !== 0) throw new FrameError('Teltonika frame preamble is not 00000000');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(4);
  if (bytes.length !== length + TCP_OVERHEAD) {
    throw new FrameError(`Teltonika data field length ${length} does not match the ${bytes.length}-byte frame`);
  }
  const end = 8 + length;
  const crcField = view.getUint32(end);
  const crc = crc16ibm(bytes, 8, end);
  if (crc !== crcField) throw new CrcError(crc, crcField);

  const codec = bytes[8]!;
  if (isAvlCodec(codec)) {
    const data = decodeAvlData(bytes, 8, end);
    return {
      type: 'avl',
      codec: data.codec,
      count: data.records.length,
      records: data.records.map((record) => toDecodedRecord(record, imei, model)),
    };
  }
  if (codec === Codec.codec12 || codec === Codec.codec13 || codec === Codec.codec14) return decodeGprsMessage(bytes, 8, end);
  throw new FrameError(`Teltonika codec 0x${codec.toString(16).padStart(2, '0')} is not supported`);
}

/**
 * Decodes the AVL data span `codec id … Number of Data 2` (TCP: bytes [8, 8 + length); UDP: after the IMEI).
 * Checks that both counts agree and that the records fill the span exactly.
 */
export function decodeAvlData(bytes: Uint8Array, start = 0, end = bytes.length): AvlData {
  const r = new Reader(bytes, 'AVL data', start, end);
  const codec = r.u8();
  if (!isAvlCodec(codec)) throw new FrameError(`Teltonika codec 0x${codec.toString(16).padStart(2, '0')} is not an AVL codec`);
  const count = r.u8();
  const records: AvlRecord[] = [];
  for (let i = 0; i < count; i++) records.push(readRecord(r, codec));
  const count2 = r.u8();
  if (count2 !== count) throw new FrameError(`Teltonika record counts disagree: Number of Data 1 = ${count}, Number of Data 2 = ${count2}`);
  if (r.remaining !== 0) throw new FrameError(`Teltonika AVL data has ${r.remaining} unexpected bytes after Number of Data 2`);
  return { codec, records };
}

/** The largest epoch-millisecond value a JavaScript Date holds. */
const MAX_DATE_MS = 8_640_000_000_000_000n;

function readRecord(r: Reader, codec: AvlCodec): AvlRecord {
  const extended = codec === Codec.codec8e;
  const wideIds = codec !== Codec.codec8;
  const timestamp = r.u64();
  const record: AvlRecord = {
    // A timestamp past the JavaScript date range is an Invalid Date: the ingest stores that record flagged, the others stand.
    time: new Date(timestamp > MAX_DATE_MS ? Number.NaN : Number(timestamp)),
    priority: r.u8(),
    longitude: r.i32() / 1e7,
    latitude: r.i32() / 1e7,
    altitude: r.i16(),
    angle: r.u16(),
    satellites: r.u8(),
    speedKmh: r.u16(),
    eventId: wideIds ? r.u16() : r.u8(),
    generationType: codec === Codec.codec16 ? r.u8() : null,
    elements: [],
  };
  const count = () => (extended ? r.u16() : r.u8());
  const id = () => (wideIds ? r.u16() : r.u8());
  count(); // N total: informational; the groups below are authoritative
  for (const size of [1, 2, 4] as const) {
    const n = count();
    for (let i = 0; i < n; i++) {
      const ioId = id();
      record.elements.push({ id: ioId, size, value: size === 1 ? r.u8() : size === 2 ? r.u16() : r.u32() });
    }
  }
  const n8 = count();
  for (let i = 0; i < n8; i++) {
    const ioId = id();
    record.elements.push({ id: ioId, size: 8, value: r.u64() });
  }
  if (extended) {
    const nx = r.u16();
    for (let i = 0; i < nx; i++) {
      const ioId = r.u16();
      const length = r.u16();
      record.elements.push({ id: ioId, size: null, value: copyBytes(r.take(length)) });
    }
  }
  return record;
}

/** The raw IO map of a record (id → value); a repeated id keeps its last value. */
export function ioMap(elements: readonly IoElement[]): Record<string, IoValue> {
  const io: Record<string, IoValue> = {};
  for (const e of elements) io[e.id] = e.value;
  return io;
}

/** Turns a wire record into the pipeline's DecodedRecord, normalising IO with the model's table. */
export function toDecodedRecord(record: AvlRecord, imei: string, model?: string | null): DecodedRecord {
  const io = ioMap(record.elements);
  return {
    protocol: 'teltonika',
    deviceId: imei,
    time: record.time,
    latitude: record.latitude,
    longitude: record.longitude,
    altitude: record.altitude,
    speedKmh: record.speedKmh,
    course: record.angle,
    satellites: record.satellites,
    valid: hasFix(model, io, record.satellites),
    priority: record.priority,
    eventId: record.eventId,
    io,
    normalized: normalize(model, io, record.eventId),
  };
}

/** Codec 12/13/14: `codec, Qty1, { type, uint32 size, payload }×Qty1, Qty2`. */
function decodeGprsMessage(bytes: Uint8Array, start: number, end: number): TeltonikaCommandResponse {
  const r = new Reader(bytes, 'GPRS message', start, end);
  const codec = r.u8() as CommandCodec;
  const quantity = r.u8();
  if (quantity < 1) throw new FrameError('Teltonika GPRS message with quantity 0');
  const texts: string[] = [];
  const payloads: Uint8Array[] = [];
  let messageType = 0;
  let timestamp: Date | undefined;
  let imei: string | undefined;
  for (let i = 0; i < quantity; i++) {
    messageType = r.u8();
    const size = r.u32();
    if (size > r.remaining) throw new FrameError(`Teltonika GPRS message size ${size} exceeds the frame`);
    let body = r.take(size);
    if (codec === Codec.codec13) {
      if (body.length < 4) throw new FrameError('Teltonika Codec 13 message shorter than its timestamp');
      const seconds = ((body[0]! << 24) >>> 0) + (body[1]! << 16) + (body[2]! << 8) + body[3]!;
      timestamp = new Date(seconds * 1000);
      body = body.subarray(4);
    } else if (codec === Codec.codec14) {
      if (body.length < 8) throw new FrameError('Teltonika Codec 14 message shorter than its IMEI');
      imei = toHex(body.subarray(0, 8)).replace(/^0/, '');
      body = body.subarray(8);
    }
    payloads.push(body);
    texts.push(latin1(body).replace(/\0+$/, ''));
  }
  const quantity2 = r.u8();
  if (quantity2 !== quantity) throw new FrameError(`Teltonika GPRS message quantities disagree: ${quantity} and ${quantity2}`);
  if (r.remaining !== 0) throw new FrameError(`Teltonika GPRS message has ${r.remaining} unexpected bytes`);
  const payload = payloads.length === 1 ? copyBytes(payloads[0]!) : concatAll(payloads);
  const message: TeltonikaCommandResponse = { type: 'command-response', codec, messageType, text: texts.join('\n'), payload };
  if (timestamp) message.timestamp = timestamp;
  if (imei !== undefined) message.imei = imei;
  return message;
}

/**
 * Decodes one UDP datagram (protocols.md §1.5): `uint16 length, uint16 packet id, 01, AVL packet id,
 * uint16 IMEI length, IMEI, AVL data` — no preamble, no CRC. The ACK echoes both ids.
 */
export function decodeUdpDatagram(bytes: Uint8Array, options: UdpDecodeOptions = {}): TeltonikaUdpDatagram {
  const r = new Reader(bytes, 'UDP datagram');
  const length = r.u16();
  if ((options.checkLength ?? true) && length !== bytes.length - 2) {
    throw new FrameError(`Teltonika UDP length field ${length} does not match the ${bytes.length}-byte datagram`);
  }
  const packetId = r.u16();
  r.u8(); // "not usable byte", 01
  const avlPacketId = r.u8();
  const imeiLength = r.u16();
  const imeiBytes = r.take(imeiLength);
  if (!isDigits(imeiBytes)) throw new FrameError('Teltonika UDP IMEI is not ASCII digits');
  const imei = latin1(imeiBytes);
  const data = decodeAvlData(bytes, r.offset, bytes.length);
  const count = data.records.length;
  return {
    packetId,
    avlPacketId,
    imei,
    codec: data.codec,
    records: data.records.map((record) => toDecodedRecord(record, imei, options.model)),
    count,
    ack: encodeUdpAck(packetId, avlPacketId, count),
  };
}

function concatAll(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
