import type { Querier } from '../../lib/db/client';
import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import type { BrandService } from '../brands/service';
import type { TrackingService } from '../tracking/service';
import type { UnitService } from '../units/service';
import { createZoneMatcher } from './matching';
import {
  type Deactivation,
  GEOFENCE_RADIUS_MAX,
  GEOFENCES_PER_UNIT_MAX,
  type GeofenceEventQuery,
  type GeofenceEventView,
  type GeofenceInput,
  type GeofencePoint,
  type GeofenceSettings,
  type GeofenceShape,
  type GeofenceTransition,
  type GeofenceView,
} from './model';

/**
 * Geofences (security zones; spec §1, §2 /user/geofences, §3 Geofence, §5, §6, §8, §9).
 *
 * Who manages which zone follows places: an administrator manages every zone of the account; an ordinary user sees
 * the zones assigned to at least one unit they can see and changes or deletes a zone only when they can see every unit
 * it is assigned to (else 403 "does not belong to you"); the units they assign must be units they can see. Another
 * account's zone is 404 like a missing one.
 *
 * A unit holds at most 5 zones (spec §5/§9), those of its feature profile included. Deactivation windows are read in
 * the account's time zone (from its country). Saving a zone's shape, or switching it off and on, forgets the (unit,
 * zone) states, so the next fixes confirm a side afresh without raising a crossing that happened while it was off.
 */

const geofenceNotFound = () => notFound('geofences.notFound');
const round6 = (value: number) => Math.round(Number(value) * 1e6) / 1e6;

/** The time zone of an account's country (the markets: Sweden, Norway, the UK); Stockholm otherwise. */
export function timeZoneOfCountry(country: string | null | undefined): string {
  const value = (country ?? '').trim().toLowerCase();
  if (/^(no|nor|norway|norge|noreg|norwegen)$/.test(value) || value.startsWith('norw') || value.startsWith('norg')) return 'Europe/Oslo';
  if (/^(uk|gb|gbr|great britain|united kingdom|england|scotland|wales|northern ireland|storbritannien|storbritannia)$/.test(value)) return 'Europe/London';
  return 'Europe/Stockholm';
}

/** "HH:mm" (or "24:00") as minutes of the day, and back. */
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const timeOf = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

interface ZoneRow extends Record<string, unknown> {
  id: number;
  name: string;
  shape: GeofenceShape;
  geojson: string;
  radius_m: number | null;
  theft_mode: boolean;
  real_time: boolean;
  active: boolean;
  time_zone: string;
  unit_ids: number[] | string | null;
}

interface DeactivationRow extends Record<string, unknown> {
  geofence_id: number;
  days: number[] | string;
  from_minute: number;
  to_minute: number;
}

/** int[] as the drivers hand it over: an array, or PostgreSQL's text form. */
function intArray(value: number[] | string | null | undefined): number[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(Number);
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',').map(Number) : [];
}

function shapeOf(row: ZoneRow): { center: GeofencePoint | null; points: GeofencePoint[] | null } {
  const geo = JSON.parse(row.geojson) as { type: string; coordinates: unknown };
  if (geo.type === 'Point') {
    const [lon, lat] = geo.coordinates as [number, number];
    return { center: { latitude: round6(lat), longitude: round6(lon) }, points: null };
  }
  const ring = (geo.coordinates as Array<Array<[number, number]>>)[0] ?? [];
  // The stored ring is closed; the wire's polygon is not (the first point is not repeated).
  return { center: null, points: ring.slice(0, -1).map(([lon, lat]) => ({ latitude: round6(lat), longitude: round6(lon) })) };
}

/** The zone's geography as EWKT: a circle's centre, or the polygon's ring closed. */
function geographyText(input: GeofenceInput): string {
  if (input.shape === 'circle') return `SRID=4326;POINT(${round6(input.center!.longitude)} ${round6(input.center!.latitude)})`;
  const ring = [...input.points!, input.points![0]!].map((point) => `${round6(point.longitude)} ${round6(point.latitude)}`);
  return `SRID=4326;POLYGON((${ring.join(', ')}))`;
}

