import type { IoValue } from '../../lib/tracker-record';
import { Writer } from './bytes';
import { type AvlCodec, Codec, type IoElement } from './codecs';
import { crc16ibm } from './crc';
import { ioWidth } from './io-models';

/** TCP ACK for an AVL frame: the accepted record count as uint32 big-endian. */
export function encodeAck(count: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, count >>> 0);
  return out;
}

/** Reply to the IMEI handshake: 01 accept, 00 reject. */
export function encodeImeiReply(accepted: boolean): Uint8Array {
  return Uint8Array.of(accepted ? 0x01 : 0x00);
}

/** UDP ACK (7 bytes): `0005` + packet id + `01` + AVL packet id + accepted record count. */
export function encodeUdpAck(packetId: number, avlPacketId: number, count: number): Uint8Array {
  return Uint8Array.of(0x00, 0x05, (packetId >> 8) & 0xff, packetId & 0xff, 0x01, avlPacketId & 0xff, count & 0xff);
}

/** The IMEI handshake a device sends first: `uint16 length` + ASCII IMEI. */
export function encodeImeiFrame(imei: string): Uint8Array {
  if (!/^\d{1,20}$/.test(imei)) throw new RangeError(`IMEI must be 1-20 digits: ${imei}`);
  const w = new Writer();
  w.u16(imei.length);
  w.bytes(new TextEncoder().encode(imei));
  return w.done();
}

/** Codec 12 server→device command (type 0x05), e.g. `getinfo`, `setdigout 1??`. */
export function encodeCodec12Command(text: string): Uint8Array {
  return encodeGprsFrame(Codec.codec12, 0x05, new TextEncoder().encode(text));
}

/** Codec 12 device→server response (type 0x06): what a device answers (simulators, tests). */
export function encodeCodec12Response(text: string): Uint8Array {
  return encodeGprsFrame(Codec.codec12, 0x06, new TextEncoder().encode(text));
}

/** Codec 14 command: executed only by the device with this IMEI (FW ≥ FMB 03.25.04). */
export function encodeCodec14Command(imei: string, text: string): Uint8Array {
  if (!/^\d{15}$/.test(imei)) throw new RangeError(`IMEI must be 15 digits: ${imei}`);
  const ascii = new TextEncoder().encode(text);
  const body = new Uint8Array(8 + ascii.length);
  body.set(Buffer.from(`0${imei}`, 'hex'), 0);
  body.set(ascii, 8);
  return encodeGprsFrame(Codec.codec14, 0x05, body);
}

/** `00000000` | size | codec | 01 | type | uint32 n | payload | 01 | CRC. */
function encodeGprsFrame(codec: number, type: number, payload: Uint8Array): Uint8Array {
  const w = new Writer();
  w.u32(0);
  w.u32(0); // data field length, patched below
  w.u8(codec);
  w.u8(1);
  w.u8(type);
  w.u32(payload.length);
  w.bytes(payload);
  w.u8(1);
  return finishTcpFrame(w);
}

/** What encodeAvlFrame needs of a record: DecodedRecord and AvlRecord both qualify. */
export interface AvlRecordInput {
  time: Date;
  latitude: number;
  longitude: number;
  altitude?: number | null;
  speedKmh?: number;
  /** Degrees from north (DecodedRecord); `angle` (AvlRecord) is used when course is absent. */
  course?: number | null;
  angle?: number;
  satellites?: number | null;
  priority?: number;
  /** 0 = periodic. */
  eventId?: number | null;
  /** Codec 16 only (default 7, periodical). */
  generationType?: number | null;
  /** Exact wire elements (order and sizes kept); takes precedence over `io`. */
  elements?: readonly IoElement[];
  /**
   * IO id → value. Width per element: bigint → 8 bytes, Uint8Array → NX (8E only), number → the model
   * table's width for the id, else the smallest width that holds it (negative numbers as two's complement).
   */
  io?: Readonly<Record<string, IoValue>>;
}

export interface EncodeAvlOptions {
  /** Model whose IO table gives element widths (default FMB). */
  model?: string | null;
}

/** A complete TCP AVL data frame (preamble, length, Codec 8/8E/16 data, CRC). */
export function encodeAvlFrame(codec: AvlCodec, records: readonly AvlRecordInput[], options: EncodeAvlOptions = {}): Uint8Array {
  const w = new Writer();
  w.u32(0);
  w.u32(0); // data field length, patched below
  writeAvlData(w, codec, records, options.model);
  return finishTcpFrame(w);
}

export interface UdpDatagramInput {
  packetId: number;
  avlPacketId: number;
  imei: string;
  codec: AvlCodec;
  records: readonly AvlRecordInput[];
}

/** A UDP datagram as a device sends it (no preamble, no CRC). */
export function encodeUdpDatagram(input: UdpDatagramInput, options: EncodeAvlOptions = {}): Uint8Array {
  if (!/^\d{1,20}$/.test(input.imei)) throw new RangeError(`IMEI must be 1-20 digits: ${input.imei}`);
  const w = new Writer();
  w.u16(0); // length, patched below
  w.u16(input.packetId);
  w.u8(0x01);
  w.u8(input.avlPacketId);
  w.u16(input.imei.length);
  w.bytes(new TextEncoder().encode(input.imei));
  writeAvlData(w, input.codec, input.records, options.model);
  if (w.size - 2 > 0xffff) throw new RangeError('UDP datagram too long');
  w.setU16(0, w.size - 2);
  return w.done();
}

function finishTcpFrame(w: Writer): Uint8Array {
  const length = w.size - 8;
  w.setU32(4, length);
  const crc = crc16ibm(w.view(), 8, 8 + length);
  w.u32(crc);
  return w.done();
}

