/** Base class so callers can catch every Teltonika codec failure at once. */
export class TeltonikaError extends Error {
  override name = 'TeltonikaError';
}

/**
 * The bytes are not Teltonika (bad preamble, impossible or oversized length, counts that disagree,
 * content shorter or longer than declared): close the connection / drop the datagram.
 */
export class FrameError extends TeltonikaError {
  override name = 'FrameError';
}

/** A well-framed TCP packet whose CRC-16/IBM does not match: neither acknowledge nor store, the device resends. */
export class CrcError extends TeltonikaError {
  override name = 'CrcError';
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Teltonika CRC mismatch: frame has 0x${actual.toString(16).padStart(8, '0')}, computed 0x${expected.toString(16).padStart(4, '0')}`);
  }
}
