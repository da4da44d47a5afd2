export { decodeBleTlvList, decodeEyeBeaconData, decodeSimpleBeaconList, BleParam } from './ble';
export { type AvlCodec, Codec, type CommandCodec, type IoElement, isAvlCodec } from './codecs';
export { crc16ibm } from './crc';
export {
  type AvlData,
  type AvlRecord,
  decodeAvlData,
  decodeTcpFrame,
  decodeUdpDatagram,
  ioMap,
  type TeltonikaAvlMessage,
  type TeltonikaCommandResponse,
  type TeltonikaMessage,
  type TeltonikaUdpDatagram,
  toDecodedRecord,
  type UdpDecodeOptions,
} from './decoder';
export {
  type AvlRecordInput,
  type EncodeAvlOptions,
  encodeAck,
  encodeAvlFrame,
  encodeCodec12Command,
  encodeCodec12Response,
  encodeCodec14Command,
  encodeImeiFrame,
  encodeImeiReply,
  encodeUdpAck,
  encodeUdpDatagram,
  type UdpDatagramInput,
} from './encoder';
export { CrcError, FrameError, TeltonikaError } from './errors';
export { TeltonikaFramer, type TeltonikaFrame, type TeltonikaFramerOptions } from './framer';
export {
  FMB_MODELS,
  FMB_TABLE,
  FMX6_TABLE,
  hasFix,
  iButtonId,
  IO_MODEL_TABLES,
  type IoFamily,
  ioFamily,
  type IoModelTable,
  ioModelTable,
  type IoWidth,
  ioWidth,
  normalize,
} from './io-models';
