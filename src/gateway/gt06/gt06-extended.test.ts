import { describe, expect, test } from 'bun:test';
import { ioToJson } from '../../lib/tracker-record';
import { decodeGt06Frame, encodeAddressReply, encodeTimeReply, type Gt06Message, Gt06Framer, replyTo } from './index';

/**
 * Golden frames of the GT06 family's 4G, cell, Wi-Fi, request and information packets, and both alarm layouts: each
 * frame laid out from the Concox GT06 v1.8 / JM-VL03 documents with chosen values (the project's GT06 reference,
 * where every CRC was checked twice), with the values and replies the documents give.
 */
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/[\s|]+/g, ''), 'hex'));
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex').toUpperCase() : null);
const clean = (h: string) => h.replace(/[\s|]+/g, '').toUpperCase();
const IMEI = '868120301234560';
const ARRIVED = new Date('2024-06-01T12:00:30Z');

function decode(frame: string, timezoneMinutes = 0): Gt06Message {
  return decodeGt06Frame(bytes(frame), { imei: IMEI, timezoneMinutes, now: ARRIVED });
}

function as<T extends Gt06Message['type']>(m: Gt06Message, type: T): Extract<Gt06Message, { type: T }> {
  expect(m.type).toBe(type);
  return m as Extract<Gt06Message, { type: T }>;
}

function reply(frame: string): string | null {
  return hex(replyTo(decode(frame), ARRIVED));
}

describe('4G location 0xA0', () => {
  test('1-byte MNC, no mileage', () => {
    const frame =
      '78 78 | 29 | A0 | 18 05 11 09 1E 0F | C9 | 06 5D AC 58 | 01 F0 1F 28 | 2A | 14 57 | 00 F0 | 01 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | 01 | 00 | 00 | 00 42 | 0F 1F | 0D 0A';
    const r = as(decode(frame), 'location').record;
    expect(r.time.toISOString()).toBe('2024-05-17T09:30:15.000Z');
    expect(r.satellites).toBe(9);
    expect(r.latitude).toBeCloseTo(59.3345911, 6);
    expect(r.longitude).toBeCloseTo(18.06324, 6);
    expect([r.speedKmh, r.course, r.valid]).toEqual([42, 87, true]);
    expect(r.io).toMatchObject({ mcc: 240, mnc: 1, lac: 13_000, cellId: 27_440_068, acc: 1, uploadMode: 0, reupload: 0 });
    expect(r.normalized).toEqual({ ignition: true });
    expect(reply(frame)).toBe(clean('78 78 05 A0 00 42 FC 48 0D 0A'));
  });

  test('MCC flag: 2-byte MNC, west, with mileage', () => {
    const frame =
      '78 78 | 2E | A0 | 18 0B 02 17 3B 3A | CB | 04 5E 35 B5 | 07 F0 A2 81 | 00 | 1D 38 | 81 36 | 01 04 | 00 00 2A 3F | 00 00 00 00 0B 5C 1D 02 | 00 | 03 | 01 | 00 01 E2 40 | 01 03 | F0 6D | 0D 0A';
    const r = as(decode(frame), 'location').record;
    expect(r.time.toISOString()).toBe('2024-11-02T23:59:58.000Z');
    expect(r.latitude).toBeCloseTo(40.7127761, 6);
    expect(r.longitude).toBeCloseTo(-74.0059739, 6);
    expect([r.satellites, r.speedKmh, r.course, r.valid]).toEqual([11, 0, 312, true]);
    expect(r.io).toMatchObject({ mcc: 310, mnc: 260, lac: 10_815, cellId: 190_586_114, acc: 0, uploadMode: 3, reupload: 1, mileage: 123_456 });
    expect(r.normalized).toEqual({ ignition: false, odometerM: 123_456 });
    expect(reply(frame)).toBe(clean('78 78 05 A0 01 03 B6 1D 0D 0A'));
  });
});

