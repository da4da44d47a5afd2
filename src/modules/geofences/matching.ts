import type { Querier } from '../../lib/db/client';
import type { EventMap } from '../../lib/events';
import type { Outbox } from '../../lib/outbox';
import type { StoredPosition } from '../tracking/service';
import { FLAGS_NOT_A_FIX } from '../tracking/model';
import type { GeofenceCrossing } from './events';
import type { GeofenceTransition } from './model';

/**
 * Geofence matching as positions are stored (spec §1, issue "matching as positions are stored"): the ingest writer hands
 * each batch's positions to `matchBatch` inside the batch's transaction, which takes one statement to match whatever the
 * batch's size (never one per position), and one more to write what changed:
 * 1. one statement (`MARK_SQL`) locks and moves the mark of the batch's units that have zones (the newest fix matched,
 *    one row a unit, in unit order) and hands back, from that same row, the unit's active zones (ids and shape
 *    revisions) and its state with each (migration 0550 keeps the row as zones, links and states change);
 * 2. the fixes newer than their unit's mark are tested here against the zones' shapes, cached per process under (zone,
 *    shape revision): the row tells every instance when its copy is stale. A fix outside a zone's box (its bounds
 *    widened beyond the margin) is outside; inside the box a circle is a haversine distance to its centre and a polygon
 *    a planar point-in-polygon test on its densified outline (migration 0490); a fix outside a polygon is in its
 *    margin or beyond by a local distance to the outline. Only a fix that distance leaves in doubt (within half the
 *    margin of the margin's edge) is asked of the database's geography, all of a batch in one statement;
 * 3. the hysteresis rule advances the pairs in time order; the changed states (in geofence_state and the unit's row),
 *    the crossings' log rows and (real-time zones) the durable events are written in the same transaction.
 *
 * Hysteresis, so GPS jitter along a border does not flap:
 * - a margin: a fix is "inside" within the zone, "outside" only farther than `MARGIN_M` beyond its border; in the band
 *   between it counts for the side the unit is confirmed on;
 * - two consecutive fixes: the side changes only when `CONFIRM_FIXES` fixes in a row are on the new side; the crossing's
 *   time and place are those of the fix that confirmed it.
 * A fix not newer than the unit's mark (a late or resent record) is history: it changes nothing. The first side a
 * unit is confirmed on with a zone (a new zone, a new unit, a zone switched on again) is no crossing. Within a
 * deactivation window the state follows the unit silently, so no crossing is invented when the window ends.
 */

/** Metres beyond the border a fix must lie to count as outside. */
export const MARGIN_M = 25;
/** Consecutive fixes on the new side that confirm a crossing. */
export const CONFIRM_FIXES = 2;

export interface ZoneState {
  /** The confirmed side; null until fixes first agree. */
  inside: boolean | null;
  leaning: boolean | null;
  leaningCount: number;
  /** Epoch ms of the newest fix considered (the unit's mark). */
  lastFix: number | null;
}

export interface ZoneFix {
  time: number;
  /** Within the zone. */
  inside: boolean;
  /** Within the zone or the margin beyond its border. */
  near: boolean;
  /** In one of the zone's deactivation windows. */
  paused: boolean;
}

/** Advances one (unit, zone) state over fixes in time order; returns the new state and the confirming fixes of crossings. */
export function advance(start: ZoneState, fixes: readonly ZoneFix[]): { state: ZoneState; crossings: Array<{ transition: GeofenceTransition; fix: ZoneFix }> } {
  const state = { ...start };
  const crossings: Array<{ transition: GeofenceTransition; fix: ZoneFix }> = [];
  for (const fix of fixes) {
    if (state.lastFix !== null && fix.time <= state.lastFix) continue; // late or resent: history
    state.lastFix = fix.time;
    // In the margin band the fix counts for the side already confirmed (or for none yet).
    const side = fix.inside ? true : !fix.near ? false : state.inside;
    if (side === null) continue;
    if (side === state.inside) {
      state.leaning = null;
      state.leaningCount = 0;
      continue;
    }
    state.leaningCount = state.leaning === side ? state.leaningCount + 1 : 1;
    state.leaning = side;
    if (state.leaningCount < CONFIRM_FIXES) continue;
    if (state.inside !== null && !fix.paused) crossings.push({ transition: side ? 'entered' : 'exited', fix });
    state.inside = side;
    state.leaning = null;
    state.leaningCount = 0;
  }
  return { state, crossings };
}


