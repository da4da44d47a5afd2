import type { Querier } from '../../lib/db/client';
import { distanceM, type Geocoder } from '../../lib/geocoding';
import { fieldError, forbidden, notFound } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import type { BatchHandler, EnqueueItem, JobQueue } from '../../lib/queue';
import { isTimeZone } from '../../lib/time';
import type { AlarmService } from '../alarms/service';
import { requireFullSubscription } from '../auth';
import type { Actor } from '../auth/model';
import type { BrandService } from '../brands/service';
import type { UnitService } from '../units/service';
import {
  HOME_RADIUS_DEFAULT,
  isBasicSubscription,
  type LatestPosition,
  parseSchedule,
  roundCoordinate,
  SAFE_HOME_MESSAGES,
  type SafeHomeMessageKey,
  type SafeHomeRecord,
  type SafeHomeSaved,
  type Schedule,
  scheduleIsEmpty,
  type SetGeofenceInput,
  type ToggleStatusInput,
  type UpdateScheduleInput,
} from './model';
import { nextDue } from './schedule';

export { nextDue };

/** The queued check of one vehicle at one due time. */
export const CHECK_JOB = 'safe-home.check';
export interface CheckPayload {
  unitId: number;
  /** ISO instant of the due time. */
  dueAt: string;
}
/** Queues the check of a vehicle at a due time (in `query`'s transaction): one job per vehicle and due time, for ever. */
export async function enqueueCheck(queue: JobQueue, query: Querier, unitId: number, due: Date): Promise<void> {
  const item = checkItem(unitId, due);
  await queue.enqueue(query, CHECK_JOB, item.payload, item);
}
function checkItem(unitId: number, due: Date): EnqueueItem & { payload: CheckPayload; uniqueKey: string } {
  const payload: CheckPayload = { unitId, dueAt: due.toISOString() };
  return { payload, runAt: due, uniqueKey: `${unitId}:${payload.dueAt}` };
}

/** A check that runs this long after its due time ran late (the process was down): the alarm says so. */
export const LATE_AFTER_MS = 10 * 60_000;
const DEFAULT_TIME_ZONE = 'Europe/Stockholm';

export interface SafeHomeServiceDeps {
  brands: BrandService;
  accountSettings: { defaults(accountId: number): Promise<{ timezone: string }> };
  geocoder: Geocoder;
  alarms: Pick<AlarmService, 'raiseMany'>;
  /** The vehicles' subscriptions (Basic ones have no safe return home). */
  units: Pick<UnitService, 'scheduleUnits'>;
  /** Due checks claimed and run together (default CHECK_BATCH_SIZE; 1 runs them one by one). */
  checkBatchSize?: number;
}

interface RecordRow extends Record<string, unknown> {
  unit_id: number;
  account_id: number;
  imei: string;
  name: string | null;
  registration_number: string | null;
  status: number | null;
  schedule: string | null;
  frequency: number | null;
  start_date: string | Date | null;
  time_zone: string | null;
  address: string | null;
  radius: number | null;
  center_lat: number | null;
  center_lng: number | null;
  enabled_at: Date | string | null;
  last_check_at: Date | string | null;
  next_due_at: Date | string | null;
}

const RECORD_SELECT = `
  SELECT u.id AS unit_id, u.account_id, u.imei, u.name, u.registration_number,
         h.status, h.schedule, h.frequency, to_char(h.start_date, 'YYYY-MM-DD') AS start_date, h.time_zone, h.address, h.radius,
         h.center_lat, h.center_lng, h.enabled_at, h.last_check_at, h.next_due_at
  FROM unit_directory u LEFT JOIN safe_homes h ON h.unit_id = u.id`;

/**
 * The latest valid fix of each unit from the tracking module's published views: the newest record's position when it
 * was a fix, else the last valid stored position before it (as the map shows it), with the fix's time.
 */
const LATEST_FIX_SELECT = `
  SELECT f.unit_id,
         CASE WHEN f.valid IS NOT FALSE THEN f.time ELSE p.time END AS fix_time,
         ST_Y(CASE WHEN f.valid IS NOT FALSE THEN f.geom ELSE p.geom END) AS lat,
         ST_X(CASE WHEN f.valid IS NOT FALSE THEN f.geom ELSE p.geom END) AS lon
  FROM unit_latest_fix f
  LEFT JOIN LATERAL (
    SELECT h.time, h.geom FROM position_history h
    WHERE h.unit_id = f.unit_id AND h.flags = 0 AND h.time <= f.time
    ORDER BY h.time DESC LIMIT 1
  ) p ON f.valid IS FALSE
  WHERE f.unit_id = ANY($1::int[])`;

