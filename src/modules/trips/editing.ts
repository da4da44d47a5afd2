import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { refuseAttestedFrom, refuseAttestedTrips } from './attest';
import type {
  TripBulkResult,
  TripBulkTypeInput,
  TripCheckInInput,
  TripCheckInResult,
  TripDriver,
  TripMergeInput,
  TripType,
  TripUpdateInput,
} from './model';
import { dayOf } from '../../lib/time';

/**
 * Editing the trip log (spec §4): type one by one and in bulk, purpose, note and passengers; merge and split;
 * driver check-in and check-out from a trip. Every trip is looked up within the caller's account (and its unit
 * must still be the account's): another account's trip answers 404 exactly like a missing one.
 */

const tripNotFound = () => notFound('errors.tripNotFound');
const mergeError = (key: string) => new AppError(422, key);

/** Columns a merge keeps of each part, so a split restores the trips exactly. */
const PART_COLUMNS = `id, unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
  odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, driver_key, driver_user_id,
  driver_source, harsh_braking, harsh_acceleration, harsh_cornering, type, type_source, purpose, note, passengers, detection, point_count, detected_at`;

interface EditRow extends Record<string, unknown> {
  id: number | string;
  unit_id: number;
  start_ms: number;
  stop_ms: number;
  type: TripType;
  type_source: 'default' | 'rule' | 'user';
  driver_key: string | null;
  driver_user_id: number | null;
  merged: boolean;
  purpose: string | null;
  note: string | null;
  passengers: string | null;
}

const EDIT_COLUMNS = `t.id, t.unit_id, (extract(epoch from t.start_time) * 1000)::float8 AS start_ms,
  (extract(epoch from t.stop_time) * 1000)::float8 AS stop_ms, t.type, t.type_source, t.driver_key, t.driver_user_id, t.merged,
  t.purpose, t.note, t.passengers`;

/** The merged trip's type: business and private never meet (refused before), so whichever of them is present wins over other. */
function mergedType(types: TripType[]): TripType {
  if (types.includes('business')) return 'business';
  if (types.includes('private')) return 'private';
  return 'other';
}