/** A zone's shape as matching tests it (migrations 0330, 0490): the box, then a circle's centre or a polygon's rings. */
interface ZoneShape {
  revision: number;
  accountId: number;
  west: number;
  south: number;
  east: number;
  north: number;
  circle: { lat: number; lon: number; radiusM: number } | null;
  /** The densified outline's rings as [lon, lat, lon, lat, ...]. */
  rings: Float64Array[];
}

/** Zone shapes by zone id; an entry is used only while its revision is the one the unit's row names. */
type ShapeCache = Map<number, ZoneShape>;
/** Enough for every zone of a large installation; past it the cache starts over rather than grow without bound. */
const SHAPES_MAX = 500_000;

/**
 * Moves the marks of the batch's units that have zones (in unit order, so batches of one unit match one after the
 * other) and reads, from the same locked row, the mark from before and the unit's zones and states.
 */
const MARK_SQL = `
WITH b AS (SELECT unit_id, max(ms) AS ms FROM unnest($1::int[], $2::float8[]) AS t(unit_id, ms) GROUP BY unit_id)
INSERT INTO geofence_unit_marks AS m (unit_id, last_fix)
SELECT b.unit_id, to_timestamp(b.ms / 1000) FROM b
WHERE EXISTS (SELECT 1 FROM geofence_unit_marks x WHERE x.unit_id = b.unit_id AND x.has_zones)
ORDER BY b.unit_id
ON CONFLICT (unit_id) DO UPDATE SET previous_fix = m.last_fix, last_fix = greatest(m.last_fix, EXCLUDED.last_fix)
RETURNING m.unit_id, extract(epoch FROM m.previous_fix) * 1000 AS previous_ms,
  json_build_array(m.zone_ids, m.zone_revisions, m.inside, m.leaning, m.leaning_count) AS zones`;

const SHAPES_SQL = `
SELECT id, shape_revision, account_id, box_west, box_south, box_east, box_north, centre_lat, centre_lon, radius_m,
       encode(ST_AsBinary(match_geom), 'hex') AS wkb
FROM geofences WHERE id = ANY($1::int[])`;

/** A fix in a polygon's box but not found inside it: covered after all (its border), within the margin, or outside. */
const POLYGON_SIDE_SQL = `
SELECT (t.n - 1)::int AS n, CASE
  WHEN ST_Covers(z.match_geom, ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326)) THEN 2
  WHEN ST_DWithin(z.geom, ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326)::geography, $4, false) THEN 1
  ELSE 0 END AS side
FROM unnest($1::int[], $2::float8[], $3::float8[]) WITH ORDINALITY AS t(geofence_id, lon, lat, n)
JOIN geofences z ON z.id = t.geofence_id`;

/**
 * The zones of the crossings found, and which crossings fall in a deactivation window of their zone (read in the
 * zone's time zone: day and minute of the fix's local time; a window whose end is not after its start runs past midnight).
 */
const CROSSINGS_SQL = `
SELECT c.n, z.name, z.theft_mode, z.real_time, EXISTS (
  SELECT 1 FROM geofence_deactivations d
  WHERE d.geofence_id = z.id
    AND CASE WHEN d.from_minute < d.to_minute THEN t.dow = ANY(d.days) AND t.m >= d.from_minute AND t.m < d.to_minute
             ELSE (t.dow = ANY(d.days) AND t.m >= d.from_minute) OR ((t.dow + 6) % 7 = ANY(d.days) AND t.m < d.to_minute) END
) AS paused
FROM jsonb_to_recordset($1::jsonb) AS c(n int, geofence_id int, ms float8)
JOIN geofences z ON z.id = c.geofence_id
CROSS JOIN LATERAL (SELECT to_timestamp(c.ms / 1000) AT TIME ZONE z.time_zone AS lt) AS l
CROSS JOIN LATERAL (SELECT extract(dow FROM l.lt)::int AS dow, (extract(hour FROM l.lt) * 60 + extract(minute FROM l.lt))::int AS m) AS t`;

