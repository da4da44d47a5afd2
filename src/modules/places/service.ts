import type { Querier } from '../../lib/db/client';
import type { Geocoder } from '../../lib/geocoding';
import { AppError, forbidden, notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import { isTimeZone } from '../../lib/time';
import type { Actor } from '../auth/model';
import type { ClassifiableTrip } from '../trips/service';
import type { TripType } from '../trips/model';
import type { UnitService } from '../units/service';
import {
  minutesOf,
  PLACE_ADDRESS_MAX,
  type PlaceCategory,
  type PlaceGeocodeCandidate,
  type PlaceGeocodeQuery,
  type PlaceGeocoderView,
  type PlaceInput,
  type PlaceListQuery,
  type PlaceRuleKind,
  type PlaceRuleView,
  type PlaceView,
  timeOf,
} from './model';
import { matchingRule, type RuleForMatch } from './rules';

/**
 * Places and their rules (spec §1, §2 /user/places, §3 Place, §5, §6, §8).
 *
 * Who manages which place (spec §6 is silent; chosen here): an administrator manages every place of the account.
 * An ordinary user sees the places assigned to at least one unit they can see, and changes or deletes a place
 * only when they can see every unit it is assigned to; the units they assign must be units they can see. Any
 * other place of the account answers "place does not belong to you" (403, spec §8); another account's place is
 * 404 like a missing one. A "between" rule may name any other place of the account.
 *
 * The trip log uses places through `tripPort()`: categorizing trips by the rules as they are detected or on
 * demand, and the place label as the address of a trip that starts or ends in a place.
 */

const FALLBACK_TIME_ZONE = 'Europe/Stockholm';
const placeNotFound = () => notFound('places.notFound');

interface PlaceRow extends Record<string, unknown> {
  id: number;
  label: string;
  address: string;
  lat: number;
  lon: number;
  radius_m: number;
  time_zone: string;
  unit_ids: number[] | string | null;
}

interface RuleRow extends Record<string, unknown> {
  id: number;
  place_id: number;
  kind: PlaceRuleKind;
  other_place_id: number | null;
  other_label: string | null;
  days: number[] | string;
  from_minute: number;
  to_minute: number;
  category: PlaceCategory;
  time_zone: string;
}

/** int[] as the drivers hand it over: an array, or PostgreSQL's text form. */
function intArray(value: number[] | string | null | undefined): number[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(Number);
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',').map(Number) : [];
}

const round6 = (value: number) => Math.round(Number(value) * 1e6) / 1e6;

/** A geocoder's label cut to the address limit, at a comma when one is near the end. */
export function shortAddress(label: string): string {
  const text = label.trim();
  if (text.length <= PLACE_ADDRESS_MAX) return text;
  const cut = text.slice(0, PLACE_ADDRESS_MAX);
  const comma = cut.lastIndexOf(',');
  return (comma >= 20 ? cut.slice(0, comma) : cut).trim();
}

function ruleView(row: RuleRow): PlaceRuleView {
  return {
    id: Number(row.id),
    kind: row.kind,
    otherPlaceId: row.other_place_id === null ? null : Number(row.other_place_id),
    otherPlaceLabel: row.other_label ?? null,
    days: intArray(row.days).sort((a, b) => a - b),
    from: timeOf(Number(row.from_minute)),
    to: timeOf(Number(row.to_minute)),
    category: row.category,
  };
}

/** What the trip log asks of places (injected into the trip service from the composition root). */
export interface TripPlacesPort {
  /** Per trip the type a rule gives it, or null; runs inside the caller's transaction. */
  classify(query: Querier, trips: ClassifiableTrip[]): Promise<Array<TripType | null>>;
  /** Per point the label of the unit's place it lies in (the nearest centre when several), or null. */
  labels(unitId: number, accountId: number, points: Array<{ lat: number; lon: number }>): Promise<Array<{ id: number; label: string } | null>>;
}

