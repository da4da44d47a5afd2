import { describe, expect, test } from 'bun:test';
import type { DecodedRecord, IoValue } from '../../lib/tracker-record';
import {
  type AvlRecord,
  type AvlRecordInput,
  Codec,
  CrcError,
  crc16ibm,
  decodeAvlData,
  decodeBleTlvList,
  decodeEyeBeaconData,
  decodeSimpleBeaconList,
  decodeTcpFrame,
  decodeUdpDatagram,
  encodeAck,
  encodeAvlFrame,
  encodeCodec12Command,
  encodeCodec12Response,
  encodeCodec14Command,
  encodeImeiFrame,
  encodeImeiReply,
  encodeUdpAck,
  encodeUdpDatagram,
  FrameError,
  iButtonId,
  ioFamily,
  normalize,
  type TeltonikaAvlMessage,
  type TeltonikaCommandResponse,
  type TeltonikaFrame,
  TeltonikaFramer,
  type TeltonikaMessage,
} from './index';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

// Frames from /work/shared/reference/vectors/teltonika-doc-examples.txt and teltonika-ble-examples.txt.
const V = {
  imei: '000F333536333037303432343431303133',
  c8ex1:
    '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF',
  c8ex2: '000000000000002808010000016B40D9AD80010000000000000000000000000000000103021503010101425E100000010000F22A',
  c8ex3:
    '000000000000004308020000016B40D57B480100000000000000000000000000000001010101000000000000016B40D5C198010000000000000000000000000000000101010101000000020000252C',
  c8eEx1:
    '000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994',
  c16ex1:
    '000000000000005F10020000016BDBC7833000000000000000000000000000000000000B05040200010000030002000B00270042563A00000000016BDBC7871800000000000000000000000000000000000B05040200010000030002000B00260042563A00000200005FB3',
  udpC8:
    '003DCAFE0105000F33353230393330383634303336353508010000016B4F815B30010000000000000000000000000000000103021503010101425DBC000001',
  udpC8e:
    '005FCAFE0107000F3335323039333038363430333635358E010000016B4F831C680100000000000000000000000000000000010005000100010100010011009D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A000001',
  udpC16:
    '015BCAFE0101000F33353230393430383532333135393210010000015117E40FE80000000000000000000000000000000000EF05050400010000030000B40000EF01010042111A000001',
  c12CmdGetinfo: '000000000000000F0C010500000007676574696E666F0100004312',
  c12RspGetinfo:
    '00000000000000900C010600000088494E493A323031392F372F323220373A3232205254433A323031392F372F323220373A3533205253543A32204552523A312053523A302042523A302043463A302046473A3020464C3A302054553A302F302055543A3020534D533A30204E4F4750533A303A3330204750533A31205341543A302052533A332052463A36352053463A31204D443A30010000C78F',
  c12CmdGetio: '000000000000000D0C010500000005676574696F01000000CB',
  c12RspGetio:
    '00000000000000370C01060000002F4449313A31204449323A30204449333A302041494E313A302041494E323A313639323420444F313A3020444F323A3101000066E3',
  c12Setdigout11: '00000000000000140C01050000000C7365746469676F7574203131010000BED5',
  c12Setdigout1qq: '00000000000000150C01050000000D7365746469676F757420313F3F010000FC0E',
  c13Traccar: '00000000000000170D01050000000F0000016C0A81C320676574696E666F0100006855',
  c13Real: '00000000000000240D01060000001C642B3AD14754534C7C367C317C307C31323734393838347C317C0D0A010000EC11',
  c14Getver: '00000000000000160E01050000000E0352093081452251676574766572010000D2C1',
  c14RspAck:
    '00000000000000AB0E0106000000A303520930814522515665723A30332E31382E31345F3034204750533A41584E5F352E31305F333333332048773A464D42313230204D6F643A313520494D45493A33353230393330383134353232353120496E69743A323031382D31312D323220373A313320557074696D653A3137323334204D41433A363042444430303136323631205350433A312830292041584C3A30204F42443A3020424C3A312E36204254533A340100007AAE',
  c14RspNack: '00000000000000100E011100000008035209308145246801000032AC',
  eyeList11317:
    '000000000000010E8E020000019769DE9F9800015299F718B278040018007708000000000013000B00EF0100F00000150500C80000450100010100B30000020000030000B401017C00000500B5001A00B6000C004238D40043000000440000000200F10000539B00100000EFC70001004E000000000000000000000000019769DE5D3B00015299F718B27804001800770800002C350001000000000000000000012C3500700124050F4E65766572615F33000000000000000F067CD9F4110C4006020C8F0701340E020C1C24050F4E65766572615F31000000000000000F067CD9F411334606020C380701340E020C2624050F4E65766572615F32000000000000000F067CD9F411464706020C240701360E020C26020000A8B0',
  adv548:
    '00000000000000768E010000018FDC4B27CB015B3E33CEEFA529030009013F0E0000022400010000000000000000000102240049010F0001C60106BABBF36300550202806D0F0001CA01063456555565690202806B0F0001D10106467975425450020280690B0001C90106FA54BA8D00550B0001CF0106CABBF36300550100005455',
  adv548b:
    '00000000000000728E010000018B23DD796300FBF7263C24F9E11A0000000000000002240001000000000000000000010224004501210001E50110CDE39F7E42BB55AA788E4A29ED650055020AB70A8F264C6000FFFF6B210001B00110F89B907E42BB55AAA3463B29ED650055020AB708BB2600AE0500096C01000051D4',
  beacon10831:
    '000000000000004B8E010000018368952793000F0E54FC209AB05800B300B40E00002A4F0001000000000000000000012A4F001E011C0001A40110EB47706AA38255AA96F21A154E2D00550D01000E020BD6010000823F',
};

const IMEI = '356307042441013';
const MODEL = 'FMB920';

/** The vector files' `io(id=hex)=` rendering: wire order, values as big-endian hex of their wire size. */
function ioLine(record: AvlRecord): string {
  return record.elements
    .map((e) => {
      const v = e.value;
      const text =
        v instanceof Uint8Array
          ? hex(v)
          : BigInt(v)
              .toString(16)
              .toUpperCase()
              .padStart((e.size ?? 0) * 2, '0');
      return `${e.id}=${text}`;
    })
    .join(', ');
}