const WRITE_SQL = `
WITH s AS (
  INSERT INTO geofence_state (unit_id, geofence_id, inside, leaning, leaning_count)
  SELECT x.unit_id, x.geofence_id, x.inside, x.leaning, x.leaning_count
  FROM jsonb_to_recordset($1::jsonb) AS x(unit_id int, geofence_id int, inside boolean, leaning boolean, leaning_count int)
  ORDER BY x.unit_id, x.geofence_id
  ON CONFLICT (unit_id, geofence_id) DO UPDATE SET inside = EXCLUDED.inside, leaning = EXCLUDED.leaning, leaning_count = EXCLUDED.leaning_count
  RETURNING 1
),
m AS (
  UPDATE geofence_unit_marks m SET inside = x.inside, leaning = x.leaning, leaning_count = x.leaning_count
  FROM jsonb_to_recordset($3::jsonb) AS x(unit_id int, inside boolean[], leaning boolean[], leaning_count smallint[])
  WHERE m.unit_id = x.unit_id
  RETURNING 1
)
INSERT INTO geofence_events (account_id, geofence_id, unit_id, transition, at, lat, lon)
SELECT e.account_id, e.geofence_id, e.unit_id, e.transition, to_timestamp(e.ms / 1000), e.lat, e.lon
FROM jsonb_to_recordset($2::jsonb) AS e(account_id int, geofence_id int, unit_id int, transition text, ms float8, lat float8, lon float8)
ON CONFLICT DO NOTHING`;

interface MarkRow extends Record<string, unknown> {
  unit_id: number;
  previous_ms: number | string | null;
  /** [zone ids, shape revisions, inside, leaning, leaning counts], in zone order. */
  zones: [number[], number[], Array<boolean | null>, Array<boolean | null>, number[]] | string;
}

interface ShapeRow extends Record<string, unknown> {
  id: number;
  shape_revision: number;
  account_id: number;
  box_west: number;
  box_south: number;
  box_east: number;
  box_north: number;
  centre_lat: number | null;
  centre_lon: number | null;
  radius_m: number | null;
  wkb: string | null;
}

/** The rings of an OGC WKB polygon or multipolygon (ST_AsBinary of a 2D geometry). */
export function wkbRings(hex: string): Float64Array[] {
  const bytes = Buffer.from(hex, 'hex');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rings: Float64Array[] = [];
  let at = 0;
  const geometry = () => {
    const little = view.getUint8(at) === 1;
    const type = view.getUint32(at + 1, little);
    at += 5;
    const count = view.getUint32(at, little);
    at += 4;
    if (type === 6) {
      for (let p = 0; p < count; p++) geometry();
      return;
    }
    if (type !== 3) throw new Error(`unexpected zone geometry type ${type}`);
    for (let r = 0; r < count; r++) {
      const points = view.getUint32(at, little);
      at += 4;
      const ring = new Float64Array(points * 2);
      for (let k = 0; k < points * 2; k++) ring[k] = view.getFloat64(at + k * 8, little);
      at += points * 16;
      rings.push(ring);
    }
  };
  geometry();
  return rings;
}

