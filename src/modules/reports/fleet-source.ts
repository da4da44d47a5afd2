import type { DatabaseHandle } from '../../lib/db/client';
import { fieldError, forbidden, notFound } from '../../lib/http';
import { addToDay, dayOf, isTimeZone, startOfDay } from '../../lib/time';
import type { FuelType } from '../accounts/model';
import type { Actor } from '../auth/model';
import type { TripType } from '../trips/model';
import type { UnitService } from '../units/service';
import { fleetReportUnits, reportShowsUnit } from './benefit-access';
import {
  type Co2Basis,
  type Co2Factor,
  type EcoSensitivity,
  type EnergyUnit,
  REPORT_MAX_MONTHS,
  REPORT_TIME_ZONE,
  type ReportGrouping,
  type ReportHeader,
  type ReportKind,
  type ReportScope,
} from './model';

/**
 * What every fleet report reads: the units of its scope as the caller sees them (spec §6), their fuel and eco settings,
 * and their trips in the period, through the owners' published views (trip_report_rows, unit_report_settings,
 * position_report_rows) and the units service.
 */

/** A unit of a report with what the reports need of it. */
export interface ReportUnit {
  id: number;
  name: string;
  department: { id: number; name: string } | null;
  fuelType: FuelType | null;
  consumptionPer10Km: number | null;
  co2GPerKm: number | null;
  vehicleType: string;
  sensitivity: EcoSensitivity;
  overspeedKmh: number;
}

export interface ReportTrip {
  id: number;
  unitId: number;
  /** Epoch milliseconds. */
  start: number;
  stop: number;
  distanceM: number;
  maxSpeedKmh: number;
  driverUserId: number | null;
  harshAcceleration: number;
  harshBraking: number;
  harshCornering: number;
  type: TripType;
  /** From the trip's stored positions: engine on while standing, and time over the unit's speed threshold (s). */
  idleS: number;
  overspeedS: number;
}

/** Trips summed per unit and driver (`day` null) or per local day (`unitId` and `driverUserId` null). */
export interface TripAggregate {
  unitId: number | null;
  driverUserId: number | null;
  day: string | null;
  trips: number;
  distanceM: number;
  byType: Record<TripType, number>;
  drivingS: number;
  idleS: number;
  overspeedS: number;
  maxSpeedKmh: number;
  harshAcceleration: number;
  harshBraking: number;
  harshCornering: number;
  /** Epoch milliseconds. */
  firstStart: number;
  lastStop: number;
}

/** Trips of one unit and driver starting in one calendar month (the report's time zone, `YYYY-MM`), counted and their distance summed. */
export interface DistanceSum {
  unitId: number;
  driverUserId: number | null;
  month: string;
  trips: number;
  distanceM: number;
}

type AggregateRow = {
  g: number;
  unit_id: number | null;
  driver_user_id: number | null;
  day: string | null;
  trips: number;
  distance_m: number;
  business_m: number;
  private_m: number;
  other_m: number;
  driving_s: number;
  idle_s: number;
  overspeed_s: number;
  max_speed_kmh: number | null;
  harsh_acceleration: number;
  harsh_braking: number;
  harsh_cornering: number;
  first_start_ms: number;
  last_stop_ms: number;
};

/** A trip's speed threshold when the unit's feature profile names none (km/h). */
export const DEFAULT_OVERSPEED_KMH = 110;
/** Standing: below this speed (km/h) with the ignition on is idling. */
export const IDLE_SPEED_KMH = 5;
/** A gap between two positions longer than this (s) is not counted as idling or speeding (the tracker was silent). */
export const MAX_SAMPLE_GAP_S = 300;

export interface ReportPeriod {
  from: string;
  to: string;
  timeZone: string;
  start: Date;
  end: Date;
}

/** The report's days: this month by default (environment: this year); at most 12 months (spec §5). */
/**
 * Idle and overspeed seconds per trip from its stored positions: the CTEs `thresholds`, `samples` and `motion`
 * (trip_id, idle_s, overspeed_s), over the query's placeholders as named (the trip reader and the aggregates number
 * them differently).
 */
