import { describe, expect, test } from 'bun:test';
import {
  CrcError,
  crcItu,
  decodeGt06Frame,
  encodeAlarm,
  encodeCommand,
  encodeLocation,
  encodeLogin,
  encodeReply,
  encodeStatus,
  FrameError,
  type Gt06Message,
  Gt06Framer,
  Gt06Protocol,
  buildPacket,
  parsePacket,
  replyTo,
} from './index';
import { type DecodedRecord, ioToJson } from '../../lib/tracker-record';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

// Frames from /work/shared/reference/vectors/gt06-examples.txt.
const V = {
  login: '78780D01012345678901234500018CDD0D0A',
  loginRsp: '787805010001D9DC0D0A',
  loginExt: '7878110103587390503134452020000100196A930D0A',
  gps12: '78781F120B081D112E10CF027AC7EB0C46584900148F01CC00287D001FB8000380810D0A',
  gps12Real: '78781F120F0A140E150BC505E51E780293A9E800540000F601006E0055DA00035F240D0A',
  gps22: '787822220F0C1D023305C9027AC8180C46586000140001CC00287D001F71000001000820860D0A',
  status13: '78780A13440604000201BAAF540D0A',
  statusRsp: '787805130011F9700D0A',
  alarm16: '787825160B0B0F0E241DCF027AC8870C4657E60014020901CC00287D001F726506040101003656A40D0A',
  alarm26: '7878252612030C063816C3026C10540C38C9700144030901CC002866000EEE0C06040302000DA2DB0D0A',
  info94: '79790020940A035985708236675805200502187214018966051912408052452F000355560D0A',
  cmd80: '787812800C0000000052656C61792C312300009DEE0D0A',
};

const IMEI = '123456789012345';

function decode(frame: string, timezoneMinutes = 0): Gt06Message {
  return decodeGt06Frame(bytes(frame), { imei: IMEI, timezoneMinutes });
}

function as<T extends Gt06Message['type']>(m: Gt06Message, type: T): Extract<Gt06Message, { type: T }> {
  expect(m.type).toBe(type);
  return m as Extract<Gt06Message, { type: T }>;
}

describe('CRC-ITU', () => {
  test('check value', () => {
    expect(crcItu(new TextEncoder().encode('123456789'))).toBe(0x906e);
  });
});