function avl(frame: string, model: string | null = MODEL): TeltonikaAvlMessage {
  const m = decodeTcpFrame(bytes(frame), IMEI, model);
  expect(m.type).toBe('avl');
  return m as TeltonikaAvlMessage;
}

function gprs(frame: string): TeltonikaCommandResponse {
  const m = decodeTcpFrame(bytes(frame), IMEI);
  expect(m.type).toBe('command-response');
  return m as TeltonikaCommandResponse;
}

/** Wire records of a TCP frame (codec id … NoD2 span). */
function wire(frame: string): AvlRecord[] {
  const b = bytes(frame);
  return decodeAvlData(b, 8, b.length - 4).records;
}

function fix(r: DecodedRecord) {
  return {
    time: r.time.toISOString(),
    priority: r.priority,
    latitude: r.latitude,
    longitude: r.longitude,
    altitude: r.altitude,
    course: r.course,
    satellites: r.satellites,
    speedKmh: r.speedKmh,
    eventId: r.eventId,
  };
}

const NO_FIX = { latitude: 0, longitude: 0, altitude: 0, course: 0, satellites: 0, speedKmh: 0 };

/** Builds a TCP frame around `codec … NoD2` with a correct length and CRC (for malformed-content tests). */
function tcpFrame(dataHex: string): Uint8Array {
  const data = bytes(dataHex);
  const out = new Uint8Array(data.length + 12);
  const view = new DataView(out.buffer);
  view.setUint32(4, data.length);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc16ibm(data));
  return out;
}

describe('CRC-16/IBM', () => {
  test('check value', () => {
    expect(crc16ibm(new TextEncoder().encode('123456789'))).toBe(0xbb3d);
  });

  test('matches the CRC field of every CRC-valid vector', () => {
    for (const frame of [V.c8ex1, V.c8ex2, V.c8ex3, V.c8eEx1, V.c16ex1, V.c12RspGetio, V.c13Real, V.c14Getver, V.eyeList11317, V.adv548]) {
      const b = bytes(frame);
      expect(crc16ibm(b, 8, b.length - 4)).toBe(new DataView(b.buffer).getUint32(b.length - 4));
    }
  });
});

describe('golden: wiki AVL frames over TCP', () => {
  test('IMEI handshake', () => {
    const framer = new TeltonikaFramer();
    expect(framer.push(bytes(V.imei))).toEqual([{ kind: 'imei', imei: IMEI }]);
    expect(hex(encodeImeiFrame(IMEI))).toBe(V.imei);
    expect(hex(encodeImeiReply(true))).toBe('01');
    expect(hex(encodeImeiReply(false))).toBe('00');
  });

  test('Codec 8 example 1: IO of every width', () => {
    const m = avl(V.c8ex1);
    expect(m).toMatchObject({ codec: 8, count: 1 });
    const r = m.records[0]!;
    expect(fix(r)).toEqual({ time: '2019-06-10T10:04:46.000Z', priority: 1, eventId: 1, ...NO_FIX });
    expect(r.time.getTime()).toBe(1560161086000);
    expect(r).toMatchObject({ protocol: 'teltonika', deviceId: IMEI, valid: false });
    expect(ioLine(wire(V.c8ex1)[0]!)).toBe('21=03, 1=01, 66=5E0F, 241=0000601A, 78=0000000000000000');
    expect(r.io).toEqual({ 21: 3, 1: 1, 66: 0x5e0f, 241: 24602, 78: 0n });
    expect(r.normalized).toEqual({ gsmSignal: 3, din1: true, externalVoltageV: 24.079 });
    expect(hex(encodeAck(m.count))).toBe('00000001');
  });

  test('Codec 8 example 2', () => {
    const m = avl(V.c8ex2);
    const r = m.records[0]!;
    expect(fix(r)).toEqual({ time: '2019-06-10T10:05:36.000Z', priority: 1, eventId: 1, ...NO_FIX });
    expect(ioLine(wire(V.c8ex2)[0]!)).toBe('21=03, 1=01, 66=5E10');
    expect(r.normalized.externalVoltageV).toBe(24.08);
    expect(hex(encodeAck(m.count))).toBe('00000001');
  });

  test('Codec 8 example 3: two records', () => {
    const m = avl(V.c8ex3);
    expect(m.count).toBe(2);
    expect(m.records.map(fix)).toEqual([
      { time: '2019-06-10T10:01:01.000Z', priority: 1, eventId: 1, ...NO_FIX },
      { time: '2019-06-10T10:01:19.000Z', priority: 1, eventId: 1, ...NO_FIX },
    ]);
    expect(wire(V.c8ex3).map(ioLine)).toEqual(['1=00', '1=01']);
    expect(m.records.map((r) => r.normalized.din1)).toEqual([false, true]);
    expect(hex(encodeAck(m.count))).toBe('00000002');
  });

  test('Codec 8 Extended example: 2-byte ids, 8-byte ICCID parts, NX count 0', () => {
    const m = avl(V.c8eEx1);
    expect(m).toMatchObject({ codec: 0x8e, count: 1 });
    const r = m.records[0]!;
    expect(fix(r)).toEqual({ time: '2019-06-10T11:36:32.000Z', priority: 1, eventId: 1, ...NO_FIX });
    expect(ioLine(wire(V.c8eEx1)[0]!)).toBe('1=01, 17=001D, 16=015E2C88, 11=000000003544C87A, 14=000000001DD7E06A');
    expect(r.io).toEqual({ 1: 1, 17: 29, 16: 22949000, 11: 893700218n, 14: 500686954n });
    expect(r.normalized).toEqual({ din1: true, odometerM: 22949000 });
    expect(hex(encodeAck(m.count))).toBe('00000001');
  });

  test('Codec 16 example: generation type, 2-byte ids, 1-byte counts', () => {
    const m = avl(V.c16ex1);
    expect(m).toMatchObject({ codec: 0x10, count: 2 });
    expect(m.records.map(fix)).toEqual([
      { time: '2019-07-10T12:06:54.000Z', priority: 0, eventId: 11, ...NO_FIX },
      { time: '2019-07-10T12:06:55.000Z', priority: 0, eventId: 11, ...NO_FIX },
    ]);
    const records = wire(V.c16ex1);
    expect(records.map((r) => r.generationType)).toEqual([5, 5]);
    expect(records.map(ioLine)).toEqual(['1=00, 3=00, 11=0027, 66=563A', '1=00, 3=00, 11=0026, 66=563A']);
    expect(m.records[0]!.normalized.externalVoltageV).toBe(22.074);
    expect(hex(encodeAck(m.count))).toBe('00000002');
  });
});

