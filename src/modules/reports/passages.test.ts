import { describe, expect, test } from 'bun:test';
import { findPassages, PassageDetector, parseStations, segmentDistance, shippedStations, type TrackPoint } from './passages';
import { DANVIKSTULL_WEST, driveAlong, SKANSBRON_SOUTH } from './testing';

const summary = (points: TrackPoint[]) => findPassages(points).map((p) => [p.station.name, p.time.toISOString()]);

describe('station data', () => {
  test('the shipped control points: 64 stations, 156 points, Backa stations and control points marked', () => {
    const stations = shippedStations();
    expect(stations.length).toBe(64);
    expect(stations.reduce((sum, s) => sum + s.controlPoints.length, 0)).toBe(156);
    expect(stations.filter((s) => s.city === 'stockholm' && s.zone === 'inner').length).toBe(18);
    expect(stations.filter((s) => s.zone === 'essingeleden').map((s) => s.name).sort()).toEqual(['Fredhäll', 'Kristineberg', 'Lilla Essingen', 'Stora Essingen']);
    expect(stations.filter((s) => s.kind === 'backa').length).toBe(5);
    expect(stations.filter((s) => s.kind === 'control').map((s) => s.name).sort()).toEqual(['Backavägen', 'Bäcktuvevägen', 'Deltavägen', 'Minelundsvägen', 'Tuvevägen']);
    expect(stations.filter((s) => s.chargedFrom === '2020-12-16').length).toBe(2);
  });

  test('a malformed file is refused', () => {
    expect(() => parseStations('city,zone,station\nStockholm,innerstaden,X')).toThrow();
    expect(() => parseStations('city,zone,station,control_point,lat_wgs84,lon_wgs84\nStockholm,innerstaden,X,1,north,18')).toThrow();
  });
});

describe('geometry', () => {
  test('distance from a point to a segment', () => {
    // 0.001° of latitude is about 111 m.
    const near = segmentDistance({ lat: 59.0, lon: 18.0 }, { lat: 59.0, lon: 18.01 }, { lat: 59.001, lon: 18.005 });
    expect(near.distanceM).toBeGreaterThan(110);
    expect(near.distanceM).toBeLessThan(112);
    expect(near.along).toBeCloseTo(0.5, 3);
    const beyond = segmentDistance({ lat: 59.0, lon: 18.0 }, { lat: 59.0, lon: 18.01 }, { lat: 59.0, lon: 18.02 });
    expect(beyond.along).toBe(1);
    expect(beyond.distanceM).toBeGreaterThan(550);
  });
});

describe('passages of a track', () => {
  test('a drive across a station is one passage, timed where it passed, whatever the report interval', () => {
    for (const intervalS of [1, 5, 10, 30]) {
      const points = driveAlong(DANVIKSTULL_WEST, '2026-03-03T06:05:00Z', { speedKmh: 50, intervalS });
      const found = findPassages(points);
      expect(found.map((p) => p.station.name)).toEqual(['Danvikstull']);
      // 18.1125 → 18.10347 is about 510 m: about 37 s at 50 km/h.
      const seconds = (found[0]!.time.getTime() - Date.parse('2026-03-03T06:05:00Z')) / 1000;
      expect(seconds).toBeGreaterThan(33);
      expect(seconds).toBeLessThan(41);
      expect(found[0]!.distanceM).toBeLessThan(10);
    }
  });

  test('two stations on one drive, fed in pieces of any size', () => {
    const points = [
      ...driveAlong(DANVIKSTULL_WEST, '2026-03-03T06:05:00Z'),
      ...driveAlong([[59.31397, 18.0955], [59.3082, 18.07943]], '2026-03-03T06:06:30Z'),
      ...driveAlong(SKANSBRON_SOUTH, '2026-03-03T06:10:00Z'),
    ];
    const whole = summary(points);
    expect(whole.map(([name]) => name)).toEqual(['Danvikstull', 'Skansbron']);
    const detector = new PassageDetector();
    for (let i = 0; i < points.length; i += 7) detector.push(points.slice(i, i + 7));
    expect(detector.finish().map((p) => [p.station.name, p.time.toISOString()])).toEqual(whole);
  });

  test('driving back the same way is a second passage', () => {
    const there = driveAlong(DANVIKSTULL_WEST, '2026-03-03T06:05:00Z');
    const back = driveAlong([...DANVIKSTULL_WEST].reverse(), '2026-03-03T07:00:00Z');
    expect(summary([...there, ...back]).map(([name]) => name)).toEqual(['Danvikstull', 'Danvikstull']);
  });

  test('turning back before the station, or parking beside it, is no passage', () => {
    const approach = driveAlong([[59.31397, 18.1125], [59.31397, 18.1036]], '2026-03-03T06:05:00Z', { intervalS: 2 });
    const turn = driveAlong([[59.31397, 18.1036], [59.31397, 18.1125]], new Date(approach.at(-1)!.t + 2000), { intervalS: 2 });
    expect(findPassages([...approach, ...turn.slice(1)])).toEqual([]);

    // Parked 30 m north of the control points for an hour, reporting every 30 s with GPS noise, then driving off north.
    const parked: TrackPoint[] = [];
    const start = Date.parse('2026-03-03T07:00:00Z');
    for (let i = 0; i < 120; i++) parked.push({ t: start + i * 30_000, lat: 59.31424 + ((i % 5) - 2) * 0.00003, lon: 18.1035 + ((i % 3) - 1) * 0.00004 });
    const away = driveAlong([[59.31424, 18.1035], [59.3175, 18.1035]], new Date(start + 120 * 30_000));
    expect(findPassages([...parked, ...away])).toEqual([]);
    // Still parked when the data ends.
    expect(findPassages(parked)).toEqual([]);
  });

  test('a long gap is not a track: a straight line across a station after 20 minutes without fixes is no passage', () => {
    const points: TrackPoint[] = [
      { t: Date.parse('2026-03-03T06:00:00Z'), lat: 59.31397, lon: 18.1125 },
      { t: Date.parse('2026-03-03T06:20:00Z'), lat: 59.31397, lon: 18.0955 },
    ];
    expect(findPassages(points)).toEqual([]);
  });

  test('driving elsewhere finds nothing; points out of order are ignored', () => {
    const malmo = driveAlong([[55.605, 13.0], [55.61, 13.05]], '2026-03-03T06:00:00Z');
    expect(findPassages(malmo)).toEqual([]);
    const points = driveAlong(DANVIKSTULL_WEST, '2026-03-03T06:05:00Z');
    const detector = new PassageDetector();
    detector.push(points);
    detector.push(points.slice(0, 10));
    expect(detector.finish().length).toBe(1);
  });

  test('Göteborg: Älvsborgsbron', () => {
    const points = driveAlong([[57.6925, 11.8985], [57.6975, 11.8994]], '2026-03-03T06:00:00Z', { speedKmh: 70 });
    expect(findPassages(points).map((p) => [p.station.name, p.station.city])).toEqual([['Älvsborgsbron', 'goteborg']]);
  });
});
