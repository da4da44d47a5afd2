import { describe, expect, test } from 'bun:test';
import { DEFAULT_DETECTION_PARAMS, type DetectorPosition, detectTrips, type MachineState, TripMachine } from './detector';
import { scriptDrive, seededRandom } from './drive';

const params = DEFAULT_DETECTION_PARAMS;
const iso = (t: number) => new Date(t).toISOString();
const summary = (trips: ReturnType<typeof detectTrips>) =>
  trips.map((trip) => ({ start: iso(trip.start.t), stop: iso(trip.stop.t), km: Math.round(trip.distanceM / 100) / 10 }));

describe('trip detection by ignition', () => {
  test('a stop at traffic lights does not split a trip', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z' }, [
      { park: 120 },
      { move: 600, speedKmh: 50 },
      { idle: 90 },
      { move: 600, speedKmh: 50 },
      { park: 900 },
    ]);
    const trips = detectTrips(drive);
    expect(trips).toHaveLength(1);
    expect(trips[0]!.mode).toBe('ignition');
    expect(iso(trips[0]!.start.t)).toBe('2026-02-10T08:02:10.000Z');
    // 20 minutes at 50 km/h; it stops at the first ignition-off record.
    expect(trips[0]!.distanceM).toBeGreaterThan(16_500);
    expect(trips[0]!.distanceM).toBeLessThan(16_800);
    expect(iso(trips[0]!.stop.t)).toBe('2026-02-10T08:23:40.000Z');
  });

  test('a 10-minute stop with ignition off splits it; a 2-minute one does not', () => {
    const steps = (stop: number) => [{ move: 600, speedKmh: 60 }, { park: stop }, { move: 600, speedKmh: 60 }, { park: 900 }];
    expect(detectTrips(scriptDrive({ start: '2026-02-10T08:00:00Z' }, steps(600)))).toHaveLength(2);
    expect(detectTrips(scriptDrive({ start: '2026-02-10T08:00:00Z' }, steps(120)))).toHaveLength(1);
  });

  test('ignition on while parked with the engine idling makes no trip', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z' }, [{ park: 60 }, { idle: 1800 }, { park: 900 }]);
    expect(detectTrips(drive)).toEqual([]);
  });

  test('a trip across midnight is one trip', () => {
    const drive = scriptDrive({ start: '2026-02-10T23:40:00Z' }, [{ move: 2400, speedKmh: 80 }, { park: 900 }]);
    const trips = detectTrips(drive);
    expect(trips).toHaveLength(1);
    expect(iso(trips[0]!.start.t).slice(0, 10)).toBe('2026-02-10');
    expect(iso(trips[0]!.stop.t).slice(0, 10)).toBe('2026-02-11');
  });

  test('a one-hour gap ends the trip at the last position before it', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z' }, [
      { move: 900, speedKmh: 70 },
      { silent: 3600 },
      { move: 900, speedKmh: 70 },
      { park: 900 },
    ]);
    const trips = detectTrips(drive);
    expect(summary(trips).map((t) => [t.start, t.stop])).toEqual([
      ['2026-02-10T08:00:10.000Z', '2026-02-10T08:15:00.000Z'],
      ['2026-02-10T09:15:10.000Z', '2026-02-10T09:30:10.000Z'],
    ]);
  });

  test('harsh events, the driver and the device odometer are taken from the records', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z', odometerM: 120_000 }, [
      { driver: '01A2B3C4D5E6' },
      { move: 300, speedKmh: 60 },
      { harsh: 'braking' },
      { move: 300, speedKmh: 60 },
      { harsh: 'acceleration' },
      { harsh: 'cornering' },
      { harsh: 'braking' },
      { park: 900 },
    ]);
    const [trip] = detectTrips(drive);
    expect(trip).toMatchObject({ harshBraking: 2, harshAcceleration: 1, harshCornering: 1, driverKey: '01A2B3C4D5E6', odometerSource: 'device' });
    expect(trip!.startOdometerM).toBe(120_000);
    expect(trip!.distanceM).toBe(trip!.stopOdometerM! - 120_000);
    expect(Math.abs(trip!.distanceM - trip!.gpsDistanceM)).toBeLessThan(50);
    expect(trip!.maxSpeedKmh).toBe(60);
  });

  test('too short or too brief a move is no trip', () => {
    // 100 m in 9 s (three reports 50 m apart): below 200 m and below a minute.
    const hop = scriptDrive({ start: '2026-02-10T08:00:00Z', interval: 3 }, [{ move: 9, speedKmh: 60 }, { park: 900 }]);
    expect(detectTrips(hop)).toEqual([]);
    expect(detectTrips(hop, { ...params, minDistanceM: 90, minDurationS: 5 })).toHaveLength(1);
  });
});

