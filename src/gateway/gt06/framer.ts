import { concatBytes, hexByte } from '../bytes';
import { WIFI_FORM_PROTOCOLS, wifiFormSize } from './decoder';
import { FrameError } from './errors';

/** protocol 1 + serial 2 + CRC 2: the smallest legal value of the length field. */
const MIN_LENGTH = 5;
const DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

export interface Gt06FramerOptions {
  /** Largest whole frame (start … stop bytes) accepted before the stream is treated as garbage. */
  maxFrameBytes?: number;
}

/**
 * Streaming GT06 framer. Frames are cut by the declared length, never by searching for 78 78 / 0D 0A,
 * because both sequences can occur inside the payload. Anything that is not a frame throws FrameError:
 * GT06 has no resync marker we can trust, so the caller closes the connection.
 */
export class Gt06Framer {
  private buffer: Uint8Array = new Uint8Array(0);
  private readonly maxFrameBytes: number;

  constructor(options: Gt06FramerOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** Bytes held back waiting for the rest of a frame. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Feed one chunk; returns every frame it completes (each a fresh copy, start to stop bytes). */
  push(chunk: Uint8Array): Uint8Array[] {
    // A copy: Buffer#slice is a view, and the socket may reuse its receive buffer.
    this.buffer = this.buffer.length === 0 ? new Uint8Array(chunk) : concatBytes(this.buffer, chunk);
    const frames: Uint8Array[] = [];
    let offset = 0;
    try {
      for (;;) {
        const size = this.frameSize(offset);
        if (size === null) break;
        frames.push(this.buffer.slice(offset, offset + size));
        offset += size;
      }
    } catch (error) {
      this.buffer = new Uint8Array(0);
      throw error;
    }
    this.buffer = this.buffer.slice(offset);
    return frames;
  }

  /**
   * A Wi-Fi-form frame at offset: its size, null while incomplete, undefined when it is not one (an ordinary frame with
   * that protocol number: its length-cut frame ends in 0D 0A where the Wi-Fi layout's does not).
   */
  private wifiFrameSize(offset: number): number | null | undefined {
    const b = this.buffer;
    const size = wifiFormSize(b, offset);
    const ordinary = 2 + 1 + b[offset + 2]! + 2;
    const ordinaryEnds = b.length >= offset + ordinary && b[offset + ordinary - 2] === 0x0d && b[offset + ordinary - 1] === 0x0a;
    if (b[offset + 3] === 0x17 && b[offset + 2]! >= 5 && ordinaryEnds) return undefined;
    if (size === null) return null;
    if (size > this.maxFrameBytes) throw new FrameError(`GT06 frame of ${size} bytes exceeds the ${this.maxFrameBytes}-byte cap`);
    if (b.length - offset < size) return null;
    if (b[offset + size - 2] !== 0x0d || b[offset + size - 1] !== 0x0a) throw new FrameError('GT06 Wi-Fi frame does not end with 0D0A');
    return size;
  }

  /** Size of the complete frame at offset, null if more bytes are needed. */
  private frameSize(offset: number): number | null {
    const b = this.buffer;
    const available = b.length - offset;
    if (available < 1) return null;
    const first = b[offset]!;
    if (first !== 0x78 && first !== 0x79) throw new FrameError(`GT06 frame must start with 7878 or 7979, got 0x${hexByte(first)}`);
    if (available < 2) return null;
    if (b[offset + 1] !== first) throw new FrameError(`GT06 start bytes mismatch: 0x${hexByte(first)}${hexByte(b[offset + 1]!)}`);
    const lengthBytes = first === 0x78 ? 1 : 2;
    if (available < 2 + lengthBytes) return null;
    if (first === 0x78 && b[offset + 2]! < MIN_LENGTH && available < 4) return null; // a Wi-Fi form's AP count, maybe
    if (first === 0x78 && available >= 4 && WIFI_FORM_PROTOCOLS.has(b[offset + 3]!)) {
      // 0x17 / 0x69 Wi-Fi form: the length byte counts access points; the size follows from the layout itself.
      const wifi = this.wifiFrameSize(offset);
      if (wifi !== undefined) return wifi;
    }
    const length = lengthBytes === 1 ? b[offset + 2]! : (b[offset + 2]! << 8) | b[offset + 3]!;
    if (length < MIN_LENGTH) throw new FrameError(`GT06 length ${length} is below the minimum ${MIN_LENGTH}`);
    const size = 2 + lengthBytes + length + 2;
    if (size > this.maxFrameBytes) throw new FrameError(`GT06 frame of ${size} bytes exceeds the ${this.maxFrameBytes}-byte cap`);
    if (available < size) return null;
    if (b[offset + size - 2] !== 0x0d || b[offset + size - 1] !== 0x0a) throw new FrameError('GT06 frame does not end with 0D0A');
    return size;
  }
}