function tripMotionCtes(p: { account: string; units: string; from: string; to: string; thresholds: string; gap: string; idle: string; driver?: string }): string {
  return `thresholds AS (SELECT * FROM unnest(${p.units}::int[], ${p.thresholds}::float8[]) AS x(unit_id, overspeed_kmh)),
           samples AS (
             SELECT p.unit_id, p.time, p.speed_kmh, p.ignition,
                    LEAST(extract(epoch FROM lead(p.time) OVER (PARTITION BY p.unit_id ORDER BY p.time) - p.time), ${p.gap}::float8) AS dt
             FROM position_report_rows p
             WHERE p.unit_id = ANY(${p.units}::int[]) AND p.time >= ${p.from}::timestamptz AND p.time < ${p.to}::timestamptz + interval '2 days'
           ),
           motion AS (
             SELECT t.trip_id,
                    sum(CASE WHEN s.ignition AND s.speed_kmh < ${p.idle}::float8 THEN s.dt ELSE 0 END) AS idle_s,
                    sum(CASE WHEN s.speed_kmh > th.overspeed_kmh THEN s.dt ELSE 0 END) AS overspeed_s
             FROM trip_report_rows t
             JOIN thresholds th ON th.unit_id = t.unit_id
             JOIN samples s ON s.unit_id = t.unit_id AND s.time >= t.start_time AND s.time < t.stop_time
             WHERE t.account_id = ${p.account} AND t.unit_id = ANY(${p.units}::int[]) AND t.start_time >= ${p.from}::timestamptz AND t.start_time < ${p.to}::timestamptz
               ${p.driver ? `AND (${p.driver}::int IS NULL OR t.driver_user_id = ${p.driver}::int)` : ''}
             GROUP BY t.trip_id
           )`;
}

export function resolvePeriod(query: { from?: string; to?: string }, now: Date, timeZone: string, kind: ReportKind): ReportPeriod {
  const today = dayOf(now, timeZone);
  const yearly = kind === 'environment';
  const from = query.from ?? (yearly ? `${today.slice(0, 4)}-01-01` : `${today.slice(0, 8)}01`);
  const to = query.to ?? (yearly ? addToDay(`${from.slice(0, 4)}-01-01`, { months: 12, days: -1 }) : addToDay(`${from.slice(0, 8)}01`, { months: 1, days: -1 }));
  if (to < from) throw fieldError('to', 'validation.dateRange.order');
  if (to >= addToDay(from, { months: REPORT_MAX_MONTHS })) throw fieldError('to', 'validation.dateRange.tooLong');
  return { from, to, timeZone, start: startOfDay(from, timeZone), end: startOfDay(addToDay(to, { days: 1 }), timeZone) };
}

export function reportTimeZone(requested: string | null | undefined): string {
  return isTimeZone(requested) ? requested : REPORT_TIME_ZONE;
}

export interface ResolvedScope {
  units: ReportUnit[];
  /** Locked benefit/private cars in the scope without access (left out, §6). */
  excludedLocked: number;
  driverId: number | null;
  groupBy: ReportGrouping;
}

