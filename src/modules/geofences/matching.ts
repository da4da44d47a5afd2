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
 * 1. one statement (`MATCH_SQL`) locks and moves the mark of the batch's units that have zones (the newest fix matched,
 *    one row a unit, in unit order), tests every fix newer than its unit's mark against every active zone of its unit
 *    (assigned directly or through the unit's feature profile), reads the (unit, zone) states beside it and returns
 *    only the pairs whose state can change: a fix outside a zone's box (its bounds widened beyond the margin, stored
 *    with the zone) is outside without a distance computed; a pair confirmed outside with no fix inside, or confirmed
 *    inside with every fix inside or in the margin, is left out;
 * 2. the hysteresis rule advances those pairs in time order; the changed states, the crossings' log rows and (real-time
 *    zones) the durable events are written in the same transaction.
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


interface FixRow extends Record<string, unknown> {
  unit_id: number;
  geofence_id: number;
  name: string;
  theft_mode: boolean;
  real_time: boolean;
  inside: boolean | null;
  leaning: boolean | null;
  leaning_count: number | null;
  /** The unit's mark before this batch (epoch ms): the state's `lastFix`. */
  previous_ms: number | string | null;
  /** The fix's index in the batch's valid fixes and its side of the zone: 0 outside, 1 in the margin, 2 inside. */
  i: number;
  side: number;
}

/**
 * The whole match in one statement (one round trip a batch):
 * - m: each of the batch's units that has a zone locks and moves its mark (in unit order, so batches of one unit match
 *   one after the other) and hands back the mark from before; fixes not newer than it are history;
 * - f: each newer fix against each active zone of its unit (assigned directly or through the unit's feature profile).
 *   A fix outside the zone's box (its bounds widened beyond the margin, stored with the zone) is outside without a
 *   distance; inside the box a circle is a haversine distance to its centre and a polygon a planar point-in-polygon
 *   test on its densified geometry (migration 0490); geography is asked only for a fix near a polygon but outside it
 *   (is it within the margin?). Distances on the sphere, as geography's use_spheroid false: within 0.5 % of the
 *   spheroid's at zone sizes;
 * - s: the (unit, zone) states, read per unit (one index range a unit, not one look-up a pair);
 * - r: the pairs whose state can change: a pair confirmed outside with no fix inside, or confirmed inside with every
 *   fix inside or in the margin, is left out. Their fixes are returned, one row a fix.
 */
const MATCH_SQL = `
WITH p AS MATERIALIZED (
  SELECT (t.n - 1)::int AS i, t.unit_id, t.account_id, t.lon, t.lat, t.ms
  FROM unnest($1::int[], $2::int[], $3::float8[], $4::float8[], $5::float8[]) WITH ORDINALITY AS t(unit_id, account_id, lon, lat, ms, n)
),
m AS (
  INSERT INTO geofence_unit_marks AS m (unit_id, last_fix)
  SELECT b.unit_id, to_timestamp(b.ms / 1000) FROM (SELECT unit_id, max(ms) AS ms FROM p GROUP BY unit_id) AS b
  WHERE EXISTS (SELECT 1 FROM geofence_units l WHERE l.unit_id = b.unit_id) OR EXISTS (SELECT 1 FROM unit_profile_geozones v WHERE v.unit_id = b.unit_id)
  ORDER BY b.unit_id
  ON CONFLICT (unit_id) DO UPDATE SET previous_fix = m.last_fix, last_fix = greatest(m.last_fix, EXCLUDED.last_fix)
  RETURNING m.unit_id, extract(epoch FROM m.previous_fix) * 1000 AS previous_ms
),
q AS MATERIALIZED (
  SELECT p.i, p.unit_id, p.account_id, p.lon, p.lat, m.previous_ms FROM p JOIN m ON m.unit_id = p.unit_id
  WHERE m.previous_ms IS NULL OR p.ms > m.previous_ms
),
u AS MATERIALIZED (SELECT DISTINCT unit_id, account_id FROM q),
k AS (
  SELECT u.unit_id, u.account_id, l.geofence_id FROM u JOIN geofence_units l ON l.unit_id = u.unit_id
  UNION
  SELECT u.unit_id, u.account_id, v.geofence_id FROM u JOIN unit_profile_geozones v ON v.unit_id = u.unit_id
),
f AS MATERIALIZED (
  SELECT k.unit_id, z.id, z.name, z.theft_mode, z.real_time, q.previous_ms, q.i, CASE
    WHEN NOT (q.lon BETWEEN z.box_west AND z.box_east AND q.lat BETWEEN z.box_south AND z.box_north) THEN 0
    WHEN z.radius_m IS NOT NULL THEN CASE
      WHEN geofence_sphere_m(z.centre_lat, z.centre_lon, q.lat, q.lon) <= z.radius_m THEN 2
      WHEN geofence_sphere_m(z.centre_lat, z.centre_lon, q.lat, q.lon) <= z.radius_m + $6 THEN 1
      ELSE 0 END
    WHEN ST_Covers(z.match_geom, ST_SetSRID(ST_MakePoint(q.lon, q.lat), 4326)) THEN 2
    WHEN ST_DWithin(z.geom, ST_SetSRID(ST_MakePoint(q.lon, q.lat), 4326)::geography, $6, false) THEN 1
    ELSE 0 END AS side
  FROM k JOIN geofences z ON z.id = k.geofence_id AND z.account_id = k.account_id AND z.active
  JOIN q ON q.unit_id = k.unit_id
),
a AS MATERIALIZED (SELECT f.unit_id, f.id, bool_or(f.side = 2) AS any_inside, bool_and(f.side > 0) AS all_near FROM f GROUP BY f.unit_id, f.id),
s AS MATERIALIZED (
  SELECT s.unit_id, s.geofence_id, s.inside, s.leaning, s.leaning_count FROM u JOIN geofence_state s ON s.unit_id = u.unit_id
),
r AS MATERIALIZED (
  SELECT a.unit_id, a.id, s.inside, s.leaning, s.leaning_count
  FROM a LEFT JOIN s ON s.unit_id = a.unit_id AND s.geofence_id = a.id
  WHERE NOT (s.inside IS NOT NULL AND s.leaning IS NULL AND ((NOT s.inside AND NOT a.any_inside) OR (s.inside AND a.all_near)))
)
SELECT f.unit_id, f.id AS geofence_id, f.name, f.theft_mode, f.real_time, r.inside, r.leaning, r.leaning_count, f.previous_ms, f.i, f.side
FROM r JOIN f ON f.unit_id = r.unit_id AND f.id = r.id`;

