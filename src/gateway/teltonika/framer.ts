import { copyBytes, isDigits, latin1 } from './bytes';
import { FrameError } from './errors';
import { concatBytes, hexByte } from '../bytes';

const DEFAULT_MAX_FRAME_BYTES = 64 * 1024;
/** IMEIs are 15 digits; anything far longer in the handshake position is not a handshake. */
const MAX_IMEI_LENGTH = 20;
/** Codec ID + Number of Data 1 + Number of Data 2: the smallest legal Data Field Length. */
const MIN_DATA_LENGTH = 3;
/** preamble 4 + data field length 4 + CRC 4. */
const DATA_OVERHEAD = 12;

export interface TeltonikaFramerOptions {
  /** Largest whole data frame (preamble … CRC) accepted before the stream is treated as garbage. */
  maxFrameBytes?: number;
}

export type TeltonikaFrame =
  /** 0xFF network ping: consumed, never answered. */
  | { kind: 'ping' }
  /** The login handshake (`uint16 length` + ASCII IMEI): answer with encodeImeiReply. */
  | { kind: 'imei'; imei: string }
  /** `00000000` + `uint32 length` + payload + CRC, whole (pass to decodeTcpFrame). */
  | { kind: 'data'; bytes: Uint8Array };

/**
 * Streaming Teltonika TCP framer (one per connection). Frames are cut by their declared length, so partial
 * and coalesced chunks are both fine. Demultiplexes like traccar's TeltonikaFrameDecoder: `FF` is a ping;
 * before the IMEI is known a non-zero `uint16` starts the IMEI handshake; everything else must be a data
 * frame with the zero preamble. Anything else throws FrameError: there is no resync marker, so the caller
 * closes the connection. A data frame before the handshake is passed through; the server decides.
 */
export class TeltonikaFramer {
  private buffer: Uint8Array = new Uint8Array(0);
  private readonly maxFrameBytes: number;
  private imei: string | null = null;

  constructor(options: TeltonikaFramerOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** Bytes held back waiting for the rest of a frame. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Feed one chunk; returns every frame it completes, in order (data frames are fresh copies). */
  push(chunk: Uint8Array): TeltonikaFrame[] {
    this.buffer = this.buffer.length === 0 ? copyBytes(chunk) : concatBytes(this.buffer, chunk);
    const frames: TeltonikaFrame[] = [];
    let offset = 0;
    try {
      for (;;) {
        const next = this.frameAt(offset);
        if (next === null) break;
        frames.push(next.frame);
        offset += next.size;
      }
    } catch (error) {
      this.buffer = new Uint8Array(0);
      throw error;
    }
    this.buffer = offset === 0 ? this.buffer : copyBytes(this.buffer.subarray(offset));
    return frames;
  }

  /** The complete frame at offset, or null when more bytes are needed. */
  private frameAt(offset: number): { frame: TeltonikaFrame; size: number } | null {
    const b = this.buffer;
    const available = b.length - offset;
    if (available < 1) return null;
    if (b[offset] === 0xff) return { frame: { kind: 'ping' }, size: 1 };

    if (this.imei === null && b[offset] !== 0) {
      // A non-zero high byte cannot be a zero preamble: only the handshake fits here.
      throw new FrameError(`Teltonika stream starts with 0x${hexByte(b[offset]!)}: neither a handshake, a ping nor a data frame`);
    }
    if (available < 2) return null;
    if (this.imei === null && b[offset + 1] !== 0) {
      const length = b[offset + 1]!;
      if (length > MAX_IMEI_LENGTH) throw new FrameError(`Teltonika IMEI handshake length ${length} is implausible`);
      if (available < 2 + length) return null;
      const digits = b.subarray(offset + 2, offset + 2 + length);
      if (!isDigits(digits)) throw new FrameError('Teltonika IMEI handshake is not ASCII digits');
      this.imei = latin1(digits);
      return { frame: { kind: 'imei', imei: this.imei }, size: 2 + length };
    }

    // Data frame: the four preamble bytes must be zero; fail as soon as one is not.
    for (let i = 0; i < Math.min(4, available); i++) {
      if (b[offset + i] !== 0) throw new FrameError(`Teltonika data frame preamble is not 00000000 (byte ${i} is 0x${hexByte(b[offset + i]!)})`);
    }
    if (available < 8) return null;
    const length = ((b[offset + 4]! << 24) >>> 0) + (b[offset + 5]! << 16) + (b[offset + 6]! << 8) + b[offset + 7]!;
    if (length < MIN_DATA_LENGTH) throw new FrameError(`Teltonika data field length ${length} is below the minimum ${MIN_DATA_LENGTH}`);
    const size = length + DATA_OVERHEAD;
    if (size > this.maxFrameBytes) throw new FrameError(`Teltonika frame of ${size} bytes exceeds the ${this.maxFrameBytes}-byte cap`);
    if (available < size) return null;
    return { frame: { kind: 'data', bytes: copyBytes(b.subarray(offset, offset + size)) }, size };
  }
}