describe('4G cells, Wi-Fi and LBS alarms (records without a fix)', () => {
  test('0xA1 multi-cell', () => {
    const frame =
      '78 78 | 6C | A1 | 18 05 11 09 1F 00 | 00 F0 | 07 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | 3C | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C5 | 32 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 | 00 02 | 00 17 | 22 00 | 0D 0A';
    const r = as(decode(frame), 'lbs').record;
    expect(r.time.toISOString()).toBe('2024-05-17T09:31:00.000Z');
    expect([r.valid, r.latitude, r.longitude]).toEqual([false, 0, 0]);
    expect(r.io).toEqual({
      mcc: 240,
      mnc: 7,
      lac: 13_000,
      cellId: 27_440_068,
      rssi: 0x3c,
      'cell2.lac': 13_000,
      'cell2.cellId': 27_440_069,
      'cell2.rssi': 0x32,
      timingAdvance: 0,
      language: 2,
    });
    expect(reply(frame)).toBe(clean('78 78 05 A1 00 17 A3 BC 0D 0A'));
  });

  test('0xA2 4G cell and two access points', () => {
    const frame =
      '78 78 | 79 | A2 | 18 05 11 09 1F 1E | 00 F0 | 01 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | 3C | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 00 00 00 | 00 00 00 00 00 00 00 00 | 00 | 00 | 02 | 3C 84 6A 12 34 56 | 45 | F4 F2 6D 0A 0B 0C | 52 | 00 18 | A5 F5 | 0D 0A';
    const r = as(decode(frame), 'lbs').record;
    expect(r.time.toISOString()).toBe('2024-05-17T09:31:30.000Z');
    expect(ioToJson(r.io)).toMatchObject({ mcc: 240, mnc: 1, lac: 13_000, cellId: 27_440_068, rssi: 0x3c, 'wifi1.mac': '3C846A123456', 'wifi1.rssi': 0x45, 'wifi2.mac': 'F4F26D0A0B0C', 'wifi2.rssi': 0x52 });
    expect(reply(frame)).toBe(clean('78 78 05 A2 00 18 B4 2F 0D 0A'));
  });

  test('0xA4 4G fence alarm: entered the second fence', () => {
    const frame =
      '78 78 | 2D | A4 | 18 06 01 0C 00 05 | C7 | 06 31 05 7E | 01 48 E4 20 | 3A | 14 BE | 10 | 00 F0 | 02 | 00 00 1F 4A | 00 00 00 00 00 D2 E1 F0 | 46 | 05 | 04 | 04 | 02 | 01 | 02 05 | 96 6C | 0D 0A';
    const m = as(decode(frame), 'alarm');
    expect(m.alarmCode).toBe(4);
    const r = m.record;
    expect(r.time.toISOString()).toBe('2024-06-01T12:00:05.000Z');
    expect(r.latitude).toBeCloseTo(57.70887, 6);
    expect(r.longitude).toBeCloseTo(11.97456, 6);
    expect([r.satellites, r.speedKmh, r.course, r.valid]).toEqual([7, 58, 190, true]);
    expect(r.io).toMatchObject({ mcc: 240, mnc: 2, lac: 8010, cellId: 13_820_400, terminalInfo: 0x46, voltageLevel: 5, gsmLevel: 4, alarmCode: 4, fence: 1 });
    expect(r.normalized).toMatchObject({ alarm: 'geofenceEnter', geofence: 1, ignition: true });
    expect(reply(frame)).toBe(clean('78 78 05 A4 02 05 9A 22 0D 0A'));
  });

  test('0xA5 4G LBS alarm: SOS, at the time it arrived', () => {
    const frame = '78 78 | 19 | A5 | 00 F0 | 01 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | 22 | 04 | 03 | 01 | 02 | 00 31 | 67 B5 | 0D 0A';
    const m = as(decode(frame), 'alarm');
    expect(m.terminal).toMatchObject({ accOn: true, alarmBits: 4 });
    expect(m.record.time).toEqual(ARRIVED);
    expect(m.record.valid).toBe(false);
    expect(m.record.io).toMatchObject({ mcc: 240, mnc: 1, lac: 13_000, cellId: 27_440_068, alarmCode: 1 });
    expect(m.record.normalized).toMatchObject({ alarm: 'sos', ignition: true, gsmSignal: 3 });
    expect(reply(frame)).toBe(clean('78 78 05 A5 00 31 84 E9 0D 0A'));
  });

  test('0x19 LBS status alarm: internal battery low', () => {
    const frame = '78 78 | 12 | 19 | 00 F0 | 01 | 1B 59 | 00 A3 F1 | 18 | 01 | 02 | 19 | 02 | 00 12 | 03 C8 | 0D 0A';
    const m = as(decode(frame), 'alarm');
    expect(m.terminal.alarmBits).toBe(3);
    expect(m.record.io).toMatchObject({ mcc: 240, mnc: 1, lac: 7001, cellId: 41_969, alarmCode: 0x19 });
    expect(m.record.normalized.alarm).toBe('lowBattery');
    expect(reply(frame)).toBe(clean('78 78 05 19 00 12 B8 91 0D 0A'));
  });

  const cells = '00 F0 | 01 | 1B 59 | 00 A3 F1 | 3A | 1B 59 | 00 A3 F2 | 30 | 1B 5A | 00 42 D0 | 2A | 00 00 | 00 00 00 | 00 | 00 00 | 00 00 00 | 00 | 00 00 | 00 00 00 | 00 | 00 00 | 00 00 00 | 00 | 03';
  const threeCells = {
    mcc: 240,
    mnc: 1,
    lac: 7001,
    cellId: 41_969,
    rssi: 0x3a,
    'cell2.lac': 7001,
    'cell2.cellId': 41_970,
    'cell2.rssi': 0x30,
    'cell3.lac': 7002,
    'cell3.cellId': 17_104,
    'cell3.rssi': 0x2a,
    timingAdvance: 3,
  };
  for (const [protocol, time, tail, answer] of [
    ['28', '18 05 11 0A 00 00', '00 02 | 00 20 | 50 00', '78 78 05 28 00 20 76 72 0D 0A'],
    ['18', '18 05 11 0A 05 00', '00 02 | 00 21 | 97 F5', '78 78 05 18 00 21 E1 55 0D 0A'],
    ['2E', '18 05 11 0A 0A 00', '00 02 | 00 22 | 87 3B', '78 78 05 2E 00 22 83 B9 0D 0A'],
  ] as const) {
    test(`0x${protocol} multi-cell`, () => {
      const frame = `78 78 | 3B | ${protocol} | ${time} | ${cells} | ${tail} | 0D 0A`;
      const r = as(decode(frame), 'lbs').record;
      expect(r.time.getUTCHours()).toBe(10);
      expect(r.io).toEqual({ ...threeCells, language: 2 });
      expect(reply(frame)).toBe(clean(answer));
    });
  }

  test('0x2C cells and one access point', () => {
    const frame = `78 78 | 41 | 2C | 18 05 11 0A 0F 00 | ${cells} | 01 | 3C 84 6A 12 34 56 | 45 | 00 23 | 06 A6 | 0D 0A`;
    const r = as(decode(frame), 'lbs').record;
    expect(r.time.toISOString()).toBe('2024-05-17T10:15:00.000Z');
    expect(ioToJson(r.io)).toEqual({ ...threeCells, 'wifi1.mac': '3C846A123456', 'wifi1.rssi': 0x45 });
    expect(reply(frame)).toBe(clean('78 78 05 2C 00 23 27 88 0D 0A'));
  });

  for (const [protocol, frame, answer, aps] of [
    [
      '17',
      '78 78 | 01 | 17 | 24 05 17 10 30 00 | 3C 84 6A 12 34 56 | 45 | 02 | 00 F0 | 01 | 1B 59 | A3 F1 | 3A | 1B 59 | A3 F2 | 30 | 0D 0A',
      '78 78 | 00 | 17 | 24 05 17 10 30 00 | 0D 0A',
      1,
    ],
    [
      '69',
      '78 78 | 02 | 69 | 24 05 17 10 35 00 | 3C 84 6A 12 34 56 | 45 | F4 F2 6D 0A 0B 0C | 52 | 01 | 00 F0 | 01 | 1B 59 | A3 F1 | 3A | 0D 0A',
      '78 78 | 00 | 69 | 24 05 17 10 35 00 | 0D 0A',
      2,
    ],
  ] as const) {
    test(`Wi-Fi form 0x${protocol}: cut by its layout, BCD time, echoed`, () => {
      const framer = new Gt06Framer();
      const whole = bytes(frame);
      // Byte by byte, followed by an ordinary frame: the framer finds the end from the layout.
      const frames = [...whole, ...bytes('78 78 05 8A 00 03 DF 84 0D 0A')].flatMap((byte) => framer.push(Uint8Array.of(byte)));
      expect(frames.map(hex)).toEqual([clean(frame), '7878058A0003DF840D0A']);
      const r = as(decode(frame), 'lbs').record;
      expect(r.time.toISOString()).toBe(`2024-05-17T10:${protocol === '17' ? '30' : '35'}:00.000Z`);
      expect(ioToJson(r.io)).toMatchObject({ 'wifi1.mac': '3C846A123456', 'wifi1.rssi': 0x45, mcc: 240, mnc: 1, lac: 7001, cellId: 0xa3f1, rssi: 0x3a });
      expect(Object.keys(r.io).filter((key) => key.endsWith('.mac'))).toHaveLength(aps);
      expect(reply(frame)).toBe(clean(answer));
    });
  }
});