function writeAvlData(w: Writer, codec: AvlCodec, records: readonly AvlRecordInput[], model: string | null | undefined): void {
  if (records.length > 255) throw new RangeError(`at most 255 records per packet, got ${records.length}`);
  w.u8(codec);
  w.u8(records.length);
  for (const record of records) writeRecord(w, codec, record, model);
  w.u8(records.length);
}

type Size = 1 | 2 | 4 | 8;

function writeRecord(w: Writer, codec: AvlCodec, record: AvlRecordInput, model: string | null | undefined): void {
  const extended = codec === Codec.codec8e;
  const wideIds = codec !== Codec.codec8;
  const maxId = wideIds ? 0xffff : 0xff;
  const maxCount = extended ? 0xffff : 0xff;

  const ms = record.time.getTime();
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`record time ${String(record.time)} cannot be encoded`);
  w.u64(BigInt(ms));
  w.u8(record.priority ?? 0);
  w.u32(Math.round(record.longitude * 1e7) >>> 0);
  w.u32(Math.round(record.latitude * 1e7) >>> 0);
  w.u16(Math.round(record.altitude ?? 0) & 0xffff);
  const course = record.course ?? record.angle ?? 0;
  w.u16(((Math.round(course) % 360) + 360) % 360);
  w.u8(clamp(record.satellites ?? 0, 0xff));
  w.u16(clamp(record.speedKmh ?? 0, 0xffff));

  const eventId = record.eventId ?? 0;
  if (eventId > maxId) throw new RangeError(`event IO id ${eventId} does not fit codec 0x${codec.toString(16)}`);
  if (wideIds) w.u16(eventId);
  else w.u8(eventId);
  if (codec === Codec.codec16) w.u8(record.generationType ?? 7);

  const elements = record.elements ?? elementsFromIo(record.io ?? {}, model);
  const groups: Record<Size, IoElement[]> = { 1: [], 2: [], 4: [], 8: [] };
  const nx: IoElement[] = [];
  for (const e of elements) {
    if (!Number.isInteger(e.id) || e.id < 0 || e.id > maxId) throw new RangeError(`IO id ${e.id} does not fit codec 0x${codec.toString(16)}`);
    if (e.size === null) {
      if (!extended) throw new RangeError(`variable-length IO ${e.id} needs Codec 8 Extended`);
      nx.push(e);
    } else groups[e.size].push(e);
  }
  const count = (n: number) => {
    if (n > maxCount) throw new RangeError(`${n} IO elements in one group exceed codec 0x${codec.toString(16)}`);
    if (extended) w.u16(n);
    else w.u8(n);
  };
  const id = (n: number) => (wideIds ? w.u16(n) : w.u8(n));

  count(elements.length);
  for (const size of [1, 2, 4, 8] as const) {
    count(groups[size].length);
    for (const e of groups[size]) {
      id(e.id);
      writeValue(w, e, size);
    }
  }
  if (extended) {
    w.u16(nx.length);
    for (const e of nx) {
      const value = e.value;
      if (!(value instanceof Uint8Array)) throw new RangeError(`variable-length IO ${e.id} must be bytes`);
      if (value.length > 0xffff) throw new RangeError(`variable-length IO ${e.id} is too long`);
      w.u16(e.id);
      w.u16(value.length);
      w.bytes(value);
    }
  }
}

function writeValue(w: Writer, e: IoElement, size: Size): void {
  const v = e.value;
  if (v instanceof Uint8Array) throw new RangeError(`IO ${e.id}: bytes need a variable-length element`);
  // Fast path for the common small values; BigInt only where 8 bytes or odd inputs need it.
  if (typeof v === 'number' && size < 8 && Number.isInteger(v)) {
    const limit = 2 ** (size * 8);
    if (v < -(limit / 2) || v >= limit) throw new RangeError(`IO ${e.id} value ${v} does not fit ${size} byte(s)`);
    const unsigned = v < 0 ? v + limit : v;
    if (size === 4) w.u32(unsigned);
    else if (size === 2) w.u16(unsigned);
    else w.u8(unsigned);
    return;
  }
  const big = typeof v === 'bigint' ? v : BigInt(v);
  const bits = BigInt(size * 8);
  if (big < -(1n << (bits - 1n)) || big >= 1n << bits) throw new RangeError(`IO ${e.id} value ${v} does not fit ${size} byte(s)`);
  const unsigned = BigInt.asUintN(size * 8, big);
  if (size === 8) w.u64(unsigned);
  else if (size === 4) w.u32(Number(unsigned));
  else if (size === 2) w.u16(Number(unsigned));
  else w.u8(Number(unsigned));
}

function elementsFromIo(io: Readonly<Record<string, IoValue>>, model: string | null | undefined): IoElement[] {
  return Object.entries(io).map(([key, value]) => {
    const id = Number(key);
    if (!Number.isInteger(id)) throw new RangeError(`IO key ${JSON.stringify(key)} is not a numeric id`);
    if (value instanceof Uint8Array) return { id, size: null, value };
    if (typeof value === 'bigint') return { id, size: 8, value };
    if (!Number.isInteger(value)) throw new RangeError(`IO ${id} value ${value} is not an integer`);
    return { id, size: ioWidth(id, model) ?? smallestWidth(value), value };
  });
}

function smallestWidth(v: number): Size {
  if (v >= 0) return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffff ? 4 : 8;
  return v >= -0x80 ? 1 : v >= -0x8000 ? 2 : v >= -0x80000000 ? 4 : 8;
}

function clamp(v: number, max: number): number {
  return Math.min(max, Math.max(0, Math.round(v)));
}