/**
 * Of the crossings found, those in a deactivation window of their zone (read in the zone's time zone: day and minute
 * of the fix's local time; a window whose end is not after its start runs past midnight).
 */
const PAUSED_SQL = `
SELECT c.n FROM jsonb_to_recordset($1::jsonb) AS c(n int, geofence_id int, ms float8)
JOIN geofences z ON z.id = c.geofence_id
CROSS JOIN LATERAL (SELECT to_timestamp(c.ms / 1000) AT TIME ZONE z.time_zone AS lt) AS l
CROSS JOIN LATERAL (SELECT extract(dow FROM l.lt)::int AS dow, (extract(hour FROM l.lt) * 60 + extract(minute FROM l.lt))::int AS m) AS t
WHERE EXISTS (
  SELECT 1 FROM geofence_deactivations d
  WHERE d.geofence_id = z.id
    AND CASE WHEN d.from_minute < d.to_minute THEN t.dow = ANY(d.days) AND t.m >= d.from_minute AND t.m < d.to_minute
             ELSE (t.dow = ANY(d.days) AND t.m >= d.from_minute) OR ((t.dow + 6) % 7 = ANY(d.days) AND t.m < d.to_minute) END
)`;

const WRITE_SQL = `
WITH s AS (
  INSERT INTO geofence_state (unit_id, geofence_id, inside, leaning, leaning_count)
  SELECT x.unit_id, x.geofence_id, x.inside, x.leaning, x.leaning_count
  FROM jsonb_to_recordset($1::jsonb) AS x(unit_id int, geofence_id int, inside boolean, leaning boolean, leaning_count int)
  ORDER BY x.unit_id, x.geofence_id
  ON CONFLICT (unit_id, geofence_id) DO UPDATE SET inside = EXCLUDED.inside, leaning = EXCLUDED.leaning, leaning_count = EXCLUDED.leaning_count
  RETURNING 1
)
INSERT INTO geofence_events (account_id, geofence_id, unit_id, transition, at, lat, lon)
SELECT e.account_id, e.geofence_id, e.unit_id, e.transition, to_timestamp(e.ms / 1000), e.lat, e.lon
FROM jsonb_to_recordset($2::jsonb) AS e(account_id int, geofence_id int, unit_id int, transition text, ms float8, lat float8, lon float8)
ON CONFLICT DO NOTHING`;

const SIDES = [{ inside: false, near: false }, { inside: false, near: true }, { inside: true, near: true }] as const;