describe('alarm packets in both LBS-length layouts', () => {
  // The same 0x16 with an LBS length that does not count itself (0x08) and one that does (0x09).
  const layouts = {
    'not counting itself': '78 78 | 25 | 16 | 18 03 09 12 2D 00 | CA | 05 F7 3C 86 | 01 65 29 20 | 00 | 14 00 | 08 | 00 F0 | 01 | 1B 59 | 00 A3 F1 | 50 | 03 | 04 | 02 | 02 | 00 77 | 45 81 | 0D 0A',
    'counting itself': '78 78 | 25 | 16 | 18 03 09 12 2D 00 | CA | 05 F7 3C 86 | 01 65 29 20 | 00 | 14 00 | 09 | 00 F0 | 01 | 1B 59 | 00 A3 F1 | 50 | 03 | 04 | 02 | 02 | 00 77 | CB 91 | 0D 0A',
  };
  for (const [layout, frame] of Object.entries(layouts)) {
    test(`0x16 power cut, LBS length ${layout}`, () => {
      const m = as(decode(frame), 'alarm');
      expect(m.alarmCode).toBe(2);
      expect(m.terminal).toEqual({ armed: false, accOn: false, charging: false, alarmBits: 2, gpsTracking: true, relayCut: false });
      const r = m.record;
      expect(r.time.toISOString()).toBe('2024-03-09T18:45:00.000Z');
      expect(r.latitude).toBeCloseTo(55.6049811, 6);
      expect(r.longitude).toBeCloseTo(13.0038222, 6);
      expect([r.satellites, r.speedKmh, r.course, r.valid]).toEqual([10, 0, 0, true]);
      expect(r.io).toMatchObject({ mcc: 240, mnc: 1, lac: 7001, cellId: 41_969, terminalInfo: 0x50, voltageLevel: 3, gsmLevel: 4, alarmCode: 2, language: 2 });
      expect(r.normalized).toMatchObject({ alarm: 'powerCut', ignition: false, gsmSignal: 4 });
      expect(reply(frame)).toBe(clean('78 78 05 16 00 77 C6 FD 0D 0A'));
    });
  }

  test('0x27 fence alarm with a 2-byte MNC: left the first fence', () => {
    const frame =
      '78 78 | 27 | 27 | 18 08 14 07 0F 2A | C8 | 03 96 AF E5 | 0C 06 34 91 | 41 | 1C 5F | 0A | 81 36 | 01 04 | 2A 3F | 01 B2 07 | 46 | 06 | 04 | 05 | 02 | 00 | 00 99 | DD 66 | 0D 0A';
    const m = as(decode(frame), 'alarm');
    const r = m.record;
    expect(r.time.toISOString()).toBe('2024-08-20T07:15:42.000Z');
    expect(r.latitude).toBeCloseTo(33.4483761, 6);
    expect(r.longitude).toBeCloseTo(-112.0740361, 6);
    expect([r.satellites, r.speedKmh, r.course, r.valid]).toEqual([8, 65, 95, true]);
    expect(r.io).toMatchObject({ mcc: 310, mnc: 260, lac: 10_815, cellId: 111_111, terminalInfo: 0x46, voltageLevel: 6, alarmCode: 5, fence: 0 });
    expect(r.normalized).toMatchObject({ alarm: 'geofenceExit', geofence: 0, ignition: true });
    expect(reply(frame)).toBe(clean('78 78 05 27 00 99 14 FF 0D 0A'));
  });

  test("the unit's model picks the alarm table's variant", async () => {
    const { encodeAlarm } = await import('./index');
    const fix = { serial: 1, time: new Date('2024-01-01T00:00:00Z'), latitude: 59, longitude: 18, speedKmh: 0, course: 0, satellites: 5, valid: true };
    const frame = encodeAlarm({ ...fix, terminal: {}, voltageLevel: 4, gsmLevel: 3, alarmCode: 0x28 });
    const alarmOf = (model?: string) => as(decodeGt06Frame(frame, { model }), 'alarm').record.normalized.alarm;
    expect([alarmOf(), alarmOf('VL103M'), alarmOf('SEEWORLD-S5'), alarmOf('GT06N')]).toEqual(['braking', 'powerOff', 'cornering', 'braking']);
  });

  test('status bits alone: geofence and removal', async () => {
    const { encodeAlarm } = await import('./index');
    const fix = { serial: 1, time: new Date('2024-01-01T00:00:00Z'), latitude: 59, longitude: 18, speedKmh: 0, course: 0, satellites: 5, valid: true };
    for (const [alarmBits, alarm] of [[6, 'geofence'], [7, 'tamper'], [4, 'sos']] as const) {
      const m = as(decodeGt06Frame(encodeAlarm({ ...fix, terminal: { alarmBits }, voltageLevel: 4, gsmLevel: 3, alarmCode: 0 })), 'alarm');
      expect(m.record.normalized.alarm).toBe(alarm);
    }
  });
});

