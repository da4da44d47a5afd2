import { describe, expect, test } from 'bun:test';
import type { DecodedRecord } from '../lib/tracker-record';
import { FLAG_IMPLAUSIBLE, FLAG_INVALID_FIX, recordFlags } from '../modules/tracking/model';
import { buildPacket, decodeGt06Frame, Gt06Error, Gt06Framer, parsePacket } from './gt06';
import { decodeOsmand, OsmandError } from './osmand';
import { seededRandom } from './simulator/vehicle';
import { Codec, crc16ibm, decodeTcpFrame, decodeUdpDatagram, encodeAvlFrame, encodeUdpDatagram, TeltonikaError, TeltonikaFramer } from './teltonika';

/**
 * Seeded fuzzing of every protocol: thousands of mutated valid frames each. Whatever the bytes, a decoder either refuses
 * the frame with its protocol's error or returns records; it never crashes, never accepts a frame whose checksum is
 * broken, and nothing it returns would be stored as a valid fix with coordinates out of range or a date that does not
 * exist (the ingest's own plausibility check, `recordFlags`, is applied as the gateway applies it).
 */
const ROUNDS = 4000;
const SKEW_MS = 5 * 60_000;

function mutate(random: () => number, source: Uint8Array, from = 0, to = source.length): Uint8Array {
  const out = source.slice();
  const changes = 1 + Math.floor(random() * 4);
  for (let i = 0; i < changes; i++) {
    const at = from + Math.floor(random() * (to - from));
    const kind = random();
    if (kind < 0.4) out[at] = Math.floor(random() * 256);
    else if (kind < 0.7) out[at]! ^= 1 << Math.floor(random() * 8);
    else if (kind < 0.85) out[at] = [0x00, 0xff, 0x7f, 0x80][Math.floor(random() * 4)]!;
    else out[at] = (out[at]! + 1) & 0xff;
  }
  return out;
}

/** One changed byte, never the same value: what a checksum must catch. */
function corruptOneByte(random: () => number, source: Uint8Array): Uint8Array {
  const out = source.slice();
  const at = Math.floor(random() * out.length);
  out[at] = (out[at]! + 1 + Math.floor(random() * 255)) & 0xff;
  return out;
}

/** The ingest's view of a record: would it be stored as a valid fix, and is that one plausible? */
function expectNeverImplausibleAndValid(record: DecodedRecord): void {
  const flags = recordFlags(record, Date.now(), SKEW_MS);
  if (flags & (FLAG_INVALID_FIX | FLAG_IMPLAUSIBLE)) return;
  expect(Math.abs(record.latitude)).toBeLessThanOrEqual(90);
  expect(Math.abs(record.longitude)).toBeLessThanOrEqual(180);
  expect(Number.isFinite(record.time.getTime())).toBe(true);
  expect(record.time.getTime()).toBeGreaterThanOrEqual(Date.UTC(2000, 0, 1));
}

function refusedBy(error: unknown, ...kinds: Array<abstract new (...args: never[]) => Error>): boolean {
  if (kinds.some((kind) => error instanceof kind)) return true;
  throw error; // anything else is a crash of the decoder
}

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/[\s|]+/g, ''), 'hex'));

