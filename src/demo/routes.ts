/**
 * Demo driving: smooth routes between the places a company's cars go (homes, the office, customers, shops), driven
 * with a speed profile like real traffic (city streets, a highway stretch on longer trips, lights to stop at, slower
 * in curves). One model for the demo's 90 days of history and for the live cars, so the live drive continues where
 * the history ends. Deterministic for a seed.
 */
import { CITIES, type VehicleSample, bearingDeg, distanceM, seededRandom } from '../gateway/simulator/vehicle';

export interface Spot {
  name: string;
  lat: number;
  lon: number;
  kind: 'home' | 'office' | 'customer' | 'shop' | 'leisure';
}

const M_PER_DEG_LAT = 111_320;
const mPerDegLon = (lat: number) => M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180);

/** Where things are around a city, as offsets in km (east, north) from its centre. */
const LAYOUT: Array<[string, number, number, Spot['kind']]> = [
  ['Office', 0.6, 0.4, 'office'],
  ['Customer North', -1.5, 9.5, 'customer'],
  ['Customer South', 2.5, -8.0, 'customer'],
  ['Customer West', -12.0, 1.5, 'customer'],
  ['Customer East', 7.5, 2.0, 'customer'],
  ['Customer Airport', 3.0, 19.0, 'customer'],
  ['Supplier', -5.0, -4.5, 'customer'],
  ['Shopping centre', 4.5, -3.5, 'shop'],
  ['Hardware store', -7.0, 5.5, 'shop'],
  ['Lake', 10.0, 12.0, 'leisure'],
  ['Summer house', -22.0, -14.0, 'leisure'],
];

/** Named spots of the two cities most of the fleet drives in (real districts; the others use the layout above). */
const NAMED: Record<string, Array<[string, number, number, Spot['kind']]>> = {
  Stockholm: [
    ['Office Kungsholmen', 59.3326, 18.0422, 'office'],
    ['Customer Kista', 59.4032, 17.9446, 'customer'],
    ['Customer Solna', 59.3600, 18.0009, 'customer'],
    ['Customer Nacka', 59.3108, 18.1637, 'customer'],
    ['Customer Arlanda', 59.6498, 17.9238, 'customer'],
    ['Customer Södertälje', 59.1955, 17.6253, 'customer'],
    ['Supplier Västberga', 59.2926, 18.0044, 'customer'],
    ['Shopping Barkarby', 59.4190, 17.8640, 'shop'],
    ['Hardware Sickla', 59.3040, 18.1250, 'shop'],
    ['Lake Mälaren', 59.3530, 17.8200, 'leisure'],
    ['Summer house Vaxholm', 59.4025, 18.3514, 'leisure'],
  ],
  Göteborg: [
    ['Office Lindholmen', 57.7065, 11.9380, 'office'],
    ['Customer Mölndal', 57.6554, 12.0137, 'customer'],
    ['Customer Kungälv', 57.8706, 11.9805, 'customer'],
    ['Customer Partille', 57.7395, 12.1064, 'customer'],
    ['Customer Landvetter', 57.6688, 12.2920, 'customer'],
    ['Supplier Hisings Backa', 57.7560, 11.9900, 'customer'],
    ['Shopping Bäckebol', 57.7720, 11.9930, 'shop'],
    ['Hardware Högsbo', 57.6700, 11.9350, 'shop'],
    ['Beach Askim', 57.6300, 11.9200, 'leisure'],
    ['Summer house Öckerö', 57.7100, 11.6500, 'leisure'],
  ],
};

/** The places of one city: its named spots (or the generic layout) and the homes of its vehicles. */
export function citySpots(city: number): Spot[] {
  const place = CITIES[city % CITIES.length]!;
  const named = NAMED[place.name];
  if (named) return named.map(([name, lat, lon, kind]) => ({ name, lat, lon, kind }));
  return LAYOUT.map(([name, east, north, kind]) => ({
    name: `${name} ${place.name}`,
    lat: place.lat + (north * 1000) / M_PER_DEG_LAT,
    lon: place.lon + (east * 1000) / mPerDegLon(place.lat),
    kind,
  }));
}

/** The demo vehicle's city (as the fleet has always been spread: vehicle n in city n mod 5). */
export const cityOf = (vehicle: number) => vehicle % CITIES.length;

