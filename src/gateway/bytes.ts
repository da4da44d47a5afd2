/** Byte helpers shared by the protocol framers. */

export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** One byte as two upper-case hex digits, for error messages. */
export function hexByte(byte: number): string {
  return byte.toString(16).padStart(2, '0').toUpperCase();
}