/** Planar point-in-polygon over every ring (even-odd, so holes are outside). */
export function withinRings(rings: readonly Float64Array[], lon: number, lat: number): boolean {
  let inside = false;
  for (const ring of rings) {
    const n = ring.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = ring[i * 2]!;
      const yi = ring[i * 2 + 1]!;
      const xj = ring[j * 2]!;
      const yj = ring[j * 2 + 1]!;
      if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

const RADIANS = Math.PI / 180;
/** Metres on the sphere of geography's use_spheroid => false, as the database's `geofence_sphere_m` (migration 0490). */
export function sphereMetres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = Math.sin(((lat2 - lat1) * RADIANS) / 2) ** 2 + Math.cos(lat1 * RADIANS) * Math.cos(lat2 * RADIANS) * Math.sin(((lon2 - lon1) * RADIANS) / 2) ** 2;
  return 2 * 6371008.771415059 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * A fix outside a polygon but in its box: in the margin (1) or beyond it (0) when a local flat-earth distance to the
 * outline (metres east and north at the fix's latitude) leaves no doubt, else null and the database's geography decides.
 * At zone sizes that distance is within a fraction of a percent of the sphere's; the doubt band is half the margin
 * either side of it. Not used near the poles or for zones spanning degrees, where the flat picture bends.
 */
export function marginSide(shape: Pick<ZoneShape, 'rings' | 'west' | 'east' | 'south' | 'north'>, lon: number, lat: number): 0 | 1 | null {
  if (Math.abs(lat) > 80 || shape.east - shape.west > 2 || shape.north - shape.south > 2) return null;
  const perLat = 111_195; // metres a degree on the sphere of radius 6371 km
  const perLon = perLat * Math.cos(lat * RADIANS);
  let nearest = Number.POSITIVE_INFINITY;
  for (const ring of shape.rings) {
    const n = ring.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const ax = (ring[j * 2]! - lon) * perLon;
      const ay = (ring[j * 2 + 1]! - lat) * perLat;
      const bx = (ring[i * 2]! - lon) * perLon;
      const by = (ring[i * 2 + 1]! - lat) * perLat;
      const dx = bx - ax;
      const dy = by - ay;
      const length = dx * dx + dy * dy;
      const t = length === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length));
      const squared = (ax + t * dx) ** 2 + (ay + t * dy) ** 2;
      if (squared < nearest) nearest = squared;
    }
  }
  const metres = Math.sqrt(nearest);
  if (metres > MARGIN_M * 1.5) return 0;
  if (metres < MARGIN_M * 0.5) return 1;
  return null;
}