describe('golden frames', () => {
  test('login 0x01', () => {
    const m = as(decode(V.login), 'login');
    expect(m).toMatchObject({ protocol: 0x01, serial: 1, imei: '123456789012345', typeId: null, timezoneMinutes: null });
    expect(hex(encodeReply(m.protocol, m.serial))).toBe(V.loginRsp);
  });

  test('login with type id and time zone extension', () => {
    const m = as(decode(V.loginExt), 'login');
    expect(m).toMatchObject({ serial: 25, imei: '358739050313445', typeId: 0x2020, timezoneMinutes: 0 });
  });

  test('documented server replies are CRC-valid frames', () => {
    expect(parsePacket(bytes(V.loginRsp))).toMatchObject({ protocol: 0x01, serial: 1, extended: false });
    expect(parsePacket(bytes(V.statusRsp))).toMatchObject({ protocol: 0x13, serial: 0x11, extended: false });
  });

  test('GPS+LBS 0x12 (doc)', () => {
    const m = as(decode(V.gps12), 'location');
    expect(m.protocol).toBe(0x12);
    expect(m.serial).toBe(3);
    const r = m.record;
    expect(r.protocol).toBe('gt06');
    expect(r.deviceId).toBe(IMEI);
    expect(r.time.toISOString()).toBe('2011-08-29T17:46:16.000Z');
    expect(r.satellites).toBe(15);
    expect(r.latitude).toBeCloseTo(23.1116683, 6);
    expect(r.longitude).toBeCloseTo(114.409285, 6);
    expect(r.speedKmh).toBe(0);
    expect(r.course).toBe(143);
    expect(r.valid).toBe(true);
    expect(r.altitude).toBeNull();
    expect(r.io).toMatchObject({ mcc: 460, mnc: 0, lac: 10365, cellId: 8120, courseStatus: 0x148f });
    expect(r.normalized.ignition).toBeUndefined();
    expect(hex(encodeReply(m.protocol, m.serial))).toStartWith('787805120003');
  });

  test('GPS+LBS 0x12 (real, ACC flag set, ACC off)', () => {
    const r = as(decode(V.gps12Real), 'location').record;
    expect(r.time.toISOString()).toBe('2015-10-20T14:21:11.000Z');
    expect(r.satellites).toBe(5);
    expect(r.latitude).toBeCloseTo(54.9453467, 6);
    expect(r.longitude).toBeCloseTo(24.0176222, 6);
    expect(r.course).toBe(0);
    expect(r.valid).toBe(true);
    expect(r.io).toMatchObject({ mcc: 246, mnc: 1, lac: 110, cellId: 21978, acc: 0 });
    expect(r.normalized.ignition).toBe(false);
  });

  test('GPS 0x22 with ACC, upload mode and re-upload', () => {
    const m = as(decode(V.gps22), 'location');
    expect(m.serial).toBe(8);
    const r = m.record;
    expect(r.time.toISOString()).toBe('2015-12-29T02:51:05.000Z');
    expect(r.satellites).toBe(9);
    expect(r.latitude).toBeCloseTo(23.1116933, 6);
    expect(r.longitude).toBeCloseTo(114.4092978, 6);
    expect(r.course).toBe(0);
    expect(r.valid).toBe(true);
    expect(r.io).toMatchObject({ mcc: 460, mnc: 0, lac: 10365, cellId: 8049, acc: 0, uploadMode: 0, reupload: 1 });
    expect(r.normalized.ignition).toBe(false);
  });

  test('status 0x13', () => {
    const m = as(decode(V.status13), 'status');
    expect(m.serial).toBe(442);
    expect(m.terminal).toEqual({ armed: false, accOn: false, charging: true, alarmBits: 0, gpsTracking: true, relayCut: false });
    expect(m).toMatchObject({ voltageLevel: 6, gsmLevel: 4, alarmCode: 0, language: 2 });
    expect(m.normalized).toEqual({ ignition: false, gsmSignal: 4, dout1: false, batteryPct: 100 });
    expect(hex(encodeReply(0x13, 0x0011))).toBe(V.statusRsp);
  });

  test('alarm 0x16 SOS', () => {
    const m = as(decode(V.alarm16), 'alarm');
    expect(m.serial).toBe(0x36);
    expect(m.alarmCode).toBe(1);
    expect(m.terminal).toEqual({ armed: true, accOn: false, charging: true, alarmBits: 4, gpsTracking: true, relayCut: false });
    const r = m.record;
    expect(r.time.toISOString()).toBe('2011-11-15T14:36:29.000Z');
    expect(r.satellites).toBe(15);
    expect(r.latitude).toBeCloseTo(23.111755, 6);
    expect(r.longitude).toBeCloseTo(114.40923, 6);
    expect(r.course).toBe(2);
    expect(r.valid).toBe(true);
    expect(r.io).toMatchObject({ mcc: 460, mnc: 0, lac: 10365, cellId: 8050, terminalInfo: 0x65, voltageLevel: 6, gsmLevel: 4, language: 1 });
    expect(r.normalized).toEqual({ alarm: 'sos', ignition: false, gsmSignal: 4, dout1: false, batteryPct: 100 });
    expect(hex(encodeReply(m.protocol, m.serial))).toStartWith('787805160036');
  });

  test('alarm 0x26 vibration, not fixed', () => {
    const m = as(decode(V.alarm26), 'alarm');
    expect(m.serial).toBe(13);
    expect(m.alarmCode).toBe(3);
    expect(m.terminal).toEqual({ armed: false, accOn: false, charging: true, alarmBits: 1, gpsTracking: false, relayCut: false });
    const r = m.record;
    expect(r.time.toISOString()).toBe('2018-03-12T06:56:22.000Z');
    expect(r.satellites).toBe(3);
    expect(r.valid).toBe(false);
    expect(r.latitude).toBeCloseTo(22.5758333, 6);
    expect(r.longitude).toBeCloseTo(113.9156533, 6);
    expect(r.speedKmh).toBe(1);
    expect(r.course).toBe(3);
    expect(r.io).toMatchObject({ mcc: 460, mnc: 0, lac: 10342, cellId: 3822, acc: 0, language: 2 });
    expect(r.normalized.alarm).toBe('vibration');
    expect(r.normalized.ignition).toBe(false);
  });

  test('7979 info 0x94 (IMEI/IMSI/ICCID)', () => {
    const m = as(decode(V.info94), 'info');
    expect(m).toMatchObject({ protocol: 0x94, serial: 3, subtype: 0x0a });
    // BCD as sent: IMEI and IMSI behind a leading 0, the ICCID padded with F.
    expect(ioToJson(m.record.io)).toMatchObject({ imei: '0359857082366758', imsi: '0520050218721401', iccid: '8966051912408052452F' });
    expect(m.record.valid).toBe(false);
  });

  test('0x80 command Relay,1#', () => {
    expect(hex(encodeCommand('Relay,1#', 0))).toBe(V.cmd80);
    const m = as(decode(V.cmd80), 'unknown');
    expect(m.protocol).toBe(0x80);
    expect(m.serial).toBe(0);
  });
});

