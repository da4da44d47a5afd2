import { describe, expect, test } from 'bun:test';
import { decodeGt06Frame, encodeAlarm } from '../../gateway/gt06';
import { decodeTcpFrame, encodeAvlFrame } from '../../gateway/teltonika';
import type { DecodedRecord } from '../../lib/tracker-record';
import { judge, type JudgedPosition, NO_INPUTS, type UnitSettings } from './engine';
import { alarmMessage, localTime, smsSegments } from './messages';
import { alarmClassOf } from './model';

/**
 * The engine's device rules over records decoded from real frames: the GT06 document's SOS alarm packet (the project's
 * reference vectors), GT06 alarm packets for power cut, removal and low battery, and Teltonika AVL frames carrying the
 * inputs, ignition, external voltage and odometer as a tracker sends them.
 */
const IMEI = '868120301234560';
const NO_SETTINGS: UnitSettings = { overspeedKmh: null, serviceIntervalKm: null };

function judged(record: DecodedRecord): JudgedPosition {
  return {
    time: record.time,
    fix: record.valid,
    latitude: record.latitude,
    longitude: record.longitude,
    speedKmh: record.speedKmh,
    ignition: record.normalized.ignition,
    odometerM: record.normalized.odometerM,
    normalized: record.normalized,
  };
}

function gt06(frame: Uint8Array): JudgedPosition {
  const message = decodeGt06Frame(frame, { imei: IMEI, timezoneMinutes: 0, now: new Date('2024-06-01T12:00:00Z') });
  if (message.type !== 'alarm') throw new Error(`expected an alarm packet, got ${message.type}`);
  return judged(message.record);
}

function teltonika(records: Array<{ at: string; speedKmh?: number; io: Record<string, number> }>): JudgedPosition[] {
  const frame = encodeAvlFrame(
    0x8e,
    records.map((record) => ({ time: new Date(record.at), latitude: 59.33, longitude: 18.06, speedKmh: record.speedKmh ?? 0, course: 90, satellites: 9, io: record.io })),
  );
  const message = decodeTcpFrame(frame, IMEI);
  if (message.type !== 'avl') throw new Error('expected AVL data');
  return message.records.map(judged);
}

const fix = { serial: 1, time: new Date('2024-01-01T00:00:00Z'), latitude: 59.33, longitude: 18.06, speedKmh: 0, course: 0, satellites: 5, valid: true };

