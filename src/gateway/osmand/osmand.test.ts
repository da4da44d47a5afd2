import { describe, expect, test } from 'bun:test';
import { FLAG_IMPLAUSIBLE, recordFlags } from '../../modules/tracking/model';
import { decodeOsmand, encodeOsmandQuery, OsmandError, type OsmandRequest } from './index';

const NOW = new Date('2026-01-01T00:00:00Z');
const get = (query: string): OsmandRequest => ({ method: 'GET', url: `http://host:5055/?${query}`, contentType: '', body: '', now: NOW });
const one = (request: OsmandRequest) => {
  const decoded = decodeOsmand(request);
  expect(decoded.records).toHaveLength(1);
  return { ...decoded, record: decoded.records[0]! };
};
const text = (v: unknown) => new TextDecoder().decode(v as Uint8Array);

function expectError(request: OsmandRequest, status = 400): void {
  let caught: unknown;
  try {
    decodeOsmand(request);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OsmandError);
  expect((caught as OsmandError).status).toBe(status);
}

describe('query string (OsmAnd, Traccar Client <= 7.9 POSTing with URL params)', () => {
  test('documented example', () => {
    const { deviceId, record, missingPosition } = one({
      method: 'POST',
      url: '/?id=12345&timestamp=1749555449&lat=52.1&lon=13.4&speed=0.0&bearing=0.0&altitude=34.0&accuracy=5.0&batt=93.0',
      contentType: '',
      body: '',
    });
    expect(deviceId).toBe('12345');
    expect(missingPosition).toBe(false);
    expect(record).toMatchObject({
      protocol: 'osmand',
      deviceId: '12345',
      latitude: 52.1,
      longitude: 13.4,
      speedKmh: 0,
      course: 0,
      altitude: 34,
      satellites: null,
      valid: true,
      priority: 0,
      eventId: null,
    });
    expect(record.time.toISOString()).toBe('2025-06-10T11:37:29.000Z');
    expect(record.io).toEqual({ accuracy: 5 });
    expect(record.normalized).toEqual({ batteryPct: 93 });
  });

  test('deviceid, location=lat,lon, heading, knots to km/h and every mapped key', () => {
    const { record } = one(
      get(
        'deviceid=abc&location=-33.5,151.25&speed=10&heading=370&hdop=1.2&charge=true&valid=false&driverUniqueId=DRV42' +
          '&ignition=1&is_moving=true&cell=240,1,4321,123456,-70&cell=240,1,4321,654321&wifi=aa-bb-cc-dd-ee-ff,-50&sat=9&event=motion&note=hi%20there',
      ),
    );
    expect(record.deviceId).toBe('abc');
    expect(record.latitude).toBe(-33.5);
    expect(record.longitude).toBe(151.25);
    expect(record.speedKmh).toBeCloseTo(18.52, 10);
    expect(record.course).toBe(10);
    expect(record.valid).toBe(false);
    expect(record.time).toEqual(NOW);
    expect(record.normalized).toEqual({ driverId: 'DRV42', ignition: true, movement: true });
    expect(record.io).toMatchObject({
      hdop: 1.2,
      charge: 1,
      mcc: 240,
      mnc: 1,
      lac: 4321,
      cellId: 123456,
      rssi: -70,
      'cell2.mcc': 240,
      'cell2.cellId': 654321,
      'wifi1.rssi': -50,
      sat: 9,
    });
    expect(Buffer.from(record.io['wifi1.mac'] as Uint8Array).toString('hex')).toBe('aabbccddeeff');
    expect(text(record.io.event)).toBe('motion');
    expect(text(record.io.note)).toBe('hi there');
  });

  test('missing lat/lon returns NaN and the flag', () => {
    const { record, missingPosition } = one(get('id=1&timestamp=1749555449&batt=50'));
    expect(missingPosition).toBe(true);
    expect(record.latitude).toBeNaN();
    expect(record.longitude).toBeNaN();
    expect(record.valid).toBe(false);
  });
});