describe('time, address and information', () => {
  test('0x8A time request: the current UTC time, serial echoed', () => {
    const m = as(decode('78 78 | 05 | 8A | 00 03 | DF 84 | 0D 0A'), 'time-request');
    expect(m.serial).toBe(3);
    const reply = replyTo(m, new Date('2024-05-17T09:30:15Z'));
    expect(hex(reply)).toBe(clean('78 78 | 0B | 8A | 18 05 11 09 1E 0F | 00 03 | DA F8 | 0D 0A'));
    expect(hex(encodeTimeReply(new Date('2024-05-17T09:30:15Z'), 0))).toBe(clean('78 78 | 0B | 8A | 18 05 11 09 1E 0F | 00 00 | E8 63 | 0D 0A'));
  });

  test('address replies in the documented forms, byte for byte', () => {
    expect(hex(encodeAddressReply({ language: 2, address: 'Storgatan 1, Malmo', phone: '+46701234567', serial: 0x51 }))).toBe(
      clean(
        '79 79 | 00 51 | 97 | 00 4A | 00 00 00 01 | 41 44 44 52 45 53 53 | 26 26 | 00 53 00 74 00 6F 00 72 00 67 00 61 00 74 00 61 00 6E 00 20 00 31 00 2C 00 20 00 4D 00 61 00 6C 00 6D 00 6F | 26 26 | 2B 34 36 37 30 31 32 33 34 35 36 37 00 00 00 00 00 00 00 00 00 | 23 23 | 00 51 | 40 81 | 0D 0A',
      ),
    );
    expect(hex(encodeAddressReply({ language: 1, address: 'Malmo', phone: '+46701234567', serial: 0x50 }))).toBe(
      clean(
        '78 78 | 36 | 17 | 30 | 00 00 00 01 | 41 44 44 52 45 53 53 | 26 26 | 00 4D 00 61 00 6C 00 6D 00 6F | 26 26 | 2B 34 36 37 30 31 32 33 34 35 36 37 00 00 00 00 00 00 00 00 00 | 23 23 | 00 50 | 13 69 | 0D 0A',
      ),
    );
  });

  const position = '18 05 11 0B 00 00 | C9 | 06 5D AC 58 | 01 F0 1F 28 | 00 | 14 00';
  const phone = '2B 34 36 37 30 31 32 33 34 35 36 37 00 00 00 00 00 00 00 00 00';
  for (const [name, frame, serial] of [
    ['0x1A', `78 78 | 2E | 1A | ${position} | ${phone} | 00 02 | 00 50 | 9B 0C | 0D 0A`, 0x50],
    ['0x2A', `78 78 | 2E | 2A | ${position} | ${phone} | 00 | 02 | 00 51 | 47 8D | 0D 0A`, 0x51],
  ] as const) {
    test(`${name} address request: the fix is a record, the reply names its coordinates in English`, () => {
      const m = as(decode(frame), 'address-request');
      expect(m).toMatchObject({ serial, phone: '+46701234567', language: 2 });
      expect(m.record.time.toISOString()).toBe('2024-05-17T11:00:00.000Z');
      expect(m.record.latitude).toBeCloseTo(59.3345911, 6);
      expect(m.record.longitude).toBeCloseTo(18.06324, 6);
      expect(m.record.valid).toBe(true);
      expect(reply(frame)).toBe(hex(encodeAddressReply({ language: 2, address: '59.334591,18.063240', phone: '+46701234567', serial })));
    });
  }

  test('0xA7 4G address request: the cell is a record, the reply says the position is unknown', () => {
    const frame = `78 78 | 2B | A7 | 00 F0 | 01 | 00 00 32 C8 | 00 00 00 00 01 A2 B3 C4 | ${phone} | 00 | 02 | 00 52 | 75 6B | 0D 0A`;
    const m = as(decode(frame), 'address-request');
    expect(m).toMatchObject({ serial: 0x52, phone: '+46701234567', language: 2 });
    expect(m.record.io).toMatchObject({ mcc: 240, mnc: 1, lac: 13_000, cellId: 27_440_068 });
    expect(m.record.valid).toBe(false);
    expect(reply(frame)).toBe(hex(encodeAddressReply({ language: 2, address: 'Position unknown', phone: '+46701234567', serial: 0x52 })));
  });

  const info: Array<[string, string, (m: Extract<Gt06Message, { type: 'info' }>) => void]> = [
    ['external voltage', '79 79 00 08 94 00 04 C4 00 60 72 30 0D 0A', (m) => expect(m.record.normalized.externalVoltageV).toBe(12.2)],
    ['status sync', '79 79 00 2D 94 04 41 4C 4D 31 3D 43 30 3B 41 4C 4D 32 3D 34 34 3B 41 4C 4D 33 3D 43 43 3B 53 54 41 31 3D 43 30 3B 44 59 44 3D 30 30 3B 00 61 74 93 0D 0A', (m) =>
      expect(Buffer.from(m.record.io.statusSync as Uint8Array).toString('latin1')).toBe('ALM1=C0;ALM2=44;ALM3=CC;STA1=C0;DYD=00;')],
    ['door', '79 79 00 07 94 05 05 00 62 94 5A 0D 0A', (m) => expect(m.record.io).toMatchObject({ door: 1, doorTriggerLevel: 0, ioLevel: 1 })],
    ['door with its time', '79 79 00 0D 94 05 18 05 11 0C 00 00 01 00 68 DD D1 0D 0A', (m) => {
      expect(m.record.time.toISOString()).toBe('2024-05-17T12:00:00.000Z');
      expect(m.record.io.door).toBe(1);
    }],
    ['IMEI, IMSI, ICCID', '79 79 00 20 94 0A 08 68 12 03 01 23 45 60 02 40 01 12 34 56 78 90 89 46 01 12 34 56 78 90 12 3F 00 63 A3 3B 0D 0A', (m) =>
      expect(ioToJson(m.record.io)).toMatchObject({ imei: '0868120301234560', imsi: '0240011234567890', iccid: '8946011234567890123F' })],
    ['RFID text', '79 79 00 19 94 1B 52 46 49 44 3A 30 30 41 31 42 32 43 33 44 34 45 35 0D 0A 00 64 FE 52 0D 0A', (m) => expect(m.record.normalized.driverId).toBe('00A1B2C3D4E5')],
    ['temperature and humidity', '79 79 00 0E 94 1E 00 00 00 EB 00 00 01 C2 00 65 DC 32 0D 0A', (m) => expect(m.record.io).toMatchObject({ temperature: 23.5, humidity: 45 })],
    ['network', '79 79 00 07 94 0B 01 00 66 1F 5D 0D 0A', (m) => expect(m.record.io.network).toBe(1)],
    ['short form: external voltage only', '78 78 07 94 04 C4 00 67 F4 F5 0D 0A', (m) => expect(m.record.normalized.externalVoltageV).toBe(12.2)],
  ];
  for (const [name, frame, check] of info) {
    test(`0x94 ${name}: kept as a record without a fix, not answered`, () => {
      const m = as(decode(frame), 'info');
      expect(m.record.valid).toBe(false);
      check(m);
      expect(reply(frame)).toBeNull();
    });
  }
});