describe('golden: wiki UDP datagrams', () => {
  test('Codec 8 over UDP and its ACK', () => {
    const d = decodeUdpDatagram(bytes(V.udpC8));
    expect(d).toMatchObject({ packetId: 0xcafe, avlPacketId: 5, imei: '352093086403655', codec: 8, count: 1 });
    expect(fix(d.records[0]!)).toEqual({ time: '2019-06-13T06:23:26.000Z', priority: 1, eventId: 1, ...NO_FIX });
    expect(d.records[0]!.time.getTime()).toBe(1560407006000);
    expect(d.records[0]!.deviceId).toBe('352093086403655');
    expect(d.records[0]!.io).toEqual({ 21: 3, 1: 1, 66: 0x5dbc });
    expect(d.records[0]!.normalized.externalVoltageV).toBe(23.996);
    expect(hex(d.ack)).toBe('0005CAFE010501');
  });

  test('Codec 8 Extended over UDP', () => {
    const d = decodeUdpDatagram(bytes(V.udpC8e));
    expect(d).toMatchObject({ packetId: 0xcafe, avlPacketId: 7, imei: '352093086403655', codec: 0x8e, count: 1 });
    expect(fix(d.records[0]!)).toEqual({ time: '2019-06-13T06:25:21.000Z', priority: 1, eventId: 1, ...NO_FIX });
    expect(d.records[0]!.io).toEqual({ 1: 1, 17: 0x9d, 16: 0x015e2c88, 11: 0x3544c87an, 14: 0x1dd7e06an });
    expect(hex(d.ack)).toBe('0005CAFE010701');
  });

  test('Codec 16 over UDP: the wiki length erratum is rejected; the body decodes', () => {
    expect(() => decodeUdpDatagram(bytes(V.udpC16))).toThrow(FrameError);
    const d = decodeUdpDatagram(bytes(V.udpC16), { checkLength: false });
    expect(d).toMatchObject({ packetId: 0xcafe, avlPacketId: 1, imei: '352094085231592', codec: 0x10, count: 1 });
    const r = d.records[0]!;
    expect(fix(r)).toEqual({ time: '2015-11-18T00:00:01.000Z', priority: 0, eventId: 239, ...NO_FIX });
    expect(r.io).toEqual({ 1: 0, 3: 0, 180: 0, 239: 1, 66: 0x111a });
    expect(r.normalized).toMatchObject({ ignition: true, dout2: false, externalVoltageV: 4.378 });
    expect(hex(d.ack)).toBe('0005CAFE010101');
    // With the length corrected to 0x0048 it is a valid datagram.
    const fixed = bytes(V.udpC16);
    fixed[0] = 0x00;
    fixed[1] = 0x48;
    expect(decodeUdpDatagram(fixed).count).toBe(1);
  });

  test('encodeUdpAck', () => {
    expect(hex(encodeUdpAck(0xcafe, 5, 1))).toBe('0005CAFE010501');
  });
});

describe('golden: GPRS messages (Codec 12/13/14)', () => {
  test('Codec 12 commands are encoded byte for byte', () => {
    expect(hex(encodeCodec12Command('getinfo'))).toBe(V.c12CmdGetinfo);
    expect(hex(encodeCodec12Command('getio'))).toBe(V.c12CmdGetio);
    expect(hex(encodeCodec12Command('setdigout 11'))).toBe(V.c12Setdigout11);
    expect(hex(encodeCodec12Command('setdigout 1??'))).toBe(V.c12Setdigout1qq);
  });

  test('Codec 12 command frames decode (type 0x05)', () => {
    for (const [frame, text] of [
      [V.c12CmdGetinfo, 'getinfo'],
      [V.c12CmdGetio, 'getio'],
      [V.c12Setdigout11, 'setdigout 11'],
      [V.c12Setdigout1qq, 'setdigout 1??'],
    ] as const) {
      expect(gprs(frame)).toMatchObject({ codec: 12, messageType: 0x05, text });
    }
  });

  test('Codec 12 responses (type 0x06)', () => {
    const info = gprs(V.c12RspGetinfo);
    expect(info).toMatchObject({
      codec: 12,
      messageType: 0x06,
      text: 'INI:2019/7/22 7:22 RTC:2019/7/22 7:53 RST:2 ERR:1 SR:0 BR:0 CF:0 FG:0 FL:0 TU:0/0 UT:0 SMS:0 NOGPS:0:30 GPS:1 SAT:0 RS:3 RF:65 SF:1 MD:0',
    });
    expect(info.payload.length).toBe(136);
    const io = gprs(V.c12RspGetio);
    expect(io).toMatchObject({ codec: 12, messageType: 0x06, text: 'DI1:1 DI2:0 DI3:0 AIN1:0 AIN2:16924 DO1:0 DO2:1' });
    expect(hex(encodeCodec12Response(io.text))).toBe(V.c12RspGetio);
  });

  test('Codec 13: spec-conformant device message with a seconds timestamp', () => {
    const m = gprs(V.c13Real);
    expect(m).toMatchObject({ codec: 13, messageType: 0x06, text: 'GTSL|6|1|0|12749884|1|\r\n' });
    expect(m.timestamp?.toISOString()).toBe('2023-04-03T20:45:05.000Z');
    expect(m.timestamp?.getTime()).toBe(1680554705000);
  });

  test('Codec 13: the circulating traccar example is CRC-valid and read per spec', () => {
    const m = gprs(V.c13Traccar);
    expect(m.codec).toBe(13);
    expect(m.messageType).toBe(0x05);
    // 4-byte seconds reading: 0x0000016C = 364 s; the payload keeps the rest of the 8-byte ms stamp.
    expect(m.timestamp?.getTime()).toBe(364_000);
    expect(hex(m.payload)).toBe('0A81C320676574696E666F');
    expect(m.text.endsWith('getinfo')).toBe(true);
  });

  test('Codec 14 getver addressed to an IMEI', () => {
    expect(hex(encodeCodec14Command('352093081452251', 'getver'))).toBe(V.c14Getver);
    expect(gprs(V.c14Getver)).toMatchObject({ codec: 14, messageType: 0x05, imei: '352093081452251', text: 'getver' });
  });

  test('the wiki Codec 14 ACK/nACK errata are rejected', () => {
    expect(() => decodeTcpFrame(bytes(V.c14RspAck), IMEI)).toThrow(FrameError);
    try {
      decodeTcpFrame(bytes(V.c14RspNack), IMEI);
      throw new Error('expected a CrcError');
    } catch (error) {
      expect(error).toBeInstanceOf(CrcError);
      expect((error as CrcError).expected).toBe(0x635e);
      expect((error as CrcError).actual).toBe(0x32ac);
    }
    // With the CRC corrected the nACK decodes: type 0x11, the IMEI it refused, no payload.
    const nack = bytes(V.c14RspNack);
    nack.set([0x63, 0x5e], nack.length - 2);
    expect(decodeTcpFrame(nack, IMEI)).toMatchObject({ codec: 14, messageType: 0x11, imei: '352093081452468', text: '' });
  });
});