describe('timestamps', () => {
  const at = (ts: string) => one(get(`id=1&lat=1&lon=2&timestamp=${encodeURIComponent(ts)}`)).record.time.toISOString();
  test('seconds', () => expect(at('1749555449')).toBe('2025-06-10T11:37:29.000Z'));
  test('milliseconds (>= 2^31)', () => expect(at('1749555449123')).toBe('2025-06-10T11:37:29.123Z'));
  test('ISO-8601', () => {
    expect(at('2025-06-15T13:45:12.862Z')).toBe('2025-06-15T13:45:12.862Z');
    expect(at('2025-06-15T15:45:12+02:00')).toBe('2025-06-15T13:45:12.000Z');
  });
  test('yyyy-MM-dd HH:mm:ss as UTC', () => {
    expect(at('2025-06-15 13:45:12')).toBe('2025-06-15T13:45:12.000Z');
    // A literal + in the query is a space.
    expect(one(get('id=1&lat=1&lon=2&timestamp=2025-06-15+13:45:12')).record.time.toISOString()).toBe('2025-06-15T13:45:12.000Z');
  });
  test('absent uses server time', () => expect(one(get('id=1&lat=1&lon=2')).record.time).toEqual(NOW));
});

describe('form body (Traccar Client 10.x)', () => {
  test('parsed when the URL has no params', () => {
    const { record } = one({
      method: 'POST',
      url: '/',
      contentType: 'application/x-www-form-urlencoded',
      body: 'id=861234567890123&timestamp=1749555509&lat=59.34&lon=18.07&speed=5.4',
      now: NOW,
    });
    expect(record.deviceId).toBe('861234567890123');
    expect(record.latitude).toBe(59.34);
    expect(record.longitude).toBe(18.07);
    expect(record.speedKmh).toBeCloseTo(10.0008, 6);
    expect(record.time.toISOString()).toBe('2025-06-10T11:38:29.000Z');
  });
});

describe('JSON body (Traccar Client >= 9)', () => {
  const doc = {
    location: {
      timestamp: '2025-06-15T13:45:12.862Z',
      coords: { latitude: 37.4219983, longitude: -122.084, accuracy: 5, speed: 0, heading: -1, altitude: 5 },
      is_moving: false,
      odometer: 0,
      event: 'motionchange',
      battery: { level: 1, is_charging: false },
      activity: { type: 'still' },
      extras: {},
    },
    device_id: '48241179',
  };
  const post = (body: unknown): OsmandRequest => ({ method: 'POST', url: '/', contentType: 'application/json', body: JSON.stringify(body), now: NOW });

  test('documented example', () => {
    const { deviceId, record, missingPosition } = one(post(doc));
    expect(deviceId).toBe('48241179');
    expect(missingPosition).toBe(false);
    expect(record).toMatchObject({ latitude: 37.4219983, longitude: -122.084, altitude: 5, speedKmh: 0, course: null, valid: true });
    expect(record.time.toISOString()).toBe('2025-06-15T13:45:12.862Z');
    expect(record.normalized).toEqual({ odometerM: 0, movement: false, batteryPct: 100 });
    expect(record.io).toMatchObject({ accuracy: 5, charge: 0 });
    expect(text(record.io.event)).toBe('motionchange');
    expect(text(record.io.activity)).toBe('still');
  });

  test('m/s to km/h, heading, odometer, moving, extras with ignition and driver', () => {
    const { record } = one(
      post({
        device_id: 7,
        location: {
          timestamp: '2025-06-15T13:45:12Z',
          coords: { latitude: 59.35, longitude: 18.08, speed: 5, heading: 10 },
          is_moving: true,
          odometer: 1200,
          mock: true,
          battery: { level: -1, is_charging: true },
          extras: { ignition: true, driverUniqueId: 'D1', trip: 3 },
        },
      }),
    );
    expect(record.deviceId).toBe('7');
    expect(record.speedKmh).toBe(18);
    expect(record.course).toBe(10);
    expect(record.normalized).toEqual({ odometerM: 1200, movement: true, ignition: true, driverId: 'D1' });
    expect(record.io).toMatchObject({ mock: 1, charge: 1, trip: 3, ignition: 1 });
  });

  test('speed -1 is unknown (0 km/h); missing coords flag the record', () => {
    const { record, missingPosition } = one(post({ device_id: 'x', location: { coords: { speed: -1 } } }));
    expect(record.speedKmh).toBe(0);
    expect(record.latitude).toBeNaN();
    expect(missingPosition).toBe(true);
    expect(record.time).toEqual(NOW);
  });

  test('JSON detected from the body when the content type is missing', () => {
    expect(one({ ...post(doc), contentType: '' }).deviceId).toBe('48241179');
  });
});

