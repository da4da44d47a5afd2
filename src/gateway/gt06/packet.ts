import { crcItu } from './crc';
import { CrcError, FrameError } from './errors';

/** Protocol numbers this codec understands. */
export const Gt06Protocol = {
  login: 0x01,
  gpsLbs: 0x12,
  status: 0x13,
  stringInfo: 0x15,
  alarm: 0x16,
  /** Server → terminal: the address reply in Chinese form (terminal → server: the Wi-Fi form, see the decoder). */
  addressReplyChinese: 0x17,
  lbsExtend: 0x18,
  lbsAlarm: 0x19,
  addressRequest: 0x1a,
  commandReply: 0x21,
  gps: 0x22,
  status2: 0x23,
  alarm2: 0x26,
  fenceAlarm: 0x27,
  lbsMultiple: 0x28,
  addressRequest2: 0x2a,
  lbsWifi: 0x2c,
  lbsMultiple2: 0x2e,
  wifi: 0x69,
  command: 0x80,
  timeRequest: 0x8a,
  info: 0x94,
  /** Server → terminal: the address reply in English form. */
  addressReplyEnglish: 0x97,
  gps4g: 0xa0,
  lbsMultiple4g: 0xa1,
  lbsWifi4g: 0xa2,
  fenceAlarm4g: 0xa4,
  lbsAlarm4g: 0xa5,
  addressRequest4g: 0xa7,
} as const;

export interface Gt06Packet {
  /** true for a 7979 frame (2-byte length). */
  extended: boolean;
  protocol: number;
  /** Bytes between the protocol number and the serial. */
  content: Uint8Array;
  serial: number;
}

/** Validates one whole frame (as the framer returns it) and splits it; FrameError for structure, CrcError for the checksum. */
export function parsePacket(bytes: Uint8Array): Gt06Packet {
  if (bytes.length < 2) throw new FrameError('GT06 frame truncated');
  const first = bytes[0]!;
  if ((first !== 0x78 && first !== 0x79) || bytes[1] !== first) throw new FrameError('GT06 frame must start with 7878 or 7979');
  const extended = first === 0x79;
  const lengthBytes = extended ? 2 : 1;
  if (bytes.length < 2 + lengthBytes + 5 + 2) throw new FrameError('GT06 frame truncated');
  const length = extended ? (bytes[2]! << 8) | bytes[3]! : bytes[2]!;
  if (length < 5 || bytes.length !== 2 + lengthBytes + length + 2) {
    throw new FrameError(`GT06 length field ${length} does not match the ${bytes.length}-byte frame`);
  }
  const end = bytes.length;
  if (bytes[end - 2] !== 0x0d || bytes[end - 1] !== 0x0a) throw new FrameError('GT06 frame does not end with 0D0A');
  const crcField = (bytes[end - 4]! << 8) | bytes[end - 3]!;
  const crc = crcItu(bytes, 2, end - 4);
  if (crc !== crcField) throw new CrcError(crc, crcField);
  const protocolAt = 2 + lengthBytes;
  return {
    extended,
    protocol: bytes[protocolAt]!,
    content: bytes.subarray(protocolAt + 1, end - 6),
    serial: (bytes[end - 6]! << 8) | bytes[end - 5]!,
  };
}

/** Builds a frame around content; picks 7979 when the length no longer fits one byte (or when asked). */
export function buildPacket(protocol: number, content: Uint8Array, serial: number, extended = false): Uint8Array {
  const length = 1 + content.length + 2 + 2;
  const useExtended = extended || length > 0xff;
  if (length > 0xffff) throw new RangeError(`GT06 content of ${content.length} bytes is too long`);
  const lengthBytes = useExtended ? 2 : 1;
  const out = new Uint8Array(2 + lengthBytes + length + 2);
  out[0] = out[1] = useExtended ? 0x79 : 0x78;
  let i = 2;
  if (useExtended) out[i++] = length >> 8;
  out[i++] = length & 0xff;
  out[i++] = protocol & 0xff;
  out.set(content, i);
  i += content.length;
  out[i++] = (serial >> 8) & 0xff;
  out[i++] = serial & 0xff;
  const crc = crcItu(out, 2, i);
  out[i++] = crc >> 8;
  out[i++] = crc & 0xff;
  out[i++] = 0x0d;
  out[i] = 0x0a;
  return out;
}

/** Bounds-checked big-endian reader: a packet shorter than its type requires is malformed, not a crash. */
export class Reader {
  offset = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number): void {
    if (this.remaining < n) throw new FrameError(`GT06 ${this.what} content truncated`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  u16(): number {
    return (this.u8() << 8) | this.u8();
  }

  u24(): number {
    return (this.u16() << 8) | this.u8();
  }

  u32(): number {
    return this.u16() * 0x10000 + this.u16();
  }

  take(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** The next byte without consuming it; undefined at the end. */
  peek(): number | undefined {
    return this.bytes[this.offset];
  }

  rest(): Uint8Array {
    return this.take(this.remaining);
  }
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}
