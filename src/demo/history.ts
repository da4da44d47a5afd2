/**
 * The demo's past: 90 days of driving for the demo vehicles, written once on the first start so the trip log, the
 * map's history and the reports have something to show at once. Weekdays are commutes and customer visits from the
 * office, weekends private trips; positions go into the position store as fixtures, and the trip log's own
 * detection makes the trips from them (as it does for live data). Then what people do with a trip log: purposes,
 * drivers checked in, a merged pair, an attested month, and places whose rules categorize the trips.
 */
import type { Actor } from '../modules/auth/model';
import type { PlaceService } from '../modules/places/service';
import type { TripService } from '../modules/trips/service';
import { addToDay, dayOf, startOfDay, weekday as weekdayOf } from '../lib/time';
import type { Platform } from '../lib/platform';
import { CITIES, seededRandom } from '../gateway/simulator/vehicle';
import { DEMO_BOAT_IMEI, type DemoDevice } from './seed';
import { type Drive, type Spot, buildRoute, citySpots, cityOf, driveRoute, homeOf, sampleDrive } from './routes';

export const HISTORY_DAYS = 90;
const TIME_ZONE = 'Europe/Stockholm';
/** A driving car reports every 30 s (and when the ignition goes on and off). */
const REPORT_EVERY_S = 30;
const MINUTE = 60_000;

interface PlannedTrip {
  from: Spot;
  to: Spot;
  /** Earliest start (ms); a trip starts later if the one before ran late. */
  notBefore: number;
  /** Minutes parked at the destination before the next trip may start. */
  kind: 'commute' | 'visit' | 'private';
  purpose: string | null;
  /** The two halves of a trip with a short stop on the way (merged in the trip log). */
  mergeWith?: 'next';
}

export interface DemoHistory {
  positions: number;
  trips: number;
  merged: number;
  attested: string | null;
  ms: number;
  /** Milliseconds since the start at the end of each phase. */
  phases: Record<string, number>;
}

/** The day's trips of one vehicle (weekdays: commute and visits; weekends: sometimes a private outing). */
function planDay(vehicle: number, day: string, random: () => number, spots: Spot[], home: Spot, mergeDay: boolean): PlannedTrip[] {
  const dayStart = startOfDay(day, TIME_ZONE).getTime();
  const weekday = weekdayOf(day);
  const at = (hours: number) => dayStart + hours * 3_600_000;
  const office = spots.find((spot) => spot.kind === 'office')!;
  const customers = spots.filter((spot) => spot.kind === 'customer');
  const trips: PlannedTrip[] = [];
  if (weekday === 0 || weekday === 6) {
    if (vehicle % 6 === 5) return trips; // the excavator stays on site at weekends
    if (random() < (weekday === 6 ? 0.55 : 0.35)) {
      const outings = spots.filter((spot) => (weekday === 6 ? spot.kind === 'shop' : spot.kind === 'leisure'));
      const to = outings[Math.floor(random() * outings.length)]!;
      const leave = at(9.5 + random() * 3);
      trips.push({ from: home, to, notBefore: leave, kind: 'private', purpose: null });
      trips.push({ from: to, to: home, notBefore: leave + (60 + random() * 150) * MINUTE, kind: 'private', purpose: null });
    }
    return trips;
  }
  if (!mergeDay && random() < 0.05) return trips; // a day off (not the day the merged pair is driven)
  trips.push({ from: home, to: office, notBefore: at(6.75 + random() * 1.25), kind: 'commute', purpose: null });
  let here = office;
  let clock = at(8.75 + random() * 0.75);
  const visits = 1 + Math.floor(random() * 3);
  for (let visit = 0; visit < visits; visit++) {
    const to = customers[Math.floor(random() * customers.length)]!;
    if (to === here) continue;
    const purpose = to.name.startsWith('Supplier') ? 'Hämta material' : `Kundbesök ${to.name.replace(/^Customer /, '')}`;
    if (mergeDay && visit === 0) {
      // Fuel on the way: two trips the driver merges into one.
      const fuel = spots.find((spot) => spot.kind === 'shop')!;
      trips.push({ from: here, to: fuel, notBefore: clock, kind: 'visit', purpose, mergeWith: 'next' });
      trips.push({ from: fuel, to, notBefore: clock + 35 * MINUTE, kind: 'visit', purpose });
    } else {
      trips.push({ from: here, to, notBefore: clock, kind: 'visit', purpose: random() < 0.8 ? purpose : null });
    }
    here = to;
    clock += (70 + random() * 80) * MINUTE;
  }
  if (here !== office) trips.push({ from: here, to: office, notBefore: clock, kind: 'visit', purpose: 'Tillbaka till kontoret' });
  trips.push({ from: office, to: home, notBefore: Math.max(clock + 40 * MINUTE, at(16 + random() * 1.5)), kind: 'commute', purpose: null });
  return trips;
}