describe('encodeOsmandQuery round trip', () => {
  test('values survive encode/decode', () => {
    const query = encodeOsmandQuery({
      id: 'sim-1',
      time: new Date('2025-06-15T13:45:12Z'),
      latitude: 59.3293,
      longitude: 18.0686,
      speedKmh: 72,
      course: 135,
      altitude: 20,
      accuracy: 4,
      batteryPct: 81,
      charging: false,
      ignition: true,
      driverUniqueId: 'AB12',
      cells: ['240,1,100,2000'],
      attributes: { trip: 5 },
    });
    const { record } = one({ method: 'POST', url: `/?${query}`, contentType: '', body: '' });
    expect(record.time.toISOString()).toBe('2025-06-15T13:45:12.000Z');
    expect(record.speedKmh).toBeCloseTo(72, 9);
    expect(record).toMatchObject({ deviceId: 'sim-1', latitude: 59.3293, longitude: 18.0686, course: 135, altitude: 20, valid: true });
    expect(record.normalized).toEqual({ batteryPct: 81, ignition: true, driverId: 'AB12' });
    expect(record.io).toMatchObject({ accuracy: 4, charge: 0, mcc: 240, cellId: 2000, trip: 5 });
    const ms = one(get(encodeOsmandQuery({ id: 'a', time: new Date('2025-06-15T13:45:12.250Z'), latitude: 1, longitude: 1 })));
    expect(ms.record.time.toISOString()).toBe('2025-06-15T13:45:12.250Z');
  });
});

describe('errors', () => {
  test('missing id (query, form, JSON)', () => {
    expectError(get('lat=1&lon=2'));
    expectError({ method: 'POST', url: '/', contentType: 'application/x-www-form-urlencoded', body: 'lat=1&lon=2' });
    expectError({ method: 'POST', url: '/', contentType: '', body: '' });
    expectError({ method: 'POST', url: '/', contentType: 'application/json', body: '{"location":{"coords":{"latitude":1,"longitude":2}}}' });
  });

  test('malformed values', () => {
    expectError(get('id=1&lat=abc&lon=2'));
    expectError(get('id=1&lat=1e999&lon=2'));
    expectError(get('id=1&lat=&lon=2'));
    expectError(get('id=1&location=1,east'));
    expectError(get('id=1&location=1'));
    expectError(get('id=1&lat=1&lon=2&timestamp=yesterday'));
    expectError(get('id=1&lat=1&lon=2&timestamp=2025-13-01%2000:00:00'));
    expectError(get('id=1&lat=1&lon=2&speed=fast'));
    expectError(get('id=1&lat=1&lon=2&valid=maybe'));
    expectError(get('id=1&lat=1&lon=2&cell=240,1'));
    expectError(get('id=1&lat=1&lon=2&wifi=zz,-50'));
  });

  test('coordinates that are numbers but out of range are decoded, for the ingest to store them flagged implausible', () => {
    const post = (body: string): OsmandRequest => ({ method: 'POST', url: '/', contentType: 'application/json', body, now: NOW });
    const decoded = [
      one(get('id=1&lat=-1408&lon=18.0686')),
      one(get('id=1&lat=1&lon=-181')),
      one(get('id=1&location=91,2')),
      one(post('{"device_id":"1","location":{"coords":{"latitude":59.3,"longitude":540}}}')),
    ];
    expect(decoded.map(({ record }) => [record.latitude, record.longitude])).toEqual([[-1408, 18.0686], [1, -181], [91, 2], [59.3, 540]]);
    for (const { record, missingPosition } of decoded) {
      expect(missingPosition).toBe(false);
      expect(recordFlags(record, NOW.getTime(), 0) & FLAG_IMPLAUSIBLE).toBe(FLAG_IMPLAUSIBLE);
    }
  });

  test('malformed JSON', () => {
    const post = (body: string): OsmandRequest => ({ method: 'POST', url: '/', contentType: 'application/json', body });
    expectError(post('{not json'));
    expectError(post('[1,2]'));
    expectError(post('{"device_id":"1"}'));
    expectError(post('{"device_id":"1","location":{"coords":{"latitude":"north","longitude":2}}}'));
    expectError(post('{"device_id":"1","location":{"timestamp":"soon","coords":{"latitude":1,"longitude":2}}}'));
  });
});
