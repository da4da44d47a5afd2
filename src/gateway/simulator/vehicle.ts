/**
 * A virtual vehicle that drives road-like routes: straight street segments with turns between
 * waypoints, speed that rises and falls, short stops at junctions, and parking with ignition off.
 * Deterministic for a given seed, so tests and benchmarks repeat.
 */

export interface VehicleSample {
  time: Date;
  latitude: number;
  longitude: number;
  speedKmh: number;
  course: number;
  ignition: boolean;
  movement: boolean;
  odometerM: number;
  externalVoltageMv: number;
  temperatureC: number;
  satellites: number;
}

const EARTH_RADIUS_M = 6_371_000;
const toRad = (d: number) => (d * Math.PI) / 180;
const toDeg = (r: number) => (r * 180) / Math.PI;

/** Small seeded PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = toRad(lat2 - lat1);
  const dLon = toRad(lon2 - lon1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(a));
}

export function bearingDeg(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const y = Math.sin(toRad(lon2 - lon1)) * Math.cos(toRad(lat2));
  const x = Math.cos(toRad(lat1)) * Math.sin(toRad(lat2)) - Math.sin(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.cos(toRad(lon2 - lon1));
  return (toDeg(Math.atan2(y, x)) + 360) % 360;
}

/** City centres the fleet drives around (Stockholm first: the map's default centre). */
export const CITIES = [
  { name: 'Stockholm', lat: 59.3293, lon: 18.0686 },
  { name: 'Göteborg', lat: 57.7089, lon: 11.9746 },
  { name: 'Malmö', lat: 55.605, lon: 13.0038 },
  { name: 'Uppsala', lat: 59.8586, lon: 17.6389 },
  { name: 'Oslo', lat: 59.9139, lon: 10.7522 },
] as const;

type Phase = { kind: 'parked'; until: number } | { kind: 'driving'; path: Array<[number, number]>; leg: number; pauseUntil: number };

export class SimulatedVehicle {
  private random: () => number;
  private lat: number;
  private lon: number;
  private speed = 0;
  private course = 0;
  private odometer: number;
  private phase: Phase;
  private readonly home: { lat: number; lon: number };
  private temperature: number;

  constructor(
    readonly index: number,
    startMs: number,
    options: { city?: number; parkedMinutes?: [number, number] } = {},
  ) {
    this.random = seededRandom(index * 7919 + 17);
    const city = CITIES[(options.city ?? index) % CITIES.length]!;
    // Spread vehicles over ~8 km around the city centre.
    this.home = { lat: city.lat + (this.random() - 0.5) * 0.12, lon: city.lon + (this.random() - 0.5) * 0.24 };
    this.lat = this.home.lat;
    this.lon = this.home.lon;
    this.odometer = Math.round(10_000_000 + this.random() * 90_000_000);
    this.temperature = 4 + this.random() * 4;
    this.parkedRange = options.parkedMinutes ?? [3, 15];
    // Stagger: some start parked for a while, others drive at once.
    this.phase = { kind: 'parked', until: startMs + this.random() * this.parkedRange[1] * 60_000 };
  }

  private readonly parkedRange: [number, number];

  /** A route to a random destination made of street-like legs (north-south, then east-west, with jitter). */
  private planRoute(): Array<[number, number]> {
    const distance = 1500 + this.random() * 9000;
    const angle = this.random() * 2 * Math.PI;
    // Pull the destination back towards home so vehicles stay around their city.
    const towardsHome = distanceM(this.lat, this.lon, this.home.lat, this.home.lon) > 6000;
    const dLat = towardsHome ? this.home.lat - this.lat : (Math.cos(angle) * distance) / 111_320;
    const dLon = towardsHome ? this.home.lon - this.lon : (Math.sin(angle) * distance) / (111_320 * Math.cos(toRad(this.lat)));
    const path: Array<[number, number]> = [];
    const blocks = 3 + Math.floor(this.random() * 4);
    let lat = this.lat;
    let lon = this.lon;
    for (let b = 0; b < blocks; b++) {
      const share = 1 / blocks;
      lat += dLat * share + (this.random() - 0.5) * 0.0008;
      path.push([lat, lon]);
      lon += dLon * share + (this.random() - 0.5) * 0.0016;
      path.push([lat, lon]);
    }
    return path;
  }

  /** Advances the model to `nowMs` in steps of `stepS` seconds and returns the state at nowMs. */
  step(nowMs: number, stepS: number): VehicleSample {
    const phase = this.phase;
    if (phase.kind === 'parked') {
      this.speed = 0;
      if (nowMs >= phase.until) this.phase = { kind: 'driving', path: this.planRoute(), leg: 0, pauseUntil: 0 };
    } else if (nowMs < phase.pauseUntil) {
      this.speed = 0; // waiting at a junction with the engine running
    } else {
      const target = phase.path[phase.leg];
      if (!target) {
        const [low, high] = this.parkedRange;
        this.phase = { kind: 'parked', until: nowMs + (low + this.random() * (high - low)) * 60_000 };
        this.speed = 0;
      } else {
        const cruise = 35 + this.random() * 55;
        this.speed = Math.max(5, Math.min(110, this.speed * 0.6 + cruise * 0.4 + (this.random() - 0.5) * 10));
        let travel = (this.speed / 3.6) * stepS;
        let remaining = distanceM(this.lat, this.lon, target[0], target[1]);
        this.course = bearingDeg(this.lat, this.lon, target[0], target[1]);
        if (travel >= remaining) {
          this.lat = target[0];
          this.lon = target[1];
          this.odometer += remaining;
          travel -= remaining;
          phase.leg += 1;
          // Some junctions have a red light.
          if (this.random() < 0.3) phase.pauseUntil = nowMs + (10 + this.random() * 50) * 1000;
        } else {
          const f = travel / remaining;
          this.lat += (target[0] - this.lat) * f;
          this.lon += (target[1] - this.lon) * f;
          this.odometer += travel;
          remaining -= travel;
        }
      }
    }
    const driving = this.phase.kind === 'driving';
    this.temperature += (this.random() - 0.5) * 0.2;
    return {
      time: new Date(Math.round(nowMs)),
      latitude: Number(this.lat.toFixed(7)),
      longitude: Number(this.lon.toFixed(7)),
      speedKmh: Math.round(this.speed),
      course: Math.round(this.course),
      ignition: driving,
      movement: this.speed > 0,
      odometerM: Math.round(this.odometer),
      externalVoltageMv: driving ? 13_800 + Math.round(this.random() * 400) : 12_400 + Math.round(this.random() * 200),
      temperatureC: Number(this.temperature.toFixed(2)),
      satellites: 8 + Math.floor(this.random() * 6),
    };
  }
}