/**
 * The working day on which the first car's driver stops for fuel on the way and merges the two trips: six days back,
 * or the Friday before when that falls on a weekend (a weekend has no customer visits, so no pair to merge).
 */
export function mergeDayOf(today: string): string {
  let day = addToDay(today, { days: -6 });
  while ([0, 6].includes(weekdayOf(day))) day = addToDay(day, { days: -1 });
  return day;
}

/** A demo administrator as the trip log's services expect the caller. */
function actorOf(accountId: number, userId: number): Actor {
  return {
    userId,
    accountId,
    parentAccountId: accountId,
    subsiteId: 0,
    role: 'admin',
    language: 'sv',
    timezone: TIME_ZONE,
    sessionId: 'demo-history',
    realtimeMap: true,
    basicOnly: false,
  };
}

type DemoServices = { trips: TripService; places: PlaceService };

/**
 * Writes the demo history once (nothing if a demo vehicle already has positions). `devices` are the demo's vehicles
 * (the theft-mode boat has none). Returns what was written, or null when the history was there already.
 */
export async function seedDemoHistory(platform: Platform, services: DemoServices, devices: DemoDevice[], options: { days?: number } = {}): Promise<DemoHistory | null> {
  const written = await writeDemoPositions(platform, services, devices, options);
  return written ? completeDemoHistory(platform, services, written) : null;
}

/** What the first stage wrote, for the second. */
export interface WrittenPositions {
  started: number;
  accountId: number;
  admin: { id: number };
  driver: { id: number };
  vehicles: DemoDevice[];
  planned: Array<{ unitId: number; trip: PlannedTrip; drive: Drive }>;
  positions: number;
  historyStart: number;
  now: number;
  today: string;
  phases: Record<string, number>;
}

/**
 * The first stage: the places and the positions (a few seconds; the live cars start from where these end). Null when
 * the history is there already.
 */