export function createFleetSource(database: DatabaseHandle, units: Pick<UnitService, 'list'>) {
  return {
    /**
     * The units a report covers. Units named by id must be the caller's visible units (another account's or an unseen
     * unit is 404); a department must be the account's. Locked benefit/private cars the caller has no access to are
     * left out of a fleet or department report and counted; named explicitly they are 403 (spec §6: only benefit value
     * and summary reports; the check is benefit-access.ts's, shared by every report).
     */
    async scope(actor: Actor, scope: Omit<ReportScope, 'groupBy'> & { groupBy?: ReportGrouping }, kind: ReportKind): Promise<ResolvedScope> {
      const visible = await units.list(actor);
      if (scope.departmentId !== undefined) {
        const [department] = await database.query('SELECT id FROM department_directory WHERE id = $1 AND account_id = $2', [scope.departmentId, actor.accountId]);
        if (!department) throw notFound('reports.scope.departmentNotFound');
      }
      if (scope.driverId !== undefined) {
        const [driver] = await database.query('SELECT id FROM user_names WHERE id = $1 AND account_id = $2', [scope.driverId, actor.accountId]);
        if (!driver) throw notFound('reports.scope.driverNotFound');
      }
      const byId = new Map(visible.map((unit) => [unit.ID, unit]));
      let chosen = visible;
      if (scope.unitIds && scope.unitIds.length > 0) {
        chosen = [];
        for (const id of new Set(scope.unitIds)) {
          const unit = byId.get(id);
          if (!unit) throw notFound('reports.scope.unitNotFound');
          if (!reportShowsUnit(kind, unit)) throw forbidden('reports.access.locked');
          chosen.push(unit);
        }
      }
      if (scope.departmentId !== undefined) chosen = chosen.filter((unit) => unit.Department?.id === scope.departmentId);
      const shown = fleetReportUnits(kind, chosen);
      const excludedLocked = chosen.length - shown.length;
      chosen = shown;
      const ids = chosen.map((unit) => unit.ID);
      const settings = ids.length === 0
        ? []
        : await database.query<{
            unit_id: number;
            fuel_type: FuelType | null;
            consumption_per_10km: number | null;
            co2_g_per_km: number | null;
            vehicle_type: string;
            green_driving: EcoSensitivity;
            overspeed_kmh: number | null;
          }>(
            `SELECT unit_id, fuel_type, consumption_per_10km, co2_g_per_km, vehicle_type, green_driving, overspeed_kmh
             FROM unit_report_settings WHERE account_id = $1 AND unit_id = ANY($2::int[])`,
            [actor.accountId, ids],
          );
      const settingsOf = new Map(settings.map((row) => [Number(row.unit_id), row]));
      const reportUnits = chosen
        .map((unit): ReportUnit => {
          const row = settingsOf.get(unit.ID);
          return {
            id: unit.ID,
            name: unit.Name,
            department: unit.Department ? { id: unit.Department.id, name: unit.Department.name } : null,
            fuelType: row?.fuel_type ?? null,
            consumptionPer10Km: row?.consumption_per_10km == null ? null : Number(row.consumption_per_10km),
            co2GPerKm: row?.co2_g_per_km == null ? null : Number(row.co2_g_per_km),
            vehicleType: row?.vehicle_type ?? 'passenger_car',
            sensitivity: row?.green_driving ?? 'normal',
            overspeedKmh: row?.overspeed_kmh == null ? DEFAULT_OVERSPEED_KMH : Number(row.overspeed_kmh),
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
      return { units: reportUnits, excludedLocked, driverId: scope.driverId ?? null, groupBy: scope.groupBy ?? 'vehicle' };
    },

    /**
     * The trips of the units starting in [start, end) (of one driver when given), oldest first, each with its idle and
     * overspeed seconds from its stored positions when `motion` is asked for.
     */
    async trips(accountId: number, unitList: ReportUnit[], start: Date, end: Date, options: { driverId?: number | null; motion?: boolean; newest?: number } = {}): Promise<ReportTrip[]> {
      if (unitList.length === 0) return [];
      const order = options.newest === undefined ? 'ORDER BY start_time, trip_id' : `ORDER BY start_time DESC, trip_id DESC LIMIT ${Math.max(0, Math.floor(options.newest))}`;
      const ids = unitList.map((unit) => unit.id);
      const rows = await database.query<{
        trip_id: string | number;
        unit_id: number;
        start_ms: string | number;
        stop_ms: string | number;
        distance_m: number;
        max_speed_kmh: number;
        driver_user_id: number | null;
        harsh_acceleration: number;
        harsh_braking: number;
        harsh_cornering: number;
        type: TripType;
      }>(
        // Plain float8s (not numeric or bigint): the drivers hand them over as numbers, not text to parse (a year of a fleet is
        // hundreds of thousands of rows).
        `SELECT trip_id::float8 AS trip_id, unit_id, floor(extract(epoch FROM start_time) * 1000)::float8 AS start_ms,
                floor(extract(epoch FROM stop_time) * 1000)::float8 AS stop_ms,
                distance_m, max_speed_kmh::float8 AS max_speed_kmh, driver_user_id, harsh_acceleration, harsh_braking, harsh_cornering, type
         FROM trip_report_rows
         WHERE account_id = $1 AND unit_id = ANY($2::int[]) AND start_time >= $3::timestamptz AND start_time < $4::timestamptz
           AND ($5::int IS NULL OR driver_user_id = $5::int)
         ${order}`,
        [accountId, ids, start.toISOString(), end.toISOString(), options.driverId ?? null],
      );
      const trips: ReportTrip[] = rows.map((row) => ({
        id: Number(row.trip_id),
        unitId: Number(row.unit_id),
        start: Number(row.start_ms),
        stop: Number(row.stop_ms),
        distanceM: Number(row.distance_m),
        maxSpeedKmh: Number(row.max_speed_kmh),
        driverUserId: row.driver_user_id === null ? null : Number(row.driver_user_id),
        harshAcceleration: Number(row.harsh_acceleration),
        harshBraking: Number(row.harsh_braking),
        harshCornering: Number(row.harsh_cornering),
        type: row.type,
        idleS: 0,
        overspeedS: 0,
      }));
      if (options.motion && trips.length > 0) {
        // The newest trips only: their positions, not the whole period's.
        const from = options.newest === undefined ? start : new Date(Math.min(...trips.map((trip) => trip.start)));
        const motion = await database.query<{ trip_id: string | number; idle_s: number | null; overspeed_s: number | null }>(
          `WITH ${tripMotionCtes({ account: '$1', units: '$2', thresholds: '$3', from: '$4', to: '$5', gap: '$6', idle: '$7' })}
           SELECT trip_id, idle_s, overspeed_s FROM motion`,
          [accountId, ids, unitList.map((unit) => unit.overspeedKmh), from.toISOString(), end.toISOString(), MAX_SAMPLE_GAP_S, IDLE_SPEED_KMH],
        );
        const byTrip = new Map(motion.map((row) => [Number(row.trip_id), row]));
        for (const trip of trips) {
          const row = byTrip.get(trip.id);
          if (!row) continue;
          trip.idleS = Math.round(Number(row.idle_s ?? 0));
          trip.overspeedS = Math.round(Number(row.overspeed_s ?? 0));
        }
      }
      return trips;
    },

    /**
     * The trips' totals summed in the database rather than read one by one (a year of a fleet is hundreds of thousands of
     * trips): per unit and driver, and per local day of `timeZone`. Idle and overspeed seconds come from the trips'
     * stored positions when `motion` is asked for.
     */
    async aggregates(
      accountId: number,
      unitList: ReportUnit[],
      period: Pick<ReportPeriod, 'start' | 'end' | 'timeZone'>,
      options: { driverId?: number | null; motion?: boolean } = {},
    ): Promise<{ perUnitDriver: TripAggregate[]; perDay: TripAggregate[] }> {
      if (unitList.length === 0) return { perUnitDriver: [], perDay: [] };
      const ids = unitList.map((unit) => unit.id);
      const motion = options.motion
        ? `${tripMotionCtes({ account: '$1', units: '$2', from: '$3', to: '$4', driver: '$5', thresholds: '$6', gap: '$7', idle: '$8' })},`
        : `motion AS (SELECT NULL::bigint AS trip_id, 0::float8 AS idle_s, 0::float8 AS overspeed_s WHERE $6::float8[] IS NULL AND $7::float8 IS NULL AND $8::float8 IS NULL),`;
      const params = [
        accountId,
        ids,
        period.start.toISOString(),
        period.end.toISOString(),
        options.driverId ?? null,
        unitList.map((unit) => unit.overspeedKmh),
        MAX_SAMPLE_GAP_S,
        IDLE_SPEED_KMH,
        period.timeZone,
      ];
      // Two queries side by side (each scans in parallel; grouping sets would not): per unit and driver, and per local day.
      const sums = `count(*)::float8 AS trips, sum(distance_m)::float8 AS distance_m,
                sum(CASE WHEN type = 'business' THEN distance_m ELSE 0 END)::float8 AS business_m,
                sum(CASE WHEN type = 'private' THEN distance_m ELSE 0 END)::float8 AS private_m,
                sum(CASE WHEN type = 'other' THEN distance_m ELSE 0 END)::float8 AS other_m,
                sum(GREATEST(0, extract(epoch FROM stop_time - start_time)))::float8 AS driving_s,
                sum(idle_s)::float8 AS idle_s, sum(overspeed_s)::float8 AS overspeed_s,
                max(max_speed_kmh)::float8 AS max_speed_kmh, sum(harsh_acceleration)::float8 AS harsh_acceleration,
                sum(harsh_braking)::float8 AS harsh_braking, sum(harsh_cornering)::float8 AS harsh_cornering,
                floor(extract(epoch FROM min(start_time)) * 1000)::float8 AS first_start_ms,
                floor(extract(epoch FROM max(stop_time)) * 1000)::float8 AS last_stop_ms`;
      const base = `WITH ${motion}
         base AS (
           SELECT t.unit_id, t.driver_user_id, t.start_time, t.stop_time, t.type, t.distance_m, t.max_speed_kmh,
                  t.harsh_acceleration, t.harsh_braking, t.harsh_cornering,
                  coalesce(m.idle_s, 0) AS idle_s, coalesce(m.overspeed_s, 0) AS overspeed_s
           FROM trip_report_rows t LEFT JOIN motion m ON m.trip_id = t.trip_id
           WHERE t.account_id = $1 AND t.unit_id = ANY($2::int[]) AND t.start_time >= $3::timestamptz AND t.start_time < $4::timestamptz
             AND ($5::int IS NULL OR t.driver_user_id = $5::int)
         )`;
      const [byUnitDriver, byDay] = await Promise.all([
        database.query<AggregateRow>(`${base} SELECT 1 AS g, unit_id, driver_user_id, NULL::text AS day, ${sums} FROM base WHERE $9::text IS NOT NULL GROUP BY unit_id, driver_user_id`, params),
        database.query<AggregateRow>(
          `${base}, days AS (SELECT (start_time AT TIME ZONE $9::text)::date AS local_day, * FROM base)
           SELECT 6 AS g, NULL::int AS unit_id, NULL::int AS driver_user_id, local_day::text AS day, ${sums} FROM days GROUP BY local_day`,
          params,
        ),
      ]);
      const rows = [...byUnitDriver, ...byDay];
      const perUnitDriver: TripAggregate[] = [];
      const perDay: TripAggregate[] = [];
      for (const row of rows) {
        const aggregate: TripAggregate = {
          unitId: row.unit_id === null ? null : Number(row.unit_id),
          driverUserId: row.driver_user_id === null ? null : Number(row.driver_user_id),
          day: row.day,
          trips: Number(row.trips),
          distanceM: Number(row.distance_m),
          byType: { business: Number(row.business_m), private: Number(row.private_m), other: Number(row.other_m) },
          drivingS: Number(row.driving_s),
          idleS: Math.round(Number(row.idle_s)),
          overspeedS: Math.round(Number(row.overspeed_s)),
          maxSpeedKmh: Number(row.max_speed_kmh ?? 0),
          harshAcceleration: Number(row.harsh_acceleration),
          harshBraking: Number(row.harsh_braking),
          harshCornering: Number(row.harsh_cornering),
          firstStart: Number(row.first_start_ms),
          lastStop: Number(row.last_stop_ms),
        };
        // g: 1 per unit and driver, 6 per day.
        if (Number(row.g) === 1) perUnitDriver.push(aggregate);
        else perDay.push(aggregate);
      }
      return { perUnitDriver, perDay };
    },

    /**
     * The trips' distances summed in the database per unit, driver and calendar month of the report's time zone (as
     * its period is: a trip starting just after midnight on the 1st belongs to that month, and its year chooses the CO2
     * factor): what fuel, CO2 and the environmental report need, since each trip's fuel and CO2 are its distance times
     * a figure of its unit and year.
     */
    async distanceSums(
      accountId: number,
      unitList: ReportUnit[],
      period: Pick<ReportPeriod, 'start' | 'end' | 'timeZone'>,
      options: { driverId?: number | null } = {},
    ): Promise<DistanceSum[]> {
      if (unitList.length === 0) return [];
      const rows = await database.query<{ unit_id: number; driver_user_id: number | null; month: string; trips: number; distance_m: number }>(
        `SELECT unit_id, driver_user_id, to_char(start_time AT TIME ZONE $6::text, 'YYYY-MM') AS month,
                count(*)::float8 AS trips, sum(distance_m)::float8 AS distance_m
         FROM trip_report_rows
         WHERE account_id = $1 AND unit_id = ANY($2::int[]) AND start_time >= $3::timestamptz AND start_time < $4::timestamptz
           AND ($5::int IS NULL OR driver_user_id = $5::int)
         GROUP BY 1, 2, 3
         ORDER BY 3, 1, 2`,
        [accountId, unitList.map((unit) => unit.id), period.start.toISOString(), period.end.toISOString(), options.driverId ?? null, period.timeZone],
      );
      return rows.map((row) => ({
        unitId: Number(row.unit_id),
        driverUserId: row.driver_user_id === null ? null : Number(row.driver_user_id),
        month: row.month,
        trips: Number(row.trips),
        distanceM: Number(row.distance_m),
      }));
    },

    /**
     * First start and last stop per local day and vehicle (or driver), in date order, at most `limit` of them from
     * `offset` on, and how many there are in all.
     */
    async dayRows(
      accountId: number,
      unitList: ReportUnit[],
      period: Pick<ReportPeriod, 'start' | 'end' | 'timeZone'>,
      options: { driverId?: number | null; groupBy: ReportGrouping; limit: number; offset?: number },
    ): Promise<{ rows: Array<{ day: string; key: number; firstStart: number; lastStop: number; trips: number; distanceM: number }>; total: number }> {
      if (unitList.length === 0) return { rows: [], total: 0 };
      const key = options.groupBy === 'vehicle' ? 'unit_id' : 'coalesce(driver_user_id, 0)';
      const rows = await database.query<{ day: string; key: number; first_start_ms: number; last_stop_ms: number; trips: number; distance_m: number; total: number }>(
        `SELECT ((start_time AT TIME ZONE $6::text)::date)::text AS day, ${key} AS key,
                floor(extract(epoch FROM min(start_time)) * 1000)::float8 AS first_start_ms,
                floor(extract(epoch FROM max(stop_time)) * 1000)::float8 AS last_stop_ms,
                count(*)::float8 AS trips, sum(distance_m)::float8 AS distance_m, (count(*) OVER ())::float8 AS total
         FROM trip_report_rows
         WHERE account_id = $1 AND unit_id = ANY($2::int[]) AND start_time >= $3::timestamptz AND start_time < $4::timestamptz
           AND ($5::int IS NULL OR driver_user_id = $5::int)
         GROUP BY 1, 2
         ORDER BY 1, 2
         LIMIT $7::int OFFSET $8::int`,
        [
          accountId,
          unitList.map((unit) => unit.id),
          period.start.toISOString(),
          period.end.toISOString(),
          options.driverId ?? null,
          period.timeZone,
          options.limit,
          options.offset ?? 0,
        ],
      );
      let total = rows.length === 0 ? 0 : Number(rows[0]!.total);
      if (rows.length === 0 && (options.offset ?? 0) > 0) {
        const [count] = await database.query<{ total: number }>(
          `SELECT count(*)::float8 AS total FROM (SELECT 1 FROM trip_report_rows
             WHERE account_id = $1 AND unit_id = ANY($2::int[]) AND start_time >= $3::timestamptz AND start_time < $4::timestamptz
               AND ($5::int IS NULL OR driver_user_id = $5::int)
             GROUP BY (start_time AT TIME ZONE $6::text)::date, ${key}) AS d`,
          [accountId, unitList.map((unit) => unit.id), period.start.toISOString(), period.end.toISOString(), options.driverId ?? null, period.timeZone],
        );
        total = Number(count?.total ?? 0);
      }
      return {
        rows: rows.map((row) => ({
          day: row.day,
          key: Number(row.key),
          firstStart: Number(row.first_start_ms),
          lastStop: Number(row.last_stop_ms),
          trips: Number(row.trips),
          distanceM: Number(row.distance_m),
        })),
        total,
      };
    },

    /** The CO2 factors per fuel, country and year (table co2_factors, which an operator corrects). */
    async co2Factors(): Promise<Co2Factor[]> {
      const rows = await database.query<{ fuel_type: FuelType; country: string; year: number; kg_per_unit: number; energy_unit: EnergyUnit; basis: Co2Basis; verified: boolean; source: string }>(
        'SELECT fuel_type, country, year, kg_per_unit, energy_unit, basis, verified, source FROM co2_factors ORDER BY fuel_type, country, year',
      );
      return rows.map((row) => ({
        fuelType: row.fuel_type,
        country: row.country,
        year: Number(row.year),
        kgPerUnit: Number(row.kg_per_unit),
        energyUnit: row.energy_unit,
        basis: row.basis,
        verified: row.verified,
        source: row.source,
      }));
    },

    /** Names of drivers (users of the account, deleted ones too). */
    async driverNames(accountId: number, ids: number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await database.query<{ id: number; first_name: string | null; last_name: string | null; email: string }>(
        'SELECT id, first_name, last_name, email FROM user_names WHERE account_id = $1 AND id = ANY($2::int[])',
        [accountId, ids],
      );
      return new Map(rows.map((row) => [Number(row.id), [row.first_name, row.last_name].filter(Boolean).join(' ').trim() || row.email]));
    },

    /** Reported fuel levels of the units in [start, end), per unit in time order. */
    async fuelLevels(unitIds: number[], start: Date, end: Date): Promise<Map<number, Array<{ t: number; level: number; speedKmh: number; lat: number; lon: number }>>> {
      const out = new Map<number, Array<{ t: number; level: number; speedKmh: number; lat: number; lon: number }>>();
      if (unitIds.length === 0) return out;
      const rows = await database.query<{ unit_id: number; t: string | number; fuel_level: number; speed_kmh: number; lat: number; lon: number }>(
        `SELECT unit_id, floor(extract(epoch FROM time) * 1000) AS t, fuel_level, speed_kmh, lat, lon
         FROM position_report_rows
         WHERE unit_id = ANY($1::int[]) AND time >= $2::timestamptz AND time < $3::timestamptz AND fuel_level IS NOT NULL
         ORDER BY unit_id, time`,
        [unitIds, start.toISOString(), end.toISOString()],
      );
      for (const row of rows) {
        const id = Number(row.unit_id);
        const list = entry(out, id, () => ([]));
        list.push({ t: Number(row.t), level: Number(row.fuel_level), speedKmh: Number(row.speed_kmh), lat: Number(row.lat), lon: Number(row.lon) });
      }
      return out;
    },
  };
}

export type FleetSource = ReturnType<typeof createFleetSource>;

/** The header every report answers with. */
export function reportHeader(kind: ReportKind, period: ReportPeriod, scope: ResolvedScope, now: Date): ReportHeader {
  return {
    kind,
    from: period.from,
    to: period.to,
    timeZone: period.timeZone,
    groupBy: scope.groupBy,
    units: scope.units.map((unit) => ({ id: unit.id, name: unit.name })),
    excludedLockedUnits: scope.excludedLocked,
    generatedAt: now.toISOString(),
  };
}

/** Rows grouped per vehicle or driver: each trip's (or sum's) key and the row's name and department. */
export function grouping(scope: ResolvedScope, driverNames: Map<number, string>, noDriver: string) {
  const unitById = new Map(scope.units.map((unit) => [unit.id, unit]));
  return {
    keyOf: (part: { unitId: number; driverUserId: number | null }): number => (scope.groupBy === 'vehicle' ? part.unitId : (part.driverUserId ?? 0)),
    labelOf: (key: number): { key: number; name: string; department: { id: number; name: string } | null } => {
      if (scope.groupBy === 'vehicle') {
        const unit = unitById.get(key);
        return { key, name: unit?.name ?? String(key), department: unit?.department ?? null };
      }
      return { key, name: key === 0 ? noDriver : (driverNames.get(key) ?? String(key)), department: null };
    },
    unitById,
  };
}

/** Every day from `from` to `to`, inclusive. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = from; day <= to; day = addToDay(day, { days: 1 })) out.push(day);
  return out;
}

export const round = (value: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};

/** The map's value for a key, created (and stored) when missing. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