/** A vehicle's home: a residential street 4–11 km from its city's centre, fixed per vehicle. */
export function homeOf(vehicle: number): Spot {
  const place = CITIES[cityOf(vehicle)]!;
  const random = seededRandom(vehicle * 104_729 + 11);
  const angle = random() * 2 * Math.PI;
  const km = 4 + random() * 7;
  return {
    name: 'Home',
    lat: place.lat + (Math.cos(angle) * km * 1000) / M_PER_DEG_LAT,
    lon: place.lon + (Math.sin(angle) * km * 1000) / mPerDegLon(place.lat),
    kind: 'home',
  };
}

/** A drivable line: points (lat, lon) and the distance along it at each. */
export interface Route {
  lat: Float64Array;
  lon: Float64Array;
  along: Float64Array;
  length: number;
}

function toXY(lat: number, lon: number, origin: { lat: number; lon: number }): [number, number] {
  return [(lon - origin.lon) * mPerDegLon(origin.lat), (lat - origin.lat) * M_PER_DEG_LAT];
}

/**
 * A road-like line from `from` to `to`: control points along the way pushed sideways by a smooth random offset
 * (roads bend round water, hills and blocks), joined by a centripetal Catmull–Rom spline sampled every ~15 m.
 */
export function buildRoute(from: { lat: number; lon: number }, to: { lat: number; lon: number }, random: () => number): Route {
  const [ex, ey] = toXY(to.lat, to.lon, from);
  const direct = Math.hypot(ex, ey);
  const controls: Array<[number, number]> = [[0, 0]];
  if (direct > 1) {
    const count = Math.max(2, Math.min(14, Math.round(direct / 900)));
    const nx = -ey / direct;
    const ny = ex / direct;
    const amplitude = Math.min(1800, direct * 0.14);
    const phase = random() * Math.PI * 2;
    const waves = 1 + random() * 1.5;
    for (let i = 1; i < count; i++) {
      const f = i / count;
      // Big bends plus a little block-to-block wiggle near the ends (city streets).
      const bend = Math.sin(f * Math.PI) * Math.sin(phase + f * Math.PI * waves) * amplitude;
      const urban = f < 0.2 || f > 0.8 ? (random() - 0.5) * 160 : (random() - 0.5) * 60;
      controls.push([ex * f + nx * (bend + urban), ey * f + ny * (bend + urban)]);
    }
  }
  controls.push([ex, ey]);
  // Centripetal Catmull–Rom through the controls, with mirrored end points.
  const points: Array<[number, number]> = [];
  const padded = [mirror(controls[1] ?? controls[0]!, controls[0]!), ...controls, mirror(controls.at(-2) ?? controls.at(-1)!, controls.at(-1)!)];
  for (let i = 1; i < padded.length - 2; i++) {
    const p0 = padded[i - 1]!;
    const p1 = padded[i]!;
    const p2 = padded[i + 1]!;
    const p3 = padded[i + 2]!;
    const segment = Math.hypot(p2[0] - p1[0], p2[1] - p1[1]);
    const steps = Math.max(1, Math.ceil(segment / 15));
    for (let s = 0; s < steps; s++) points.push(catmullRom(p0, p1, p2, p3, s / steps));
  }
  points.push([ex, ey]);
  const lat = new Float64Array(points.length);
  const lon = new Float64Array(points.length);
  const along = new Float64Array(points.length);
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    const [x, y] = points[i]!;
    lat[i] = from.lat + y / M_PER_DEG_LAT;
    lon[i] = from.lon + x / mPerDegLon(from.lat);
    if (i > 0) total += Math.hypot(x - points[i - 1]![0], y - points[i - 1]![1]);
    along[i] = total;
  }
  return { lat, lon, along, length: total };
}

function mirror(inner: [number, number], end: [number, number]): [number, number] {
  return [2 * end[0] - inner[0], 2 * end[1] - inner[1]];
}

function catmullRom(p0: [number, number], p1: [number, number], p2: [number, number], p3: [number, number], t: number): [number, number] {
  const knot = (a: [number, number], b: [number, number]) => Math.max(1e-6, Math.hypot(b[0] - a[0], b[1] - a[1]) ** 0.5);
  const t1 = knot(p0, p1);
  const t2 = t1 + knot(p1, p2);
  const t3 = t2 + knot(p2, p3);
  const u = t1 + (t2 - t1) * t;
  const lerp = (a: [number, number], b: [number, number], ta: number, tb: number): [number, number] => {
    const w = (u - ta) / (tb - ta);
    return [a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w];
  };
  const a1 = lerp(p0, p1, 0, t1);
  const a2 = lerp(p1, p2, t1, t2);
  const a3 = lerp(p2, p3, t2, t3);
  const b1 = lerp(a1, a2, 0, t2);
  const b2 = lerp(a2, a3, t1, t3);
  return lerp(b1, b2, t1, t2);
}

