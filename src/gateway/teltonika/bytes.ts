import { FrameError } from './errors';

/** Bounds-checked big-endian reader: content shorter than its declared layout is malformed, never a crash. */
export class Reader {
  offset: number;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
    start = 0,
    private readonly end = bytes.length,
  ) {
    this.offset = start;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): void {
    if (this.remaining < n) throw new FrameError(`Teltonika ${this.what} truncated at byte ${this.offset} (needs ${n} more)`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  i8(): number {
    const v = this.u8();
    return v & 0x80 ? v - 0x100 : v;
  }

  u16(): number {
    return (this.u8() << 8) | this.u8();
  }

  i16(): number {
    const v = this.u16();
    return v & 0x8000 ? v - 0x10000 : v;
  }

  u32(): number {
    return this.u16() * 0x10000 + this.u16();
  }

  i32(): number {
    return this.u32() | 0;
  }

  u64(): bigint {
    const high = BigInt(this.u32());
    return (high << 32n) | BigInt(this.u32());
  }

  /** A view into the underlying bytes (copy it if it must outlive the frame). */
  take(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

/** Growable big-endian writer. */
export class Writer {
  private buffer = new Uint8Array(256);
  private length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }

  get size(): number {
    return this.length;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buffer[this.length++] = v & 0xff;
  }

  u16(v: number): void {
    this.u8(v >>> 8);
    this.u8(v);
  }

  u32(v: number): void {
    this.u16(Math.floor(v / 0x10000) & 0xffff);
    this.u16(v & 0xffff);
  }

  u64(v: bigint): void {
    const unsigned = BigInt.asUintN(64, v);
    this.u32(Number(unsigned >> 32n));
    this.u32(Number(unsigned & 0xffffffffn));
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buffer.set(b, this.length);
    this.length += b.length;
  }

  /** Overwrites a big-endian u32 already written (length fields known only at the end). */
  setU32(at: number, v: number): void {
    this.buffer[at] = (v >>> 24) & 0xff;
    this.buffer[at + 1] = (v >>> 16) & 0xff;
    this.buffer[at + 2] = (v >>> 8) & 0xff;
    this.buffer[at + 3] = v & 0xff;
  }

  setU16(at: number, v: number): void {
    this.buffer[at] = (v >>> 8) & 0xff;
    this.buffer[at + 1] = v & 0xff;
  }

  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  done(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

/** A plain Uint8Array copy (Buffer#slice would return a view sharing memory with, e.g., a socket's buffer). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex').toUpperCase();
}

/** True when every byte is an ASCII digit. */
export function isDigits(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const b of bytes) if (b < 0x30 || b > 0x39) return false;
  return true;
}

export function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}