describe('golden: BLE examples (real device frames)', () => {
  test('EYE sensor list, NX IO 11317', () => {
    const m = avl(V.eyeList11317);
    expect(m).toMatchObject({ codec: 0x8e, count: 2 });
    expect(hex(encodeAck(m.count))).toBe('00000002');
    const [first, second] = m.records;
    expect(first!.time.toISOString()).toBe('2025-06-13T15:18:07.000Z');
    expect(first!.latitude).toBe(41.4349316);
    expect(first!.longitude).toBe(2.2190583);
    expect(first!.eventId).toBe(0);
    expect(first!.valid).toBe(true);
    expect(first!.normalized).toMatchObject({ ignition: true, movement: false, odometerM: 61383, externalVoltageV: 14.548, gsmSignal: 5, din1: true, dout2: true });
    expect(second!.time.toISOString()).toBe('2025-06-13T15:17:50.011Z');
    expect(second!.latitude).toBe(41.4349316);
    expect(second!.longitude).toBe(2.2190583);
    expect(second!.eventId).toBe(11317);
    const blob = second!.io[11317];
    expect(blob).toBeInstanceOf(Uint8Array);
    expect((blob as Uint8Array).length).toBe(112);
    expect(second!.normalized.ble).toEqual([
      { name: 'Nevera_3', mac: '7CD9F4110C40', temperatureC: 32.15, humidityPct: 52, batteryMv: 3100 },
      { name: 'Nevera_1', mac: '7CD9F4113346', temperatureC: 31.28, humidityPct: 52, batteryMv: 3110 },
      { name: 'Nevera_2', mac: '7CD9F4114647', temperatureC: 31.08, humidityPct: 54, batteryMv: 3110 },
    ]);
  });

  test('advanced beacons, NX IO 548 with 6-byte ids and short EYE data', () => {
    const m = avl(V.adv548);
    expect(m.count).toBe(1);
    const r = m.records[0]!;
    expect(r.time.toISOString()).toBe('2024-06-03T04:11:04.011Z');
    expect(r.latitude).toBe(-27.4388733);
    expect(r.longitude).toBe(153.080315);
    expect(r.eventId).toBe(548);
    expect((r.io[548] as Uint8Array).length).toBe(73);
    expect(r.normalized.ble).toEqual([
      { rssi: -58, beaconId: 'BABBF3630055', lowBattery: false, batteryMv: 3090 },
      { rssi: -54, beaconId: '345655556569', lowBattery: false, batteryMv: 3070 },
      { rssi: -47, beaconId: '467975425450', lowBattery: false, batteryMv: 3050 },
      { rssi: -55, beaconId: 'FA54BA8D0055' },
      { rssi: -49, beaconId: 'CABBF3630055' },
    ]);
  });

  test('advanced beacons, NX IO 548 with 16-byte ids and full EYE data', () => {
    const m = avl(V.adv548b);
    const r = m.records[0]!;
    expect(r.time.toISOString()).toBe('2023-10-12T12:29:59.011Z');
    expect(r.latitude).toBe(62.0355866);
    expect(r.longitude).toBe(-6.76889);
    expect(r.eventId).toBe(548);
    expect((r.io[548] as Uint8Array).length).toBe(69);
    const [first, second] = r.normalized.ble!;
    // Flags 0xB7: 27.03 °C, 38 %, magnet sensor present and not detected, 19552 moves (not moving), 3070 mV.
    expect(first).toEqual({
      rssi: -27,
      beaconId: 'CDE39F7E42BB55AA788E4A29ED650055',
      temperatureC: 27.03,
      humidityPct: 38,
      magnet: false,
      moving: false,
      movementCount: 19552,
      lowBattery: false,
      batteryMv: 3070,
    });
    expect(second).toMatchObject({ rssi: -80, beaconId: 'F89B907E42BB55AAA3463B29ED650055' });
  });

  test('beacon list, NX IO 10831 with low-battery flag and battery mV', () => {
    const m = avl(V.beacon10831);
    const r = m.records[0]!;
    expect(r.time.toISOString()).toBe('2022-09-23T04:22:29.011Z');
    expect(r.latitude).toBe(54.70086);
    expect(r.longitude).toBe(25.25975);
    expect(r.eventId).toBe(10831);
    expect((r.io[10831] as Uint8Array).length).toBe(30);
    expect(r.normalized.ble).toEqual([{ rssi: -92, beaconId: 'EB47706AA38255AA96F21A154E2D0055', lowBattery: false, batteryMv: 3030 }]);
  });

  test('EYE advertising data decoder', () => {
    expect(decodeEyeBeaconData(bytes('B70A8F264C6000FFFF6B'))).toEqual({
      temperatureC: 27.03,
      humidityPct: 38,
      magnet: false,
      moving: false,
      movementCount: 19552,
      lowBattery: false,
      batteryMv: 3070,
    });
    expect(decodeEyeBeaconData(bytes('806D'))).toEqual({ lowBattery: false, batteryMv: 3090 });
    // Moving bit, magnet detected, low battery, negative temperature.
    expect(decodeEyeBeaconData(bytes('5DFF9C8005'))).toEqual({ temperatureC: -1, magnet: true, moving: true, movementCount: 5, lowBattery: true });
    // A length that disagrees with the flags is not EYE data.
    expect(decodeEyeBeaconData(bytes('B70A'))).toBeNull();
  });
});