/** Where on a route, at a distance along it: the point and the heading there. */
export function pointAt(route: Route, distance: number): { lat: number; lon: number; course: number } {
  const d = Math.max(0, Math.min(route.length, distance));
  let low = 0;
  let high = route.along.length - 1;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (route.along[mid]! <= d) low = mid;
    else high = mid;
  }
  const span = route.along[high]! - route.along[low]!;
  const f = span > 0 ? (d - route.along[low]!) / span : 0;
  const lat = route.lat[low]! + (route.lat[high]! - route.lat[low]!) * f;
  const lon = route.lon[low]! + (route.lon[high]! - route.lon[low]!) * f;
  const course = span > 0 ? bearingDeg(route.lat[low]!, route.lon[low]!, route.lat[high]!, route.lon[high]!) : 0;
  return { lat, lon, course };
}

/** The speed limit (m/s) along a route: streets near the ends, an arterial or highway between, slower in curves. */
function limitAt(route: Route, distance: number, highway: boolean): number {
  const fromEnds = Math.min(distance, route.length - distance);
  let kmh = fromEnds < 1200 ? (fromEnds < 300 ? 30 : 50) : highway && fromEnds > 2500 ? 100 : 70;
  // Curvature over ±30 m: the heading change caps the speed at a lateral acceleration of ~2.5 m/s².
  const a = pointAt(route, distance - 30);
  const c = pointAt(route, distance + 30);
  const turn = Math.abs(((c.course - a.course + 540) % 360) - 180);
  if (turn > 2 && distance > 30 && distance < route.length - 30) {
    const radius = 60 / ((turn * Math.PI) / 180);
    kmh = Math.min(kmh, Math.max(20, Math.sqrt(2.5 * radius) * 3.6));
  }
  return kmh / 3.6;
}

/** One drive: a route and where along it the car is each second (with the speed), from `startMs`. */
export interface Drive {
  startMs: number;
  endMs: number;
  route: Route;
  /** Distance along the route at each whole second since the start. */
  distance: Float32Array;
  /** Speed (km/h) at each whole second. */
  speed: Float32Array;
}

/**
 * Drives a route second by second: accelerates at 1.5–2.5 m/s² towards the limit, brakes at ~3 m/s² for curves, red
 * lights (every 400–900 m in town, about half of them red for 10–45 s) and the end.
 */
export function driveRoute(route: Route, startMs: number, random: () => number): Drive {
  const highway = route.length > 7000;
  const stops: Array<{ at: number; wait: number }> = [];
  for (let at = 400 + random() * 500; at < route.length - 150; at += 400 + random() * 500) {
    const fromEnds = Math.min(at, route.length - at);
    const inTown = fromEnds < 1500 || !highway;
    if (inTown && random() < 0.45) stops.push({ at, wait: 10 + random() * 35 });
  }
  const accel = 1.5 + random() * 1;
  const brake = 3;
  const temper = 0.92 + random() * 0.14; // some drive a little under the limit, some a little over
  // The limit every 10 m, worked out once.
  const limits = new Float32Array(Math.ceil(route.length / 10) + 1);
  for (let i = 0; i < limits.length; i++) limits[i] = limitAt(route, i * 10, highway) * temper;
  const distances: number[] = [0];
  const speeds: number[] = [0];
  let s = 0;
  let v = 0;
  let waiting = 0;
  let next = 0;
  for (let second = 0; second < 6 * 3600; second++) {
    if (waiting > 0) {
      waiting -= 1;
      v = 0;
    } else {
      const stop = stops[next];
      const target = stop ? stop.at - 2 : route.length;
      const toStop = target - s;
      const limit = limits[Math.min(limits.length - 1, Math.round((s + Math.min(60, v * 3)) / 10))]!;
      const brakeCap = Math.sqrt(2 * brake * Math.max(0, toStop));
      const wanted = Math.min(limit, brakeCap);
      v = wanted > v ? Math.min(wanted, v + accel) : Math.max(wanted, v - brake * 1.3);
      if (v < 1) v = Math.min(1.5, Math.max(0.5, toStop)); // roll up to the line
      s += v;
      if (stop && s >= target - 0.5) {
        s = target;
        v = 0;
        waiting = Math.round(stop.wait);
        next += 1;
      } else if (!stop && s >= route.length - 0.5) {
        distances.push(route.length);
        speeds.push(0);
        break;
      }
    }
    distances.push(Math.min(s, route.length));
    speeds.push(v * 3.6);
  }
  return {
    startMs,
    endMs: startMs + (distances.length - 1) * 1000,
    route,
    distance: Float32Array.from(distances),
    speed: Float32Array.from(speeds),
  };
}

