/**
 * CRC-16/IBM (a.k.a. CRC-16/ARC): poly 0x8005 reflected (0xA001), init 0, refin/refout, xorout 0.
 * check("123456789") = 0xBB3D. Teltonika computes it over Codec ID … Number of Data 2.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    table[n] = crc;
  }
  return table;
})();

/** Table-driven: one lookup per byte instead of eight shifts (every frame the gateway takes is checked). */
export function crc16ibm(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return crc & 0xffff;
}
