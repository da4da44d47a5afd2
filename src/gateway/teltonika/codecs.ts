import type { IoValue } from '../../lib/tracker-record';

/** Codec ids (byte 8 of a TCP frame). */
export const Codec = {
  /** AVL data, 1-byte IO ids and counts. */
  codec8: 0x08,
  /** AVL data, 2-byte IO ids and counts, variable-length (NX) elements. */
  codec8e: 0x8e,
  /** GPRS command (0x05) / response (0x06). */
  codec12: 0x0c,
  /** Device message with a timestamp (COM TCP Link mode). */
  codec13: 0x0d,
  /** GPRS command with an IMEI guard. */
  codec14: 0x0e,
  /** AVL data, 2-byte IO ids, 1-byte counts, generation type (FMB630/FM63xx). */
  codec16: 0x10,
} as const;

export type AvlCodec = typeof Codec.codec8 | typeof Codec.codec8e | typeof Codec.codec16;
export type CommandCodec = typeof Codec.codec12 | typeof Codec.codec13 | typeof Codec.codec14;

export function isAvlCodec(codec: number): codec is AvlCodec {
  return codec === Codec.codec8 || codec === Codec.codec8e || codec === Codec.codec16;
}

/** One IO element exactly as on the wire: `size` 1/2/4/8 for the fixed groups, null for an NX element. */
export interface IoElement {
  id: number;
  size: 1 | 2 | 4 | 8 | null;
  value: IoValue;
}