export async function writeDemoPositions(
  platform: Platform,
  services: DemoServices,
  devices: DemoDevice[],
  options: { days?: number } = {},
): Promise<WrittenPositions | null> {
  const started = performance.now();
  const { database, clock } = platform;
  const vehicles = devices.filter((device) => device.imei !== DEMO_BOAT_IMEI);
  if (vehicles.length === 0) return null;
  const [existing] = await database.query('SELECT 1 AS one FROM positions WHERE unit_id = ANY($1::int[]) LIMIT 1', [vehicles.map((v) => v.unitId)]);
  if (existing) return null;
  const [owner] = await database.query<{ account_id: number }>('SELECT account_id FROM units WHERE id = $1', [vehicles[0]!.unitId]);
  const accountId = owner!.account_id;
  const people = await database.query<{ id: number; role: string; email: string }>(
    'SELECT id, role, email FROM users WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  const admin = people.find((person) => person.role === 'admin')!;
  const driver = people.find((person) => person.role !== 'admin') ?? admin;
  const actor = actorOf(accountId, admin.id);

  const now = clock.now().getTime();
  const today = dayOf(new Date(now), TIME_ZONE);
  const firstDay = addToDay(today, { days: -(options.days ?? HISTORY_DAYS) });
  const mergeDay = mergeDayOf(today);

  // Places first, so their rules categorize the trips as detection writes them: each city's office (business when
  // a trip starts there on a working day) and the first vehicles' homes (trips between home and office are commutes,
  // private; trips from home at the weekend are private).
  const officeIds = new Map<number, number>();
  for (let city = 0; city < Math.min(5, vehicles.length); city++) {
    const members = vehicles.filter((_, index) => cityOf(index) === city).map((v) => v.unitId);
    const office = citySpots(city).find((spot) => spot.kind === 'office')!;
    const saved = await services.places.save(
      actor,
      null,
      {
        label: `Kontoret ${office.name.replace(/^Office /, '')}`,
        address: `${office.name.replace(/^Office /, '')}, ${CITIES[city]!.name}`,
        latitude: office.lat,
        longitude: office.lon,
        radiusM: 150,
        units: members,
        rules: [{ kind: 'start', otherPlaceId: null, days: [1, 2, 3, 4, 5], from: '06:00', to: '20:00', category: 'business' }],
      },
      TIME_ZONE,
    );
    officeIds.set(city, saved.id);
  }
  for (let index = 0; index < Math.min(3, vehicles.length); index++) {
    const home = homeOf(index);
    await services.places.save(
      actor,
      null,
      {
        label: `Hem ${index === 0 ? 'Erik' : index === 1 ? 'Anna' : 'Maria'}`,
        address: CITIES[cityOf(index)]!.name,
        latitude: home.lat,
        longitude: home.lon,
        radiusM: 100,
        units: [vehicles[index]!.unitId],
        rules: [
          { kind: 'between', otherPlaceId: officeIds.get(cityOf(index)) ?? null, days: [0, 1, 2, 3, 4, 5, 6], from: '00:00', to: '24:00', category: 'private' },
          { kind: 'start', otherPlaceId: null, days: [0, 6], from: '00:00', to: '24:00', category: 'private' },
        ],
      },
      TIME_ZONE,
    );
  }

  // Positions: each planned trip driven second by second, reported every 30 s; the car parks where it stopped.
  const firstMonth = new Date(startOfDay(firstDay, TIME_ZONE).getTime());
  for (let month = new Date(Date.UTC(firstMonth.getUTCFullYear(), firstMonth.getUTCMonth(), 1)); month.getTime() <= now; ) {
    await database.query('SELECT ensure_position_partition($1::date)', [month.toISOString().slice(0, 10)]);
    month = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
  }
  const phases: Record<string, number> = { places: Math.round(performance.now() - started) };
  const planned: Array<{ unitId: number; trip: PlannedTrip; drive: Drive }> = [];
  // Cars take the same roads again: two variants of each route, each driven with its own lights.
  const drives = new Map<string, Drive[]>();
  const driveBetween = (from: Spot, to: Spot, start: number, random: () => number): Drive => {
    const key = `${from.lat},${from.lon}>${to.lat},${to.lon}`;
    const known = drives.get(key) ?? [];
    drives.set(key, known);
    const variant = Math.floor(random() * 2);
    let drive = known[variant];
    if (!drive) {
      drive = driveRoute(buildRoute(from, to, random), 0, random);
      known[variant] = drive;
    }
    return { ...drive, startMs: start, endMs: start + (drive.endMs - drive.startMs) };
  };
  let positions = 0;
  for (const [index, vehicle] of vehicles.entries()) {
    const random = seededRandom(index * 31_337 + 5);
    const spots = citySpots(cityOf(index));
    const home = homeOf(index);
    let odometer = Math.round(20_000_000 + random() * 60_000_000);
    let freeFrom = 0;
    const rows = { time: [] as string[], lat: [] as number[], lon: [] as number[], speed: [] as number[], course: [] as number[], ignition: [] as boolean[], odometer: [] as number[] };
    const report = (t: number, lat: number, lon: number, speed: number, course: number, ignition: boolean, odo: number) => {
      rows.time.push(new Date(t).toISOString());
      rows.lat.push(Number(lat.toFixed(7)));
      rows.lon.push(Number(lon.toFixed(7)));
      rows.speed.push(Math.round(speed));
      rows.course.push(Math.round(course));
      rows.ignition.push(ignition);
      rows.odometer.push(Math.round(odo));
    };
    for (let day = firstDay; day <= today; day = addToDay(day, { days: 1 })) {
      for (const trip of planDay(index, day, random, spots, home, index === 0 && day === mergeDay)) {
        const start = Math.max(trip.notBefore, freeFrom);
        const drive = driveBetween(trip.from, trip.to, start, random);
        if (drive.endMs > now - 2 * MINUTE) break;
        const first = sampleDrive(drive, start);
        report(start, first.lat, first.lon, 0, first.course, true, odometer);
        for (let t = start + REPORT_EVERY_S * 1000; t < drive.endMs; t += REPORT_EVERY_S * 1000) {
          const at = sampleDrive(drive, t);
          report(t, at.lat, at.lon, at.speedKmh, at.course, true, odometer + at.distance);
        }
        const last = sampleDrive(drive, drive.endMs);
        odometer += drive.route.length;
        report(drive.endMs, last.lat, last.lon, 0, last.course, false, odometer);
        planned.push({ unitId: vehicle.unitId, trip, drive });
        // At least six minutes parked: a stop shorter than the time till parked would not end the trip.
        freeFrom = drive.endMs + 6 * MINUTE;
      }
    }
    for (let from = 0; from < rows.time.length; from += 10_000) {
      const to = from + 10_000;
      await database.query(
        `INSERT INTO positions (unit_id, time, received_at, geom, speed_kmh, course, satellites, valid, ignition, odometer_m, io)
         SELECT $1, x.t, x.t, ST_SetSRID(ST_MakePoint(x.lon, x.lat), 4326), x.s, x.c, 10, true, x.ig, x.od,
                jsonb_build_object('239', CASE WHEN x.ig THEN 1 ELSE 0 END, '240', CASE WHEN x.s > 0 THEN 1 ELSE 0 END, '16', x.od)
         FROM unnest($2::timestamptz[], $3::float8[], $4::float8[], $5::real[], $6::real[], $7::boolean[], $8::float8[]) AS x(t, lat, lon, s, c, ig, od)
         ON CONFLICT DO NOTHING`,
        [
          vehicle.unitId,
          rows.time.slice(from, to),
          rows.lat.slice(from, to),
          rows.lon.slice(from, to),
          rows.speed.slice(from, to),
          rows.course.slice(from, to),
          rows.ignition.slice(from, to),
          rows.odometer.slice(from, to),
        ],
      );
    }
    positions += rows.time.length;
  }

  phases.positions = Math.round(performance.now() - started);
  const historyStart = startOfDay(firstDay, TIME_ZONE).getTime();
  return { started, accountId, admin, driver, vehicles, planned, positions, historyStart, now, today, phases };
}

/**
 * The second stage: the trip log's detection makes the trips from the positions (as for positions that come in
 * live), then what the drivers did with them.
 */
export async function completeDemoHistory(platform: Platform, services: DemoServices, written: WrittenPositions): Promise<DemoHistory> {
  const { database, log } = platform;
  const { started, accountId, admin, driver, vehicles, planned, positions, historyStart, now, today, phases } = written;
  const actor = actorOf(accountId, admin.id);
  for (const vehicle of vehicles) services.trips.detect(vehicle.unitId, { minT: historyStart, maxT: now });
  await services.trips.idle();

  phases.detection = Math.round(performance.now() - started);
  // What the drivers did with their trip log: purposes on customer visits, private weekend trips.
  const detected = await database.query<{ id: string | number; unit_id: number; start_ms: number }>(
    `SELECT id, unit_id, (extract(epoch from start_time) * 1000)::float8 AS start_ms FROM trips WHERE unit_id = ANY($1::int[]) ORDER BY unit_id, start_time`,
    [vehicles.map((v) => v.unitId)],
  );
  const byUnit = new Map<number, Array<{ id: number; startMs: number }>>();
  for (const row of detected) {
    const list = byUnit.get(row.unit_id) ?? [];
    list.push({ id: Number(row.id), startMs: Number(row.start_ms) });
    byUnit.set(row.unit_id, list);
  }
  const tripOf = (unitId: number, startMs: number) =>
    byUnit.get(unitId)?.find((trip) => Math.abs(trip.startMs - startMs) <= 2 * REPORT_EVERY_S * 1000)?.id ?? null;
  const purposes: { ids: number[]; purpose: string[] } = { ids: [], purpose: [] };
  const privateIds: number[] = [];
  const mergePairs: number[][] = [];
  for (const [index, item] of planned.entries()) {
    const id = tripOf(item.unitId, item.drive.startMs);
    if (id === null) continue;
    if (item.trip.purpose) {
      purposes.ids.push(id);
      purposes.purpose.push(item.trip.purpose);
    }
    if (item.trip.kind === 'private') privateIds.push(id);
    if (item.trip.mergeWith === 'next') {
      const next = planned[index + 1];
      const other = next ? tripOf(next.unitId, next.drive.startMs) : null;
      if (other !== null) mergePairs.push([id, other]);
    }
  }
  await database.query(
    `UPDATE trips t SET purpose = x.p FROM unnest($1::bigint[], $2::text[]) AS x(id, p) WHERE t.id = x.id`,
    [purposes.ids, purposes.purpose],
  );
  await database.query(`UPDATE trips SET type = 'private', type_source = 'user' WHERE id = ANY($1::bigint[]) AND type_source <> 'rule'`, [privateIds]);
  await database.query(
    `INSERT INTO purposes (account_id, name, description, created_by)
     VALUES ($1, 'Kundbesök', 'Besök hos kund', $2), ($1, 'Hämta material', 'Leverantör eller grossist', $2), ($1, 'Service', 'Service och reparation', $2)
     ON CONFLICT DO NOTHING`,
    [accountId, admin.id],
  );
  let merged = 0;
  for (const pair of mergePairs) {
    await services.trips.merge(actor, { tripIds: pair }, TIME_ZONE);
    merged += 1;
  }

  // Drivers checked in: Erik drives the first car and Anna the second since the history began (the trips get them).
  for (const [index, person] of [driver, admin].entries()) {
    const unit = vehicles[index];
    const first = unit ? byUnit.get(unit.unitId)?.[0] : undefined;
    if (first) await services.trips.checkIn(actor, first.id, { driverUserId: person.id });
  }
  // Erik attested last month.
  const lastMonth = addToDay(`${today.slice(0, 7)}-01`, { months: -1 }).slice(0, 7);
  let attested: string | null = null;
  if (vehicles.length > 0 && (byUnit.get(vehicles[0]!.unitId)?.length ?? 0) > 0) {
    await services.trips.attest(actor, { userId: driver.id, period: lastMonth, note: 'Granskad' });
    attested = lastMonth;
  }
  const [count] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM trips WHERE unit_id = ANY($1::int[])', [vehicles.map((v) => v.unitId)]);
  const result = { positions, trips: count!.n, merged, attested, ms: Math.round(performance.now() - started), phases };
  log.info('demo history written', result);
  return result;
}