describe('time zone', () => {
  test('local frame time is shifted to UTC by the unit offset', () => {
    const r = as(decode(V.gps12, 120), 'location').record;
    expect(r.time.toISOString()).toBe('2011-08-29T15:46:16.000Z');
    const west = as(decode(V.gps12, -300), 'location').record;
    expect(west.time.toISOString()).toBe('2011-08-29T22:46:16.000Z');
  });
});

describe('round trips', () => {
  const fix = {
    serial: 0x1234,
    time: new Date('2024-02-29T23:59:58Z'),
    latitude: -33.8688197,
    longitude: -151.2092955,
    speedKmh: 87,
    course: 271,
    satellites: 11,
    valid: true,
    mcc: 240,
    mnc: 1,
    lac: 4321,
    cellId: 0xabcdef,
  };

  function expectFix(m: { record: DecodedRecord; serial: number }) {
    expect(m.serial).toBe(0x1234);
    expect(m.record.time.toISOString()).toBe('2024-02-29T23:59:58.000Z');
    expect(m.record.latitude).toBeCloseTo(fix.latitude, 6);
    expect(m.record.longitude).toBeCloseTo(fix.longitude, 6);
    expect(m.record).toMatchObject({ speedKmh: 87, course: 271, satellites: 11, valid: true });
    expect(m.record.io).toMatchObject({ mcc: 240, mnc: 1, lac: 4321, cellId: 0xabcdef });
  }

  test('login', () => {
    expect(hex(encodeLogin({ imei: IMEI, serial: 1 }))).toBe(V.login);
    expect(hex(encodeLogin({ imei: '358739050313445', serial: 25, typeId: 0x2020, timezoneMinutes: 0 }))).toStartWith(
      '78781101035873905031344520200000',
    );
    for (const tz of [0, 330, -210, 480, -720]) {
      const m = as(decodeGt06Frame(encodeLogin({ imei: '012345678901234', serial: 9, typeId: 7, timezoneMinutes: tz })), 'login');
      expect(m).toMatchObject({ imei: '012345678901234', serial: 9, typeId: 7, timezoneMinutes: tz });
    }
  });

  test('0x12 with ACC bits, local time zone', () => {
    const frame = encodeLocation({ ...fix, acc: true, timezoneMinutes: 60 });
    const m = as(decodeGt06Frame(frame, { imei: IMEI, timezoneMinutes: 60 }), 'location');
    expect(m.protocol).toBe(0x12);
    expectFix(m);
    expect(m.record.normalized.ignition).toBe(true);
  });

  test('0x12 reproduces the doc frame', () => {
    const frame = encodeLocation({
      serial: 3,
      time: new Date('2011-08-29T17:46:16Z'),
      latitude: 0x027ac7eb / 1_800_000,
      longitude: 0x0c465849 / 1_800_000,
      speedKmh: 0,
      course: 143,
      satellites: 15,
      valid: true,
      mcc: 460,
      mnc: 0,
      lac: 10365,
      cellId: 8120,
    });
    expect(hex(frame)).toBe(V.gps12);
  });

  test('0x22 with ACC byte, re-upload and mileage', () => {
    const frame = encodeLocation({ ...fix, protocol: Gt06Protocol.gps, acc: true, uploadMode: 2, reupload: true, mileage: 123456 });
    const m = as(decodeGt06Frame(frame, { imei: IMEI }), 'location');
    expect(m.protocol).toBe(0x22);
    expectFix(m);
    expect(m.record.io).toMatchObject({ acc: 1, uploadMode: 2, reupload: 1, mileage: 123456 });
    expect(m.record.normalized).toMatchObject({ ignition: true, odometerM: 123456 });
  });

  test('two-byte MNC', () => {
    const m = as(decodeGt06Frame(encodeLocation({ ...fix, mnc: 310 })), 'location');
    expect(m.record.io).toMatchObject({ mcc: 240, mnc: 310, lac: 4321, cellId: 0xabcdef });
  });

  test('0x13 status with relay bit; one that reports an alarm is kept as a record without a fix', () => {
    const status = { serial: 0x1234, terminal: { accOn: true, relayCut: true, gpsTracking: true }, voltageLevel: 3, gsmLevel: 2, alarmCode: 0, language: 2 };
    const quiet = as(decodeGt06Frame(encodeStatus(status)), 'status');
    expect(quiet.terminal).toEqual({ armed: false, accOn: true, charging: false, alarmBits: 0, gpsTracking: true, relayCut: true });
    expect(quiet.normalized).toEqual({ ignition: true, gsmSignal: 2, dout1: true, batteryPct: 50 });
    const arrived = new Date('2026-03-01T10:00:00Z');
    const frame = encodeStatus({ ...status, terminal: { ...status.terminal, alarmBits: 2 } });
    const m = as(decodeGt06Frame(frame, { imei: IMEI, now: arrived }), 'alarm-status');
    expect(m.terminal).toEqual({ armed: false, accOn: true, charging: false, alarmBits: 2, gpsTracking: true, relayCut: true });
    expect(m.record).toMatchObject({ deviceId: IMEI, time: arrived, valid: false, latitude: 0, longitude: 0 });
    expect(m.record.normalized).toEqual({ ignition: true, gsmSignal: 2, dout1: true, alarm: 'powerCut', batteryPct: 50 });
    expect(hex(replyTo(m, arrived)!)).toBe(hex(encodeReply(0x13, 0x1234)));
    expect(hex(encodeStatus({ serial: 442, terminal: { charging: true, gpsTracking: true }, voltageLevel: 6, gsmLevel: 4, language: 2 }))).toBe(
      V.status13,
    );
  });

  test('0x16 / 0x26 alarms', () => {
    for (const protocol of [Gt06Protocol.alarm, Gt06Protocol.alarm2]) {
      const frame = encodeAlarm({ ...fix, protocol, terminal: { accOn: true }, voltageLevel: 5, gsmLevel: 3, alarmCode: 0x06, language: 1 });
      const m = as(decodeGt06Frame(frame, { imei: IMEI }), 'alarm');
      expect(m.protocol).toBe(protocol);
      expectFix(m);
      expect(m.alarmCode).toBe(6);
      expect(m.record.normalized).toEqual({ ignition: true, gsmSignal: 3, dout1: false, alarm: 'overspeed', batteryPct: 83 });
    }
  });

  test('0x15 and 0x21 command responses', () => {
    const text15 = new TextEncoder().encode('Cut off the fuel supply: Success!');
    const c15 = new Uint8Array([4 + text15.length, 0, 0, 0, 1, ...text15, 0x00, 0x02]);
    const m15 = as(decodeGt06Frame(buildPacket(0x15, c15, 5)), 'command-response');
    expect(m15).toMatchObject({ protocol: 0x15, serial: 5, serverFlag: 1, text: 'Cut off the fuel supply: Success!' });
    const c21 = new Uint8Array([0, 0, 0, 0, 1, ...new TextEncoder().encode('Relay ok')]);
    const m21 = as(decodeGt06Frame(buildPacket(0x21, c21, 6, true)), 'command-response');
    expect(m21).toMatchObject({ protocol: 0x21, serial: 6, text: 'Relay ok' });
  });

  test('unknown protocol is kept', () => {
    const m = as(decodeGt06Frame(encodeReply(0x8b, 7)), 'unknown');
    expect(m.protocol).toBe(0x8b);
    expect(m.content.length).toBe(0);
  });
});

