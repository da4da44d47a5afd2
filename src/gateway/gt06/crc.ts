/** CRC-ITU as GT06 uses it: CRC-16/X-25 (poly 0x1021 reflected, init 0xFFFF, xorout 0xFFFF). check("123456789") = 0x906E. */
export function crcItu(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i]!;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return (crc ^ 0xffff) & 0xffff;
}
