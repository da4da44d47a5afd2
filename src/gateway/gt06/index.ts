export { crcItu } from './crc';
export {
  alarmName,
  decodeGt06Frame,
  decodeTerminalInfo,
  fieldsToUtc,
  type Gt06DecodeOptions,
  type Gt06Message,
  type TerminalInfo,
} from './decoder';
export {
  encodeAddressReply,
  encodeAlarm,
  encodeCommand,
  encodeLocation,
  encodeLogin,
  encodeReply,
  encodeStatus,
  encodeTerminalInfo,
  encodeTimeReply,
  encodeWifiFormReply,
  replyTo,
  type Gt06AlarmValues,
  type Gt06FixValues,
  type Gt06LocationValues,
  type Gt06LoginValues,
  type Gt06StatusValues,
} from './encoder';
export { CrcError, FrameError, Gt06Error } from './errors';
export { Gt06Framer, type Gt06FramerOptions } from './framer';
export { buildPacket, type Gt06Packet, Gt06Protocol, parsePacket } from './packet';