describe('round trips', () => {
  test('every AVL vector re-encodes byte for byte from its wire records', () => {
    for (const frame of [V.c8ex1, V.c8ex2, V.c8ex3, V.c8eEx1, V.c16ex1, V.eyeList11317, V.adv548, V.adv548b, V.beacon10831]) {
      const b = bytes(frame);
      const data = decodeAvlData(b, 8, b.length - 4);
      expect(hex(encodeAvlFrame(data.codec, data.records))).toBe(frame);
    }
  });

  test('UDP datagrams re-encode byte for byte', () => {
    for (const datagram of [V.udpC8, V.udpC8e]) {
      const d = decodeUdpDatagram(bytes(datagram));
      const b = bytes(datagram);
      const records = decodeAvlData(b, 23).records;
      expect(hex(encodeUdpDatagram({ packetId: d.packetId, avlPacketId: d.avlPacketId, imei: d.imei, codec: d.codec, records }))).toBe(datagram);
    }
  });

  const own: AvlRecordInput[] = [
    {
      time: new Date('2026-03-01T12:34:56.789Z'),
      latitude: 59.3293235,
      longitude: -18.0685808,
      altitude: -12,
      speedKmh: 87,
      course: 271,
      satellites: 11,
      priority: 1,
      eventId: 240,
      io: { 239: 1, 240: 1, 66: 13_912, 67: 4_012, 16: 123_456_789, 21: 4, 69: 1, 25: -512 & 0xffff, 78: 0x0100000abcdef02dn },
    },
    {
      time: new Date('2026-03-01T12:35:56.000Z'),
      latitude: -33.8688197,
      longitude: 151.2092955,
      speedKmh: 0,
      course: 0,
      satellites: 0,
      io: { 239: 0, 240: 0, 1: 1, 179: 1 },
    },
  ];

  function expectSameFix(decoded: DecodedRecord[], input: AvlRecordInput[]) {
    const row = (r: AvlRecordInput): unknown[] => [r.time.getTime(), r.latitude, r.longitude, r.altitude ?? 0, r.speedKmh, r.course, r.satellites];
    expect(decoded.map(row)).toEqual(input.map(row));
  }

  test('Codec 8: own records', () => {
    const m = avl(hex(encodeAvlFrame(8, own)));
    expect(m).toMatchObject({ codec: 8, count: 2 });
    expectSameFix(m.records, own);
    const [a, b] = m.records;
    expect(a!.io).toEqual({ 239: 1, 240: 1, 66: 13_912, 67: 4_012, 16: 123_456_789, 21: 4, 69: 1, 25: 0xfe00, 78: 0x0100000abcdef02dn });
    expect(a!.eventId).toBe(240);
    expect(a!.priority).toBe(1);
    expect(a!.valid).toBe(true);
    expect(a!.normalized).toEqual({
      ignition: true,
      movement: true,
      odometerM: 123_456_789,
      externalVoltageV: 13.912,
      batteryVoltageV: 4.012,
      gsmSignal: 4,
      driverId: '2DF0DEBC0A000001',
      ble: [{ slot: 1, temperatureC: -5.12 }],
    });
    expect(b!.valid).toBe(false);
    expect(b!.normalized).toEqual({ ignition: false, movement: false, din1: true, dout1: true });
    // Nominal widths from the FMB table, not the smallest that fits.
    expect(ioLine(wire(hex(encodeAvlFrame(8, own)))[1]!)).toBe('1=01, 179=01, 239=00, 240=00');
    expect(ioLine(wire(hex(encodeAvlFrame(8, own)))[0]!)).toBe(
      '21=04, 69=01, 239=01, 240=01, 25=FE00, 66=3658, 67=0FAC, 16=075BCD15, 78=0100000ABCDEF02D',
    );
  });

  test('Codec 8 Extended with NX elements', () => {
    const eye = bytes('0124050F4E65766572615F33000000000000000F067CD9F4110C4006020C8F0701340E020C1C');
    const vin = new TextEncoder().encode('YV1ZWA8UDL1234567');
    const records: AvlRecordInput[] = [{ ...own[0]!, eventId: 11317, io: { ...own[0]!.io, 10800: 2150, 10804: 41, 10808: 1, 11317: eye, 256: vin } }];
    const frame = encodeAvlFrame(0x8e, records);
    const m = avl(hex(frame));
    expect(m.codec).toBe(0x8e);
    const r = m.records[0]!;
    expect(r.eventId).toBe(11317);
    expect(r.io[11317]).toEqual(eye);
    expect(r.io[256]).toEqual(vin);
    const nx = wire(hex(frame))[0]!.elements.filter((e) => e.size === null);
    expect(nx.map((e) => e.id)).toEqual([256, 11317]);
    expect(r.normalized.ble).toEqual([
      { slot: 1, temperatureC: 21.5, humidityPct: 41, magnet: true },
      { name: 'Nevera_3', mac: '7CD9F4110C40', temperatureC: 32.15, humidityPct: 52, batteryMv: 3100 },
    ]);
  });

  test('Codec 16 with generation type', () => {
    const records: AvlRecordInput[] = [{ ...own[0]!, eventId: 385, generationType: 6, io: { 1: 1, 66: 12_000, 241: 24602, 11: 39 } }];
    const frame = hex(encodeAvlFrame(0x10, records));
    const m = avl(frame);
    expect(m.codec).toBe(0x10);
    expect(m.records[0]!.eventId).toBe(385);
    expect(m.records[0]!.io).toEqual({ 1: 1, 66: 12_000, 241: 24602, 11: 39n });
    expect(wire(frame)[0]!.generationType).toBe(6);
  });

  test('decoded records re-encode to the same records', () => {
    for (const frame of [V.c8ex1, V.c8eEx1, V.eyeList11317, V.adv548b]) {
      const m = avl(frame);
      const again = avl(hex(encodeAvlFrame(m.codec, m.records)));
      expect(again.records).toEqual(m.records);
    }
  });

  test('a simulator-style record (DecodedRecord with numeric io) encodes as Codec 8E', () => {
    const record: DecodedRecord = {
      protocol: 'teltonika',
      deviceId: IMEI,
      time: new Date('2026-05-01T08:00:00.250Z'),
      latitude: 57.7089,
      longitude: 11.9746,
      altitude: 25,
      speedKmh: 54,
      course: 90,
      satellites: 9,
      valid: true,
      priority: 0,
      eventId: 0,
      io: { 239: 1, 240: 1, 21: 4, 66: 13_950, 16: 45_000_000, 25: Math.round(5.37 * 100) & 0xffff },
      normalized: {},
    };
    const m = avl(hex(encodeAvlFrame(0x8e, [record])));
    expect(m.records[0]).toMatchObject({ time: record.time, latitude: 57.7089, longitude: 11.9746, speedKmh: 54, course: 90 });
    expect(m.records[0]!.normalized).toEqual({
      ignition: true,
      movement: true,
      gsmSignal: 4,
      externalVoltageV: 13.95,
      odometerM: 45_000_000,
      ble: [{ slot: 1, temperatureC: 5.37 }],
    });
  });

  test('encoder refuses what the codec cannot carry', () => {
    const base = own[1]!;
    expect(() => encodeAvlFrame(8, [{ ...base, io: { 300: 1 } }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(8, [{ ...base, eventId: 385 }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(8, [{ ...base, io: { 385: new Uint8Array(2) } }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(0x10, [{ ...base, io: { 385: new Uint8Array(2) } }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(0x8e, [{ ...base, io: { 239: 256 } }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(0x8e, [{ ...base, io: { x: 1 } as Record<string, IoValue> }])).toThrow(RangeError);
    expect(() => encodeAvlFrame(8, Array.from({ length: 256 }, () => base))).toThrow(RangeError);
    expect(() => encodeImeiFrame('35630704244101A')).toThrow(RangeError);
  });
});

describe('framer', () => {
  const login = bytes(V.imei);
  const data = bytes(V.c8ex3);
  const kinds = (frames: TeltonikaFrame[]) => frames.map((f) => (f.kind === 'data' ? `data:${f.bytes.length}` : f.kind === 'imei' ? `imei:${f.imei}` : 'ping'));

  test('handshake, data frames and pings coalesced in one chunk', () => {
    const framer = new TeltonikaFramer({ maxFrameBytes: 64 * 1024 });
    const all = new Uint8Array([...login, ...data, 0xff, ...bytes(V.c8ex1), 0xff]);
    const frames = framer.push(all);
    expect(kinds(frames)).toEqual([`imei:${IMEI}`, 'data:79', 'ping', 'data:66', 'ping']);
    expect(hex((frames[1] as { bytes: Uint8Array }).bytes)).toBe(V.c8ex3);
    expect(framer.buffered).toBe(0);
  });

  test('byte at a time', () => {
    const framer = new TeltonikaFramer();
    const stream = [...login, 0xff, ...data, ...data];
    const frames: TeltonikaFrame[] = [];
    const held: number[] = [];
    for (const byte of stream) {
      frames.push(...framer.push(Uint8Array.of(byte)));
      held.push(framer.buffered);
    }
    expect(kinds(frames)).toEqual([`imei:${IMEI}`, 'ping', 'data:79', 'data:79']);
    expect(framer.buffered).toBe(0);
    expect(Math.max(...held)).toBe(78);
    const decoded = decodeTcpFrame((frames[3] as { bytes: Uint8Array }).bytes, IMEI);
    expect(decoded.type === 'avl' && decoded.count).toBe(2);
  });

  test('split across chunks at every position', () => {
    const stream = new Uint8Array([...login, ...data]);
    for (let cut = 1; cut < stream.length; cut++) {
      const framer = new TeltonikaFramer();
      const first = framer.push(stream.subarray(0, cut));
      expect(framer.buffered).toBe(cut >= login.length ? cut - login.length : cut);
      const frames = [...first, ...framer.push(stream.subarray(cut))];
      expect(kinds(frames)).toEqual([`imei:${IMEI}`, 'data:79']);
    }
  });

  test('frames and held bytes do not share memory with a reused socket Buffer', () => {
    const framer = new TeltonikaFramer();
    framer.push(login);
    const chunk = Buffer.from(data);
    const [frame] = framer.push(chunk.subarray(0, 40));
    expect(frame).toBeUndefined();
    chunk.fill(0xaa, 0, 40); // the runtime reuses its receive buffer
    const frames = framer.push(Buffer.from(data).subarray(40));
    expect(hex((frames[0] as { bytes: Uint8Array }).bytes)).toBe(V.c8ex3);
    const whole = Buffer.from(data);
    const [again] = framer.push(whole);
    whole.fill(0);
    expect(hex((again as { bytes: Uint8Array }).bytes)).toBe(V.c8ex3);
  });

  test('keep-alive pings before and after the handshake', () => {
    const framer = new TeltonikaFramer();
    expect(framer.push(Uint8Array.of(0xff, 0xff))).toEqual([{ kind: 'ping' }, { kind: 'ping' }]);
    expect(kinds(framer.push(login))).toEqual([`imei:${IMEI}`]);
    expect(framer.push(Uint8Array.of(0xff))).toEqual([{ kind: 'ping' }]);
    expect(framer.buffered).toBe(0);
  });

  test('a data frame before any handshake is passed through (the server decides)', () => {
    const framer = new TeltonikaFramer();
    expect(kinds(framer.push(data))).toEqual(['data:79']);
  });

  test('oversized length is rejected as soon as the header is in', () => {
    const framer = new TeltonikaFramer({ maxFrameBytes: 1024 });
    framer.push(login);
    expect(() => framer.push(bytes('00000000000003F6'))).toThrow(FrameError); // 1014 + 12 > 1024
    const ok = new TeltonikaFramer({ maxFrameBytes: 1024 });
    ok.push(login);
    expect(ok.push(bytes('00000000000003F4'))).toEqual([]); // 1012 + 12 = 1024 fits, waits for the rest
    expect(ok.buffered).toBe(8);
    const huge = new TeltonikaFramer();
    expect(() => huge.push(bytes('00000000FFFFFFFF'))).toThrow(FrameError);
  });

  test('garbage throws FrameError and the buffer is dropped', () => {
    const cases = [
      'GET / HTTP/1.1\r\n', // not a handshake
      '0016333536333037303432343431303133', // implausible IMEI length (22)
      '000F33353633303730343234343130314A', // IMEI with a letter
    ];
    for (const text of cases) {
      const framer = new TeltonikaFramer();
      const chunk = text.startsWith('GET') ? new TextEncoder().encode(text) : bytes(text);
      expect(() => framer.push(chunk)).toThrow(FrameError);
      expect(framer.buffered).toBe(0);
    }
    const afterLogin = new TeltonikaFramer();
    afterLogin.push(login);
    expect(() => afterLogin.push(bytes('0001'))).toThrow(FrameError); // preamble byte 1 not zero
    const repeatedLogin = new TeltonikaFramer();
    repeatedLogin.push(login);
    expect(() => repeatedLogin.push(login)).toThrow(FrameError);
    const tooShort = new TeltonikaFramer();
    tooShort.push(login);
    expect(() => tooShort.push(bytes('0000000000000002'))).toThrow(FrameError);
  });
});

describe('decoder errors', () => {
  test('bad CRC raises CrcError', () => {
    const zeroed = bytes(`${V.c8ex1.slice(0, -4)}0000`);
    expect(() => decodeTcpFrame(zeroed, IMEI)).toThrow(CrcError);
    const flipped = bytes(V.c8ex1);
    flipped[20] = flipped[20]! ^ 0x01;
    expect(() => decodeTcpFrame(flipped, IMEI)).toThrow(CrcError);
    const highBits = bytes(V.c8ex1);
    highBits[highBits.length - 4] = 0x01;
    expect(() => decodeTcpFrame(highBits, IMEI)).toThrow(CrcError);
  });

  test('structure errors raise FrameError', () => {
    const b = bytes(V.c8ex1);
    expect(() => decodeTcpFrame(b.subarray(0, b.length - 1), IMEI)).toThrow(FrameError); // length mismatch
    const preamble = bytes(V.c8ex1);
    preamble[0] = 1;
    expect(() => decodeTcpFrame(preamble, IMEI)).toThrow(FrameError);
    expect(() => decodeTcpFrame(bytes('00000000'), IMEI)).toThrow(FrameError);
  });

  test('content errors with a valid CRC raise FrameError', () => {
    const record = '0000016B40D57B48010000000000000000000000000000000101010100000000';
    expect(decodeTcpFrame(tcpFrame(`0801${record}01`), IMEI).type).toBe('avl');
    expect(() => decodeTcpFrame(tcpFrame(`0801${record}02`), IMEI)).toThrow(FrameError); // NoD1 ≠ NoD2
    expect(() => decodeTcpFrame(tcpFrame(`0802${record}02`), IMEI)).toThrow(FrameError); // records missing
    expect(() => decodeTcpFrame(tcpFrame(`0801${record}01FF`), IMEI)).toThrow(FrameError); // trailing byte
    expect(() => decodeTcpFrame(tcpFrame(`0801${record.slice(0, -2)}`), IMEI)).toThrow(FrameError); // truncated IO
    expect(() => decodeTcpFrame(tcpFrame(`0701${record}01`), IMEI)).toThrow(FrameError); // unknown codec
    expect(() => decodeTcpFrame(tcpFrame('0C0106000000FF41420100'), IMEI)).toThrow(FrameError); // size beyond frame
    expect(() => decodeTcpFrame(tcpFrame('0C0106000000024142'), IMEI)).toThrow(FrameError); // Qty2 missing
  });

  test('malformed UDP datagrams raise FrameError', () => {
    const b = bytes(V.udpC8);
    expect(() => decodeUdpDatagram(b.subarray(0, 10))).toThrow(FrameError);
    expect(() => decodeUdpDatagram(b.subarray(0, b.length - 1), { checkLength: false })).toThrow(FrameError);
    const imei = bytes(V.udpC8);
    imei[10] = 0x41;
    expect(() => decodeUdpDatagram(imei)).toThrow(FrameError);
  });

  test('BLE list parsing never throws on malformed blobs', () => {
    expect(decodeBleTlvList(bytes('01FF0001'))).toEqual([]);
    expect(decodeBleTlvList(bytes('01050001C60106'))).toEqual([{ rssi: -58 }]);
    expect(decodeSimpleBeaconList(bytes('0100'))).toEqual([]);
  });
});

describe('IO models and normalisation', () => {
  test('model families', () => {
    for (const model of ['FMB920', 'FMB120', 'FMC130', 'fmm130', 'FMT100', 'TAT100', '', null, undefined]) expect(ioFamily(model)).toBe('fmb');
    for (const model of ['FMB640', 'FMC650', 'FMM640']) expect(ioFamily(model)).toBe('fmx6');
  });

  test('FMB table fields', () => {
    const io: Record<string, IoValue> = {
      239: 1,
      240: 0,
      66: 12_345,
      67: 4_100,
      113: 87,
      16: 1_000_000,
      199: 1234,
      1: 0,
      2: 1,
      3: 0,
      179: 1,
      180: 0,
      380: 1,
      21: 5,
      449: 3600,
    };
    expect(normalize('FMB920', io)).toEqual({
      ignition: true,
      movement: false,
      externalVoltageV: 12.345,
      batteryVoltageV: 4.1,
      batteryPct: 87,
      odometerM: 1_000_000,
      din1: false,
      din2: true,
      din3: false,
      dout1: true,
      dout2: false,
      dout3: true,
      gsmSignal: 5,
      engineSeconds: 3600,
    });
    expect(normalize('FMC130', io)).toEqual(normalize('FMB120', io));
  });

  test('FMX6 table: GNSS status 71, no FMB-only rows', () => {
    const io: Record<string, IoValue> = { 239: 1, 66: 24_000, 16: 999, 380: 1, 71: 3 };
    expect(normalize('FMB640', io)).toEqual({ ignition: true, externalVoltageV: 24 });
    const m = avl(hex(encodeAvlFrame(0x8e, [{ time: new Date(0), latitude: 1, longitude: 1, satellites: 0, io: { 71: 3 } }])), 'FMB640');
    expect(m.records[0]!.valid).toBe(true);
  });

  test('GNSS status 69 overrides the satellite count', () => {
    const frame = (status: number, satellites: number) =>
      avl(hex(encodeAvlFrame(8, [{ time: new Date(0), latitude: 1, longitude: 1, satellites, io: { 69: status } }]))).records[0]!.valid;
    expect(frame(1, 0)).toBe(true);
    expect(frame(2, 7)).toBe(false);
    expect(frame(3, 7)).toBe(false);
  });

  test('iButton: zero is no key; the id reads in printed order', () => {
    expect(normalize(MODEL, { 78: 0n }).driverId).toBeUndefined();
    expect(normalize(MODEL, { 78: 0x01a2b3c4d5e6f700n }).driverId).toBe('00F7E6D5C4B3A201');
    expect(iButtonId(0x0100000abcdef02dn)).toBe('2DF0DEBC0A000001');
  });

  test('green driving with duration', () => {
    expect(normalize(MODEL, { 253: 2, 254: 123, 243: 850 }, 253).greenDriving).toEqual({ type: 'braking', value: 1.23, durationMs: 850 });
    expect(normalize(MODEL, { 253: 3, 254: 45 }).greenDriving).toEqual({ type: 'cornering', value: 0.45 });
    expect(normalize(MODEL, { 253: 0 }).greenDriving).toBeUndefined();
  });

  test('alarms count only in the record they triggered', () => {
    expect(normalize(MODEL, { 252: 1 }, 252).alarm).toBe('powerCut');
    expect(normalize(MODEL, { 252: 1 }, 0).alarm).toBeUndefined();
    expect(normalize(MODEL, { 252: 0 }, 252).alarm).toBeUndefined();
    expect(normalize(MODEL, { 247: 1 }, 247).alarm).toBe('accident');
    expect(normalize(MODEL, { 246: 1 }, 246).alarm).toBe('tow');
    expect(normalize(MODEL, { 249: 1 }, 249).alarm).toBe('jamming');
    expect(normalize(MODEL, { 255: 97 }, 255).alarm).toBe('overspeed');
  });

  test('BLE slots: legacy and EYE ids, error codes dropped', () => {
    const io: Record<string, IoValue> = {
      25: 2_150, // 21.50 °C
      86: 455, // 45.5 %RH
      29: 93, // battery % of sensor #1
      26: 32_767, // sensor #2 not found
      27: 3_000, // legacy "not found"
      28: 0xfe0c, // -5.00 °C
      10801: 1_234,
      10805: 61,
      10809: 1,
      10813: 1,
      10821: 0,
      10837: 17,
      10802: 32_766, // EYE #3 unreadable: its zeros are ignored
      10806: 0,
      10810: 0,
    };
    expect(normalize(MODEL, io).ble).toEqual([
      { slot: 1, temperatureC: 21.5, humidityPct: 45.5, batteryPct: 93 },
      { slot: 2, temperatureC: 12.34, humidityPct: 61, magnet: true, moving: true, lowBattery: false, movementCount: 17 },
      { slot: 4, temperatureC: -5 },
    ]);
  });

  test('simple-mode beacon list, NX IO 385', () => {
    // data part, then an iBeacon (flags 0x12: battery) and an Eddystone (flags 0x00).
    const blob = bytes(
      '01' + '12' + 'E2C56DB5DFFB48D2B060D0F5A71096E0' + '0001' + '0002' + 'C5' + '012C' + '00' + 'AABBCCDDEEFF00112233' + '445566778899' + 'B0',
    );
    expect(decodeSimpleBeaconList(blob)).toEqual([
      { beaconId: 'E2C56DB5DFFB48D2B060D0F5A71096E000010002', rssi: -59, batteryMv: 3000 },
      { beaconId: 'AABBCCDDEEFF00112233445566778899', rssi: -80 },
    ]);
    expect(normalize(MODEL, { 385: blob }).ble).toHaveLength(2);
  });
});

describe('server contract', () => {
  test('message union narrows on type', () => {
    const messages: TeltonikaMessage[] = [decodeTcpFrame(bytes(V.c8ex1), IMEI, MODEL), decodeTcpFrame(bytes(V.c12RspGetio), IMEI, MODEL)];
    expect(messages.map((m) => (m.type === 'avl' ? `avl:${m.count}:${m.records.length}` : `rsp:${m.codec}:${m.text.length}`))).toEqual([
      'avl:1:1',
      'rsp:12:47',
    ]);
  });

  test('command frames are never acknowledged with a count: the codec says which is which', () => {
    expect(gprs(V.c12RspGetio).codec).toBe(Codec.codec12);
    expect(avl(V.c8ex1).codec).toBe(Codec.codec8);
  });
});