describe('framer', () => {
  const stream = bytes(V.login + V.gps12 + V.info94 + V.status13);
  const expected = [V.login, V.gps12, V.info94, V.status13];

  test('byte at a time', () => {
    const framer = new Gt06Framer();
    const out: string[] = [];
    for (const b of stream) out.push(...framer.push(new Uint8Array([b])).map(hex));
    expect(out).toEqual(expected);
    expect(framer.buffered).toBe(0);
  });

  test('coalesced and split chunks', () => {
    const framer = new Gt06Framer();
    expect(framer.push(stream).map(hex)).toEqual(expected);
    const a = new Gt06Framer();
    const first = a.push(stream.subarray(0, 25));
    expect(first.map(hex)).toEqual([V.login]);
    expect(a.buffered).toBe(25 - V.login.length / 2);
    expect(a.push(stream.subarray(25)).map(hex)).toEqual(expected.slice(1));
  });

  test('7979 frame with 0D0A and 7878 inside the payload', () => {
    // A command text carrying the marker bytes must not split the frame.
    const tricky = encodeCommand('a\r\nxx\r\n', 0x0d0a);
    const framer = new Gt06Framer();
    expect(framer.push(Uint8Array.from([...tricky, ...bytes(V.info94)])).map(hex)).toEqual([hex(tricky), V.info94]);
  });

  test('garbage, bad stop bytes, short length and oversized frames throw FrameError', () => {
    expect(() => new Gt06Framer().push(bytes('474554202F'))).toThrow(FrameError);
    expect(() => new Gt06Framer().push(bytes('7879'))).toThrow(FrameError);
    expect(() => new Gt06Framer().push(bytes(V.login.slice(0, -4) + '0D0B'))).toThrow(FrameError);
    expect(() => new Gt06Framer().push(bytes('78780301000000'))).toThrow(FrameError);
    expect(() => new Gt06Framer({ maxFrameBytes: 64 }).push(bytes('7979FFFF'))).toThrow(FrameError);
    expect(() => new Gt06Framer().push(bytes('7979FFFF'))).toThrow(FrameError);
    expect(() => new Gt06Framer().push(bytes(V.login + 'FF'))).toThrow(FrameError);
  });

  test('truncated frame waits for more bytes', () => {
    const framer = new Gt06Framer();
    expect(framer.push(bytes(V.gps12.slice(0, 20)))).toEqual([]);
    expect(framer.buffered).toBe(10);
  });
});

describe('decoder errors', () => {
  test('bad CRC raises CrcError', () => {
    // The widely copied 0x12 example with GPS-info byte CC instead of CF.
    const bad = V.gps12.replace('2E10CF027A', '2E10CC027A');
    expect(() => decode(bad)).toThrow(CrcError);
  });

  test('truncated or inconsistent frames raise FrameError', () => {
    expect(() => decode(V.login.slice(0, -2))).toThrow(FrameError);
    expect(() => decode('7878')).toThrow(FrameError);
    expect(() => decode('1234' + V.login.slice(4))).toThrow(FrameError);
  });

  test('content shorter than the packet type needs raises FrameError', () => {
    expect(() => decodeGt06Frame(buildPacket(0x12, new Uint8Array(10), 1))).toThrow(FrameError);
    expect(() => decodeGt06Frame(buildPacket(0x01, new Uint8Array(4), 1))).toThrow(FrameError);
    expect(() => decodeGt06Frame(buildPacket(0x01, bytes('0A23456789012345'), 1))).toThrow(FrameError);
  });

  test('oversized command is refused', () => {
    expect(() => encodeCommand('x'.repeat(246), 1)).toThrow(RangeError);
  });
});