describe('device alarms from decoded frames', () => {
  test("the GT06 document's SOS alarm packet is a security SOS alarm at its fix", () => {
    const sos = gt06(Buffer.from('787825160B0B0F0E241DCF027AC8870C4657E60014020901CC00287D001F726506040101003656A40D0A', 'hex'));
    const { alarms } = judge([sos], NO_SETTINGS, NO_INPUTS);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ type: 'sos', at: new Date('2011-11-15T14:36:29Z') });
    expect(alarms[0]!.latitude).toBeCloseTo(23.111755, 5);
    expect(alarmClassOf('sos')).toBe('security');
  });

  test('GT06 power cut, removal and low battery', () => {
    const powerCut = gt06(encodeAlarm({ ...fix, terminal: {}, voltageLevel: 3, gsmLevel: 4, alarmCode: 2 }));
    const removal = gt06(encodeAlarm({ ...fix, time: new Date('2024-01-01T00:01:00Z'), terminal: { alarmBits: 7 }, voltageLevel: 4, gsmLevel: 3, alarmCode: 0 }));
    const low = gt06(encodeAlarm({ ...fix, time: new Date('2024-01-01T00:02:00Z'), terminal: { alarmBits: 3 }, voltageLevel: 1, gsmLevel: 3, alarmCode: 0 }));
    const { alarms } = judge([powerCut, removal, low], NO_SETTINGS, NO_INPUTS);
    expect(alarms.map((alarm) => alarm.type)).toEqual(['power_cut', 'tamper', 'low_battery']);
    expect(alarms.map((alarm) => alarmClassOf(alarm.type))).toEqual(['security', 'security', 'function']);
  });

  test('Teltonika: external power lost after it was on is a power cut; a unit never powered raises nothing', () => {
    const records = teltonika([
      { at: '2024-01-01T10:00:00Z', io: { 66: 12_600 } },
      { at: '2024-01-01T10:00:30Z', io: { 66: 200 } },
      { at: '2024-01-01T10:01:00Z', io: { 66: 100 } },
    ]);
    const { alarms, inputs } = judge(records, NO_SETTINGS, NO_INPUTS);
    expect(alarms.map((alarm) => [alarm.type, alarm.at.toISOString()])).toEqual([['power_cut', '2024-01-01T10:00:30.000Z']]);
    expect(inputs.externalPower).toBe(false);
    expect(judge(teltonika([{ at: '2024-01-01T10:00:00Z', io: { 66: 100 } }]), NO_SETTINGS, NO_INPUTS).alarms).toEqual([]);
  });

  test('Teltonika: moving with the ignition off is towing; driving with it on is not', () => {
    const records = teltonika([
      { at: '2024-01-01T10:00:00Z', speedKmh: 60, io: { 239: 1 } },
      { at: '2024-01-01T10:00:10Z', speedKmh: 35, io: { 239: 0 } },
      { at: '2024-01-01T10:00:20Z', speedKmh: 3, io: { 239: 0 } },
    ]);
    expect(judge(records, NO_SETTINGS, NO_INPUTS).alarms.map((alarm) => [alarm.type, alarm.details])).toEqual([['towing', { speed: 35 }]]);
  });

  test('Teltonika: DIN2 and DIN3 changes, not their first value nor a repeat', () => {
    const records = teltonika([
      { at: '2024-01-01T10:00:00Z', io: { 2: 0, 3: 1 } },
      { at: '2024-01-01T10:00:10Z', io: { 2: 1, 3: 1 } },
      { at: '2024-01-01T10:00:20Z', io: { 2: 1, 3: 0 } },
    ]);
    const { alarms, inputs } = judge(records, NO_SETTINGS, NO_INPUTS);
    expect(alarms.map((alarm) => [alarm.type, alarm.details])).toEqual([
      ['din2', { value: true }],
      ['din3', { value: false }],
    ]);
    expect([inputs.din2, inputs.din3]).toEqual([true, false]);
    // The remembered inputs carry over: the next batch's same values raise nothing, and resent records are history.
    expect(judge(teltonika([{ at: '2024-01-01T10:00:30Z', io: { 2: 1, 3: 0 } }]), NO_SETTINGS, inputs).alarms).toEqual([]);
    expect(judge(teltonika([{ at: '2024-01-01T10:00:05Z', io: { 2: 0, 3: 0 } }]), NO_SETTINGS, inputs).alarms).toEqual([]);
  });

  test("overspeed over the feature profile's threshold only", () => {
    const records = teltonika([
      { at: '2024-01-01T10:00:00Z', speedKmh: 88, io: { 239: 1 } },
      { at: '2024-01-01T10:00:10Z', speedKmh: 97, io: { 239: 1 } },
    ]);
    expect(judge(records, NO_SETTINGS, NO_INPUTS).alarms).toEqual([]);
    const { alarms } = judge(records, { overspeedKmh: 90, serviceIntervalKm: null }, NO_INPUTS);
    expect(alarms.map((alarm) => [alarm.type, alarm.details])).toEqual([['overspeed', { speed: 97, limit: 90 }]]);
  });

  test('service due when the odometer passes the service interval', () => {
    const settings = { overspeedKmh: null, serviceIntervalKm: 15_000 };
    const records = teltonika([
      { at: '2024-01-01T10:00:00Z', speedKmh: 50, io: { 16: 29_999_000 } },
      { at: '2024-01-01T10:01:00Z', speedKmh: 50, io: { 16: 30_000_500 } },
    ]);
    const { alarms, inputs } = judge(records, settings, NO_INPUTS);
    expect(alarms.map((alarm) => [alarm.type, alarm.details])).toEqual([['service_due', { reason: 'odometer', odometer: 30_001, interval: 15_000 }]]);
    expect(inputs.serviceStep).toBe(2);
  });
});

describe('messages', () => {
  const facts = {
    alarmId: 1,
    unitId: 7,
    unitName: 'Sea Ray',
    registration: 'ABC123',
    type: 'theft_zone_exit' as const,
    at: new Date('2026-07-01T10:05:00Z'),
    latitude: 59.33,
    longitude: 18.06,
    address: 'Stockholm',
    details: { zone: 'Marina' },
  };

  test("in the receiver's language and time zone, with the unit, what happened, the place and the map link", () => {
    const sv = alarmMessage(facts, 'sv', 'Europe/Stockholm');
    expect(sv.body).toContain('Sea Ray (ABC123)');
    expect(sv.body).toContain('lämnade stöldskyddszonen Marina');
    expect(sv.body).toContain('12:05');
    expect(sv.body).toContain('Stockholm');
    expect(sv.url).toBe('/user/realtime-tracking?unit=7');
    const en = alarmMessage(facts, 'en', 'Europe/London');
    expect(en.body).toContain('left the theft-protected zone Marina');
    expect(en.body).toContain('11:05');
    expect(alarmMessage(facts, 'no', 'Europe/Oslo').body).toContain('forlot tyverisikringssonen Marina');
    expect(localTime(facts.at, 'en', 'Asia/Kathmandu')).toContain('15:50');
  });

  test('SMS segments: 160 GSM characters (Nordic letters included) a segment, 153 when split; 70/67 otherwise', () => {
    expect(smsSegments('å'.repeat(160))).toBe(1);
    expect(smsSegments('a'.repeat(161))).toBe(2);
    expect(smsSegments('a'.repeat(306))).toBe(2);
    expect(smsSegments('a'.repeat(307))).toBe(3);
    expect(smsSegments('ł'.repeat(70))).toBe(1);
    expect(smsSegments('ł'.repeat(71))).toBe(2);
  });
});