/** The stored-batch hook: matches a batch's positions inside its transaction (see the file's comment). */
export async function matchBatch(query: Querier, outbox: Outbox<EventMap>, positions: readonly StoredPosition[]): Promise<void> {
  const valid = positions.filter((position) => position.valid && (position.flags & FLAGS_NOT_A_FIX) === 0);
  if (valid.length === 0) return;
  // The valid fixes as columns (`i` is the index in `valid`); the statement keeps only those newer than their unit's mark.
  const rows = await query<FixRow>(MATCH_SQL, [
    `{${valid.map((fix) => fix.unitId).join(',')}}`,
    `{${valid.map((fix) => fix.accountId).join(',')}}`,
    `{${valid.map((fix) => fix.longitude).join(',')}}`,
    `{${valid.map((fix) => fix.latitude).join(',')}}`,
    `{${valid.map((fix) => fix.time.getTime()).join(',')}}`,
    MARGIN_M,
  ]);
  if (rows.length === 0) return;

  // One (unit, zone) pair's fixes, in unit and zone order.
  const pairs = new Map<string, { pair: FixRow; fixes: Array<ZoneFix & { at: StoredPosition }> }>();
  for (const row of rows) {
    const key = `${row.unit_id}:${row.geofence_id}`;
    let entry = pairs.get(key);
    if (!entry) {
      entry = { pair: row, fixes: [] };
      pairs.set(key, entry);
    }
    const at = valid[Number(row.i)]!;
    // Whether a crossing falls in a deactivation window is asked below, only of the crossings found.
    entry.fixes.push({ time: at.time.getTime(), ...SIDES[Number(row.side)]!, paused: false, at });
  }
  const ordered = [...pairs.values()].sort((a, b) => Number(a.pair.unit_id) - Number(b.pair.unit_id) || Number(a.pair.geofence_id) - Number(b.pair.geofence_id));
  const written: unknown[] = [];
  const found: Array<{ pair: FixRow; transition: GeofenceTransition; at: StoredPosition }> = [];
  for (const { pair, fixes: zoneFixes } of ordered) {
    const start: ZoneState = {
      inside: pair.inside ?? null,
      leaning: pair.leaning ?? null,
      leaningCount: Number(pair.leaning_count ?? 0),
      lastFix: pair.previous_ms === null ? null : Number(pair.previous_ms),
    };
    zoneFixes.sort((a, b) => a.time - b.time);
    const { state, crossings } = advance(start, zoneFixes);
    if (state.inside === start.inside && state.leaning === start.leaning && state.leaningCount === start.leaningCount) continue;
    written.push({ unit_id: Number(pair.unit_id), geofence_id: Number(pair.geofence_id), inside: state.inside, leaning: state.leaning, leaning_count: state.leaningCount });
    for (const crossing of crossings) found.push({ pair, transition: crossing.transition, at: (crossing.fix as ZoneFix & { at: StoredPosition }).at });
  }
  if (written.length === 0) return;

  const paused = new Set<number>();
  if (found.length > 0) {
    const rows = await query<{ n: number }>(PAUSED_SQL, [JSON.stringify(found.map((crossing, n) => ({ n, geofence_id: Number(crossing.pair.geofence_id), ms: crossing.at.time.getTime() })))]);
    for (const row of rows) paused.add(Number(row.n));
  }
  const logged: unknown[] = [];
  const published: Array<{ type: 'geofence.entered' | 'geofence.exited'; payload: GeofenceCrossing }> = [];
  for (const [n, { pair, transition, at }] of found.entries()) {
    if (paused.has(n)) continue;
    const geofenceId = Number(pair.geofence_id);
    logged.push({ account_id: at.accountId, geofence_id: geofenceId, unit_id: at.unitId, transition, ms: at.time.getTime(), lat: at.latitude, lon: at.longitude });
    // Spec §3 "real-time activation": without it a crossing is only logged (for reports), not raised.
    if (!pair.real_time) continue;
    published.push({
      type: transition === 'entered' ? 'geofence.entered' : 'geofence.exited',
      payload: {
        accountId: at.accountId,
        unitId: at.unitId,
        geofenceId,
        geofenceName: pair.name,
        theftMode: pair.theft_mode,
        at: at.time.toISOString(),
        latitude: at.latitude,
        longitude: at.longitude,
      },
    });
  }
  await query(WRITE_SQL, [JSON.stringify(written), JSON.stringify(logged)]);
  if (published.length > 0) await outbox.publishMany(query, published);
}