describe('trip detection by motion', () => {
  test('a tracker without ignition: stops shorter than the time till parked stay inside the trip', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z', ignition: false }, [
      { idle: 300 },
      { move: 600, speedKmh: 40 },
      { idle: 120 },
      { move: 600, speedKmh: 40 },
      { idle: 600 },
      { move: 300, speedKmh: 40 },
      { idle: 900 },
    ]);
    const trips = detectTrips(drive);
    expect(trips.map((trip) => trip.mode)).toEqual(['motion', 'motion']);
    expect(summary(trips).map((t) => [t.start, t.stop])).toEqual([
      ['2026-02-10T08:05:10.000Z', '2026-02-10T08:27:10.000Z'],
      ['2026-02-10T08:37:10.000Z', '2026-02-10T08:42:10.000Z'],
    ]);
  });

  test('GPS jitter while parked makes no trip', () => {
    const random = seededRandom(7);
    const base = Date.parse('2026-02-10T00:00:00Z');
    const jitter: DetectorPosition[] = [];
    for (let i = 0; i < 24 * 120; i++) {
      // Every 30 s for a day: ±40 m around the parking place, now and then a speed reading of up to 12 km/h.
      jitter.push({
        t: base + i * 30_000,
        lat: 59.3293 + ((random() - 0.5) * 80) / 111_320,
        lon: 18.0686 + ((random() - 0.5) * 80) / 56_900,
        speedKmh: random() < 0.3 ? random() * 12 : 0,
        valid: true,
        ignition: null,
        odometerM: null,
        driverKey: null,
        harsh: null,
      });
    }
    expect(detectTrips(jitter)).toEqual([]);
  });

  test('a tracker that falls silent when parked: the trip ends at its last report once the clock says so', () => {
    const drive = scriptDrive({ start: '2026-02-10T08:00:00Z', ignition: false }, [{ move: 900, speedKmh: 50 }, { idle: 20 }]);
    const machine = new TripMachine(params, 'motion');
    for (const p of drive) machine.push(p);
    expect(machine.closed).toEqual([]);
    const lastReport = drive.at(-1)!.t;
    const soon = machine.pending(lastReport + 60_000);
    expect(soon.trip).toBeNull();
    expect(soon.openSince).toBe(drive[0]!.t);
    expect(soon.recheckAt).toBe(drive.at(-2)!.t + params.timeTillParkedS * 1000);
    const later = machine.pending(lastReport + 3_600_000);
    expect(later.trip).not.toBeNull();
    expect(iso(later.trip!.stop.t)).toBe(iso(drive.at(-2)!.t));
    // Still moving when it fell silent: closed once the maximum gap has passed.
    const moving = new TripMachine(params, 'motion');
    for (const p of drive.slice(0, -2)) moving.push(p);
    const silentAt = drive.at(-3)!.t;
    expect(moving.pending(silentAt + params.maxGapS * 1000).trip).toBeNull();
    expect(moving.pending(silentAt + params.maxGapS * 1000 + 1).trip!.stop.t).toBe(silentAt);
  });
});

describe('the machine resumes from a snapshot', () => {
  test('feeding a drive in pieces through JSON snapshots gives the same trips as one pass', () => {
    const drive = scriptDrive({ start: '2026-02-10T06:00:00Z', odometerM: 5_000 }, [
      { park: 300 },
      { move: 1200, speedKmh: 70 },
      { idle: 60 },
      { harsh: 'braking' },
      { move: 600, speedKmh: 40 },
      { park: 720 },
      { move: 900, speedKmh: 90 },
      { silent: 2000 },
      { move: 300, speedKmh: 30 },
      { park: 600 },
    ]);
    const whole = detectTrips(drive);
    expect(whole).toHaveLength(3);
    const random = seededRandom(3);
    let snapshot: MachineState | null = null;
    const closed = [];
    for (let i = 0; i < drive.length; ) {
      const size = 1 + Math.floor(random() * 40);
      const machine: TripMachine = new TripMachine(params, 'ignition', snapshot);
      for (const p of drive.slice(i, i + size)) machine.push(p);
      closed.push(...machine.closed);
      snapshot = JSON.parse(JSON.stringify(machine.snapshot())) as MachineState;
      i += size;
    }
    const last = new TripMachine(params, 'ignition', snapshot).pending(Number.POSITIVE_INFINITY);
    if (last.trip) closed.push(last.trip);
    expect(closed).toEqual(whole);
  });

  test('a snapshot shares nothing with the machine: feeding on changes neither the snapshot taken nor the one resumed from', () => {
    const drive = scriptDrive({ start: '2026-02-10T06:00:00Z', odometerM: 5_000 }, [
      { park: 300 },
      { move: 600, speedKmh: 60 },
      { idle: 120 },
      { move: 600, speedKmh: 60 },
      { park: 720 },
    ]);
    const machine = new TripMachine(params, 'ignition');
    // Fed until stopped mid-drive: an open trip with its stop's frozen accumulator, every nested part of the state there.
    let fed = 0;
    while (fed < drive.length && !machine.snapshot().trip?.idle) machine.push(drive[fed++]!);
    const taken = machine.snapshot();
    expect(taken.trip?.idle?.frozen.last).toBeDefined();
    expect(fed).toBeLessThan(drive.length);
    const before = JSON.stringify(taken);
    const resumed = new TripMachine(params, 'ignition', taken);
    for (const p of drive.slice(fed)) {
      machine.push(p);
      resumed.push(p);
    }
    expect(JSON.stringify(taken)).toBe(before);
    expect(resumed.closed).toEqual(machine.closed);
  });
});