/** The car on a drive at a moment: position, heading and speed (between whole seconds, interpolated). */
export function sampleDrive(drive: Drive, atMs: number): { lat: number; lon: number; course: number; speedKmh: number; distance: number } {
  const t = Math.max(0, Math.min(drive.distance.length - 1, (atMs - drive.startMs) / 1000));
  const i = Math.floor(t);
  const j = Math.min(drive.distance.length - 1, i + 1);
  const f = t - i;
  const distance = drive.distance[i]! + (drive.distance[j]! - drive.distance[i]!) * f;
  const speedKmh = drive.speed[i]! + (drive.speed[j]! - drive.speed[i]!) * f;
  const point = pointAt(drive.route, distance);
  return { ...point, speedKmh, distance };
}

/** Where a car stands and its odometer: the start of a live demo car (the end of its history, or where it stopped). */
export interface StandingCar {
  lat: number;
  lon: number;
  odometerM: number;
}

/**
 * A live demo car: parks, drives to another place of its city, parks again. It starts where it stood (the end of its
 * history, or its last position before a restart), and most cars set off within the first minute.
 */
export class DemoVehicle {
  private random: () => number;
  private readonly spots: Spot[];
  private lat: number;
  private lon: number;
  private odometer: number;
  private course = 0;
  private drive: Drive | null = null;
  private driveOdometer = 0;
  private parkedUntil: number;
  private temperature: number;

  constructor(
    readonly index: number,
    startMs: number,
    start: StandingCar,
  ) {
    this.random = seededRandom((index + 1) * 7_919 + Math.floor(startMs / 1000));
    this.spots = [...citySpots(cityOf(index)), homeOf(index)];
    this.lat = start.lat;
    this.lon = start.lon;
    this.odometer = start.odometerM;
    this.temperature = 4 + this.random() * 4;
    // Two in three cars set off within 30 s; the others after a few minutes, as a fleet does.
    this.parkedUntil = startMs + (index % 3 === 2 ? 120 + this.random() * 360 : 2 + this.random() * 28) * 1000;
  }

  private plan(nowMs: number): Drive {
    const here = { lat: this.lat, lon: this.lon };
    const choices = this.spots.filter((spot) => distanceM(spot.lat, spot.lon, here.lat, here.lon) > 800);
    const to = choices[Math.floor(this.random() * choices.length)] ?? this.spots[0]!;
    return driveRoute(buildRoute(here, to, this.random), nowMs, this.random);
  }

  step(nowMs: number, _stepS: number): VehicleSample {
    let speed = 0;
    if (!this.drive && nowMs >= this.parkedUntil) {
      this.drive = this.plan(this.parkedUntil);
      this.driveOdometer = this.odometer;
    }
    const drive = this.drive;
    if (drive) {
      const at = sampleDrive(drive, nowMs);
      this.lat = at.lat;
      this.lon = at.lon;
      this.course = at.course;
      this.odometer = this.driveOdometer + at.distance;
      speed = at.speedKmh;
      if (nowMs >= drive.endMs) {
        this.drive = null;
        this.parkedUntil = drive.endMs + (2 + this.random() * 8) * 60_000;
        speed = 0;
      }
    }
    const driving = this.drive !== null;
    this.temperature += (this.random() - 0.5) * 0.2;
    return {
      time: new Date(Math.round(nowMs)),
      latitude: Number(this.lat.toFixed(7)),
      longitude: Number(this.lon.toFixed(7)),
      speedKmh: Math.round(speed),
      course: Math.round(this.course),
      ignition: driving,
      movement: speed > 0,
      odometerM: Math.round(this.odometer),
      externalVoltageMv: driving ? 13_800 + Math.round(this.random() * 400) : 12_400 + Math.round(this.random() * 200),
      temperatureC: Number(this.temperature.toFixed(2)),
      satellites: 8 + Math.floor(this.random() * 6),
    };
  }
}