/**
 * The checks' read, in one statement for a batch: each due (vehicle, due time) whose record is on and still has that due
 * time as its next check, the record locked (in vehicle order), its vehicle, and the vehicle's latest valid fix (as
 * LATEST_FIX_SELECT). A stale or repeated check finds no row.
 */
const CHECK_SELECT = `
  SELECT u.id AS unit_id, u.account_id, u.imei, u.name, u.registration_number,
         h.status, h.schedule, h.frequency, to_char(h.start_date, 'YYYY-MM-DD') AS start_date, h.time_zone, h.address, h.radius,
         h.center_lat, h.center_lng, h.enabled_at, h.last_check_at, h.next_due_at,
         fx.fix_time, fx.lat, fx.lon
  FROM unnest($1::int[], $2::timestamptz[]) AS d(unit_id, due_at)
  JOIN safe_homes h ON h.unit_id = d.unit_id AND h.status = 1 AND h.next_due_at = d.due_at
  JOIN unit_directory u ON u.id = h.unit_id
  LEFT JOIN LATERAL (
    SELECT CASE WHEN f.valid IS NOT FALSE THEN f.time ELSE p.time END AS fix_time,
           ST_Y(CASE WHEN f.valid IS NOT FALSE THEN f.geom ELSE p.geom END) AS lat,
           ST_X(CASE WHEN f.valid IS NOT FALSE THEN f.geom ELSE p.geom END) AS lon
    FROM unit_latest_fix f
    LEFT JOIN LATERAL (
      SELECT ph.time, ph.geom FROM position_history ph
      WHERE ph.unit_id = f.unit_id AND ph.flags = 0 AND ph.time <= f.time
      ORDER BY ph.time DESC LIMIT 1
    ) p ON f.valid IS FALSE
    WHERE f.unit_id = h.unit_id
  ) fx ON true
  ORDER BY h.unit_id
  FOR UPDATE OF h`;

/** Checks claimed together: one transaction for all of them; when it fails, halves apart, down to the failing check. */
export const CHECK_BATCH_SIZE = 500;

interface FixRow extends Record<string, unknown> {
  unit_id: number;
  fix_time: Date | string | null;
  lat: number | null;
  lon: number | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function scheduleOf(row: RecordRow): Schedule {
  return parseSchedule(row.schedule);
}

function frequencyOf(row: RecordRow): 1 | 2 | 3 {
  return row.frequency === 2 || row.frequency === 3 ? row.frequency : 1;
}

/** Whether the record can be (and stay) switched on: an address and a schedule with at least one day (spec §4). */
function mayBeOn(row: RecordRow): boolean {
  return Boolean(row.address) && row.center_lat !== null && row.center_lng !== null && row.start_date !== null && !scheduleIsEmpty(scheduleOf(row));
}

/** `HH:mm` of an instant in a zone. */
function localTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
}

/**
 * Safe return home (spec §2, §3, §4, §5, §7): per vehicle a home circle and a weekly alert schedule, and the checks that
 * follow the schedule. Each switched-on vehicle has its next check queued as a job keyed by vehicle and due time, in
 * the transaction of the change that planned it; the check runs once (a row per vehicle and due time), tests the
 * vehicle's latest valid fix against the home circle and raises the function alarm "not back home" through the alarms
 * service, then queues the next check in the same transaction. A check missed while no process ran runs when one comes
 * back, and its alarm says it ran late.
 */