export function createTripEditing(
  platform: Platform,
  timeZoneOf: (actor: Actor, requestTimeZone?: string | null) => string,
  /** Spec §6 through the units module: throws 403 when the caller may not read the unit's trips (not given to them, a locked car). */
  requireReadableUnit: (actor: Actor, unitId: number) => Promise<unknown>,
) {
  const { database, clock } = platform;
  type Query = Parameters<Parameters<typeof database.transaction>[0]>[0];

  /**
   * Before any change: every unit of these trips must be one the caller may read (an ordinary user's own
   * units, never a locked car without access). Checked outside the transaction, through the units service;
   * trips of other accounts are not found here and answer 404 in `ownTrips`.
   */
  async function requireReadableTrips(actor: Actor, ids: number[]): Promise<void> {
    const rows = await database.query<{ unit_id: number }>('SELECT DISTINCT unit_id FROM trips WHERE id = ANY($1::bigint[]) AND account_id = $2', [
      [...new Set(ids)],
      actor.accountId,
    ]);
    for (const row of rows) await requireReadableUnit(actor, row.unit_id);
  }

  /** The caller's trips by id, locked for the change; any id that is not the account's makes it 404. */
  async function ownTrips(query: Query, actor: Actor, ids: number[]): Promise<EditRow[]> {
    const wanted = [...new Set(ids)];
    const rows = await query<EditRow>(
      `SELECT ${EDIT_COLUMNS} FROM trips t JOIN unit_directory u ON u.id = t.unit_id AND u.account_id = $2
       WHERE t.id = ANY($1::bigint[]) AND t.account_id = $2
       ORDER BY t.start_time
       FOR UPDATE OF t`,
      [wanted, actor.accountId],
    );
    if (rows.length !== wanted.length) throw tripNotFound();
    return rows;
  }

  async function ownTrip(query: Query, actor: Actor, id: number): Promise<EditRow> {
    const [row] = await ownTrips(query, actor, [id]);
    return row!;
  }

  /** A driver must be a user of the caller's account; an ordinary user checks in only themself. */
  async function requireDriver(query: Query, actor: Actor, userId: number): Promise<void> {
    const [user] = await query<{ id: number }>('SELECT id FROM user_directory WHERE id = $1 AND account_id = $2', [userId, actor.accountId]);
    if (!user) throw fieldError('driverUserId', 'trips.checkIn.unknownDriver');
    if (actor.role === 'user' && userId !== actor.userId) throw forbidden();
  }

  return {
    /** Users of the account who can drive (an ordinary user: only themself). */
    async drivers(actor: Actor): Promise<TripDriver[]> {
      const rows = await database.query<{ id: number; first_name: string; last_name: string; email: string }>(
        `SELECT id, first_name, last_name, email FROM user_directory WHERE account_id = $1 AND ($2::int IS NULL OR id = $2) ORDER BY lower(first_name), lower(last_name), id`,
        [actor.accountId, actor.role === 'user' ? actor.userId : null],
      );
      return rows.map((row) => ({ id: row.id, name: `${row.first_name} ${row.last_name}`.trim() || row.email }));
    },

    /** Spec §4/§5: one trip's type, purpose, note, passengers. A type set by a person survives re-detection. */
    async update(actor: Actor, id: number, input: TripUpdateInput): Promise<void> {
      await requireReadableTrips(actor, [id]);
      await database.transaction(async (query) => {
        await ownTrip(query, actor, id);
        await refuseAttestedTrips(query, [id]);
        const sets: string[] = [];
        const params: unknown[] = [id];
        const set = (column: string, value: unknown) => {
          params.push(value);
          sets.push(`${column} = $${params.length}`);
        };
        if (input.type !== undefined) {
          set('type', input.type);
          sets.push(`type_source = 'user'`);
        }
        for (const key of ['purpose', 'note', 'passengers'] as const) {
          const value = input[key];
          if (value !== undefined) set(key, value === null || value === '' ? null : value);
        }
        if (sets.length === 0) return;
        await query(`UPDATE trips SET ${sets.join(', ')} WHERE id = $1`, params);
      });
    },

    /** Spec §4: the type of several trips at once (the trips of a page). All of them must be the caller's. */
    async setTypes(actor: Actor, input: TripBulkTypeInput): Promise<TripBulkResult> {
      await requireReadableTrips(actor, input.tripIds);
      return database.transaction(async (query) => {
        const rows = await ownTrips(query, actor, input.tripIds);
        await refuseAttestedTrips(query, rows.map((row) => Number(row.id)));
        await query(`UPDATE trips SET type = $2, type_source = 'user' WHERE id = ANY($1::bigint[])`, [rows.map((row) => Number(row.id)), input.type]);
        return { updated: rows.length };
      });
    },

    /**
     * Spec §4/§8: merges consecutive trips of one unit into one. Refused for already merged trips, trips on different
     * dates (in the caller's time zone), with different drivers, or private with business; trips of several units or
     * with another trip between them cannot be merged. The merged trip keeps the first trip's id.
     */
    async merge(actor: Actor, input: TripMergeInput, requestTimeZone?: string | null): Promise<{ id: number }> {
      const timeZone = timeZoneOf(actor, requestTimeZone);
      await requireReadableTrips(actor, input.tripIds);
      return database.transaction(async (query) => {
        const rows = await ownTrips(query, actor, input.tripIds);
        await refuseAttestedTrips(query, rows.map((row) => Number(row.id)));
        if (rows.length < 2) throw mergeError('trips.merge.failed');
        if (rows.some((row) => row.merged)) throw mergeError('trips.merge.alreadyMerged');
        if (new Set(rows.map((row) => row.unit_id)).size > 1) throw mergeError('trips.merge.failed');
        const days = new Set(rows.flatMap((row) => [dayOf(new Date(Number(row.start_ms)), timeZone), dayOf(new Date(Number(row.stop_ms)), timeZone)]));
        if (days.size > 1) throw mergeError('trips.merge.differentDate');
        if (new Set(rows.map((row) => `${row.driver_user_id ?? ''}|${row.driver_key ?? ''}`)).size > 1) throw mergeError('trips.merge.differentDriver');
        const types = rows.map((row) => row.type);
        if (types.includes('business') && types.includes('private')) throw mergeError('trips.merge.differentType');
        const first = rows[0]!;
        const last = rows[rows.length - 1]!;
        const ids = rows.map((row) => Number(row.id));
        const [between] = await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM trips WHERE unit_id = $1 AND start_time >= to_timestamp($2 / 1000.0) AND start_time <= to_timestamp($3 / 1000.0)
             AND NOT (id = ANY($4::bigint[]))`,
          [first.unit_id, Number(first.start_ms), Number(last.start_ms), ids],
        );
        if (Number(between!.n) > 0) throw mergeError('trips.merge.failed');
        // A trip still in progress is provisional (the next detection run replaces it): it cannot be merged yet.
        const [open] = await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM trip_detector_state WHERE unit_id = $1 AND open_since IS NOT NULL AND open_since <= to_timestamp($2 / 1000.0)`,
          [first.unit_id, Number(last.start_ms)],
        );
        if (Number(open!.n) > 0) throw mergeError('trips.merge.failed');

        const firstId = Number(first.id);
        await query('DELETE FROM trip_merge_parts WHERE merged_into = $1', [firstId]);
        await query(
          `INSERT INTO trip_merge_parts (merged_into, ${PART_COLUMNS}, merged_by, merged_at)
           SELECT $1, ${PART_COLUMNS}, $3, $4::timestamptz FROM trips WHERE id = ANY($2::bigint[])`,
          [firstId, ids, actor.userId, clock.now().toISOString()],
        );
        const pick = <K extends 'purpose' | 'note' | 'passengers'>(key: K) => rows.find((row) => row[key])?.[key] ?? null;
        const userTyped = rows.some((row) => row.type_source === 'user');
        // The others go first (trips never overlap), then the first becomes the merged trip, aggregated over the parts.
        await query('DELETE FROM trips WHERE id = ANY($1::bigint[])', [ids.slice(1)]);
        await query(
          `UPDATE trips t SET stop_time = a.stop_time, stop_geom = l.stop_geom, stop_address = l.stop_address,
                  odometer_stop_m = GREATEST(t.odometer_start_m, l.odometer_stop_m), distance_m = a.distance_m, max_speed_kmh = a.max_speed_kmh,
                  avg_speed_kmh = COALESCE(a.avg_speed_kmh, t.avg_speed_kmh), harsh_braking = a.harsh_braking,
                  harsh_acceleration = a.harsh_acceleration, harsh_cornering = a.harsh_cornering, point_count = a.point_count,
                  type = $3, type_source = $4, purpose = $5, note = $6, passengers = $7, merged = true
           FROM (SELECT max(stop_time) AS stop_time, sum(distance_m) AS distance_m, max(max_speed_kmh) AS max_speed_kmh,
                        sum(avg_speed_kmh * extract(epoch from stop_time - start_time)) / nullif(sum(extract(epoch from stop_time - start_time)), 0) AS avg_speed_kmh,
                        sum(harsh_braking)::int AS harsh_braking, sum(harsh_acceleration)::int AS harsh_acceleration,
                        sum(harsh_cornering)::int AS harsh_cornering, sum(point_count)::int AS point_count
                 FROM trip_merge_parts WHERE merged_into = $1) AS a,
                (SELECT stop_geom, stop_address, odometer_stop_m FROM trip_merge_parts WHERE merged_into = $1 AND id = $2) AS l
           WHERE t.id = $1`,
          [firstId, Number(last.id), mergedType(types), userTyped ? 'user' : first.type_source, pick('purpose'), pick('note'), pick('passengers')],
        );
        return { id: firstId };
      });
    },

    /** Spec §4/§8: a split undoes the merge that made a trip, restoring its trips as they were; a trip not merged cannot be split. */
    async split(actor: Actor, id: number): Promise<{ ids: number[] }> {
      await requireReadableTrips(actor, [id]);
      return database.transaction(async (query) => {
        const trip = await ownTrip(query, actor, id);
        await refuseAttestedTrips(query, [id]);
        if (!trip.merged) throw mergeError('trips.split.failed');
        const parts = await query<{ id: number | string }>('SELECT id FROM trip_merge_parts WHERE merged_into = $1 ORDER BY start_time', [id]);
        if (parts.length < 2) throw mergeError('trips.split.failed');
        await query('DELETE FROM trips WHERE id = $1', [id]);
        await query(`INSERT INTO trips (${PART_COLUMNS}) SELECT ${PART_COLUMNS} FROM trip_merge_parts WHERE merged_into = $1`, [id]);
        await query('DELETE FROM trip_merge_parts WHERE merged_into = $1', [id]);
        return { ids: parts.map((part) => Number(part.id)) };
      });
    },

    /**
     * Spec §4: checks a driver in from a trip: that trip and the unit's later ones get the driver, and so do trips
     * detected later until a check-out. A driver already checked in is checked out first. "No driver" cannot be checked in.
     */
    async checkIn(actor: Actor, id: number, input: TripCheckInInput): Promise<TripCheckInResult> {
      await requireReadableTrips(actor, [id]);
      return database.transaction(async (query) => {
        const trip = await ownTrip(query, actor, id);
        if (!input.driverUserId) throw fieldError('driverUserId', 'trips.checkIn.noDriver');
        await requireDriver(query, actor, input.driverUserId);
        const at = new Date(Number(trip.start_ms)).toISOString();
        await refuseAttestedFrom(query, trip.unit_id, at, input.driverUserId);
        const [previous] = await query<{ user_id: number }>(
          `UPDATE trip_driver_checkins SET checked_out_at = GREATEST(checked_in_at, $2::timestamptz), checked_out_by = $3
           WHERE unit_id = $1 AND checked_out_at IS NULL RETURNING user_id`,
          [trip.unit_id, at, actor.userId],
        );
        // Check-ins that began after this trip are superseded by this one.
        await query('DELETE FROM trip_driver_checkins WHERE unit_id = $1 AND checked_in_at > $2::timestamptz', [trip.unit_id, at]);
        await query('INSERT INTO trip_driver_checkins (unit_id, account_id, user_id, checked_in_at, checked_in_by) SELECT $1, account_id, $2, $3::timestamptz, $4 FROM unit_directory WHERE id = $1', [
          trip.unit_id,
          input.driverUserId,
          at,
          actor.userId,
        ]);
        const updated = await query<{ id: number | string }>(
          "UPDATE trips SET driver_user_id = $3, driver_source = 'checkin' WHERE unit_id = $1 AND start_time >= $2::timestamptz RETURNING id",
          [trip.unit_id, at, input.driverUserId],
        );
        return { updated: updated.length, checkedOutUserId: previous?.user_id ?? null };
      });
    },

    /** Spec §4: checks the unit's driver out after a trip: the later trips that had that driver lose it. */
    async checkOut(actor: Actor, id: number): Promise<TripBulkResult> {
      await requireReadableTrips(actor, [id]);
      return database.transaction(async (query) => {
        const trip = await ownTrip(query, actor, id);
        const at = new Date(Number(trip.stop_ms)).toISOString();
        await refuseAttestedFrom(query, trip.unit_id, at);
        const [open] = await query<{ id: number; user_id: number; checked_in_at: string | Date }>(
          'SELECT id, user_id, checked_in_at FROM trip_driver_checkins WHERE unit_id = $1 AND checked_out_at IS NULL',
          [trip.unit_id],
        );
        if (!open) throw mergeError('trips.checkOut.none');
        if (actor.role === 'user' && open.user_id !== actor.userId) throw forbidden();
        await query('UPDATE trip_driver_checkins SET checked_out_at = GREATEST(checked_in_at, $2::timestamptz), checked_out_by = $3 WHERE id = $1', [
          open.id,
          at,
          actor.userId,
        ]);
        const updated = await query<{ id: number | string }>(
          'UPDATE trips SET driver_user_id = NULL, driver_source = NULL WHERE unit_id = $1 AND start_time >= $2::timestamptz AND driver_user_id = $3 RETURNING id',
          [trip.unit_id, at, open.user_id],
        );
        return { updated: updated.length };
      });
    },
  };
}

export type TripEditing = ReturnType<typeof createTripEditing>;
