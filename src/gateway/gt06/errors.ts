/** Base class so callers can catch every GT06 codec failure at once. */
export class Gt06Error extends Error {
  override name = 'Gt06Error';
}

/** The byte stream is not GT06 (bad start/stop bytes, impossible or oversized length): close the connection. */
export class FrameError extends Gt06Error {
  override name = 'FrameError';
}

/** A well-framed packet whose CRC does not match: drop the frame, the connection may stay up. */
export class CrcError extends Gt06Error {
  override name = 'CrcError';
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`GT06 CRC mismatch: frame has 0x${actual.toString(16).padStart(4, '0')}, computed 0x${expected.toString(16).padStart(4, '0')}`);
  }
}