export function createSafeHomeService(platform: Platform, deps: SafeHomeServiceDeps) {
  const { database, clock, queue, log } = platform;
  const { brands, accountSettings, geocoder, alarms, units } = deps;

  async function requireEnabled(actor: Actor): Promise<void> {
    requireFullSubscription(actor);
    const brand = await brands.get(actor.subsiteId);
    if (!brand.features.EnableSafeReturnHome) throw forbidden(SAFE_HOME_MESSAGES.Disabled);
  }

  async function accountTimeZone(accountId: number): Promise<string> {
    const zone = (await accountSettings.defaults(accountId)).timezone;
    return isTimeZone(zone) ? zone : DEFAULT_TIME_ZONE;
  }

  function recordOf(row: RecordRow, defaultZone: string): SafeHomeRecord {
    return {
      imei: row.imei,
      name: row.name ?? '',
      RegistrationNumber: row.registration_number ?? '',
      status: row.status === 1 ? 1 : 0,
      schedule: JSON.stringify(scheduleOf(row)),
      frequency: frequencyOf(row),
      start_date: row.start_date === null ? null : String(row.start_date).slice(0, 10),
      time_zone: row.time_zone ?? defaultZone,
      address: row.address ?? null,
      radius: row.radius ?? HOME_RADIUS_DEFAULT,
      centerLat: row.center_lat === null ? null : roundCoordinate(Number(row.center_lat)),
      centerLng: row.center_lng === null ? null : roundCoordinate(Number(row.center_lng)),
    };
  }

  /** The caller's vehicle with this IMEI (404 for another account's or an unknown one), its record locked in `tx`. */
  async function vehicle(query: Querier, actor: Actor, imei: string): Promise<RecordRow> {
    const [row] = await query<RecordRow>(`${RECORD_SELECT} WHERE u.account_id = $1 AND u.imei = $2`, [actor.accountId, imei]);
    if (!row) throw notFound(SAFE_HOME_MESSAGES.NotFound);
    return row;
  }

  /** 404 for a vehicle of the Basic subscription, as for one that is not the caller's (before any transaction). */
  async function notBasic(actor: Actor, imei: string): Promise<void> {
    const [unit] = await units.scheduleUnits(actor, { imeis: [imei] });
    if (unit && isBasicSubscription(unit.subscriptionType)) throw notFound(SAFE_HOME_MESSAGES.NotFound);
  }

  /** The vehicle's record row, created with the defaults when missing and locked for the rest of `tx`; then read again. */
  async function lockedRecord(tx: Querier, actor: Actor, imei: string): Promise<RecordRow> {
    const found = await vehicle(tx, actor, imei);
    await tx('INSERT INTO safe_homes (unit_id, account_id) VALUES ($1, $2) ON CONFLICT (unit_id, account_id) DO NOTHING', [found.unit_id, actor.accountId]);
    await tx('SELECT unit_id FROM safe_homes WHERE unit_id = $1 FOR UPDATE', [found.unit_id]);
    return reread(tx, found.unit_id);
  }

  async function reread(query: Querier, unitId: number): Promise<RecordRow> {
    const [row] = await query<RecordRow>(`${RECORD_SELECT} WHERE u.id = $1`, [unitId]);
    return row!;
  }

  /**
   * Plans the vehicle's next check after `after` from its current record and queues it (in `query`'s transaction);
   * a switched-off or incomplete record has none. An earlier queued check whose due time is no longer the next one
   * finds that out when it runs and does nothing.
   */
  async function plan(query: Querier, row: RecordRow, after: Date): Promise<Date | null> {
    let due: Date | null = null;
    if (row.status === 1 && mayBeOn(row)) {
      due = nextDue(
        { schedule: scheduleOf(row), frequency: frequencyOf(row), startDate: String(row.start_date).slice(0, 10), timeZone: row.time_zone ?? (await accountTimeZone(row.account_id)) },
        after,
      );
    }
    await query('UPDATE safe_homes SET next_due_at = $2 WHERE unit_id = $1', [row.unit_id, due === null ? null : due.toISOString()]);
    if (due) await enqueueCheck(queue, query, row.unit_id, due);
    return due;
  }

  function saved(row: RecordRow, zone: string, key: SafeHomeMessageKey, language: Language): SafeHomeSaved {
    return { record: recordOf(row, zone), messageKey: key, message: translate(language, key) };
  }

  async function latestFixes(query: Querier, unitIds: number[]): Promise<Map<number, FixRow>> {
    if (unitIds.length === 0) return new Map();
    const rows = await query<FixRow>(LATEST_FIX_SELECT, [unitIds]);
    return new Map(rows.map((row) => [row.unit_id, row]));
  }

  /** Whether the home address can be found: the geocoder's search knows it, or it is the geocoder's label of the point. */
  async function geocodes(address: string, latitude: number, longitude: number): Promise<boolean> {
    const found = await geocoder.search(address, 1);
    if (found.length > 0) return true;
    const label = await geocoder.reverse(latitude, longitude);
    return label !== null && label.trim().toLowerCase() === address.trim().toLowerCase();
  }

  /**
   * Due checks in one transaction (the queued jobs of a batch): one statement reads every record with its vehicle's
   * latest valid fix, one records the checks and the records' last and next checks, one queues the next checks, the
   * alarms are raised through the alarms service, and `complete` marks the jobs done, all in the same transaction.
   * Idempotent: a stale or repeated check does nothing. Answers the late checks run.
   */
  async function checkAll(tx: Querier, payloads: readonly CheckPayload[]): Promise<number> {
    const rows = await tx<RecordRow & FixRow>(CHECK_SELECT, [payloads.map((payload) => payload.unitId), payloads.map((payload) => iso(payload.dueAt))]);
    if (rows.length === 0) return 0;
    const now = clock.now();
    const zones = new Map<number, string>();
    const nextOf = new Map<string, Date | null>();
    const planned: Array<{
      row: RecordRow & FixRow;
      due: Date;
      zone: string;
      late: boolean;
      hasFix: boolean;
      fresh: boolean;
      home: boolean;
      outcome: 'home' | 'away' | 'no_position';
      distance: number | null;
      next: Date | null;
    }> = [];
    for (const row of rows) {
      const due = new Date(row.next_due_at!);
      const late = now.getTime() - due.getTime() > LATE_AFTER_MS;
      const hasFix = row.lat !== null && row.lon !== null && row.fix_time !== null;
      const distance = hasFix ? Math.round(distanceM(Number(row.lat), Number(row.lon), Number(row.center_lat), Number(row.center_lng))) : null;
      const radius = row.radius ?? HOME_RADIUS_DEFAULT;
      const since = row.last_check_at ?? row.enabled_at;
      const fresh = hasFix && (since === null || new Date(row.fix_time!).getTime() > new Date(since).getTime());
      const home = distance !== null && distance <= radius;
      let zone = row.time_zone;
      if (zone === null) {
        zone = zones.get(row.account_id) ?? (await accountTimeZone(row.account_id));
        zones.set(row.account_id, zone);
      }
      // The next check after now: checks missed while no process ran are not run one by one, this late one stands for them.
      const after = now > due ? now : due;
      // Vehicles sharing a schedule share its next due time (a fleet set up alike: one computation).
      const key = `${row.schedule}|${frequencyOf(row)}|${row.start_date}|${zone}|${after.getTime()}|${Boolean(row.address) && row.center_lat !== null && row.center_lng !== null}`;
      if (!nextOf.has(key)) {
        nextOf.set(
          key,
          mayBeOn(row) ? nextDue({ schedule: scheduleOf(row), frequency: frequencyOf(row), startDate: String(row.start_date).slice(0, 10), timeZone: zone }, after) : null,
        );
      }
      const next = nextOf.get(key)!;
      planned.push({ row, due, zone, late, hasFix, fresh, home, outcome: home ? 'home' : fresh ? 'away' : 'no_position', distance, next });
    }
    // The checks' rows (once per vehicle and due time) and the records' last and next checks: one statement.
    const recordedRows = await tx<{ unit_id: number }>(
      `WITH checked AS (
         INSERT INTO safe_home_checks (unit_id, due_at, account_id, ran_at, late, outcome, distance_m)
         SELECT c.unit_id, c.due_at, c.account_id, $4, c.late, c.outcome, c.distance_m
         FROM unnest($1::int[], $2::timestamptz[], $3::int[], $5::boolean[], $6::text[], $7::int[]) AS c(unit_id, due_at, account_id, late, outcome, distance_m)
         ON CONFLICT (unit_id, due_at, account_id) DO NOTHING RETURNING unit_id, due_at
       )
       UPDATE safe_homes h SET last_check_at = c.due_at, next_due_at = n.next_due_at
       FROM checked c JOIN unnest($1::int[], $8::timestamptz[]) AS n(unit_id, next_due_at) ON n.unit_id = c.unit_id
       WHERE h.unit_id = c.unit_id RETURNING h.unit_id`,
      [
        planned.map((check) => check.row.unit_id),
        planned.map((check) => check.due.toISOString()),
        planned.map((check) => check.row.account_id),
        now.toISOString(),
        planned.map((check) => check.late),
        planned.map((check) => check.outcome),
        planned.map((check) => check.distance),
        planned.map((check) => check.next?.toISOString() ?? null),
      ],
    );
    const recorded = new Set(recordedRows.map((row) => row.unit_id));
    const done = planned.filter((check) => recorded.has(check.row.unit_id));
    await queue.enqueueMany(
      tx,
      CHECK_JOB,
      done.flatMap((check) => (check.next ? [checkItem(check.row.unit_id, check.next)] : [])),
    );
    const away = done.filter((check) => !check.home);
    const raised = await alarms.raiseMany(
      tx,
      away.map(({ row, due, zone, late, hasFix, fresh, distance }) => ({
        accountId: row.account_id,
        unitId: row.unit_id,
        type: 'not_home' as const,
        at: due,
        latitude: hasFix ? Number(row.lat) : null,
        longitude: hasFix ? Number(row.lon) : null,
        details: {
          variant: `${fresh ? 'away' : 'noPosition'}${late ? 'Late' : ''}`,
          due: localTime(due, zone),
          checked: localTime(now, zone),
          home: row.address ?? '',
          radius: row.radius ?? HOME_RADIUS_DEFAULT,
          distance: distance ?? null,
          lastFix: hasFix ? iso(row.fix_time!) : null,
          late,
        },
      })),
    );
    const alarmIds = away.flatMap((check, index): Array<[number, string, number]> =>
      raised[index]!.alarmId ? [[check.row.unit_id, check.due.toISOString(), raised[index]!.alarmId]] : [],
    );
    if (alarmIds.length > 0) {
      await tx(
        `UPDATE safe_home_checks c SET alarm_id = a.alarm_id
         FROM unnest($1::int[], $2::timestamptz[], $3::bigint[]) AS a(unit_id, due_at, alarm_id)
         WHERE c.unit_id = a.unit_id AND c.due_at = a.due_at`,
        [alarmIds.map((entry) => entry[0]), alarmIds.map((entry) => entry[1]), alarmIds.map((entry) => entry[2])],
      );
    }
    return done.filter((check) => check.late).length;
  }

  /**
   * The queued checks of a batch (the job's handler): all in one transaction with their jobs' completion; when that
   * fails, each half on its own, down to the single check that fails (it alone is retried, as the queue does).
   */
  const runChecks: BatchHandler<CheckPayload> = async (jobs, batch) => {
    const failed = new Map<number, unknown>();
    let late = 0;
    const run = async (group: typeof jobs): Promise<void> => {
      try {
        late += await database.transaction(async (tx) => {
          const lateHere = await checkAll(
            tx,
            group.map((job) => job.payload),
          );
          await batch.complete(
            tx,
            group.map((job) => job.job.id),
          );
          return lateHere;
        });
      } catch (error) {
        if (group.length === 1) {
          failed.set(group[0]!.job.id, error);
          log.warn('safe home check failed', { unitId: group[0]!.payload.unitId, dueAt: group[0]!.payload.dueAt, error: String(error) });
          return;
        }
        const half = Math.ceil(group.length / 2);
        await run(group.slice(0, half));
        await run(group.slice(half));
      }
    };
    await run(jobs);
    if (late > 0) log.warn('safe home checks ran late', { checks: late });
    return failed;
  };

  queue.defineBatch<CheckPayload>(CHECK_JOB, runChecks, { batchSize: deps.checkBatchSize ?? CHECK_BATCH_SIZE });

  return {
    /** GET list: every vehicle of the account but those of the Basic subscription, with its record (defaults when none was set up), by name. */
    async list(actor: Actor): Promise<SafeHomeRecord[]> {
      await requireEnabled(actor);
      const [rows, zone, seen] = await Promise.all([
        database.query<RecordRow>(`${RECORD_SELECT} WHERE u.account_id = $1 ORDER BY lower(u.name), u.id`, [actor.accountId]),
        accountTimeZone(actor.accountId),
        units.scheduleUnits(actor),
      ]);
      const basic = new Set(seen.filter((unit) => isBasicSubscription(unit.subscriptionType)).map((unit) => unit.id));
      return rows.filter((row) => !basic.has(row.unit_id)).map((row) => recordOf(row, zone));
    },

    /** GET tracker latest position: the vehicle's latest valid fix with 6 decimals, both null when it has none. */
    async latestPosition(actor: Actor, imei: string): Promise<LatestPosition> {
      await requireEnabled(actor);
      await notBasic(actor, imei);
      const row = await vehicle(database.query, actor, imei);
      const fix = (await latestFixes(database.query, [row.unit_id])).get(row.unit_id);
      if (!fix || fix.lat === null || fix.lon === null) return { Latitude: null, Longitude: null };
      return { Latitude: roundCoordinate(Number(fix.lat)), Longitude: roundCoordinate(Number(fix.lon)) };
    },

    /** PUT toggle status: 0 → 1 only with a schedule and an address (else SafeHomeEnableMsg and no change). */
    async toggleStatus(actor: Actor, input: ToggleStatusInput, language: Language): Promise<SafeHomeSaved> {
      await requireEnabled(actor);
      await notBasic(actor, input.imei);
      const zone = await accountTimeZone(actor.accountId);
      const row = await database.transaction(async (tx) => {
        const current = await lockedRecord(tx, actor, input.imei);
        if (input.status === 1 && !mayBeOn(current)) throw fieldError('status', SAFE_HOME_MESSAGES.SafeHomeEnableMsg);
        if (current.status !== input.status) {
          await tx(
            `UPDATE safe_homes SET status = $2::smallint, enabled_at = CASE WHEN $2::smallint = 1 THEN $3::timestamptz ELSE enabled_at END,
                    updated_by = $4, updated_at = $3 WHERE unit_id = $1`,
            [current.unit_id, input.status, clock.now().toISOString(), actor.userId],
          );
          await plan(tx, await reread(tx, current.unit_id), clock.now());
        }
        return reread(tx, current.unit_id);
      });
      return saved(row, zone, SAFE_HOME_MESSAGES.StatusUpdated, language);
    },

    /** PUT set geofence: the home circle (radius ≥ 300, 6 decimals) and an address that geocodes. */
    async setGeofence(actor: Actor, input: SetGeofenceInput, language: Language): Promise<SafeHomeSaved> {
      await requireEnabled(actor);
      await notBasic(actor, input.imei);
      const zone = await accountTimeZone(actor.accountId);
      await vehicle(database.query, actor, input.imei);
      if (!(await geocodes(input.address, input.centerLat, input.centerLng))) throw fieldError('address', SAFE_HOME_MESSAGES.GeocodeFailed);
      const row = await database.transaction(async (tx) => {
        const found = await lockedRecord(tx, actor, input.imei);
        await tx(
          `UPDATE safe_homes SET address = $2, radius = $3, center_lat = $4, center_lng = $5, updated_by = $6, updated_at = $7 WHERE unit_id = $1`,
          [found.unit_id, input.address, input.radius, input.centerLat, input.centerLng, actor.userId, clock.now().toISOString()],
        );
        return reread(tx, found.unit_id);
      });
      return saved(row, zone, SAFE_HOME_MESSAGES.HomeAddressUpdateMsg, language);
    },

    /** PUT update schedule alert: the kept days per week, frequency, start date and time zone; re-plans the next check. */
    async updateSchedule(actor: Actor, input: UpdateScheduleInput, language: Language): Promise<SafeHomeSaved> {
      await requireEnabled(actor);
      await notBasic(actor, input.imei);
      const zone = await accountTimeZone(actor.accountId);
      const row = await database.transaction(async (tx) => {
        const found = await lockedRecord(tx, actor, input.imei);
        const empty = scheduleIsEmpty(input.schedule);
        await tx(
          `UPDATE safe_homes SET schedule = $2, frequency = $3, start_date = $4, time_zone = $5,
                  status = CASE WHEN $6::boolean THEN 0 ELSE status END, updated_by = $7, updated_at = $8
           WHERE unit_id = $1`,
          [found.unit_id, JSON.stringify(input.schedule), input.frequency, input.start_date, input.time_zone, empty, actor.userId, clock.now().toISOString()],
        );
        const updated = await reread(tx, found.unit_id);
        await plan(tx, updated, clock.now());
        return reread(tx, found.unit_id);
      });
      return saved(row, zone, SAFE_HOME_MESSAGES.AlertScheduleUpdated, language);
    },

  };
}

export type SafeHomeService = ReturnType<typeof createSafeHomeService>;
