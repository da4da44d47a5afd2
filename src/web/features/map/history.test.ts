import { describe, expect, test } from 'bun:test';
import type { HistoryPoint } from '../../../modules/tracking/model';
import type { TripView } from '../../../modules/trips/model';
import { buildSegments, positionAt, splitByIgnition } from './history';
import { normalizeSearch, unitMatcher } from './UnitPanel';
import type { TrackedUnit } from './store';

const T0 = Date.parse('2026-03-02T08:00:00Z');
const point = (minute: number, lat: number, speed: number, ignition: 0 | 1 | null): HistoryPoint => [T0 + minute * 60_000, lat, 18, speed, 90, ignition];

function trip(id: number, fromMinute: number, toMinute: number, type: TripView['type']): TripView {
  return {
    id,
    unitId: 1,
    startTime: new Date(T0 + fromMinute * 60_000).toISOString(),
    stopTime: new Date(T0 + toMinute * 60_000).toISOString(),
    durationS: (toMinute - fromMinute) * 60,
    startLat: 59 + fromMinute / 1000,
    startLon: 18,
    stopLat: 59 + toMinute / 1000,
    stopLon: 18,
    startAddress: null,
    stopAddress: null,
    odometerStartM: 0,
    odometerStopM: 1000,
    odometerSource: 'gps',
    distanceM: 1000,
    maxSpeedKmh: 50,
    avgSpeedKmh: 40,
    driverKey: null,
    driverUserId: null,
    harshBraking: 0,
    harshAcceleration: 0,
    harshCornering: 0,
    type,
    purpose: null,
    note: null,
    passengers: null,
    detection: 'ignition',
  };
}

describe('route history', () => {
  test('without the trip log the day splits where the ignition goes off or the tracker is silent', () => {
    const points = [
      point(0, 59.0, 0, 0),
      point(1, 59.001, 40, 1),
      point(2, 59.002, 40, 1),
      point(3, 59.003, 0, 0), // ignition off ends the first drive
      point(4, 59.003, 0, 0),
      point(5, 59.004, 30, 1),
      point(6, 59.005, 30, 1),
      point(20, 59.1, 30, 1), // 14 minutes of silence: a new drive
      point(21, 59.101, 30, 1),
      point(30, 59.2, 0, 1), // idling without movement is no drive
      point(31, 59.2, 0, 1),
    ];
    const runs = splitByIgnition(points);
    expect(runs.map((run) => run.map((p) => (p[0] - T0) / 60_000))).toEqual([
      [1, 2, 3],
      [5, 6],
      [20, 21],
    ]);
    const { segments, source } = buildSegments(points, null);
    expect(source).toBe('ignition');
    expect(segments).toHaveLength(3);
    expect(new Set(segments.map((s) => s.color.join())).size).toBe(3);
  });

  test("with the trip log each trip gets its own colour and path; private trips and their time are left out", () => {
    const points = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((minute) => point(minute, 59 + minute / 1000, 40, 1));
    const { segments, source } = buildSegments(points, [trip(1, 0, 3, 'business'), trip(2, 4, 6, 'private'), trip(3, 7, 9, 'other')]);
    expect(source).toBe('trips');
    expect(segments.map((s) => [s.kind, s.tripId])).toEqual([
      ['trip', 1],
      ['trip', 3],
      ['drive', null], // minutes 10-11: driving the trip log does not hold yet
    ]);
    expect(segments[0]!.path[0]).toEqual([18, 59]);
    expect(segments[0]!.path.at(-1)).toEqual([18, 59.003]);
    expect(segments[0]!.color).not.toEqual(segments[1]!.color);
    // Nothing of the private trip's span is drawn.
    const drawnLats = segments.flatMap((s) => s.path.map(([, lat]) => lat));
    expect(drawnLats.some((lat) => lat > 59.0035 && lat < 59.0065)).toBe(false);
  });

  test('the replay interpolates between fixes and stops at the ends', () => {
    const points = [point(0, 59.0, 0, 1), point(10, 59.01, 60, 1)];
    expect(positionAt(points, T0 + 5 * 60_000)!.position[1]).toBeCloseTo(59.005, 6);
    expect(positionAt(points, T0 + 5 * 60_000)!.speed).toBeCloseTo(30, 6);
    expect(positionAt(points, T0 - 1000)!.position[1]).toBe(59.0);
    expect(positionAt(points, T0 + 3600_000)!.position[1]).toBe(59.01);
    expect(positionAt([], T0)).toBeNull();
  });
});

describe('unit list filter', () => {
  const unit = (name: string, registrationNumber: string, status: TrackedUnit['status'], vehicleType = 'passenger_car') =>
    ({ id: 1, name, registrationNumber, imei: '350000000000001', status, vehicleType }) as TrackedUnit;

  test('search matches name, registration number (spaces and dashes ignored) and IMEI; status and type filter', () => {
    expect(normalizeSearch(' ABC-123 ')).toBe('abc123');
    const match = unitMatcher({ search: 'abc 123', statuses: new Set(['moving', 'parked', 'offline']), vehicleType: '', department: '', tag: '' });
    expect(match(unit('Van', 'ABC123', 'moving'))).toBe(true);
    expect(match(unit('Van', 'XYZ999', 'moving'))).toBe(false);
    expect(unitMatcher({ search: '3500000', statuses: new Set(['moving', 'parked', 'offline']), vehicleType: '', department: '', tag: '' })(unit('Van', '', 'parked'))).toBe(true);
    const parkedLorries = unitMatcher({ search: '', statuses: new Set(['parked']), vehicleType: 'lorry', department: '', tag: '' });
    expect(parkedLorries(unit('A', '', 'parked', 'lorry'))).toBe(true);
    expect(parkedLorries(unit('A', '', 'moving', 'lorry'))).toBe(false);
    expect(parkedLorries(unit('A', '', 'parked', 'bus'))).toBe(false);
  });

  test('department and tag filters, and the checked-in driver is searchable', () => {
    const all = new Set(['moving', 'parked', 'offline'] as const);
    const service = { ...unit('Van', '', 'parked'), departmentId: 7, department: 'Service', tags: ['Kyl', 'Stockholm'], driverName: 'Anna Berg' } as TrackedUnit;
    const sales = { ...unit('Car', '', 'parked'), departmentId: 8, department: 'Sales', tags: [], driverName: null } as TrackedUnit;
    const inService = unitMatcher({ search: '', statuses: all, vehicleType: '', department: '7', tag: '' });
    expect([service, sales].filter(inService)).toEqual([service]);
    const tagged = unitMatcher({ search: '', statuses: all, vehicleType: '', department: '', tag: 'Kyl' });
    expect([service, sales].filter(tagged)).toEqual([service]);
    const byDriver = unitMatcher({ search: 'anna', statuses: all, vehicleType: '', department: '', tag: '' });
    expect([service, sales].filter(byDriver)).toEqual([service]);
  });
});