describe('heartbeats and the login time zone', () => {
  test('0x23 heartbeat: battery voltage and GSM', () => {
    const frame = '78 78 | 0B | 23 | 46 | 01 90 | 04 | 00 02 | 00 70 | 14 AE | 0D 0A';
    const m = as(decode(frame), 'status');
    expect(m.normalized).toMatchObject({ ignition: true, batteryVoltageV: 4, gsmSignal: 4 });
    expect(reply(frame)).toBe(clean('78 78 05 23 00 70 0D 51 0D 0A'));
  });

  test('0x13 heartbeat with the battery as a percentage', () => {
    const frame = '78 78 | 0A | 13 | 46 | 55 | 04 | 00 | 02 | 00 71 | B5 F4 | 0D 0A';
    const m = as(decode(frame), 'status');
    expect(m.normalized).toMatchObject({ batteryPct: 85, gsmSignal: 4, ignition: true });
    expect(reply(frame)).toBe(clean('78 78 05 13 00 71 9A 76 0D 0A'));
  });

  test('0x13 heartbeat of 16 bytes', () => {
    const frame = '78 78 | 15 | 13 | 46 | 00 00 | 00 | 02 | 57 | 01 | 01 9C | 00 | 00 05 | 00 3C | 80 D7 | 00 72 | 4C DC | 0D 0A';
    const m = as(decode(frame), 'status');
    expect(m.normalized).toMatchObject({ batteryPct: 87, ignition: true });
    expect(m.normalized.alarm).toBeUndefined();
    expect(reply(frame)).toBe(clean('78 78 05 13 00 72 A8 ED 0D 0A'));
  });

  test('login +05:30 and -03:30; a later 0x12 read in the login zone', () => {
    expect(as(decode('78 78 | 11 | 01 | 08 68 12 03 01 23 45 60 | 22 08 | 21 22 | 00 04 | DA 64 | 0D 0A'), 'login').timezoneMinutes).toBe(330);
    expect(as(decode('78 78 | 11 | 01 | 08 68 12 03 01 23 45 60 | 22 08 | 14 AA | 00 07 | 00 74 | 0D 0A'), 'login').timezoneMinutes).toBe(-210);
    const gps = '78 78 | 1F | 12 | 18 05 11 0F 00 00 | C9 | 01 64 46 8E | 08 53 32 CB | 1E | 14 2D | 01 94 | 2D | 0F 1A | 00 B3 C1 | 00 05 | CB 32 | 0D 0A';
    const r = as(decode(gps, 330), 'location').record;
    expect(r.time.toISOString()).toBe('2024-05-17T09:30:00.000Z');
    expect(r.latitude).toBeCloseTo(12.9715989, 6);
    expect(r.io).toMatchObject({ mcc: 404, mnc: 45, lac: 3866, cellId: 46_017 });
  });

  test('a date that does not exist is an Invalid Date, never rolled over', async () => {
    const { encodeLocation, buildPacket } = await import('./index');
    const frame = encodeLocation({ serial: 1, time: new Date('2024-05-17T09:30:00Z'), latitude: 59, longitude: 18, speedKmh: 0, course: 0, satellites: 5, valid: true });
    // Month 13 in place of 5; the CRC made right again.
    const content = frame.slice(4, frame.length - 6);
    content[1] = 13;
    const r = as(decodeGt06Frame(buildPacket(0x12, content, 1)), 'location').record;
    expect(Number.isNaN(r.time.getTime())).toBe(true);
  });
});