/** The shapes of these zones at these revisions: from the cache, the missing or stale ones read in one statement. */
async function shapesOf(shapes: ShapeCache, query: Querier, wanted: Map<number, number>): Promise<Map<number, ZoneShape>> {
  const found = new Map<number, ZoneShape>();
  const missing: number[] = [];
  for (const [id, revision] of wanted) {
    const shape = shapes.get(id);
    if (shape && shape.revision === revision) found.set(id, shape);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const rows = await query<ShapeRow>(SHAPES_SQL, [`{${missing.join(',')}}`]);
  if (shapes.size + rows.length > SHAPES_MAX) shapes.clear();
  for (const row of rows) {
    const shape: ZoneShape = {
      revision: Number(row.shape_revision),
      accountId: Number(row.account_id),
      west: Number(row.box_west),
      south: Number(row.box_south),
      east: Number(row.box_east),
      north: Number(row.box_north),
      circle: row.radius_m === null ? null : { lat: Number(row.centre_lat), lon: Number(row.centre_lon), radiusM: Number(row.radius_m) },
      rings: row.wkb ? wkbRings(row.wkb) : [],
    };
    shapes.set(Number(row.id), shape);
    found.set(Number(row.id), shape);
  }
  return found;
}

const SIDES = [{ inside: false, near: false }, { inside: false, near: true }, { inside: true, near: true }] as const;

/** One (unit, zone) pair of a batch: the unit's row's state with the zone and the fixes tested against it. */
interface Pair {
  unitId: number;
  geofenceId: number;
  /** The zone's place in the unit row's arrays. */
  index: number;
  fixes: Array<{ at: StoredPosition; side: number }>;
}

export type ZoneMatcher = (query: Querier, outbox: Outbox<EventMap>, positions: readonly StoredPosition[]) => Promise<void>;

/**
 * The stored-batch hook with its own shape cache (one a database: zone ids are the database's), which matches a batch's
 * positions inside its transaction (see the file's comment).
 */
export function createZoneMatcher(): ZoneMatcher {
  const shapes: ShapeCache = new Map();
  return (query, outbox, positions) => matchBatch(shapes, query, outbox, positions);
}

async function matchBatch(shapes: ShapeCache, query: Querier, outbox: Outbox<EventMap>, positions: readonly StoredPosition[]): Promise<void> {
  const valid = positions.filter((position) => position.valid && (position.flags & FLAGS_NOT_A_FIX) === 0);
  if (valid.length === 0) return;
  const marks = await query<MarkRow>(MARK_SQL, [`{${valid.map((fix) => fix.unitId).join(',')}}`, `{${valid.map((fix) => fix.time.getTime()).join(',')}}`]);
  if (marks.length === 0) return;

  const units = new Map<number, { mark: MarkRow; zones: Exclude<MarkRow['zones'], string> }>();
  const wanted = new Map<number, number>();
  for (const mark of marks) {
    const zones = (typeof mark.zones === 'string' ? JSON.parse(mark.zones) : mark.zones) as Exclude<MarkRow['zones'], string>;
    if (zones[0].length === 0) continue;
    units.set(Number(mark.unit_id), { mark, zones });
    for (const [k, id] of zones[0].entries()) wanted.set(Number(id), Number(zones[1][k]));
  }
  if (units.size === 0) return;
  const zoneShapes = await shapesOf(shapes, query, wanted);

  // Each newer fix against each active zone of its unit, of the fix's account.
  const pairs = new Map<string, Pair>();
  const undecided: Array<{ fix: { at: StoredPosition; side: number }; geofenceId: number }> = [];
  for (const at of valid) {
    const unit = units.get(at.unitId);
    if (!unit) continue;
    const previous = unit.mark.previous_ms;
    if (previous !== null && !(at.time.getTime() > Number(previous))) continue; // late or resent: history
    const [ids] = unit.zones;
    for (const [index, rawId] of ids.entries()) {
      const geofenceId = Number(rawId);
      const shape = zoneShapes.get(geofenceId);
      if (!shape || shape.accountId !== at.accountId) continue;
      const lon = at.longitude;
      const lat = at.latitude;
      const fix = { at, side: 0 };
      if (lon >= shape.west && lon <= shape.east && lat >= shape.south && lat <= shape.north) {
        if (shape.circle) {
          const metres = sphereMetres(shape.circle.lat, shape.circle.lon, lat, lon);
          fix.side = metres <= shape.circle.radiusM ? 2 : metres <= shape.circle.radiusM + MARGIN_M ? 1 : 0;
        } else if (withinRings(shape.rings, lon, lat)) fix.side = 2;
        else {
          const side = marginSide(shape, lon, lat);
          if (side === null) undecided.push({ fix, geofenceId });
          else fix.side = side;
        }
      }
      const key = `${at.unitId}:${geofenceId}`;
      let pair = pairs.get(key);
      if (!pair) {
        pair = { unitId: at.unitId, geofenceId, index, fixes: [] };
        pairs.set(key, pair);
      }
      pair.fixes.push(fix);
    }
  }
  if (undecided.length > 0) {
    const rows = await query<{ n: number; side: number }>(POLYGON_SIDE_SQL, [
      `{${undecided.map((item) => item.geofenceId).join(',')}}`,
      `{${undecided.map((item) => item.fix.at.longitude).join(',')}}`,
      `{${undecided.map((item) => item.fix.at.latitude).join(',')}}`,
      MARGIN_M,
    ]);
    for (const row of rows) undecided[Number(row.n)]!.fix.side = Number(row.side);
  }

  const ordered = [...pairs.values()].sort((a, b) => a.unitId - b.unitId || a.geofenceId - b.geofenceId);
  const written: unknown[] = [];
  const rowsChanged = new Map<number, { inside: Array<boolean | null>; leaning: Array<boolean | null>; leaning_count: number[] }>();
  const found: Array<{ pair: Pair; transition: GeofenceTransition; at: StoredPosition }> = [];
  for (const pair of ordered) {
    const unit = units.get(pair.unitId)!;
    const [, , inside, leaning, leaningCount] = unit.zones;
    const start: ZoneState = {
      inside: inside[pair.index] ?? null,
      leaning: leaning[pair.index] ?? null,
      leaningCount: Number(leaningCount[pair.index] ?? 0),
      lastFix: unit.mark.previous_ms === null ? null : Number(unit.mark.previous_ms),
    };
    const zoneFixes = pair.fixes
      .map((fix) => ({ time: fix.at.time.getTime(), ...SIDES[fix.side]!, paused: false, at: fix.at }))
      .sort((a, b) => a.time - b.time);
    const { state, crossings } = advance(start, zoneFixes);
    if (state.inside === start.inside && state.leaning === start.leaning && state.leaningCount === start.leaningCount) continue;
    written.push({ unit_id: pair.unitId, geofence_id: pair.geofenceId, inside: state.inside, leaning: state.leaning, leaning_count: state.leaningCount });
    let row = rowsChanged.get(pair.unitId);
    if (!row) {
      row = { inside: [...inside], leaning: [...leaning], leaning_count: leaningCount.map(Number) };
      rowsChanged.set(pair.unitId, row);
    }
    row.inside[pair.index] = state.inside;
    row.leaning[pair.index] = state.leaning;
    row.leaning_count[pair.index] = state.leaningCount;
    // Whether a crossing falls in a deactivation window is asked below, only of the crossings found.
    for (const crossing of crossings) found.push({ pair, transition: crossing.transition, at: (crossing.fix as ZoneFix & { at: StoredPosition }).at });
  }
  if (written.length === 0) return;

  const zonesOfCrossings = new Map<number, { name: string; theft_mode: boolean; real_time: boolean; paused: boolean }>();
  if (found.length > 0) {
    const rows = await query<{ n: number; name: string; theft_mode: boolean; real_time: boolean; paused: boolean }>(CROSSINGS_SQL, [
      JSON.stringify(found.map((crossing, n) => ({ n, geofence_id: crossing.pair.geofenceId, ms: crossing.at.time.getTime() }))),
    ]);
    for (const row of rows) zonesOfCrossings.set(Number(row.n), row);
  }
  const logged: unknown[] = [];
  const published: Array<{ type: 'geofence.entered' | 'geofence.exited'; payload: GeofenceCrossing }> = [];
  for (const [n, { pair, transition, at }] of found.entries()) {
    const zone = zonesOfCrossings.get(n);
    if (!zone || zone.paused) continue;
    logged.push({ account_id: at.accountId, geofence_id: pair.geofenceId, unit_id: at.unitId, transition, ms: at.time.getTime(), lat: at.latitude, lon: at.longitude });
    // Spec §3 "real-time activation": without it a crossing is only logged (for reports), not raised.
    if (!zone.real_time) continue;
    published.push({
      type: transition === 'entered' ? 'geofence.entered' : 'geofence.exited',
      payload: {
        accountId: at.accountId,
        unitId: at.unitId,
        geofenceId: pair.geofenceId,
        geofenceName: zone.name,
        theftMode: zone.theft_mode,
        at: at.time.toISOString(),
        latitude: at.latitude,
        longitude: at.longitude,
      },
    });
  }
  const unitRows = [...rowsChanged.entries()].map(([unitId, row]) => ({ unit_id: unitId, ...row }));
  await query(WRITE_SQL, [JSON.stringify(written), JSON.stringify(logged), JSON.stringify(unitRows)]);
  if (published.length > 0) await outbox.publishMany(query, published);
}