export function createGeofenceService(platform: Platform, deps: { units: UnitService; brands: BrandService; tracking: TrackingService }) {
  const { database, clock, outbox } = platform;
  const { units, brands, tracking } = deps;
  const isAdmin = (actor: Actor) => actor.role === 'admin';

  // Matching runs inside every ingest batch's transaction (the gateway's ingest writer runs tracking's hooks).
  const matchBatch = createZoneMatcher();
  tracking.onStoredBatch((query, positions) => matchBatch(query, outbox, positions));

  /**
   * The names of the units the caller sees (spec §6), from the units module's published directory and its visibility
   * rule: not the unit list, which builds every unit's full view (a second's work for a large fleet, and the live map
   * reads the zones on each load and every minute).
   */
  async function visibleUnits(actor: Actor): Promise<Map<number, string>> {
    const [granted, rows] = await Promise.all([
      units.visibleUnitIds(actor),
      database.query<{ id: number; name: string }>('SELECT id, name FROM unit_directory WHERE account_id = $1', [actor.accountId]),
    ]);
    const visible = new Map<number, string>();
    for (const row of rows) if (granted === null || granted.has(Number(row.id))) visible.set(Number(row.id), row.name);
    return visible;
  }

  async function zoneRows(query: Querier, accountId: number, filter: { id?: number; q?: string; lock?: boolean } = {}): Promise<ZoneRow[]> {
    const params: unknown[] = [accountId];
    const where = ['z.account_id = $1'];
    if (filter.id !== undefined) {
      params.push(filter.id);
      where.push(`z.id = $${params.length}`);
    }
    if (filter.q) {
      params.push(`%${filter.q.replace(/[\\%_]/g, (match) => `\\${match}`)}%`);
      where.push(`z.name ILIKE $${params.length}`);
    }
    return query<ZoneRow>(
      `SELECT z.id, z.name, z.shape, ST_AsGeoJSON(z.geom, 7) AS geojson, z.radius_m, z.theft_mode, z.real_time, z.active, z.time_zone,
              (SELECT array_agg(l.unit_id ORDER BY l.unit_id) FROM geofence_units l WHERE l.geofence_id = z.id) AS unit_ids
       FROM geofences z WHERE ${where.join(' AND ')}
       ORDER BY lower(z.name), z.id ${filter.lock ? 'FOR UPDATE OF z' : ''}`,
      params,
    );
  }

  function canManage(actor: Actor, unitIds: number[], visible: Map<number, string>): boolean {
    return isAdmin(actor) || (unitIds.length > 0 && unitIds.every((id) => visible.has(id)));
  }

  function canSee(actor: Actor, unitIds: number[], visible: Map<number, string>): boolean {
    return isAdmin(actor) || unitIds.some((id) => visible.has(id));
  }

  async function views(actor: Actor, rows: ZoneRow[], visible: Map<number, string>): Promise<GeofenceView[]> {
    const ids = rows.map((row) => Number(row.id));
    const [windows, inside] = ids.length
      ? await Promise.all([
          database.query<DeactivationRow>(
            'SELECT geofence_id, days, from_minute, to_minute FROM geofence_deactivations WHERE geofence_id = ANY($1::int[]) ORDER BY geofence_id, position, id',
            [ids],
          ),
          database.query<{ geofence_id: number; unit_id: number }>(
            'SELECT geofence_id, unit_id FROM geofence_state WHERE geofence_id = ANY($1::int[]) AND inside ORDER BY unit_id',
            [ids],
          ),
        ])
      : [[], []];
    const windowsOf = new Map<number, Deactivation[]>();
    for (const row of windows) {
      const list = windowsOf.get(Number(row.geofence_id)) ?? [];
      list.push({ days: intArray(row.days).sort((a, b) => a - b), from: timeOf(Number(row.from_minute)), to: timeOf(Number(row.to_minute)) });
      windowsOf.set(Number(row.geofence_id), list);
    }
    const insideOf = new Map<number, number[]>();
    for (const row of inside) {
      if (!visible.has(Number(row.unit_id))) continue;
      const list = insideOf.get(Number(row.geofence_id)) ?? [];
      list.push(Number(row.unit_id));
      insideOf.set(Number(row.geofence_id), list);
    }
    return rows.map((row) => {
      const unitIds = intArray(row.unit_ids);
      const { center, points } = shapeOf(row);
      return {
        id: Number(row.id),
        name: row.name,
        shape: row.shape,
        center,
        radiusM: row.radius_m === null ? null : Number(row.radius_m),
        points,
        units: unitIds.filter((id) => visible.has(id)).map((id) => ({ id, name: visible.get(id)! })),
        deactivations: windowsOf.get(Number(row.id)) ?? [],
        theftMode: row.theft_mode,
        realTime: row.real_time,
        active: row.active,
        timeZone: row.time_zone,
        unitsInside: insideOf.get(Number(row.id)) ?? [],
        editable: canManage(actor, unitIds, visible),
      };
    });
  }

  async function visibleZone(actor: Actor, id: number, visible: Map<number, string>): Promise<ZoneRow> {
    const [row] = await zoneRows(database.query, actor.accountId, { id });
    if (!row || !canSee(actor, intArray(row.unit_ids), visible)) throw geofenceNotFound();
    return row;
  }

  async function settings(actor: Actor): Promise<GeofenceSettings> {
    return { radiusMinM: await brands.geofenceRadiusMin(actor.subsiteId), radiusMaxM: GEOFENCE_RADIUS_MAX, perUnitMax: GEOFENCES_PER_UNIT_MAX };
  }

  /** Spec §5/§6: every unit must be one the caller can see (another account's, or one not given to an ordinary user: refused alike). */
  async function checkUnits(actor: Actor, unitIds: number[], visible: Map<number, string>): Promise<void> {
    // An ordinary user's zone needs a unit of theirs, or they could not see it once saved.
    if (!isAdmin(actor) && unitIds.length === 0) throw new AppError(422, 'validation.failed', { fields: { units: ['geofences.units.required'] } });
    if (unitIds.some((id) => !visible.has(id))) throw new AppError(422, 'validation.failed', { fields: { units: ['geofences.units.notFound'] } });
  }

  /**
   * Spec §5/§9: at most 5 zones per unit, the zones of its feature profile included, checked in the saving transaction
   * after taking each unit's zone lock (the database's `geofence_lock_units`, also taken by its triggers when a feature
   * profile gains zones or a unit a profile), so two saves at once cannot together pass the limit.
   */
  async function checkZonesPerUnit(query: Querier, geofenceId: number | null, unitIds: number[]): Promise<void> {
    if (unitIds.length === 0) return;
    await query('SELECT geofence_lock_units($1::int[])', [unitIds]);
    const rows = await query<{ unit_id: number; zones: number }>(
      `SELECT k.unit_id, count(DISTINCT k.geofence_id)::int AS zones FROM (
         SELECT unit_id, geofence_id FROM geofence_units WHERE unit_id = ANY($1::int[])
         UNION SELECT unit_id, geofence_id FROM unit_profile_geozones WHERE unit_id = ANY($1::int[])
       ) AS k JOIN geofences z ON z.id = k.geofence_id
       WHERE k.geofence_id IS DISTINCT FROM $2::int
       GROUP BY k.unit_id`,
      [unitIds, geofenceId],
    );
    if (rows.some((row) => Number(row.zones) + 1 > GEOFENCES_PER_UNIT_MAX)) {
      throw new AppError(422, 'validation.failed', { fields: { units: ['geofences.units.tooMany'] } });
    }
  }

  /**
   * Holds matching off the zone's units (their marks, locked in unit order as matching locks them) until the transaction
   * ends, so a batch being matched against the zone as it was cannot write a state after the zone's states are reset.
   * The units the zone is given (`unitIds`) are taken at once too: their rows are rewritten when the links are, and
   * taking every row in one ordered step is what keeps a save and a batch from waiting on each other in a circle.
   */
  async function holdMatching(query: Querier, geofenceId: number | null, unitIds: number[] = []): Promise<void> {
    await query(
      `SELECT unit_id FROM geofence_unit_marks WHERE unit_id IN (
         SELECT unit_id FROM geofence_state WHERE geofence_id = $1
         UNION SELECT unit_id FROM geofence_units WHERE geofence_id = $1
         UNION SELECT unit_id FROM unit_profile_geozones WHERE geofence_id = $1
         UNION SELECT unnest($2::int[])
       ) ORDER BY unit_id FOR UPDATE`,
      [geofenceId, unitIds],
    );
  }

  async function checkShape(query: Querier, input: GeofenceInput, minimum: number): Promise<void> {
    if (input.shape === 'circle') {
      if ((input.radiusM ?? 0) < minimum) throw fieldError('radiusM', 'geofences.radius.tooSmall', { min: minimum });
      return;
    }
    const [row] = await query<{ valid: boolean }>('SELECT ST_IsValid(ST_GeomFromEWKT($1)) AS valid', [geographyText(input)]);
    if (!row?.valid) throw fieldError('points', 'geofences.coordinates.invalid');
  }

  async function accountTimeZone(query: Querier, accountId: number): Promise<string> {
    const [row] = await query<{ country: string }>('SELECT country FROM account_directory WHERE id = $1', [accountId]);
    return timeZoneOfCountry(row?.country);
  }

  async function writeChildren(query: Querier, accountId: number, geofenceId: number, input: GeofenceInput): Promise<void> {
    await query('DELETE FROM geofence_units WHERE geofence_id = $1', [geofenceId]);
    await query('INSERT INTO geofence_units (geofence_id, unit_id, account_id) SELECT $1, u, $3 FROM unnest($2::int[]) AS u ON CONFLICT DO NOTHING', [
      geofenceId,
      [...new Set(input.units)],
      accountId,
    ]);
    await query('DELETE FROM geofence_deactivations WHERE geofence_id = $1', [geofenceId]);
    for (const [position, window] of input.deactivations.entries()) {
      await query(
        'INSERT INTO geofence_deactivations (geofence_id, position, days, from_minute, to_minute, account_id) VALUES ($1, $2, $3::smallint[], $4, $5, $6)',
        [geofenceId, position, [...new Set(window.days)].sort((a, b) => a - b), minutesOf(window.from), minutesOf(window.to), accountId],
      );
    }
    // States of units no longer assigned go; the rest is kept unless the shape changed (the caller clears those).
    await query(
      `DELETE FROM geofence_state s WHERE s.geofence_id = $1
         AND NOT EXISTS (SELECT 1 FROM geofence_units l WHERE l.geofence_id = s.geofence_id AND l.unit_id = s.unit_id)
         AND NOT EXISTS (SELECT 1 FROM unit_profile_geozones v WHERE v.geofence_id = s.geofence_id AND v.unit_id = s.unit_id)`,
      [geofenceId],
    );
  }

  async function get(actor: Actor, id: number): Promise<GeofenceView> {
    const visible = await visibleUnits(actor);
    const row = await visibleZone(actor, id, visible);
    return (await views(actor, [row], visible))[0]!;
  }

  async function managedZone(actor: Actor, id: number, visible: Map<number, string>): Promise<ZoneRow> {
    const row = await visibleZone(actor, id, visible);
    if (!canManage(actor, intArray(row.unit_ids), visible)) throw forbidden('geofences.notYours');
    return row;
  }

  return {
    settings,

    /** Spec §2 /user/geofences: the zones the caller sees, searched by name. */
    async list(actor: Actor, query: { q?: string } = {}): Promise<GeofenceView[]> {
      const all = await zoneRows(database.query, actor.accountId, { q: query.q });
      // An account without zones (most, and the live map asks on every load): nothing more to read.
      if (all.length === 0) return [];
      const visible = await visibleUnits(actor);
      const rows = all.filter((row) => canSee(actor, intArray(row.unit_ids), visible));
      return views(actor, rows, visible);
    },

    get,

    /** Creates a zone (id null) or saves one: shape, units, deactivation windows and switches at once. */
    async save(actor: Actor, id: number | null, input: GeofenceInput): Promise<GeofenceView> {
      const visible = await visibleUnits(actor);
      if (id !== null) await managedZone(actor, id, visible);
      const unitIds = [...new Set(input.units)];
      await checkUnits(actor, unitIds, visible);
      const now = clock.now().toISOString();
      // Read before the transaction: on PGlite a query outside it would wait for it.
      const minimum = await brands.geofenceRadiusMin(actor.subsiteId);
      const saved = await database.transaction(async (query) => {
        await checkShape(query, input, minimum);
        const timeZone = await accountTimeZone(query, actor.accountId);
        let geofenceId = id;
        if (geofenceId === null) {
          await checkZonesPerUnit(query, null, unitIds);
          await holdMatching(query, null, unitIds);
          const [row] = await query<{ id: number }>(
            `INSERT INTO geofences (account_id, name, shape, geom, radius_m, theft_mode, real_time, active, time_zone, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, ST_GeogFromText($4), $5, $6, $7, $8, $9, $10, $11::timestamptz, $11::timestamptz) RETURNING id`,
            [actor.accountId, input.name, input.shape, geographyText(input), input.shape === 'circle' ? input.radiusM : null, input.theftMode, input.realTime, input.active, timeZone, actor.userId, now],
          );
          geofenceId = Number(row!.id);
        } else {
          // Locked and read again inside the transaction: deleted meanwhile is 404.
          const [row] = await zoneRows(query, actor.accountId, { id: geofenceId, lock: true });
          if (!row) throw geofenceNotFound();
          await checkZonesPerUnit(query, geofenceId, unitIds);
          await holdMatching(query, geofenceId, unitIds);
          const [changed] = await query<{ reset: boolean }>(
            `UPDATE geofences SET name = $3, shape = $4, geom = ST_GeogFromText($5), radius_m = $6, theft_mode = $7, real_time = $8,
                    active = $9, time_zone = $10, updated_at = $11::timestamptz
             WHERE id = $1 AND account_id = $2
             RETURNING (SELECT NOT (o.shape = $4 AND ST_Equals(o.geom::geometry, ST_GeomFromEWKT($5)) AND o.radius_m IS NOT DISTINCT FROM $6 AND o.active = $9)
                        FROM geofences o WHERE o.id = $1) AS reset`,
            [geofenceId, actor.accountId, input.name, input.shape, geographyText(input), input.shape === 'circle' ? input.radiusM : null, input.theftMode, input.realTime, input.active, timeZone, now],
          );
          if (changed?.reset) await query('DELETE FROM geofence_state WHERE geofence_id = $1', [geofenceId]);
        }
        await writeChildren(query, actor.accountId, geofenceId, input);
        return geofenceId;
      });
      return get(actor, saved);
    },

    /** Spec §4: a zone switched off raises nothing; switched on again, its units confirm a side afresh. */
    async setActive(actor: Actor, id: number, active: boolean): Promise<GeofenceView> {
      const visible = await visibleUnits(actor);
      await managedZone(actor, id, visible);
      await database.transaction(async (query) => {
        await holdMatching(query, id);
        const [row] = await query<{ id: number }>(
          'UPDATE geofences SET active = $3, updated_at = $4::timestamptz WHERE id = $1 AND account_id = $2 AND active <> $3 RETURNING id',
          [id, actor.accountId, active, clock.now().toISOString()],
        );
        if (row) await query('DELETE FROM geofence_state WHERE geofence_id = $1', [id]);
      });
      return get(actor, id);
    },

    /** Spec §8 "could not delete": a zone a feature profile names stays until the profile lets it go (409). */
    async remove(actor: Actor, id: number): Promise<{ deleted: true }> {
      const visible = await visibleUnits(actor);
      await managedZone(actor, id, visible);
      await database.transaction(async (query) => {
        const [named] = await query('SELECT 1 FROM feature_profile_geozones WHERE account_id = $1 AND geofence_id = $2 LIMIT 1', [actor.accountId, id]);
        if (named) throw new AppError(409, 'geofences.delete.failed');
        // Units first, then the zone, as a batch takes them: a batch writing a state of this zone cannot deadlock the delete.
        await holdMatching(query, id);
        // The units' state in the zone sits with the positions (distributed by unit), out of reach of a cascade.
        await query('DELETE FROM geofence_state WHERE geofence_id = $1', [id]);
        await query('DELETE FROM geofences WHERE id = $1 AND account_id = $2', [id, actor.accountId]);
      });
      return { deleted: true };
    },

    /** The zone event log: crossings of zones and units the caller sees, newest first. */
    async events(actor: Actor, query: GeofenceEventQuery): Promise<GeofenceEventView[]> {
      const visible = await visibleUnits(actor);
      if (query.geofenceId !== undefined) await visibleZone(actor, query.geofenceId, visible);
      if (query.unitId !== undefined && !visible.has(query.unitId)) throw notFound('errors.unitNotFound');
      const params: unknown[] = [actor.accountId, [...visible.keys()]];
      const where = ['e.account_id = $1', 'e.unit_id = ANY($2::int[])'];
      const add = (clause: string, value: unknown) => {
        params.push(value);
        where.push(clause.replace('?', `$${params.length}`));
      };
      if (query.geofenceId !== undefined) add('e.geofence_id = ?', query.geofenceId);
      if (query.unitId !== undefined) add('e.unit_id = ?', query.unitId);
      if (query.from) add('e.at >= ?::timestamptz', query.from);
      if (query.to) add('e.at < ?::timestamptz', query.to);
      params.push(query.limit);
      const rows = await database.query<{ id: number | string; geofence_id: number; name: string; unit_id: number; transition: GeofenceTransition; at: Date | string; lat: number; lon: number }>(
        `SELECT e.id, e.geofence_id, z.name, e.unit_id, e.transition, e.at, e.lat, e.lon
         FROM geofence_events e JOIN geofences z ON z.id = e.geofence_id
         WHERE ${where.join(' AND ')} ORDER BY e.at DESC, e.id DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map((row) => ({
        id: Number(row.id),
        geofenceId: Number(row.geofence_id),
        geofenceName: row.name,
        unitId: Number(row.unit_id),
        unitName: visible.get(Number(row.unit_id)) ?? '',
        transition: row.transition,
        at: new Date(row.at).toISOString(),
        latitude: round6(row.lat),
        longitude: round6(row.lon),
      }));
    },

    /** For the units module's feature profiles: of these ids, the account's zones. */
    async geozonesOf(accountId: number, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await database.query<{ id: number }>('SELECT id FROM geofences WHERE account_id = $1 AND id = ANY($2::int[])', [accountId, ids]);
      return rows.map((row) => Number(row.id));
    },
  };
}

export type GeofenceService = ReturnType<typeof createGeofenceService>;