export function createPlaceService(platform: Platform, units: UnitService, geocoder: Geocoder) {
  const { database, clock } = platform;
  const isAdmin = (actor: Actor) => actor.role === 'admin';

  /** The units the caller can see, by id and name. */
  async function visibleUnits(actor: Actor): Promise<Map<number, string>> {
    const list = await units.list(actor);
    return new Map(list.map((unit) => [unit.ID, unit.Name]));
  }

  async function placeRows(query: Querier, accountId: number, filter: { id?: number; q?: string; lock?: boolean } = {}): Promise<PlaceRow[]> {
    const params: unknown[] = [accountId];
    const where = ['p.account_id = $1'];
    if (filter.id !== undefined) {
      params.push(filter.id);
      where.push(`p.id = $${params.length}`);
    }
    if (filter.q) {
      params.push(`%${filter.q.replace(/[\\%_]/g, (match) => `\\${match}`)}%`);
      where.push(`(p.label ILIKE $${params.length} OR p.address ILIKE $${params.length})`);
    }
    return query<PlaceRow>(
      `SELECT p.id, p.label, p.address, ST_Y(p.center::geometry) AS lat, ST_X(p.center::geometry) AS lon, p.radius_m, p.time_zone,
              (SELECT array_agg(pu.unit_id ORDER BY pu.unit_id) FROM place_units pu WHERE pu.place_id = p.id) AS unit_ids
       FROM places p WHERE ${where.join(' AND ')}
       ORDER BY lower(p.label), p.id ${filter.lock ? 'FOR UPDATE OF p' : ''}`,
      params,
    );
  }

  async function rulesOf(query: Querier, placeIds: number[]): Promise<RuleRow[]> {
    if (placeIds.length === 0) return [];
    return query<RuleRow>(
      `SELECT r.id, r.place_id, r.kind, r.other_place_id, o.label AS other_label, r.days, r.from_minute, r.to_minute, r.category, p.time_zone
       FROM place_rules r JOIN places p ON p.id = r.place_id LEFT JOIN places o ON o.id = r.other_place_id
       WHERE r.place_id = ANY($1::int[])
       ORDER BY r.place_id, r.position, r.id`,
      [placeIds],
    );
  }

  function canManage(actor: Actor, unitIds: number[], visible: Map<number, string>): boolean {
    return isAdmin(actor) || (unitIds.length > 0 && unitIds.every((id) => visible.has(id)));
  }

  /** Of these places, the ones the caller may see: all for an administrator, else those with a unit the caller sees. */
  async function seenPlaces(query: Querier, actor: Actor, placeIds: number[], visible: Map<number, string>): Promise<Set<number>> {
    if (isAdmin(actor)) return new Set(placeIds);
    if (placeIds.length === 0 || visible.size === 0) return new Set();
    const rows = await query<{ place_id: number }>(
      'SELECT DISTINCT place_id FROM place_units WHERE place_id = ANY($1::int[]) AND unit_id = ANY($2::int[])',
      [placeIds, [...visible.keys()]],
    );
    return new Set(rows.map((row) => Number(row.place_id)));
  }

  async function views(actor: Actor, rows: PlaceRow[], visible: Map<number, string>): Promise<PlaceView[]> {
    const rules = await rulesOf(database.query, rows.map((row) => Number(row.id)));
    const others = [...new Set(rules.map((rule) => rule.other_place_id).filter((id) => id !== null).map(Number))];
    const seen = await seenPlaces(database.query, actor, others, visible);
    const byPlace = new Map<number, PlaceRuleView[]>();
    for (const rule of rules) {
      const list = byPlace.get(Number(rule.place_id)) ?? [];
      // The other place of a "between" rule is named only to whoever may see that place.
      const otherSeen = rule.other_place_id === null || seen.has(Number(rule.other_place_id));
      list.push(ruleView(otherSeen ? rule : { ...rule, other_label: null }));
      byPlace.set(Number(rule.place_id), list);
    }
    return rows.map((row) => {
      const unitIds = intArray(row.unit_ids);
      return {
        id: Number(row.id),
        label: row.label,
        address: row.address,
        latitude: round6(row.lat),
        longitude: round6(row.lon),
        radiusM: Number(row.radius_m),
        timeZone: row.time_zone,
        units: unitIds.filter((id) => visible.has(id)).map((id) => ({ id, name: visible.get(id)! })),
        rules: byPlace.get(Number(row.id)) ?? [],
        editable: canManage(actor, unitIds, visible),
      };
    });
  }

  /** A place of the caller's account that the caller may see; another account's place is 404. */
  async function visiblePlace(actor: Actor, id: number, visible: Map<number, string>): Promise<PlaceRow> {
    const [row] = await placeRows(database.query, actor.accountId, { id });
    if (!row) throw placeNotFound();
    const unitIds = intArray(row.unit_ids);
    if (!isAdmin(actor) && !unitIds.some((unitId) => visible.has(unitId))) throw placeNotFound();
    return row;
  }

  /** Spec §5/§6: every unit must be one the caller can see (another account's, or one not given to an ordinary user: refused alike). */
  async function checkUnits(actor: Actor, unitIds: number[]): Promise<void> {
    for (const id of unitIds) {
      try {
        await units.get(actor, id);
      } catch (error) {
        if (error instanceof AppError && (error.status === 404 || error.status === 403)) {
          throw new AppError(422, 'validation.failed', { fields: { units: ['places.units.notFound'] } });
        }
        throw error;
      }
    }
  }

  async function checkOtherPlaces(query: Querier, actor: Actor, placeId: number | null, input: PlaceInput, visible: Map<number, string>): Promise<void> {
    const fields: Record<string, string[]> = {};
    const wanted = [...new Set(input.rules.map((rule) => rule.otherPlaceId).filter((id): id is number => typeof id === 'number'))];
    const found = wanted.length
      ? await query<{ id: number }>('SELECT id FROM places WHERE account_id = $1 AND id = ANY($2::int[])', [actor.accountId, wanted])
      : [];
    // An ordinary user names only places they may see, or keeps the ones the place's rules already name.
    const kept =
      placeId === null || isAdmin(actor)
        ? []
        : await query<{ id: number }>('SELECT other_place_id AS id FROM place_rules WHERE place_id = $1 AND other_place_id IS NOT NULL', [placeId]);
    const seen = await seenPlaces(query, actor, found.map((row) => Number(row.id)), visible);
    const known = new Set([...found.map((row) => Number(row.id)).filter((id) => seen.has(id)), ...kept.map((row) => Number(row.id))]);
    input.rules.forEach((rule, index) => {
      if (rule.kind !== 'between') return;
      const other = rule.otherPlaceId ?? null;
      if (other === null || other === placeId || !known.has(other)) fields[`rules.${index}.otherPlaceId`] = ['places.rule.otherPlace'];
    });
    if (Object.keys(fields).length > 0) throw new AppError(422, 'validation.failed', { fields });
  }

  async function addressFor(input: PlaceInput): Promise<string> {
    if (input.address) return input.address;
    const found = await geocoder.reverse(input.latitude, input.longitude);
    return found ? shortAddress(found) : '';
  }

  async function writeChildren(query: Querier, accountId: number, placeId: number, input: PlaceInput): Promise<void> {
    await query('DELETE FROM place_units WHERE place_id = $1', [placeId]);
    await query('INSERT INTO place_units (place_id, unit_id, account_id) SELECT $1, u, $3 FROM unnest($2::int[]) AS u ON CONFLICT DO NOTHING', [
      placeId,
      [...new Set(input.units)],
      accountId,
    ]);
    await query('DELETE FROM place_rules WHERE place_id = $1', [placeId]);
    for (const [position, rule] of input.rules.entries()) {
      await query(
        `INSERT INTO place_rules (place_id, position, kind, other_place_id, days, from_minute, to_minute, category, account_id)
         VALUES ($1, $2, $3, $4, $5::smallint[], $6, $7, $8, $9)`,
        [
          placeId,
          position,
          rule.kind,
          rule.kind === 'between' ? rule.otherPlaceId : null,
          [...new Set(rule.days)].sort((a, b) => a - b),
          minutesOf(rule.from),
          minutesOf(rule.to),
          rule.category,
          accountId,
        ],
      );
    }
  }

  const zoneOf = (actor: Actor, requestTimeZone?: string | null) =>
    isTimeZone(requestTimeZone) ? requestTimeZone : isTimeZone(actor.timezone) ? actor.timezone : FALLBACK_TIME_ZONE;

  /** Places (assigned to the unit, of its account) that contain each point, with whether the unit is assigned. */
  async function containing(
    query: Querier,
    points: Array<{ unitId: number; accountId: number; lat: number; lon: number }>,
  ): Promise<Array<{ i: number; placeId: number; assigned: boolean; distance: number; label: string }>> {
    if (points.length === 0) return [];
    const rows = await query<{ i: number; place_id: number; assigned: boolean; distance: number; label: string }>(
      `SELECT x.i, p.id AS place_id, p.label,
              EXISTS (SELECT 1 FROM place_units pu WHERE pu.place_id = p.id AND pu.unit_id = x.u) AS assigned,
              ST_Distance(p.center, x.g) AS distance
       FROM (SELECT i, u, a, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS g
             FROM unnest($1::int[], $2::int[], $3::int[], $4::float8[], $5::float8[]) AS t(i, u, a, lat, lon)) AS x
       JOIN places p ON p.account_id = x.a AND ST_DWithin(p.center, x.g, p.radius_m)
       ORDER BY x.i, distance, p.id`,
      [points.map((_, i) => i), points.map((p) => p.unitId), points.map((p) => p.accountId), points.map((p) => p.lat), points.map((p) => p.lon)],
    );
    return rows.map((row) => ({
      i: Number(row.i),
      placeId: Number(row.place_id),
      assigned: row.assigned === true,
      distance: Number(row.distance),
      label: row.label,
    }));
  }

  async function classify(query: Querier, trips: ClassifiableTrip[]): Promise<Array<TripType | null>> {
    if (trips.length === 0) return [];
    const hits = await containing(
      query,
      trips.flatMap((trip) => [
        { unitId: trip.unitId, accountId: trip.accountId, lat: trip.startLat, lon: trip.startLon },
        { unitId: trip.unitId, accountId: trip.accountId, lat: trip.stopLat, lon: trip.stopLon },
      ]),
    );
    if (hits.length === 0) return trips.map(() => null);
    const inside = trips.map(() => ({ start: new Set<number>(), stop: new Set<number>(), assigned: new Set<number>() }));
    for (const hit of hits) {
      const entry = inside[Math.floor(hit.i / 2)]!;
      (hit.i % 2 === 0 ? entry.start : entry.stop).add(hit.placeId);
      if (hit.assigned) entry.assigned.add(hit.placeId);
    }
    const rules = await rulesOf(query, [...new Set(hits.filter((hit) => hit.assigned).map((hit) => hit.placeId))]);
    const forMatch: RuleForMatch[] = rules.map((row) => ({
      id: Number(row.id),
      placeId: Number(row.place_id),
      kind: row.kind,
      otherPlaceId: row.other_place_id === null ? null : Number(row.other_place_id),
      days: intArray(row.days),
      fromMinute: Number(row.from_minute),
      toMinute: Number(row.to_minute),
      category: row.category,
      timeZone: isTimeZone(row.time_zone) ? row.time_zone : FALLBACK_TIME_ZONE,
    }));
    return trips.map((trip, index) => {
      const entry = inside[index]!;
      // Only the rules of places assigned to the trip's unit apply.
      const applicable = forMatch.filter((rule) => entry.assigned.has(rule.placeId));
      const rule = matchingRule(applicable, { startMs: trip.startMs, stopMs: trip.stopMs, startPlaces: entry.start, stopPlaces: entry.stop });
      return rule ? rule.category : null;
    });
  }

  async function labels(unitId: number, accountId: number, points: Array<{ lat: number; lon: number }>) {
    const hits = await containing(
      database.query,
      points.map((point) => ({ unitId, accountId, lat: point.lat, lon: point.lon })),
    );
    const result: Array<{ id: number; label: string } | null> = points.map(() => null);
    // Rows come nearest first per point.
    for (const hit of hits) {
      if (hit.assigned && result[hit.i] === null) result[hit.i] = { id: hit.placeId, label: hit.label };
    }
    return result;
  }

  async function get(actor: Actor, id: number): Promise<PlaceView> {
    const visible = await visibleUnits(actor);
    const row = await visiblePlace(actor, id, visible);
    return (await views(actor, [row], visible))[0]!;
  }

  return {
    /** Spec §2 /user/places: the places the caller sees, searched by label or address. */
    async list(actor: Actor, query: PlaceListQuery = {}): Promise<PlaceView[]> {
      const visible = await visibleUnits(actor);
      let rows = await placeRows(database.query, actor.accountId, { q: query.q });
      if (!isAdmin(actor)) rows = rows.filter((row) => intArray(row.unit_ids).some((id) => visible.has(id)));
      return views(actor, rows, visible);
    },

    get,

    /** Creates a place (id null) or saves one: label, address, circle, units and rules at once. */
    async save(actor: Actor, id: number | null, input: PlaceInput, requestTimeZone?: string | null): Promise<PlaceView> {
      const visible = await visibleUnits(actor);
      if (id !== null) {
        const row = await visiblePlace(actor, id, visible);
        if (!canManage(actor, intArray(row.unit_ids), visible)) throw forbidden('places.notYours');
      }
      await checkUnits(actor, [...new Set(input.units)]);
      const address = await addressFor(input);
      const timeZone = zoneOf(actor, requestTimeZone);
      const now = clock.now().toISOString();
      const saved = await database.transaction(async (query) => {
        let placeId = id;
        if (placeId === null) {
          await checkOtherPlaces(query, actor, null, input, visible);
          const [row] = await query<{ id: number }>(
            `INSERT INTO places (account_id, label, address, center, radius_m, time_zone, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, ST_SetSRID(ST_MakePoint($5, $4), 4326)::geography, $6, $7, $8, $9::timestamptz, $9::timestamptz)
             RETURNING id`,
            [actor.accountId, input.label, address, round6(input.latitude), round6(input.longitude), input.radiusM, timeZone, actor.userId, now],
          );
          placeId = Number(row!.id);
        } else {
          // Locked and looked up again inside the transaction: deleted meanwhile is 404.
          const [row] = await placeRows(query, actor.accountId, { id: placeId, lock: true });
          if (!row) throw placeNotFound();
          await checkOtherPlaces(query, actor, placeId, input, visible);
          await query(
            `UPDATE places SET label = $3, address = $4, center = ST_SetSRID(ST_MakePoint($6, $5), 4326)::geography, radius_m = $7,
                    time_zone = $8, updated_at = $9::timestamptz
             WHERE id = $1 AND account_id = $2`,
            [placeId, actor.accountId, input.label, address, round6(input.latitude), round6(input.longitude), input.radiusM, timeZone, now],
          );
        }
        await writeChildren(query, actor.accountId, placeId, input);
        return placeId;
      });
      return get(actor, saved);
    },

    async remove(actor: Actor, id: number): Promise<{ id: number }> {
      const visible = await visibleUnits(actor);
      const row = await visiblePlace(actor, id, visible);
      if (!canManage(actor, intArray(row.unit_ids), visible)) throw forbidden('places.notYours');
      await database.query('DELETE FROM places WHERE id = $1 AND account_id = $2', [id, actor.accountId]);
      return { id };
    },

    /** Address look-up for the edit page: a typed address (forward, when the geocoder can) or a point (reverse). */
    async geocode(query: PlaceGeocodeQuery): Promise<PlaceGeocodeCandidate[]> {
      if (query.q) {
        const found = await geocoder.search(query.q, 5);
        return found.map((candidate) => ({ address: shortAddress(candidate.label), latitude: round6(candidate.latitude), longitude: round6(candidate.longitude) }));
      }
      if (query.lat !== undefined && query.lon !== undefined) {
        const label = await geocoder.reverse(query.lat, query.lon);
        return label ? [{ address: shortAddress(label), latitude: round6(query.lat), longitude: round6(query.lon) }] : [];
      }
      throw new AppError(422, 'validation.failed', { fields: { q: ['validation.required'] } });
    },

    /** Without a configured geocoder addresses are looked up as town names only (the screen says so). */
    geocoder(): PlaceGeocoderView {
      return { precision: geocoder.providerId.startsWith('offline') ? 'town' : 'street' };
    },

    /** The trip log's view of places (see TripPlacesPort). */
    tripPort(): TripPlacesPort {
      return { classify, labels };
    },
  };
}

export type PlaceService = ReturnType<typeof createPlaceService>;