describe('Teltonika', () => {
  const now = Date.now();
  const fix = (i: number) => ({
    time: new Date(now - 60_000 * (i + 1)),
    latitude: 59.3 + i / 100,
    longitude: 18.06,
    altitude: 30,
    speedKmh: 40 + i,
    course: 90,
    satellites: 9,
    eventId: i === 0 ? 239 : 0,
    io: { 239: 1, 66: 12_500, 16: 123_456 + i, 78: 0x0102030405060708n },
  });
  const frames = [
    encodeAvlFrame(Codec.codec8, [fix(0), fix(1)]),
    encodeAvlFrame(Codec.codec8e, [fix(2), fix(3), fix(4)]),
    encodeAvlFrame(Codec.codec16, [fix(5)]),
    bytes('000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF'),
  ];

  test('TCP: a frame with any byte changed is refused by its CRC or framing', () => {
    const random = seededRandom(8);
    for (let round = 0; round < ROUNDS; round++) {
      const frame = corruptOneByte(random, frames[round % frames.length]!);
      expect(() => decodeTcpFrame(frame, '356307042441013')).toThrow(TeltonikaError);
    }
  });

  test('TCP: mutated frames with a correct CRC decode or are refused, through the framer too', () => {
    const random = seededRandom(12);
    let decoded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const source = frames[round % frames.length]!;
      // Mutate the AVL data (codec … number of data 2) and make the CRC right again.
      const frame = mutate(random, source, 8, source.length - 4);
      new DataView(frame.buffer).setUint32(frame.length - 4, crc16ibm(frame, 8, frame.length - 4));
      try {
        const message = decodeTcpFrame(frame, '356307042441013', 'FMB920');
        if (message.type === 'avl') {
          decoded += 1;
          for (const record of message.records) expectNeverImplausibleAndValid(record);
        }
      } catch (error) {
        refusedBy(error, TeltonikaError);
      }
      // The same bytes cut into random chunks through the stream framer.
      const framer = new TeltonikaFramer({ maxFrameBytes: 64 * 1024 });
      try {
        for (let at = 0; at < frame.length; ) {
          const size = 1 + Math.floor(random() * 64);
          framer.push(frame.subarray(at, at + size));
          at += size;
        }
      } catch (error) {
        refusedBy(error, TeltonikaError);
      }
    }
    expect(decoded).toBeGreaterThan(ROUNDS / 10);
  });

  test('UDP: mutated datagrams decode or are refused', () => {
    const random = seededRandom(16);
    const datagrams = [
      encodeUdpDatagram({ packetId: 1, avlPacketId: 1, imei: '356307042441013', codec: Codec.codec8e, records: [fix(0), fix(1)] }),
      encodeUdpDatagram({ packetId: 2, avlPacketId: 2, imei: '356307042441013', codec: Codec.codec8, records: [fix(2)] }),
    ];
    let decoded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const datagram = mutate(random, datagrams[round % datagrams.length]!);
      try {
        for (const record of decodeUdpDatagram(datagram).records) expectNeverImplausibleAndValid(record);
        decoded += 1;
      } catch (error) {
        refusedBy(error, TeltonikaError);
      }
    }
    expect(decoded).toBeGreaterThan(ROUNDS / 10);
  });
});

describe('GT06', () => {
  const frames = [
    '78781F120B081D112E10CF027AC7EB0C46584900148F01CC00287D001FB8000380810D0A',
    '787822220F0C1D023305C9027AC8180C46586000140001CC00287D001F71000001000820860D0A',
    '78 78 29 A0 18 05 11 09 1E 0F C9 06 5D AC 58 01 F0 1F 28 2A 14 57 00 F0 01 00 00 32 C8 00 00 00 00 01 A2 B3 C4 01 00 00 00 42 0F 1F 0D 0A',
    '78 78 2E A0 18 0B 02 17 3B 3A CB 04 5E 35 B5 07 F0 A2 81 00 1D 38 81 36 01 04 00 00 2A 3F 00 00 00 00 0B 5C 1D 02 00 03 01 00 01 E2 40 01 03 F0 6D 0D 0A',
    '78 78 25 16 18 03 09 12 2D 00 CA 05 F7 3C 86 01 65 29 20 00 14 00 08 00 F0 01 1B 59 00 A3 F1 50 03 04 02 02 00 77 45 81 0D 0A',
    '78 78 27 27 18 08 14 07 0F 2A C8 03 96 AF E5 0C 06 34 91 41 1C 5F 0A 81 36 01 04 2A 3F 01 B2 07 46 06 04 05 02 00 00 99 DD 66 0D 0A',
    '78 78 2D A4 18 06 01 0C 00 05 C7 06 31 05 7E 01 48 E4 20 3A 14 BE 10 00 F0 02 00 00 1F 4A 00 00 00 00 00 D2 E1 F0 46 05 04 04 02 01 02 05 96 6C 0D 0A',
    '78 78 19 A5 00 F0 01 00 00 32 C8 00 00 00 00 01 A2 B3 C4 22 04 03 01 02 00 31 67 B5 0D 0A',
    '78 78 41 2C 18 05 11 0A 0F 00 00 F0 01 1B 59 00 A3 F1 3A 1B 59 00 A3 F2 30 1B 5A 00 42 D0 2A 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 03 01 3C 84 6A 12 34 56 45 00 23 06 A6 0D 0A',
    '78 78 2E 2A 18 05 11 0B 00 00 C9 06 5D AC 58 01 F0 1F 28 00 14 00 2B 34 36 37 30 31 32 33 34 35 36 37 00 00 00 00 00 00 00 00 00 00 02 00 51 47 8D 0D 0A',
    '79 79 00 0D 94 05 18 05 11 0C 00 00 01 00 68 DD D1 0D 0A',
    '78 78 11 01 08 68 12 03 01 23 45 60 22 08 21 22 00 04 DA 64 0D 0A',
  ].map(bytes);

  test('a frame with any byte changed is refused by its CRC or framing', () => {
    const random = seededRandom(21);
    for (let round = 0; round < ROUNDS; round++) {
      const frame = corruptOneByte(random, frames[round % frames.length]!);
      expect(() => decodeGt06Frame(frame, { imei: '868120301234560' })).toThrow(Gt06Error);
    }
  });

  test('mutated content with a correct CRC decodes or is refused; a date is never rolled over', () => {
    const random = seededRandom(25);
    let records = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const source = parsePacket(frames[round % frames.length]!);
      const content = mutate(random, source.content);
      const frame = buildPacket(source.protocol, content, source.serial, source.extended);
      try {
        const message = decodeGt06Frame(frame, { imei: '868120301234560', now: new Date() });
        if (!('record' in message)) continue;
        records += 1;
        expectNeverImplausibleAndValid(message.record);
        const time = message.record.time;
        if ((message.type === 'location' || message.type === 'alarm') && content.length >= 18 && source.protocol !== 0x19 && source.protocol !== 0xa5) {
          // The D6 fields must be the record's time exactly, or the time must be no date at all.
          const [yy, mo, dd, hh, mi, ss] = content;
          if (Number.isFinite(time.getTime())) {
            expect([time.getUTCFullYear() - 2000, time.getUTCMonth() + 1, time.getUTCDate(), time.getUTCHours(), time.getUTCMinutes(), time.getUTCSeconds()]).toEqual([
              yy!,
              mo!,
              dd!,
              hh!,
              mi!,
              ss!,
            ]);
          }
        }
      } catch (error) {
        refusedBy(error, Gt06Error);
      }
      const framer = new Gt06Framer({ maxFrameBytes: 4096 });
      try {
        for (const piece of framer.push(frame)) decodeGt06Frame(piece);
      } catch (error) {
        refusedBy(error, Gt06Error);
      }
    }
    expect(records).toBeGreaterThan(ROUNDS / 10);
  });
});

describe('OsmAnd', () => {
  const requests = [
    'id=861234567890123&timestamp=1749555449&lat=59.33&lon=18.06&speed=10&bearing=90&altitude=20&accuracy=5&batt=80&ignition=true',
    'id=861234567890123&timestamp=2026-03-01 10:00:00&lat=-33.9&lon=151.2&hdop=1.2&driverUniqueId=ABC123',
    'id=861234567890123&location=59.1,18.2&timestamp=2026-03-01T10:00:00Z&cell=240,1,7001,41969&wifi=3c:84:6a:12:34:56,-60',
  ];
  const json = '{"location":{"timestamp":"2026-03-01T10:00:00.000Z","coords":{"latitude":59.3,"longitude":18.1,"speed":3,"heading":90,"altitude":5},"is_moving":true,"odometer":1200,"battery":{"level":0.8}},"device_id":"861234567890123"}';
  const alphabet = '0123456789-.:,&=eE+ TZx%{}"[]';

  function mutateText(random: () => number, text: string): string {
    const chars = [...text];
    const changes = 1 + Math.floor(random() * 4);
    for (let i = 0; i < changes; i++) {
      const at = Math.floor(random() * chars.length);
      const kind = random();
      const char = alphabet[Math.floor(random() * alphabet.length)]!;
      if (kind < 0.5) chars[at] = char;
      else if (kind < 0.75) chars.splice(at, 0, char);
      else chars.splice(at, 1);
    }
    return chars.join('');
  }

  test('mutated query strings and JSON bodies decode or are refused with a 4xx', () => {
    const random = seededRandom(33);
    let decoded = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const asJson = round % 4 === 3;
      const text = mutateText(random, asJson ? json : requests[round % requests.length]!);
      try {
        const result = decodeOsmand({
          method: asJson ? 'POST' : 'GET',
          url: asJson ? '/' : `/?${text}`,
          contentType: asJson ? 'application/json' : '',
          body: asJson ? text : '',
        });
        decoded += 1;
        for (const record of result.records) if (!result.missingPosition) expectNeverImplausibleAndValid(record);
      } catch (error) {
        if (refusedBy(error, OsmandError)) expect((error as OsmandError).status).toBeLessThan(500);
      }
    }
    expect(decoded).toBeGreaterThan(ROUNDS / 10);
  });
});
