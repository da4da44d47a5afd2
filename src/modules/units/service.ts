import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, asc, count, desc, eq, exists, gt, ilike, inArray, not, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { type Database, pgArrayLiteral } from '../../lib/db/client';
import { uniqueViolation } from '../../lib/db/errors';
import { Pacer } from '../../lib/pace';
import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { accounts, users } from '../accounts/schema';
import type { Actor } from '../accounts/users';
import { findUserById } from '../accounts/users';
import type { BrandService } from '../brands/service';
import type { CommandService } from '../io/commands';
import { type UnitAccess as MapUnitAccess, unitStatus, type WeeklyHours } from '../tracking/model';
import {
  type AddTerminalInput,
  type BenefitInput,
  type BulkResult,
  type AccountChoice,
  type BulkTask,
  bluetoothCommand,
  type CatalogEntry,
  type CatalogKind,
  type CatalogView,
  type Co2Input,
  DEFAULT_LIST_COLUMNS,
  DEFAULT_PAYMENT_TYPES,
  type DetailsInput,
  deviceKindOfModel,
  type FeatureProfileInput,
  type FeatureProfileView,
  type FuelInput,
  IMAGE_MAX_BYTES,
  IMAGES_PER_UNIT,
  type ImageView,
  type ListPreferences,
  type LockLogEntry,
  type MarkerInput,
  type MetersInput,
  type MeterHistoryEntry,
  NAME_HISTORY_MAX,
  type NamedRef,
  type NameHistoryEntry,
  type ObjectDescriptionInput,
  type ObjectDescriptionView,
  type OperatingMode,
  operatingModeCommand,
  type OrganisationInput,
  REGISTRATION_CHANGES_PER_DAY,
  reportFrequencyCommand,
  type SettingRequestView,
  type StockAddInput,
  type StockAddResult,
  type StockItem,
  type StockListQuery,
  supportsTheftMode,
  type TheftReportInput,
  type TheftReportView,
  type TrackerHistoryEntry,
  type UnitAccessUser,
  type UnitDetail,
  type UnitListQuery,
  type UnitOptions,
  type UnitView,
  type UserUnitAccess,
  type WorkingHoursInput,
} from './model';
import { objectDescriptionPdf, type PdfContext, type PdfImage, type PdfUnit, theftReportPdf } from './pdf';
import {
  departments,
  featureProfiles,
  projects,
  reportFrequencyDenials,
  tags,
  trackerStock,
  type UnitRow,
  unitAccess,
  unitEngineHours,
  unitImages,
  unitListPreferences,
  unitLockLog,
  unitMeterCalibrations,
  unitNameHistory,
  unitObjectDescriptions,
  unitRegistrationChanges,
  units,
  unitSettingRequests,
  unitTags,
  unitTheftReports,
  unitTrackerHistory,
} from './schema';

export type StockRow = typeof trackerStock.$inferSelect;

/** What the gateway needs to accept a device and store its records. */
export interface KnownUnit {
  unitId: number;
  accountId: number;
  imei: string;
  name: string;
  model: string;
  protocol: UnitRow['protocol'];
  timezoneMinutes: number;
}

/** Why an IMEI cannot be registered; each is an i18n key shown under the IMEI field (spec §8). */
export type ImeiRefusal = 'registration.imei.notFound' | 'registration.imei.wrongSite' | 'registration.imei.taken';
export type ImeiCheck = { ok: true; stock: StockRow } | { ok: false; reason: ImeiRefusal };

/** The latest state of a unit as the tracking module reports it (a subset of its LiveState). */
export interface UnitLiveState {
  id: number;
  lat: number | null;
  lon: number | null;
  time: string | null;
  lastSeen: string | null;
  speed: number | null;
  ignition: boolean | null;
  odometerM: number | null;
  dout1: boolean | null;
  dout2: boolean | null;
  dout3: boolean | null;
  din2: boolean | null;
  din3: boolean | null;
}

/** Ports to modules built after this one (wired in src/app.ts). */
export interface UnitPorts {
  liveStates?: (unitIds: number[]) => Promise<UnitLiveState[]>;
  /** The trip log's "time till parked" of a unit, in seconds (its default when the unit has none). */
  timeTillParked?: { get(unitId: number): Promise<number>; set(unitId: number, seconds: number): Promise<void> };
  /** The driver checked in on each of these units now (the trip log's check-ins), by unit id. */
  checkedInDrivers?: (unitIds: number[]) => Promise<Map<number, { userId: number; name: string }>>;
  /** Of these geofence ids, those that belong to the account (the geofences module); unset: none can be named. */
  geozonesOf?: (accountId: number, ids: number[]) => Promise<number[]>;
}

export interface UnitServiceDeps {
  platform?: Platform;
  commands?: CommandService;
  brands?: BrandService;
  /** Where the brands' logo files live (src/web/public). */
  webPublicDir?: string;
}

/** Ignition-on time between two records counts up to this gap (a tracker that went silent is not running for days). */
export const MAX_ENGINE_GAP_S = 30 * 60;

/** Inserts in slices so that a delivery of thousands of IMEIs stays within the drivers' parameter limits. */
const INSERT_SLICE = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_PUBLIC_DIR = join(import.meta.dir, '..', '..', 'web', 'public');
type Setting = 'operating_mode' | 'report_frequency' | 'bluetooth';
type Executor = Database;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Spec §5: PNG, JPG or JPEG; the bytes decide, the name and declared type must agree. */
export function detectImageType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | null {
  if (PNG_MAGIC.every((byte, index) => bytes[index] === byte)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (match) => `\\${match}`);
}

function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A moment as the reader reads it: their language's short date and time in their time zone. */
function formatTime(at: Date, language: Language, timeZone: string): string {
  const locale = language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', timeZone, timeZoneName: 'short' }).format(at);
  } catch {
    return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
}

/** The first message key of an AppError (a field error's, else its own). */
function errorKey(error: AppError): string {
  const fields = error.options.fields;
  if (fields) {
    const first = Object.values(fields)[0]?.[0];
    if (first) return first;
  }
  return error.key;
}

/**
 * Units (scoped by the caller's account), their edit sections, the unit list, and the tracker stock that
 * registration and add-terminal draw from. Methods that take `executor` run inside a caller's transaction
 * (registration) when given one.
 */
export function createUnitService(db: Database, deps: UnitServiceDeps = {}) {
  const ports: UnitPorts = {};
  const { platform, commands, brands } = deps;
  const publicDir = deps.webPublicDir ?? DEFAULT_PUBLIC_DIR;
  const now = () => platform?.clock.now() ?? new Date();

  /** Correlated: the stock row's IMEI is a unit. */
  const registered = () => exists(db.select({ one: sql`1` }).from(units).where(eq(units.imei, trackerStock.imei)));

  function requirePlatform(): Platform {
    if (!platform) throw new Error('the unit service was built without the platform');
    return platform;
  }

  // -------------------------------------------------------------------------------------------
  // Look-ups
  // -------------------------------------------------------------------------------------------

  /** Spec §6: an ordinary user sees only the units given to them; everyone else every unit of the account. */
  const seesAllUnits = (actor: Actor) => actor.role !== 'user';

  /** Correlated: the unit (of the outer query) is given to this user. */
  const grantedTo = (userId: number) =>
    exists(
      db
        .select({ one: sql`1` })
        .from(unitAccess)
        .where(and(eq(unitAccess.unitId, units.id), eq(unitAccess.userId, userId))),
    );

  /** The caller's units: the account's, and for an ordinary user only those given to them. */
  const visibleTo = (actor: Actor): SQL | undefined => (seesAllUnits(actor) ? eq(units.accountId, actor.accountId) : and(eq(units.accountId, actor.accountId), grantedTo(actor.userId)));

  /**
   * Another account's unit is indistinguishable from a missing one: 404, no data. A unit of the account
   * that an ordinary user was not given is 403 (spec §8 "no access to tracker").
   */
  async function ownUnit(actor: Actor, id: number, executor: Executor = db, lock = false): Promise<UnitRow> {
    const query = executor
      .select()
      .from(units)
      .where(and(eq(units.id, id), visibleTo(actor)))
      .limit(1);
    const [row] = lock ? await query.for('update') : await query;
    if (row) return row;
    if (!seesAllUnits(actor)) {
      const [other] = await executor
        .select({ id: units.id })
        .from(units)
        .where(and(eq(units.id, id), eq(units.accountId, actor.accountId)))
        .limit(1);
      if (other) throw forbidden('units.access.denied');
    }
    throw notFound('errors.unitNotFound');
  }

  const isLocked = (row: Pick<UnitRow, 'lockedBy' | 'lockedAt'>) => row.lockedBy !== null || row.lockedAt !== null;

  /**
   * Spec §6: a locked benefit or private car is accessible to its locker, to the users given access to it
   * and to support; an unlocked unit to everyone who sees it. Returns the ids of `rows` the caller may not
   * read trips and positions of.
   */
  async function withoutAccess(actor: Actor, rows: UnitRow[]): Promise<Set<number>> {
    if (actor.role === 'support') return new Set();
    const locked = rows.filter((row) => isLocked(row) && row.lockedBy !== actor.userId);
    if (locked.length === 0) return new Set();
    const granted = await db
      .select({ unitId: unitAccess.unitId })
      .from(unitAccess)
      .where(and(eq(unitAccess.userId, actor.userId), inArray(unitAccess.unitId, locked.map((row) => row.id))));
    const grantedIds = new Set(granted.map((row) => row.unitId));
    return new Set(locked.filter((row) => !grantedIds.has(row.id)).map((row) => row.id));
  }

  /** The unit's working hours as the map reads them (minutes after local midnight per ISO weekday). */
  function weeklyHours(value: unknown): WeeklyHours | null {
    const hours = parseJson<WorkingHoursInput | null>(value);
    if (!hours?.enabled || hours.days.length === 0) return null;
    const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
    const out: WeeklyHours = {};
    for (const day of hours.days) {
      const key = day.day as keyof WeeklyHours;
      out[key] = [...(out[key] ?? []), [minutes(day.start), minutes(day.end)]];
    }
    return out;
  }

  /** Users of the account by id (404 for anyone else's). */
  async function accountUser(actor: Actor, userId: number) {
    const [row] = await db
      .select({ id: users.id, role: users.role })
      .from(users)
      .where(and(eq(users.id, userId), eq(users.accountId, actor.accountId)));
    if (!row) throw notFound('errors.invalidUserId');
    return row;
  }

  /** Support reaches every account's units (spec §6: support unlocks units); everyone else their own. */
  async function reachableUnit(actor: Actor, id: number, executor: Executor = db, lock = false): Promise<UnitRow> {
    if (actor.role !== 'support') return ownUnit(actor, id, executor, lock);
    const query = executor.select().from(units).where(eq(units.id, id)).limit(1);
    const [row] = lock ? await query.for('update') : await query;
    if (!row) throw notFound('errors.unitNotFound');
    return row;
  }

  async function userNames(ids: Array<number | null>): Promise<Map<number, string>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await db
      .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, email: users.email })
      .from(users)
      .where(inArray(users.id, wanted));
    return new Map(rows.map((row) => [row.id, `${row.firstName} ${row.lastName}`.trim() || row.email]));
  }

  async function liveStatesOf(ids: number[]): Promise<Map<number, UnitLiveState>> {
    if (!ports.liveStates || ids.length === 0) return new Map();
    const states = await ports.liveStates(ids);
    return new Map(states.map((state) => [state.id, state]));
  }

  /** Newest calibration per unit and kind. */
  async function latestCalibrations(ids: number[]) {
    const result = new Map<string, { value: number; sourceValue: number | null }>();
    if (ids.length === 0) return result;
    const rows = await db
      .select()
      .from(unitMeterCalibrations)
      .where(inArray(unitMeterCalibrations.unitId, ids))
      .orderBy(desc(unitMeterCalibrations.setAt), desc(unitMeterCalibrations.id));
    for (const row of rows) {
      const key = `${row.unitId}:${row.kind}`;
      if (!result.has(key)) result.set(key, { value: row.value, sourceValue: row.sourceValue });
    }
    return result;
  }

  /** The operating-hours counter per unit in seconds: the tracker's own engine-hours IO when it reports one, else counted ignition-on time. */
  async function engineCounters(ids: number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await db.select().from(unitEngineHours).where(inArray(unitEngineHours.unitId, ids));
    return new Map(rows.map((row) => [row.unitId, row.trackerS ?? row.countedS]));
  }

  /** Operating hours (seconds): the newest calibration plus what was counted since; without one, the counter. */
  function operatingSeconds(calibration: { value: number; sourceValue: number | null } | undefined, counter: number | undefined): number | null {
    if (!calibration) return counter ?? null;
    if (calibration.sourceValue !== null && counter !== undefined) return calibration.value + Math.max(0, counter - calibration.sourceValue);
    return calibration.value;
  }

  type EnginePosition = { time: Date; ignition: boolean | undefined; normalized: { ignition?: boolean; engineSeconds?: number } };
  const engineBacklog = new Map<number, EnginePosition[]>();
  let engineRun: Promise<void> | null = null;
  /** Operating hours are counted in a pass at most every 2 s (see `Pacer`). */
  const enginePace = new Pacer(2000);

  /**
   * Counts ignition-on time from stored records (spec §3 operating hours): the time from a record with the
   * ignition on to the next one, each gap at most MAX_ENGINE_GAP_S; records older than the newest counted
   * are left out. Keeps the tracker's own engine-hours counter where its model reports one. One transaction
   * for every unit of a batch.
   */
  async function countEngineHours(batch: Map<number, EnginePosition[]>): Promise<void> {
    // Slices keep a fleet-wide batch within the drivers' parameter limits.
    const all = [...batch.keys()];
    for (let start = 0; start < all.length; start += INSERT_SLICE) await countEngineSlice(batch, all.slice(start, start + INSERT_SLICE));
  }

  async function countEngineSlice(batch: Map<number, EnginePosition[]>, slice: number[]): Promise<void> {
    // Every statement here has the same text whatever the slice's size (ids as one array parameter, rows through
    // unnest): the database plans each once, instead of parsing and planning thousands of parameters every pass.
    await db.transaction(async (tx) => {
      const existing = await tx.select({ id: units.id }).from(units).where(sql`${units.id} = ANY(${pgArrayLiteral(slice)}::int[])`);
      const ids = existing.map((row) => row.id).sort((a, b) => a - b);
      if (ids.length === 0) return;
      // Locked in unit order, so that two instances counting overlapping batches never deadlock.
      const rows = await tx
        .select()
        .from(unitEngineHours)
        .where(sql`${unitEngineHours.unitId} = ANY(${pgArrayLiteral(ids)}::int[])`)
        .orderBy(asc(unitEngineHours.unitId))
        .for('update');
      const byUnit = new Map(rows.map((row) => [row.unitId, row]));
      const values = ids.map((unitId) => {
        const row = byUnit.get(unitId);
        let countedS = row?.countedS ?? 0;
        let lastTime = row?.lastTime ?? null;
        let lastIgnition = row?.lastIgnition ?? null;
        let trackerS = row?.trackerS ?? null;
        for (const position of [...batch.get(unitId)!].sort((a, b) => a.time.getTime() - b.time.getTime())) {
          if (lastTime && position.time.getTime() <= lastTime.getTime()) continue;
          if (lastTime && lastIgnition === true) countedS += Math.min((position.time.getTime() - lastTime.getTime()) / 1000, MAX_ENGINE_GAP_S);
          lastTime = position.time;
          const ignition = position.ignition ?? position.normalized.ignition;
          if (ignition !== undefined) lastIgnition = ignition;
          if (position.normalized.engineSeconds !== undefined && position.normalized.engineSeconds >= 0) trackerS = position.normalized.engineSeconds;
        }
        return { unitId, countedS, lastTime, lastIgnition, trackerS };
      });
      const column = <T>(of: (value: (typeof values)[number]) => T) => pgArrayLiteral(values.map(of));
      await tx
        .insert(unitEngineHours)
        .select(
          sql`SELECT unit_id, counted_s, last_time, last_ignition, tracker_s, ${now().toISOString()}::timestamptz
              FROM unnest(${column((v) => v.unitId)}::int[], ${column((v) => v.countedS)}::float8[], ${column((v) => v.lastTime)}::timestamptz[],
                          ${column((v) => v.lastIgnition)}::boolean[], ${column((v) => v.trackerS)}::float8[])
                AS x(unit_id, counted_s, last_time, last_ignition, tracker_s)`,
        )
        .onConflictDoUpdate({
          target: unitEngineHours.unitId,
          set: {
            countedS: sql`excluded.counted_s`,
            lastTime: sql`excluded.last_time`,
            lastIgnition: sql`excluded.last_ignition`,
            trackerS: sql`excluded.tracker_s`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    });
  }

  /** Takes stored positions off the ingest path at once; one runner counts them in batches behind it. */
  function queueEngineHours(unitId: number, positions: EnginePosition[]): void {
    const list = engineBacklog.get(unitId) ?? [];
    for (const position of positions) list.push(position);
    engineBacklog.set(unitId, list);
    if (engineRun) return;
    engineRun = (async () => {
      while (engineBacklog.size > 0) {
        await enginePace.next();
        const batch = new Map(engineBacklog);
        engineBacklog.clear();
        try {
          await countEngineHours(batch);
        } catch (error) {
          platform?.log.error('operating hours count failed', { units: batch.size, error: String(error) });
        }
      }
    })().finally(() => {
      engineRun = null;
    });
  }

  /** Odometer: the newest calibration plus what the tracker counted since; without one, the tracker's own counter. */
  function odometerM(calibration: { value: number; sourceValue: number | null } | undefined, live: UnitLiveState | undefined): number | null {
    const counter = live?.odometerM ?? null;
    if (!calibration) return counter;
    if (calibration.sourceValue !== null && counter !== null) return calibration.value + Math.max(0, counter - calibration.sourceValue);
    return calibration.value;
  }

  async function refsOf(table: typeof departments | typeof projects | typeof featureProfiles, ids: Array<number | null>): Promise<Map<number, NamedRef>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await db.select({ id: table.id, name: table.name }).from(table).where(inArray(table.id, wanted));
    return new Map(rows.map((row) => [row.id, row]));
  }

  async function views(rows: UnitRow[], actor: Actor | null): Promise<UnitView[]> {
    const ids = rows.map((row) => row.id);
    const [departmentRefs, projectRefs, profileRefs, live, calibrations, tagRows, restricted, drivers, engines] = await Promise.all([
      refsOf(departments, rows.map((row) => row.departmentId)),
      refsOf(projects, rows.map((row) => row.projectId)),
      refsOf(featureProfiles, rows.map((row) => row.featureProfileId)),
      liveStatesOf(ids),
      latestCalibrations(ids),
      ids.length === 0
        ? Promise.resolve([])
        : db
            .select({ unitId: unitTags.unitId, id: tags.id, name: tags.name })
            .from(unitTags)
            .innerJoin(tags, eq(tags.id, unitTags.tagId))
            .where(inArray(unitTags.unitId, ids))
            .orderBy(asc(tags.name)),
      actor ? withoutAccess(actor, rows) : Promise.resolve(new Set<number>()),
      ports.checkedInDrivers && ids.length > 0 ? ports.checkedInDrivers(ids) : Promise.resolve(new Map<number, { userId: number; name: string }>()),
      engineCounters(ids),
    ]);
    const tagsByUnit = new Map<number, NamedRef[]>();
    for (const tag of tagRows) {
      const list = tagsByUnit.get(tag.unitId) ?? [];
      list.push({ id: tag.id, name: tag.name });
      tagsByUnit.set(tag.unitId, list);
    }
    const at = now();
    return rows.map((row) => {
      const hasAccess = !restricted.has(row.id);
      // Spec §6: without access to a locked car nothing of where it is or was, or whether it moves.
      const state = hasAccess ? live.get(row.id) : undefined;
      const driver = hasAccess ? drivers.get(row.id) : undefined;
      // Meters stay: the odometer and operating hours are part of the summary (benefit value, reports).
      const odometer = odometerM(calibrations.get(`${row.id}:odometer`), live.get(row.id));
      const hours = operatingSeconds(calibrations.get(`${row.id}:hours`), engines.get(row.id));
      return {
        ID: row.id,
        Name: row.name,
        Imei: row.imei,
        RegistrationNumber: row.registrationNumber,
        Model: row.model,
        Protocol: row.protocol,
        SubscriptionType: row.subscriptionType,
        VehicleType: row.vehicleType,
        CreatedAt: row.createdAt.toISOString(),
        DeviceKind: row.deviceKind,
        Color: row.color,
        MarkerIcon: row.markerIcon,
        Department: row.departmentId === null ? null : (departmentRefs.get(row.departmentId) ?? null),
        Project: row.projectId === null ? null : (projectRefs.get(row.projectId) ?? null),
        Tags: tagsByUnit.get(row.id) ?? [],
        FeatureProfile: row.featureProfileId === null ? null : (profileRefs.get(row.featureProfileId) ?? null),
        OperatingMode: row.operatingMode,
        ReportFrequencyS: row.reportFrequencyS,
        FuelType: row.fuelType,
        CarUsage: row.carUsage,
        isLocked: isLocked(row),
        HasAccess: hasAccess,
        CheckedInDriver: driver ? { id: driver.userId, name: driver.name } : null,
        NextInspection: row.nextInspection,
        LastSeen: state?.lastSeen ?? null,
        Status: unitStatus({ lastSeen: state?.lastSeen ?? null, speed: state?.speed ?? null, ignition: state?.ignition ?? null }, at),
        OdometerKm: odometer === null ? null : round(odometer / 1000, 1),
        OperatingHours: hours === null ? null : round(hours / 3600, 1),
        Outputs: { dout1: state?.dout1 ?? null, dout2: state?.dout2 ?? null, dout3: state?.dout3 ?? null },
        Inputs: { din2: state?.din2 ?? null, din3: state?.din3 ?? null },
      };
    });
  }

  async function isFrequencyDenied(userId: number): Promise<boolean> {
    const [row] = await db.select({ userId: reportFrequencyDenials.userId }).from(reportFrequencyDenials).where(eq(reportFrequencyDenials.userId, userId));
    return Boolean(row);
  }

  /** Spec §6: some users may not change report frequency, and a unit's frequency can be locked. */
  async function assertMayChangeFrequency(actor: Actor, unit: UnitRow): Promise<void> {
    if (actor.role === 'support') return;
    if (await isFrequencyDenied(actor.userId)) throw forbidden('units.frequency.denied');
    if (unit.reportFrequencyLocked) throw new AppError(409, 'units.frequency.locked');
  }

  // -------------------------------------------------------------------------------------------
  // Settings queued to the tracker
  // -------------------------------------------------------------------------------------------

  async function applySetting(requestId: number, outcome: 'confirmed' | 'failed'): Promise<void> {
    await db.transaction(async (tx) => {
      const [request] = await tx
        .update(unitSettingRequests)
        .set({ status: outcome, resolvedAt: now() })
        .where(and(eq(unitSettingRequests.id, requestId), eq(unitSettingRequests.status, 'pending')))
        .returning();
      if (!request || outcome !== 'confirmed') return;
      const values: Partial<typeof units.$inferInsert> =
        request.setting === 'operating_mode'
          ? { operatingMode: request.value as OperatingMode }
          : request.setting === 'report_frequency'
            ? { reportFrequencyS: Number(request.value) }
            : { bluetoothEnabled: request.value === '1' };
      await tx.update(units).set(values).where(eq(units.id, request.unitId));
    });
  }

  /** A device's answer to `setparam` names the new values; anything that reads as an error fails the change. */
  function answerConfirms(response: string | null): boolean {
    return !/invalid|error|fail|unknown/i.test(response ?? '');
  }

  async function resolveByCommand(commandId: number, status: string, response: string | null): Promise<void> {
    const [request] = await db
      .select({ id: unitSettingRequests.id })
      .from(unitSettingRequests)
      .where(and(eq(unitSettingRequests.commandId, commandId), eq(unitSettingRequests.status, 'pending')));
    if (!request) return;
    if (status === 'answered') await applySetting(request.id, answerConfirms(response) ? 'confirmed' : 'failed');
    else if (status === 'no_response' || status === 'expired') await applySetting(request.id, 'failed');
  }

  // Spec §3 operating hours: counted from every stored record.
  platform?.events.on('positions.stored', ({ unitId, positions }) => {
    queueEngineHours(unitId, positions);
  });

  platform?.events.on('command.result', async ({ commandId, status, response }) => {
    await resolveByCommand(commandId, status, response);
  });

  // Spec §6: changing a user's department resets their unit access.
  platform?.events.on('user.department_changed', async ({ userId }) => {
    await db.delete(unitAccess).where(eq(unitAccess.userId, userId));
  });

  async function queueSetting(actor: Actor, unit: UnitRow, setting: Setting, value: string, command: string): Promise<void> {
    if (!commands) throw new Error('the unit service was built without the command queue');
    if (unit.protocol !== 'teltonika') throw fieldError(setting === 'bluetooth' ? 'enabled' : 'mode', 'units.mode.unsupportedProtocol');
    const commandId = await commands.enqueue({ unitId: unit.id, kind: 'setparam', payload: command, requestedBy: actor.userId });
    await db.transaction(async (tx) => {
      await tx
        .update(unitSettingRequests)
        .set({ status: 'superseded', resolvedAt: now() })
        .where(and(eq(unitSettingRequests.unitId, unit.id), eq(unitSettingRequests.setting, setting), eq(unitSettingRequests.status, 'pending')));
      await tx.insert(unitSettingRequests).values({ unitId: unit.id, setting, value, commandId, requestedBy: actor.userId, requestedAt: now() });
    });
  }

  /** Pending (or last failed) settings; a pending one whose command already ended is settled here too. */
  async function pendingSettings(unitId: number): Promise<UnitDetail['PendingSettings']> {
    const rows = await db
      .select()
      .from(unitSettingRequests)
      .where(and(eq(unitSettingRequests.unitId, unitId), inArray(unitSettingRequests.status, ['pending', 'failed'])))
      .orderBy(desc(unitSettingRequests.requestedAt), desc(unitSettingRequests.id));
    const result: UnitDetail['PendingSettings'] = {};
    for (const row of rows) {
      if (result[row.setting]) continue;
      let status = row.status;
      if (status === 'pending' && row.commandId !== null && commands) {
        const command = await commands.get(row.commandId);
        if (command && command.status !== 'queued' && command.status !== 'sent') {
          await resolveByCommand(row.commandId, command.status, command.response);
          const [fresh] = await db.select({ status: unitSettingRequests.status }).from(unitSettingRequests).where(eq(unitSettingRequests.id, row.id));
          status = fresh?.status ?? status;
        }
      }
      if (status === 'confirmed' || status === 'superseded') continue;
      const view: SettingRequestView = { value: row.value, status, requestedAt: row.requestedAt.toISOString(), resolvedAt: iso(row.resolvedAt) };
      result[row.setting] = view;
    }
    return result;
  }

  // -------------------------------------------------------------------------------------------
  // Section operations shared by the single-unit routes and bulk tasks
  // -------------------------------------------------------------------------------------------

  async function touch(unitId: number, values: Partial<typeof units.$inferInsert>, executor: Executor = db) {
    await executor
      .update(units)
      .set({ ...values, updatedAt: now() })
      .where(eq(units.id, unitId));
  }

  async function assertCatalogRef(
    actor: Actor,
    table: typeof departments | typeof projects | typeof featureProfiles,
    id: number | null,
    field: string,
    key: string,
  ): Promise<void> {
    if (id === null) return;
    const [row] = await db
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)));
    if (!row) throw fieldError(field, key);
  }

  async function assertTags(actor: Actor, tagIds: number[], field = 'tagIds'): Promise<void> {
    if (tagIds.length === 0) return;
    const rows = await db
      .select({ id: tags.id })
      .from(tags)
      .where(and(inArray(tags.id, tagIds), eq(tags.accountId, actor.accountId)));
    if (rows.length !== tagIds.length) throw fieldError(field, 'units.tag.notFound');
  }

  async function setOperatingMode(actor: Actor, unit: UnitRow, mode: OperatingMode): Promise<void> {
    if (unit.deviceKind !== 'battery') throw fieldError('mode', 'units.mode.batteryOnly');
    if (mode === 'theft' && !supportsTheftMode(unit.model)) throw fieldError('mode', 'units.mode.theftScoutOnly');
    await assertMayChangeFrequency(actor, unit);
    await queueSetting(actor, unit, 'operating_mode', mode, operatingModeCommand(mode));
  }

  async function setReportFrequency(actor: Actor, unit: UnitRow, seconds: number): Promise<void> {
    if (unit.deviceKind !== 'triplog') throw fieldError('seconds', 'units.frequency.triplogOnly');
    await assertMayChangeFrequency(actor, unit);
    await queueSetting(actor, unit, 'report_frequency', String(seconds), reportFrequencyCommand(seconds));
  }

  async function setFeatureProfile(unit: UnitRow, featureProfileId: number | null): Promise<void> {
    if (featureProfileId !== null && unit.deviceKind !== 'triplog') throw fieldError('featureProfileId', 'units.features.triplogOnly');
    await touch(unit.id, { featureProfileId });
  }

  async function replaceTags(unitId: number, tagIds: number[], executor: Executor = db) {
    await executor.delete(unitTags).where(eq(unitTags.unitId, unitId));
    if (tagIds.length > 0) await executor.insert(unitTags).values(tagIds.map((tagId) => ({ unitId, tagId })));
  }

  async function applyBulkTask(actor: Actor, unit: UnitRow, task: BulkTask): Promise<boolean> {
    switch (task.kind) {
      case 'department':
        await touch(unit.id, { departmentId: task.departmentId });
        return false;
      case 'project':
        await touch(unit.id, { projectId: task.projectId });
        return false;
      case 'tags': {
        if (task.mode === 'replace') await replaceTags(unit.id, task.tagIds);
        else if (task.mode === 'add') {
          if (task.tagIds.length > 0) {
            await db
              .insert(unitTags)
              .values(task.tagIds.map((tagId) => ({ unitId: unit.id, tagId })))
              .onConflictDoNothing();
          }
        } else if (task.tagIds.length > 0) {
          await db.delete(unitTags).where(and(eq(unitTags.unitId, unit.id), inArray(unitTags.tagId, task.tagIds)));
        }
        await touch(unit.id, {});
        return false;
      }
      case 'featureProfile':
        await setFeatureProfile(unit, task.featureProfileId);
        return false;
      case 'operatingMode':
        await setOperatingMode(actor, unit, task.mode);
        return true;
      case 'reportFrequency':
        await setReportFrequency(actor, unit, task.seconds);
        return true;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Object description, theft report, pictures, PDFs
  // -------------------------------------------------------------------------------------------

  function descriptionInput(row: typeof unitObjectDescriptions.$inferSelect): ObjectDescriptionInput {
    return {
      objectType: row.objectType,
      manufacturer: row.manufacturer,
      model: row.model,
      year: row.year,
      hullNumber: row.hullNumber,
      motor: row.motor,
      motorNumber: row.motorNumber,
      horsepower: row.horsepower,
      trackerLocation: row.trackerLocation,
      dnaMarking: row.dnaMarking,
      insuranceCompany: row.insuranceCompany,
      insuranceNumber: row.insuranceNumber,
      policeDetails: row.policeDetails,
      links: parseJson(row.links) ?? [],
      serialNumber: row.serialNumber,
      productionDate: row.productionDate,
      skirtType: row.skirtType,
      lengthM: row.lengthM,
      depthM: row.depthM,
      weightKg: row.weightKg,
      ballastType: row.ballastType,
    };
  }

  function theftInput(row: typeof unitTheftReports.$inferSelect): TheftReportInput {
    return {
      theftDate: row.theftDate,
      stolenFrom: row.stolenFrom,
      whatStolen: row.whatStolen,
      ownerName: row.ownerName,
      ownerEmail: row.ownerEmail,
      ownerPhone: row.ownerPhone,
      policeStation: row.policeStation,
      policeReportNumber: row.policeReportNumber,
      insuranceClaimNumber: row.insuranceClaimNumber,
      otherInformation: row.otherInformation,
      recipients: row.recipients,
    };
  }

  async function imageList(unitId: number): Promise<ImageView[]> {
    const rows = await db
      .select({
        id: unitImages.id,
        contentType: unitImages.contentType,
        fileName: unitImages.fileName,
        size: sql<number>`octet_length(${unitImages.data})`.mapWith(Number),
        uploadedAt: unitImages.uploadedAt,
      })
      .from(unitImages)
      .where(eq(unitImages.unitId, unitId))
      .orderBy(asc(unitImages.id));
    return rows.map((row) => ({ ...row, uploadedAt: row.uploadedAt.toISOString() }));
  }

  async function imageData(unitId: number): Promise<PdfImage[]> {
    const rows = await db
      .select({ data: unitImages.data, contentType: unitImages.contentType })
      .from(unitImages)
      .where(eq(unitImages.unitId, unitId))
      .orderBy(asc(unitImages.id));
    return rows.map((row) => ({ data: new Uint8Array(row.data), contentType: row.contentType }));
  }

  async function pdfContext(actor: Actor, unit: UnitRow, language: Language): Promise<PdfContext> {
    const [account] = await db.select({ subsiteId: accounts.subsiteId }).from(accounts).where(eq(accounts.id, unit.accountId));
    const subsiteId = account?.subsiteId ?? actor.subsiteId;
    const brand = brands ? await brands.get(subsiteId).catch(() => null) : null;
    let logoSvg: string | null = null;
    if (brand) {
      const path = join(publicDir, brand.logoPath.replace(/^\/+/, ''));
      if (path.startsWith(publicDir) && existsSync(path)) logoSvg = readFileSync(path, 'utf8');
    }
    return {
      language,
      generatedAt: now(),
      timeZone: actor.timezone || 'Europe/Stockholm',
      brand: {
        name: brand?.name ?? 'Fleet Portal',
        logoSvg,
        primaryColor: brand?.colors.primary ?? '#0b5cad',
        contactAddress: brand?.contactAddress ?? '',
        contactEmail: brand?.contactEmail ?? '',
        contactPhone: brand?.contactPhone ?? '',
      },
    };
  }

  function pdfUnit(unit: UnitRow): PdfUnit {
    return { name: unit.name, registrationNumber: unit.registrationNumber, imei: unit.imei, model: unit.model };
  }

  async function theftPdf(actor: Actor, unit: UnitRow, language: Language): Promise<{ pdf: Uint8Array; report: TheftReportInput }> {
    const [row] = await db.select().from(unitTheftReports).where(eq(unitTheftReports.unitId, unit.id));
    if (!row) throw notFound('units.theft.notSaved');
    const [description] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, unit.id));
    const report = theftInput(row);
    const pdf = await theftReportPdf(
      await pdfContext(actor, unit, language),
      pdfUnit(unit),
      report,
      description ? descriptionInput(description) : null,
      await imageData(unit.id),
    );
    return { pdf, report };
  }

  // -------------------------------------------------------------------------------------------
  // Public API
  // -------------------------------------------------------------------------------------------

  const service = {
    /** Resolves once the operating hours of every position stored so far are counted (tests, shutdown). */
    async engineHoursSettled(): Promise<void> {
      const release = enginePace.hold();
      try {
        while (engineRun) await engineRun;
      } finally {
        release();
      }
    },

    /** Wires the modules built after this one (tracking's live state, the trip log's settings). */
    connect(next: UnitPorts) {
      Object.assign(ports, next);
    },

    /**
     * The unit list: the caller's account's units filtered, searched and sorted (spec §2 /user/edit-terminal-list).
     * Spec §6: ordinary users see only their own units (those an administrator gave them).
     */
    async list(actor: Actor, query: Partial<UnitListQuery> = {}): Promise<UnitView[]> {
      const filters: Array<SQL | undefined> = [visibleTo(actor)];
      if (query.q) {
        const pattern = `%${escapeLike(query.q)}%`;
        filters.push(or(ilike(units.name, pattern), ilike(units.registrationNumber, pattern), ilike(units.imei, pattern)));
      }
      if (query.departmentId !== undefined) {
        await assertCatalogRef(actor, departments, query.departmentId, 'departmentId', 'units.department.notFound');
        filters.push(eq(units.departmentId, query.departmentId));
      }
      if (query.projectId !== undefined) {
        await assertCatalogRef(actor, projects, query.projectId, 'projectId', 'units.project.notFound');
        filters.push(eq(units.projectId, query.projectId));
      }
      if (query.tagId !== undefined) {
        await assertTags(actor, [query.tagId], 'tagId');
        filters.push(
          exists(
            db
              .select({ one: sql`1` })
              .from(unitTags)
              .where(and(eq(unitTags.unitId, units.id), eq(unitTags.tagId, query.tagId))),
          ),
        );
      }
      if (query.vehicleType) filters.push(eq(units.vehicleType, query.vehicleType));
      if (query.subscription) filters.push(eq(units.subscriptionType, query.subscription));
      const rows = await db
        .select()
        .from(units)
        .where(and(...filters))
        .orderBy(asc(units.name), asc(units.id));
      let list = await views(rows, actor);
      if (query.status) list = list.filter((unit) => unit.Status === query.status);
      const sort = query.sort ?? 'name';
      const direction = query.order === 'desc' ? -1 : 1;
      const collator = new Intl.Collator(actor.language === 'no' ? 'nb' : actor.language, { numeric: true, sensitivity: 'base' });
      const key = (unit: UnitView): string | number | null => {
        switch (sort) {
          case 'name':
            return unit.Name;
          case 'registrationNumber':
            return unit.RegistrationNumber || null;
          case 'imei':
            return unit.Imei;
          case 'model':
            return unit.Model || null;
          case 'vehicleType':
            return unit.VehicleType;
          case 'department':
            return unit.Department?.name ?? null;
          case 'project':
            return unit.Project?.name ?? null;
          case 'subscriptionType':
            return unit.SubscriptionType;
          case 'status':
            return ['moving', 'parked', 'offline'].indexOf(unit.Status);
          case 'lastSeen':
            return unit.LastSeen ? Date.parse(unit.LastSeen) : null;
          case 'odometer':
            return unit.OdometerKm;
          case 'nextInspection':
            return unit.NextInspection;
        }
      };
      return list
        .map((unit) => ({ unit, key: key(unit) }))
        .sort((a, b) => {
          // Empty values last in either direction; ties by name, then id.
          if (a.key === null || b.key === null) {
            if (a.key !== b.key) return a.key === null ? 1 : -1;
          } else {
            const compared = typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : collator.compare(String(a.key), String(b.key));
            if (compared !== 0) return compared * direction;
          }
          return collator.compare(a.unit.Name, b.unit.Name) || a.unit.ID - b.unit.ID;
        })
        .map((entry) => entry.unit);
    },

    /**
     * One unit of the caller's whose trips and positions the caller may read: another account's unit is 404,
     * like a missing one; a unit not given to an ordinary user 403; a locked benefit or private car without
     * access 403 (spec §6: they see only its benefit value and summary reports). The trip log and the map's
     * history go through here.
     */
    async get(actor: Actor, id: number): Promise<UnitView> {
      const [view] = await views([await ownUnit(actor, id)], actor);
      if (!view!.HasAccess) throw forbidden('units.access.locked');
      return view!;
    },

    /** The unit as the caller sees it in lists (also a locked car without access: then without its whereabouts). */
    async visible(actor: Actor, id: number): Promise<UnitView> {
      const [view] = await views([await ownUnit(actor, id)], actor);
      return view!;
    },

    /** Spec §6: whether the caller may read the trips and positions of the unit (false for other accounts' units too). */
    async canReadTracks(actor: Actor, id: number): Promise<boolean> {
      try {
        await service.get(actor, id);
        return true;
      } catch (error) {
        if (error instanceof AppError && (error.status === 403 || error.status === 404)) return false;
        throw error;
      }
    },

    /**
     * The map's §6 inputs for the caller: of the account's locked units (or of `unitIds`), whether the caller
     * has access and the unit's working hours. Units that are not locked are absent.
     */
    async mapAccess(actor: Actor, unitIds: number[] | null): Promise<Map<number, MapUnitAccess>> {
      if (unitIds !== null && unitIds.length === 0) return new Map();
      const rows = await db
        .select()
        .from(units)
        .where(and(visibleTo(actor), or(sql`${units.lockedBy} IS NOT NULL`, sql`${units.lockedAt} IS NOT NULL`), unitIds === null ? undefined : inArray(units.id, unitIds)));
      const restricted = await withoutAccess(actor, rows);
      const timeZone = actor.timezone || 'Europe/Stockholm';
      return new Map(rows.map((row) => [row.id, { locked: true, hasAccess: !restricted.has(row.id), workingHours: weeklyHours(row.workingHours), timeZone }]));
    },

    /** Spec §6 for the map: the unit ids an ordinary user was given; null for callers who see every unit of the account. */
    async visibleUnitIds(actor: Actor): Promise<Set<number> | null> {
      if (seesAllUnits(actor)) return null;
      const rows = await db
        .select({ id: unitAccess.unitId })
        .from(unitAccess)
        .innerJoin(units, eq(units.id, unitAccess.unitId))
        .where(and(eq(unitAccess.userId, actor.userId), eq(units.accountId, actor.accountId)));
      return new Set(rows.map((row) => row.id));
    },

    // --- unit access (administrators) -----------------------------------------------------------

    /** Spec §6: the users of the account and whether each is given access to the unit (administrators). */
    async unitUsers(actor: Actor, id: number): Promise<UnitAccessUser[]> {
      if (actor.role !== 'admin') throw forbidden();
      const unit = await ownUnit(actor, id);
      const rows = await db
        .select({
          id: users.id,
          firstName: users.firstName,
          lastName: users.lastName,
          email: users.email,
          role: users.role,
          granted: sql<boolean>`exists (select 1 from unit_access a where a.unit_id = ${unit.id} and a.user_id = users.id)`.mapWith(Boolean),
        })
        .from(users)
        .where(eq(users.accountId, actor.accountId))
        .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id));
      return rows.map((row) => ({
        id: row.id,
        name: `${row.firstName} ${row.lastName}`.trim() || row.email,
        email: row.email,
        role: row.role,
        seesAll: row.role !== 'user',
        hasAccess: row.granted || row.id === unit.lockedBy,
        isLocker: row.id === unit.lockedBy,
      }));
    },

    /** Gives exactly these users of the account access to the unit (administrators). */
    async setUnitUsers(actor: Actor, id: number, userIds: number[]): Promise<UnitAccessUser[]> {
      if (actor.role !== 'admin') throw forbidden();
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        if (userIds.length > 0) {
          const found = await tx
            .select({ id: users.id })
            .from(users)
            .where(and(inArray(users.id, userIds), eq(users.accountId, actor.accountId)));
          if (found.length !== userIds.length) throw fieldError('userIds', 'errors.invalidUserId');
        }
        await tx.delete(unitAccess).where(userIds.length > 0 ? and(eq(unitAccess.unitId, unit.id), notInArray(unitAccess.userId, userIds)) : eq(unitAccess.unitId, unit.id));
        if (userIds.length > 0) {
          await tx
            .insert(unitAccess)
            .values(userIds.map((userId) => ({ unitId: unit.id, userId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        }
      });
      return service.unitUsers(actor, id);
    },

    /** The units a user of the account is given (administrators). */
    async userUnits(actor: Actor, userId: number): Promise<UserUnitAccess> {
      if (actor.role !== 'admin') throw forbidden();
      await accountUser(actor, userId);
      const rows = await db
        .select({ id: unitAccess.unitId })
        .from(unitAccess)
        .innerJoin(units, eq(units.id, unitAccess.unitId))
        .where(and(eq(unitAccess.userId, userId), eq(units.accountId, actor.accountId)))
        .orderBy(asc(unitAccess.unitId));
      return { userId, unitIds: rows.map((row) => row.id) };
    },

    /** Gives a user of the account exactly these units of the account (administrators). */
    async setUserUnits(actor: Actor, userId: number, unitIds: number[]): Promise<UserUnitAccess> {
      if (actor.role !== 'admin') throw forbidden();
      await accountUser(actor, userId);
      await db.transaction(async (tx) => {
        if (unitIds.length > 0) {
          const found = await tx
            .select({ id: units.id })
            .from(units)
            .where(and(inArray(units.id, unitIds), eq(units.accountId, actor.accountId)));
          if (found.length !== unitIds.length) throw fieldError('unitIds', 'errors.unitNotFound');
        }
        await tx.delete(unitAccess).where(unitIds.length > 0 ? and(eq(unitAccess.userId, userId), notInArray(unitAccess.unitId, unitIds)) : eq(unitAccess.userId, userId));
        if (unitIds.length > 0) {
          await tx
            .insert(unitAccess)
            .values(unitIds.map((unitId) => ({ unitId, userId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        }
      });
      return service.userUnits(actor, userId);
    },

    /**
     * Spec §6: changing a user's department resets their unit access. Whoever changes the department calls
     * this in the same transaction (or emits `user.department_changed`, which this service also handles).
     */
    async resetUserAccess(userId: number, executor: Executor = db): Promise<void> {
      await executor.delete(unitAccess).where(eq(unitAccess.userId, userId));
    },

    /** Everything the edit page shows (spec §2 /user/edit-terminal). */
    async detail(actor: Actor, id: number): Promise<UnitDetail> {
      const row = await ownUnit(actor, id);
      return detailOf(actor, row);
    },

    async options(actor: Actor): Promise<UnitOptions> {
      const list = async (table: typeof departments | typeof projects | typeof tags | typeof featureProfiles) =>
        db.select({ id: table.id, name: table.name }).from(table).where(eq(table.accountId, actor.accountId)).orderBy(asc(table.name));
      const [departmentList, projectList, tagList, profileList, subscriptions] = await Promise.all([
        list(departments),
        list(projects),
        list(tags),
        list(featureProfiles),
        db
          .selectDistinct({ value: units.subscriptionType })
          .from(units)
          .where(eq(units.accountId, actor.accountId))
          .orderBy(asc(units.subscriptionType)),
      ]);
      return {
        departments: departmentList,
        projects: projectList,
        tags: tagList,
        featureProfiles: profileList,
        subscriptions: subscriptions.map((row) => row.value),
      };
    },

    async listPreferences(actor: Actor): Promise<ListPreferences> {
      const [row] = await db.select().from(unitListPreferences).where(eq(unitListPreferences.userId, actor.userId));
      if (!row) return { columns: [...DEFAULT_LIST_COLUMNS], sort: 'name', order: 'asc' };
      return { columns: row.columns as ListPreferences['columns'], sort: row.sort as ListPreferences['sort'], order: row.sortOrder };
    },

    async saveListPreferences(actor: Actor, input: ListPreferences): Promise<ListPreferences> {
      const values = { columns: input.columns, sort: input.sort, sortOrder: input.order, updatedAt: now() };
      await db
        .insert(unitListPreferences)
        .values({ userId: actor.userId, ...values })
        .onConflictDoUpdate({ target: unitListPreferences.userId, set: values });
      return input;
    },

    // --- sections -------------------------------------------------------------------------

    /** Spec §5 name required; §9 the 50 newest names are kept. */
    async rename(actor: Actor, id: number, name: string): Promise<UnitDetail> {
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        if (unit.name === name) return;
        await touch(unit.id, { name }, tx);
        await tx.insert(unitNameHistory).values({ unitId: unit.id, previousName: unit.name, name, changedBy: actor.userId, changedAt: now() });
        const keep = tx
          .select({ id: unitNameHistory.id })
          .from(unitNameHistory)
          .where(eq(unitNameHistory.unitId, unit.id))
          .orderBy(desc(unitNameHistory.changedAt), desc(unitNameHistory.id))
          .limit(NAME_HISTORY_MAX);
        await tx.delete(unitNameHistory).where(and(eq(unitNameHistory.unitId, unit.id), notInArray(unitNameHistory.id, keep)));
      });
      return service.detail(actor, id);
    },

    async nameHistory(actor: Actor, id: number): Promise<NameHistoryEntry[]> {
      await ownUnit(actor, id);
      const rows = await db
        .select()
        .from(unitNameHistory)
        .where(eq(unitNameHistory.unitId, id))
        .orderBy(desc(unitNameHistory.changedAt), desc(unitNameHistory.id))
        .limit(NAME_HISTORY_MAX);
      const names = await userNames(rows.map((row) => row.changedBy));
      return rows.map((row) => ({
        previousName: row.previousName,
        name: row.name,
        changedBy: row.changedBy === null ? null : (names.get(row.changedBy) ?? null),
        changedAt: row.changedAt.toISOString(),
      }));
    },

    /** Registration number (§5: letters and digits, at most twice per 24 h), vehicle type and identification. */
    async saveDetails(actor: Actor, id: number, input: DetailsInput): Promise<UnitDetail> {
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        const at = now();
        if (input.registrationNumber !== unit.registrationNumber) {
          const [{ changes } = { changes: 0 }] = await tx
            .select({ changes: count() })
            .from(unitRegistrationChanges)
            .where(and(eq(unitRegistrationChanges.unitId, unit.id), gt(unitRegistrationChanges.changedAt, new Date(at.getTime() - DAY_MS))));
          if (Number(changes) >= REGISTRATION_CHANGES_PER_DAY) throw fieldError('registrationNumber', 'units.registration.tooOften');
          await tx.insert(unitRegistrationChanges).values({
            unitId: unit.id,
            previousNumber: unit.registrationNumber,
            registrationNumber: input.registrationNumber,
            changedBy: actor.userId,
            changedAt: at,
          });
        }
        await touch(unit.id, { ...input }, tx);
      });
      return service.detail(actor, id);
    },

    async saveOrganisation(actor: Actor, id: number, input: OrganisationInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await assertCatalogRef(actor, departments, input.departmentId, 'departmentId', 'units.department.notFound');
      await assertCatalogRef(actor, projects, input.projectId, 'projectId', 'units.project.notFound');
      await assertTags(actor, input.tagIds);
      await db.transaction(async (tx) => {
        await ownUnit(actor, id, tx, true);
        await touch(id, { departmentId: input.departmentId, projectId: input.projectId }, tx);
        await replaceTags(id, input.tagIds, tx);
      });
      return service.detail(actor, id);
    },

    /** Calibration: today's odometer and operating hours; what the tracker counts from now on adds to them. */
    async calibrateMeters(actor: Actor, id: number, input: MetersInput): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      const [current] = await views([unit], actor);
      const live = (await liveStatesOf([id])).get(id);
      const at = now();
      const rows: Array<typeof unitMeterCalibrations.$inferInsert> = [];
      if (current!.OdometerKm === null || Math.abs(current!.OdometerKm - input.odometerKm) >= 0.05) {
        rows.push({ unitId: id, kind: 'odometer', value: input.odometerKm * 1000, sourceValue: live?.odometerM ?? null, setBy: actor.userId, setAt: at });
      }
      if (current!.OperatingHours === null || Math.abs(current!.OperatingHours - input.operatingHours) >= 0.05) {
        const counter = (await engineCounters([id])).get(id);
        rows.push({ unitId: id, kind: 'hours', value: input.operatingHours * 3600, sourceValue: counter ?? null, setBy: actor.userId, setAt: at });
      }
      if (rows.length > 0) await db.insert(unitMeterCalibrations).values(rows);
      return service.detail(actor, id);
    },

    async meterHistory(actor: Actor, id: number): Promise<MeterHistoryEntry[]> {
      await ownUnit(actor, id);
      const rows = await db
        .select()
        .from(unitMeterCalibrations)
        .where(eq(unitMeterCalibrations.unitId, id))
        .orderBy(desc(unitMeterCalibrations.setAt), desc(unitMeterCalibrations.id));
      const names = await userNames(rows.map((row) => row.setBy));
      return rows.map((row) => ({
        kind: row.kind,
        value: round(row.kind === 'odometer' ? row.value / 1000 : row.value / 3600, 1),
        setBy: row.setBy === null ? null : (names.get(row.setBy) ?? null),
        setAt: row.setAt.toISOString(),
      }));
    },

    /**
     * Spec §3/§5: benefit or private car with fuel payer and reimbursement; fuel consumption and CO2 are required
     * for benefit cars; §4: benefit-car mode cannot be switched off while the unit is locked.
     */
    async saveBenefit(actor: Actor, id: number, input: BenefitInput): Promise<UnitDetail> {
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        const locked = unit.lockedBy !== null || unit.lockedAt !== null;
        if (locked && unit.carUsage !== 'none' && input.carUsage === 'none') throw fieldError('carUsage', 'units.benefit.lockedCannotDisable');
        if (input.carUsage === 'benefit') {
          const fields: Record<string, string[]> = {};
          if (unit.fuelConsumptionPer10km === null) fields.fuelConsumptionPer10Km = ['units.benefit.fuelRequired'];
          if (unit.co2GPerKm === null) fields.co2GPerKm = ['units.benefit.co2Required'];
          if (Object.keys(fields).length > 0) throw new AppError(422, 'validation.failed', { fields });
        }
        await touch(
          unit.id,
          {
            carUsage: input.carUsage,
            fuelPayer: input.carUsage === 'none' ? null : (input.fuelPayer ?? null),
            reimbursementPer10km: input.carUsage === 'none' ? null : input.reimbursementPer10Km,
          },
          tx,
        );
      });
      return service.detail(actor, id);
    },

    async saveWorkingHours(actor: Actor, id: number, input: WorkingHoursInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await touch(id, { workingHours: input });
      return service.detail(actor, id);
    },

    async saveFuel(actor: Actor, id: number, input: FuelInput): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      if (unit.carUsage === 'benefit' && input.fuelConsumptionPer10Km === null) throw fieldError('fuelConsumptionPer10Km', 'units.benefit.fuelRequired');
      await touch(id, { fuelType: input.fuelType, fuelConsumptionPer10km: input.fuelConsumptionPer10Km });
      return service.detail(actor, id);
    },

    async saveCo2(actor: Actor, id: number, input: Co2Input): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      if (unit.carUsage === 'benefit' && input.co2GPerKm === null) throw fieldError('co2GPerKm', 'units.benefit.co2Required');
      await touch(id, { co2GPerKm: input.co2GPerKm });
      return service.detail(actor, id);
    },

    async saveMarker(actor: Actor, id: number, input: MarkerInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await touch(id, { color: input.color, markerIcon: input.markerIcon });
      return service.detail(actor, id);
    },

    /** Spec §4: queued to the tracker; it reaches the unit on its next report and shows as pending until then. */
    async setOperatingMode(actor: Actor, id: number, mode: OperatingMode): Promise<UnitDetail> {
      await setOperatingMode(actor, await ownUnit(actor, id), mode);
      return service.detail(actor, id);
    },

    async setReportFrequency(actor: Actor, id: number, seconds: number): Promise<UnitDetail> {
      await setReportFrequency(actor, await ownUnit(actor, id), seconds);
      return service.detail(actor, id);
    },

    /** Spec §6: report frequency can be locked (administrators of the account, or support). */
    async lockReportFrequency(actor: Actor, id: number, locked: boolean): Promise<UnitDetail> {
      if (actor.role !== 'admin' && actor.role !== 'support') throw forbidden();
      const unit = await reachableUnit(actor, id);
      await touch(unit.id, { reportFrequencyLocked: locked });
      return detailOf(actor, { ...unit, reportFrequencyLocked: locked });
    },

    /** Spec §6: an administrator denies (or allows again) a user of the account changing report frequency. */
    async setFrequencyPermission(actor: Actor, userId: number, denied: boolean): Promise<{ userId: number; denied: boolean }> {
      if (actor.role !== 'admin') throw forbidden();
      const found = await findUserById(db, userId);
      if (!found || found.account.id !== actor.accountId) throw notFound('errors.invalidUserId');
      if (denied) {
        await db.insert(reportFrequencyDenials).values({ userId, deniedBy: actor.userId, deniedAt: now() }).onConflictDoNothing();
      } else {
        await db.delete(reportFrequencyDenials).where(eq(reportFrequencyDenials.userId, userId));
      }
      return { userId, denied };
    },

    async setTimeTillParked(actor: Actor, id: number, minutes: number): Promise<UnitDetail> {
      await ownUnit(actor, id);
      if (!ports.timeTillParked) throw new Error('time till parked is not connected to the trip log');
      await ports.timeTillParked.set(id, minutes * 60);
      return service.detail(actor, id);
    },

    /** Spec §5: features (a feature profile) only on trip-log devices. */
    async setFeatures(actor: Actor, id: number, featureProfileId: number | null): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      await assertCatalogRef(actor, featureProfiles, featureProfileId, 'featureProfileId', 'units.featureProfile.notFound');
      await setFeatureProfile(unit, featureProfileId);
      return service.detail(actor, id);
    },

    async setBluetooth(actor: Actor, id: number, enabled: boolean): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      await queueSetting(actor, unit, 'bluetooth', enabled ? '1' : '0', bluetoothCommand(enabled));
      return service.detail(actor, id);
    },

    // --- lock ---------------------------------------------------------------------------------

    /** Spec §4: a user locks a benefit or private car; each change is logged. */
    async lock(actor: Actor, id: number): Promise<UnitDetail> {
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        if (unit.carUsage === 'none') throw new AppError(422, 'units.lock.notCar', { fields: { carUsage: ['units.lock.notCar'] } });
        if (unit.lockedBy !== null || unit.lockedAt !== null) throw new AppError(409, 'units.lock.already');
        const at = now();
        await touch(unit.id, { lockedBy: actor.userId, lockedAt: at }, tx);
        await tx.insert(unitLockLog).values({ unitId: unit.id, action: 'locked', userId: actor.userId, lockerId: actor.userId, at });
      });
      return service.detail(actor, id);
    },

    /** Spec §4/§6: only the locker or support unlocks; the locker is e-mailed. */
    async unlock(actor: Actor, id: number): Promise<{ unlocked: true; unitId: number }> {
      const { unit, lockerId } = await db.transaction(async (tx) => {
        const unit = await reachableUnit(actor, id, tx, true);
        if (unit.lockedBy === null && unit.lockedAt === null) throw new AppError(409, 'units.lock.notLocked');
        if (actor.role !== 'support' && unit.lockedBy !== actor.userId) throw forbidden('units.lock.onlyLocker');
        const at = now();
        await touch(unit.id, { lockedBy: null, lockedAt: null }, tx);
        await tx.insert(unitLockLog).values({ unitId: unit.id, action: 'unlocked', userId: actor.userId, lockerId: unit.lockedBy, at });
        return { unit, lockerId: unit.lockedBy };
      });
      if (lockerId !== null && platform) {
        const locker = await findUserById(db, lockerId);
        if (locker) {
          const by = (await userNames([actor.userId])).get(actor.userId) ?? '';
          const language = locker.user.language;
          const params = { unit: unit.name, by, time: formatTime(now(), language, locker.user.timezone) };
          try {
            await platform.mailer.send({
              to: locker.user.email,
              subject: translate(language, 'mail.unitUnlocked.subject', params),
              text: translate(language, 'mail.unitUnlocked.body', params),
            });
          } catch (error) {
            platform.log.error('unlock mail failed', { unitId: unit.id, error: String(error) });
          }
        }
      }
      return { unlocked: true, unitId: unit.id };
    },

    async lockLog(actor: Actor, id: number): Promise<LockLogEntry[]> {
      await ownUnit(actor, id);
      const rows = await db
        .select()
        .from(unitLockLog)
        .where(eq(unitLockLog.unitId, id))
        .orderBy(desc(unitLockLog.at), desc(unitLockLog.id));
      const names = await userNames(rows.flatMap((row) => [row.userId, row.lockerId]));
      return rows.map((row) => ({
        action: row.action,
        by: row.userId === null ? null : (names.get(row.userId) ?? null),
        locker: row.lockerId === null ? null : (names.get(row.lockerId) ?? null),
        at: row.at.toISOString(),
      }));
    },

    // --- object description, pictures, theft report ---------------------------------------------

    async objectDescription(actor: Actor, id: number): Promise<ObjectDescriptionView | null> {
      await ownUnit(actor, id);
      const [row] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
      if (!row) return null;
      return { ...descriptionInput(row), updatedAt: row.updatedAt.toISOString(), images: await imageList(id) };
    },

    async saveObjectDescription(actor: Actor, id: number, input: ObjectDescriptionInput): Promise<ObjectDescriptionView> {
      await ownUnit(actor, id);
      const values = { ...input, updatedBy: actor.userId, updatedAt: now() };
      await db
        .insert(unitObjectDescriptions)
        .values({ unitId: id, ...values })
        .onConflictDoUpdate({ target: unitObjectDescriptions.unitId, set: values });
      return (await service.objectDescription(actor, id))!;
    },

    /** Spec §5: PNG, JPG or JPEG, at most 1 MB, at most 5 per unit, and only once the object description is saved. */
    async addImage(actor: Actor, id: number, file: { name: string; type: string; bytes: Uint8Array }): Promise<ImageView> {
      const extension = file.name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';
      const detected = detectImageType(file.bytes);
      const declaredOk = file.type === '' || file.type === 'image/png' || file.type === 'image/jpeg' || file.type === 'image/jpg';
      const extensionOk = extension === '' || ['png', 'jpg', 'jpeg'].includes(extension);
      if (!detected || !declaredOk || !extensionOk) throw fieldError('file', 'units.image.type');
      if (file.bytes.length > IMAGE_MAX_BYTES) throw fieldError('file', 'units.image.tooLarge');
      if (file.bytes.length === 0) throw fieldError('file', 'units.image.type');
      const imageId = await db.transaction(async (tx) => {
        await ownUnit(actor, id, tx, true);
        const [description] = await tx.select({ unitId: unitObjectDescriptions.unitId }).from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
        if (!description) throw fieldError('file', 'units.image.descriptionFirst');
        const [{ images } = { images: 0 }] = await tx.select({ images: count() }).from(unitImages).where(eq(unitImages.unitId, id));
        if (Number(images) >= IMAGES_PER_UNIT) throw fieldError('file', 'units.image.tooMany');
        const [row] = await tx
          .insert(unitImages)
          .values({ unitId: id, contentType: detected, fileName: file.name.slice(0, 200), data: file.bytes, uploadedBy: actor.userId, uploadedAt: now() })
          .returning({ id: unitImages.id });
        return row!.id;
      });
      const list = await imageList(id);
      return list.find((image) => image.id === imageId)!;
    },

    async image(actor: Actor, id: number, imageId: number): Promise<{ contentType: string; data: Uint8Array; fileName: string }> {
      await ownUnit(actor, id);
      const [row] = await db
        .select({ contentType: unitImages.contentType, data: unitImages.data, fileName: unitImages.fileName })
        .from(unitImages)
        .where(and(eq(unitImages.id, imageId), eq(unitImages.unitId, id)));
      if (!row) throw notFound('units.image.notFound');
      return { ...row, data: new Uint8Array(row.data) };
    },

    async deleteImage(actor: Actor, id: number, imageId: number): Promise<{ deleted: true }> {
      await ownUnit(actor, id);
      const deleted = await db
        .delete(unitImages)
        .where(and(eq(unitImages.id, imageId), eq(unitImages.unitId, id)))
        .returning({ id: unitImages.id });
      if (deleted.length === 0) throw notFound('units.image.notFound');
      return { deleted: true };
    },

    async objectDescriptionPdf(actor: Actor, id: number, language: Language): Promise<{ pdf: Uint8Array; fileName: string }> {
      const unit = await ownUnit(actor, id);
      const [row] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
      if (!row) throw notFound('units.objectDescription.notSaved');
      const pdf = await objectDescriptionPdf(await pdfContext(actor, unit, language), pdfUnit(unit), descriptionInput(row), await imageData(id));
      return { pdf, fileName: `${translate(language, 'pdf.objectDescription.file')}-${unit.id}.pdf` };
    },

    async theftReport(actor: Actor, id: number): Promise<TheftReportView | null> {
      await ownUnit(actor, id);
      const [row] = await db.select().from(unitTheftReports).where(eq(unitTheftReports.unitId, id));
      if (!row) return null;
      return { ...theftInput(row), updatedAt: row.updatedAt.toISOString(), sentAt: iso(row.sentAt) };
    },

    async saveTheftReport(actor: Actor, id: number, input: TheftReportInput): Promise<TheftReportView> {
      await ownUnit(actor, id);
      const values = { ...input, updatedBy: actor.userId, updatedAt: now() };
      await db
        .insert(unitTheftReports)
        .values({ unitId: id, ...values })
        .onConflictDoUpdate({ target: unitTheftReports.unitId, set: values });
      return (await service.theftReport(actor, id))!;
    },

    async theftReportPdf(actor: Actor, id: number, language: Language): Promise<{ pdf: Uint8Array; fileName: string }> {
      const unit = await ownUnit(actor, id);
      const { pdf } = await theftPdf(actor, unit, language);
      return { pdf, fileName: `${translate(language, 'pdf.theftReport.file')}-${unit.id}.pdf` };
    },

    /** E-mails the theft report as PDF (in the sender's language) to each of its recipients. */
    async sendTheftReport(actor: Actor, id: number, language: Language): Promise<{ sent: string[] }> {
      const { mailer } = requirePlatform();
      const unit = await ownUnit(actor, id);
      const { pdf, report } = await theftPdf(actor, unit, language);
      if (report.recipients.length === 0) throw fieldError('recipients', 'units.theft.recipientsRequired');
      const fileName = `${translate(language, 'pdf.theftReport.file')}-${unit.id}.pdf`;
      const params = { unit: unit.name, registration: unit.registrationNumber || unit.imei };
      for (const to of report.recipients) {
        await mailer.send({
          to,
          subject: translate(language, 'mail.theftReport.subject', params),
          text: translate(language, 'mail.theftReport.body', params),
          attachments: [{ filename: fileName, content: Buffer.from(pdf), contentType: 'application/pdf' }],
        });
      }
      await db.update(unitTheftReports).set({ sentAt: now() }).where(eq(unitTheftReports.unitId, id));
      return { sent: report.recipients };
    },

    // --- tracker replacement, add terminal ------------------------------------------------------

    /** Spec §4: the unit and all its history move to a new IMEI from stock; the old tracker returns to stock. */
    async replaceTracker(actor: Actor, id: number, imei: string): Promise<UnitDetail> {
      if (actor.role !== 'admin' && actor.role !== 'support') throw forbidden();
      let unit: UnitRow;
      let replacedImei = '';
      try {
        unit = await db.transaction(async (tx) => {
          const current = await reachableUnit(actor, id, tx, true);
          replacedImei = current.imei;
          if (current.imei === imei) throw fieldError('imei', 'units.replace.sameImei');
          const [account] = await tx.select({ subsiteId: accounts.subsiteId }).from(accounts).where(eq(accounts.id, current.accountId));
          const check = await service.checkImei(imei, account?.subsiteId ?? actor.subsiteId, { executor: tx, lock: true });
          if (!check.ok) throw fieldError('imei', check.reason);
          await touch(current.id, { imei, model: check.stock.model, protocol: check.stock.protocol, deviceKind: check.stock.deviceKind }, tx);
          await tx.insert(unitTrackerHistory).values({
            unitId: current.id,
            previousImei: current.imei,
            previousModel: current.model,
            imei,
            model: check.stock.model,
            replacedBy: actor.userId,
            replacedAt: now(),
          });
          return { ...current, imei, model: check.stock.model, protocol: check.stock.protocol, deviceKind: check.stock.deviceKind };
        });
      } catch (error) {
        if (uniqueViolation(error) === 'units_imei') throw fieldError('imei', 'registration.imei.taken');
        throw error;
      }
      // The gateway refuses the old IMEI at once (its IMEI directory caches look-ups).
      await platform?.events.emit('unit.tracker_replaced', { unitId: unit.id, accountId: unit.accountId, oldImei: replacedImei, newImei: imei });
      // The new tracker gets the unit's operating mode on its first report.
      if (unit.operatingMode && unit.deviceKind === 'battery' && unit.protocol === 'teltonika' && commands) {
        await queueSetting(actor, unit, 'operating_mode', unit.operatingMode, operatingModeCommand(unit.operatingMode));
      }
      return detailOf(actor, (await db.select().from(units).where(eq(units.id, unit.id)))[0]!);
    },

    async trackerHistory(actor: Actor, id: number): Promise<TrackerHistoryEntry[]> {
      await ownUnit(actor, id);
      const rows = await db
        .select()
        .from(unitTrackerHistory)
        .where(eq(unitTrackerHistory.unitId, id))
        .orderBy(desc(unitTrackerHistory.replacedAt), desc(unitTrackerHistory.id));
      const names = await userNames(rows.map((row) => row.replacedBy));
      return rows.map((row) => ({
        previousImei: row.previousImei,
        previousModel: row.previousModel,
        imei: row.imei,
        model: row.model,
        replacedBy: row.replacedBy === null ? null : (names.get(row.replacedBy) ?? null),
        replacedAt: row.replacedAt.toISOString(),
      }));
    },

    /** Add terminal (administrators for their account, support for a named one): an IMEI in stock, not in use (§5). */
    async addTerminal(actor: Actor, input: AddTerminalInput): Promise<{ ID: number; Name: string; Imei: string; AccountID: number }> {
      if (actor.role !== 'admin' && actor.role !== 'support') throw forbidden();
      let accountId = actor.accountId;
      if (actor.role === 'support') {
        if (input.accountId === undefined) throw fieldError('accountId', 'units.account.required');
        accountId = input.accountId;
      } else if (input.accountId !== undefined && input.accountId !== actor.accountId) {
        // An administrator adds units to their own account only; naming another is refused, not redirected.
        throw fieldError('accountId', 'units.account.notFound');
      }
      const [account] = await db.select({ id: accounts.id, subsiteId: accounts.subsiteId }).from(accounts).where(eq(accounts.id, accountId));
      if (!account) throw fieldError('accountId', 'units.account.notFound');
      try {
        const created = await db.transaction(async (tx) => {
          const check = await service.checkImei(input.imei, account.subsiteId, { executor: tx, lock: true });
          if (!check.ok) throw fieldError('imei', check.reason);
          const [row] = await tx
            .insert(units)
            .values({
              accountId,
              imei: input.imei,
              name: input.name || input.imei,
              registrationNumber: input.registrationNumber,
              vehicleType: input.vehicleType,
              model: check.stock.model,
              protocol: check.stock.protocol,
              deviceKind: check.stock.deviceKind,
              createdAt: now(),
            })
            .returning({ id: units.id, name: units.name });
          return row!;
        });
        return { ID: created.id, Name: created.name, Imei: input.imei, AccountID: accountId };
      } catch (error) {
        if (uniqueViolation(error) === 'units_imei') throw fieldError('imei', 'registration.imei.taken');
        throw error;
      }
    },

    /** After add terminal: whether the tracker has reported yet, and where (administrators of the account, support). */
    async firstPosition(actor: Actor, id: number): Promise<{ ID: number; LastSeen: string | null; Position: UnitDetail['Position'] }> {
      if (actor.role !== 'admin' && actor.role !== 'support') throw forbidden();
      const unit = await reachableUnit(actor, id);
      const restricted = (await withoutAccess(actor, [unit])).has(unit.id);
      const state = restricted ? undefined : (await liveStatesOf([unit.id])).get(unit.id);
      return {
        ID: unit.id,
        LastSeen: state?.lastSeen ?? null,
        Position: state && state.lat !== null && state.lon !== null ? { lat: state.lat, lon: state.lon, time: state.time } : null,
      };
    },

    // --- bulk tasks -----------------------------------------------------------------------------

    /** Spec §2 bulk tasks: every named unit must be the caller's; each unit's rules then decide per unit. */
    async bulk(actor: Actor, unitIds: number[], task: BulkTask, language: Language): Promise<BulkResult> {
      const rows = await db
        .select()
        .from(units)
        .where(and(inArray(units.id, unitIds), visibleTo(actor)));
      if (rows.length !== unitIds.length) throw notFound('errors.unitNotFound');
      if (task.kind === 'department') await assertCatalogRef(actor, departments, task.departmentId, 'task.departmentId', 'units.department.notFound');
      if (task.kind === 'project') await assertCatalogRef(actor, projects, task.projectId, 'task.projectId', 'units.project.notFound');
      if (task.kind === 'featureProfile') {
        await assertCatalogRef(actor, featureProfiles, task.featureProfileId, 'task.featureProfileId', 'units.featureProfile.notFound');
      }
      if (task.kind === 'tags') await assertTags(actor, [...new Set(task.tagIds)], 'task.tagIds');
      const byId = new Map(rows.map((row) => [row.id, row]));
      const results: BulkResult['results'] = [];
      for (const unitId of unitIds) {
        try {
          const pending = await applyBulkTask(actor, byId.get(unitId)!, task);
          results.push({ unitId, ok: true, error: null, pending });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          results.push({ unitId, ok: false, error: translate(language, errorKey(error)) });
        }
      }
      return { results };
    },

    // --- catalogues ---------------------------------------------------------------------------

    /** Spec §5: names unique per account. */
    async createCatalogEntry(actor: Actor, kind: CatalogKind, input: { name: string; description: string }): Promise<NamedRef> {
      if (actor.role !== 'admin') throw forbidden();
      const table = kind === 'departments' ? departments : kind === 'projects' ? projects : tags;
      try {
        const [row] = await db
          .insert(table)
          .values({ accountId: actor.accountId, name: input.name, description: input.description })
          .returning({ id: table.id, name: table.name });
        return row!;
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    async createFeatureProfile(actor: Actor, input: FeatureProfileInput): Promise<NamedRef> {
      if (actor.role !== 'admin') throw forbidden();
      await assertGeozones(actor, input.geozoneIds);
      try {
        const [row] = await db
          .insert(featureProfiles)
          .values({ accountId: actor.accountId, ...input })
          .returning({ id: featureProfiles.id, name: featureProfiles.name });
        return row!;
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    /** The account's departments, projects, tags and feature profiles with descriptions and unit counts (administrators). */
    async catalog(actor: Actor): Promise<CatalogView> {
      if (actor.role !== 'admin') throw forbidden();
      const counted = async (table: typeof departments | typeof projects | typeof tags, column: 'department_id' | 'project_id' | null): Promise<CatalogEntry[]> => {
        // Qualified by the table's name: inside the sub-select a bare "id" would be the inner table's.
        const outer = table === departments ? 'departments' : table === projects ? 'projects' : 'tags';
        const unitsOf =
          column === null
            ? sql<number>`(select count(*)::int from unit_tags ut where ut.tag_id = ${sql.raw(`${outer}.id`)})`
            : sql<number>`(select count(*)::int from units u where ${sql.raw(`u.${column} = ${outer}.id`)})`;
        const rows = await db
          .select({ id: table.id, name: table.name, description: table.description, units: unitsOf.mapWith(Number) })
          .from(table)
          .where(eq(table.accountId, actor.accountId))
          .orderBy(asc(table.name), asc(table.id));
        return rows;
      };
      const [departmentList, projectList, tagList, profiles] = await Promise.all([
        counted(departments, 'department_id'),
        counted(projects, 'project_id'),
        counted(tags, null),
        db
          .select({
            profile: featureProfiles,
            units: sql<number>`(select count(*)::int from units u where u.feature_profile_id = feature_profiles.id)`.mapWith(Number),
          })
          .from(featureProfiles)
          .where(eq(featureProfiles.accountId, actor.accountId))
          .orderBy(asc(featureProfiles.name), asc(featureProfiles.id)),
      ]);
      return {
        departments: departmentList,
        projects: projectList,
        tags: tagList,
        featureProfiles: profiles.map(({ profile, units: count }) => profileView(profile, count)),
      };
    },

    /** Spec §5: renaming keeps names unique per account. */
    async updateCatalogEntry(actor: Actor, kind: CatalogKind, id: number, input: { name: string; description: string }): Promise<NamedRef> {
      if (actor.role !== 'admin') throw forbidden();
      const table = kind === 'departments' ? departments : kind === 'projects' ? projects : tags;
      try {
        const [row] = await db
          .update(table)
          .set({ name: input.name, description: input.description })
          .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)))
          .returning({ id: table.id, name: table.name });
        if (!row) throw notFound('units.catalog.notFound');
        return row;
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    /** Units filed under a deleted department, project or tag keep everything else (the reference is cleared). */
    async deleteCatalogEntry(actor: Actor, kind: CatalogKind, id: number): Promise<{ deleted: true }> {
      if (actor.role !== 'admin') throw forbidden();
      const table = kind === 'departments' ? departments : kind === 'projects' ? projects : tags;
      const deleted = await db
        .delete(table)
        .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)))
        .returning({ id: table.id });
      if (deleted.length === 0) throw notFound('units.catalog.notFound');
      return { deleted: true };
    },

    async updateFeatureProfile(actor: Actor, id: number, input: FeatureProfileInput): Promise<FeatureProfileView> {
      if (actor.role !== 'admin') throw forbidden();
      await assertGeozones(actor, input.geozoneIds);
      try {
        const [row] = await db
          .update(featureProfiles)
          .set(input)
          .where(and(eq(featureProfiles.id, id), eq(featureProfiles.accountId, actor.accountId)))
          .returning();
        if (!row) throw notFound('units.catalog.notFound');
        const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(units).where(eq(units.featureProfileId, id));
        return profileView(row, Number(n));
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    async deleteFeatureProfile(actor: Actor, id: number): Promise<{ deleted: true }> {
      if (actor.role !== 'admin') throw forbidden();
      const deleted = await db
        .delete(featureProfiles)
        .where(and(eq(featureProfiles.id, id), eq(featureProfiles.accountId, actor.accountId)))
        .returning({ id: featureProfiles.id });
      if (deleted.length === 0) throw notFound('units.catalog.notFound');
      return { deleted: true };
    },

    /** Support's account picker on add terminal (spec §6 support registers IMEIs): by company, org number or id. */
    async searchAccounts(actor: Actor, q: string): Promise<AccountChoice[]> {
      if (actor.role !== 'support') throw forbidden();
      const pattern = `%${escapeLike(q)}%`;
      const rows = await db
        .select({ id: accounts.id, companyName: accounts.companyName, orgNumber: accounts.orgNumber, subsiteId: accounts.subsiteId })
        .from(accounts)
        .where(q === '' ? undefined : or(ilike(accounts.companyName, pattern), ilike(accounts.orgNumber, pattern), /^\d{1,9}$/.test(q) ? eq(accounts.id, Number(q)) : undefined))
        .orderBy(asc(accounts.companyName), asc(accounts.id))
        .limit(50);
      return rows;
    },

    // --- gateway, registration and stock ---------------------------------------------------------

    /** The gateway's look-up: the unit registered with this IMEI, or null (unknown devices are refused). */
    async findUnitByImei(imei: string): Promise<KnownUnit | null> {
      const [row] = await db.select().from(units).where(eq(units.imei, imei)).limit(1);
      if (!row) return null;
      return {
        unitId: row.id,
        accountId: row.accountId,
        imei: row.imei,
        name: row.name,
        model: row.model,
        protocol: row.protocol,
        timezoneMinutes: row.timezoneMinutes,
      };
    },

    /**
     * Spec §5: the IMEI exists in the system (tracker stock, for this sub-site) and is not in use.
     * With `lock`, the stock row stays locked until the caller's transaction ends, so two registrations
     * of one tracker run one after the other.
     */
    async checkImei(imei: string, subsiteId: number, options: { executor?: Database; lock?: boolean } = {}): Promise<ImeiCheck> {
      const executor = options.executor ?? db;
      const query = executor.select().from(trackerStock).where(eq(trackerStock.imei, imei));
      const [stock] = options.lock ? await query.for('update') : await query;
      if (!stock) return { ok: false, reason: 'registration.imei.notFound' };
      if (stock.subsiteId !== null && stock.subsiteId !== subsiteId) return { ok: false, reason: 'registration.imei.wrongSite' };
      const [unit] = await executor.select({ id: units.id }).from(units).where(eq(units.imei, imei)).limit(1);
      if (unit) return { ok: false, reason: 'registration.imei.taken' };
      return { ok: true, stock };
    },

    /** Registration creates the unit of its tracker, named by its IMEI until the customer renames it. */
    async createFromStock(executor: Database, input: { accountId: number; stock: StockRow; createdAt: Date }): Promise<number> {
      const [row] = await executor
        .insert(units)
        .values({
          accountId: input.accountId,
          imei: input.stock.imei,
          name: input.stock.imei,
          model: input.stock.model,
          protocol: input.stock.protocol,
          deviceKind: input.stock.deviceKind,
          createdAt: input.createdAt,
        })
        .returning({ id: units.id });
      return row!.id;
    },

    /** The payment option keys of a tracker in stock that is not yet registered (spec §3 Payment types). */
    async paymentTypeKeys(imei: string): Promise<string[]> {
      const [stock] = await db.select().from(trackerStock).where(eq(trackerStock.imei, imei)).limit(1);
      if (!stock) throw new AppError(422, 'registration.imei.notFound', { fields: { imei: ['registration.imei.notFound'] } });
      const [unit] = await db.select({ id: units.id }).from(units).where(eq(units.imei, imei)).limit(1);
      if (unit) throw new AppError(422, 'registration.imei.taken', { fields: { imei: ['registration.imei.taken'] } });
      return stock.paymentTypes.length > 0 ? stock.paymentTypes : [...DEFAULT_PAYMENT_TYPES];
    },

    /** Support registers sold trackers (spec §6); IMEIs already in stock are left as they are. */
    async addStock(input: StockAddInput, addedBy: number | null): Promise<StockAddResult> {
      const unique = [...new Set(input.imeis.map((imei) => imei.trim()))];
      const added: string[] = [];
      for (let start = 0; start < unique.length; start += INSERT_SLICE) {
        const slice = unique.slice(start, start + INSERT_SLICE);
        const rows = await db
          .insert(trackerStock)
          .values(
            slice.map((imei) => ({
              imei,
              model: input.model,
              protocol: input.protocol,
              subsiteId: input.subsiteID ?? null,
              paymentTypes: input.paymentTypes ?? [...DEFAULT_PAYMENT_TYPES],
              deviceKind: input.deviceKind ?? deviceKindOfModel(input.model),
              addedBy,
            })),
          )
          .onConflictDoNothing({ target: trackerStock.imei })
          .returning({ imei: trackerStock.imei });
        added.push(...rows.map((row) => row.imei));
      }
      const addedSet = new Set(added);
      return { added: unique.filter((imei) => addedSet.has(imei)), skipped: unique.filter((imei) => !addedSet.has(imei)) };
    },

    async listStock(query: StockListQuery): Promise<{ items: StockItem[]; total: number }> {
      const filters = [
        query.q ? ilike(trackerStock.imei, `${query.q}%`) : undefined,
        query.status === 'registered' ? registered() : undefined,
        query.status === 'available' ? not(registered()) : undefined,
      ];
      const where = and(...filters.filter((filter) => filter !== undefined));
      const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(trackerStock).where(where);
      const rows = await db
        .select({ stock: trackerStock, unitId: units.id })
        .from(trackerStock)
        .leftJoin(units, eq(units.imei, trackerStock.imei))
        .where(where)
        .orderBy(asc(trackerStock.imei))
        .limit(query.limit)
        .offset(query.offset);
      return {
        total: Number(total),
        items: rows.map(({ stock, unitId }) => ({
          imei: stock.imei,
          model: stock.model,
          protocol: stock.protocol,
          subsiteID: stock.subsiteId,
          paymentTypes: stock.paymentTypes,
          deviceKind: stock.deviceKind,
          addedAt: stock.addedAt.toISOString(),
          registered: unitId !== null,
        })),
      };
    },
  };

  function profileView(row: typeof featureProfiles.$inferSelect, unitCount: number): FeatureProfileView {
    const hours = parseJson<FeatureProfileInput['workingHours'] | null>(row.workingHours);
    return {
      id: row.id,
      name: row.name,
      greenDriving: row.greenDriving,
      overspeedKmh: row.overspeedKmh,
      carBenefit: row.carBenefit,
      geozoneIds: row.geozoneIds,
      workingHours: hours ? { recurrence: hours.recurrence, startDate: hours.startDate ?? null, days: hours.days.map((day) => ({ ...day, week: day.week ?? 1 })) } : null,
      units: unitCount,
    };
  }

  /** Spec §9: at most 5 geozones, each one of the account's geofences. */
  async function assertGeozones(actor: Actor, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const owned = ports.geozonesOf ? new Set(await ports.geozonesOf(actor.accountId, ids)) : new Set<number>();
    if (ids.some((id) => !owned.has(id))) throw fieldError('geozoneIds', 'units.featureProfile.geozoneNotFound');
  }

  async function detailOf(actor: Actor, row: UnitRow): Promise<UnitDetail> {
    const [view] = await views([row], actor);
    const state = view!.HasAccess ? (await liveStatesOf([row.id])).get(row.id) : undefined;
    const [lockerNames, pending, description, theft, imageCount, denied, timeTillParkedS] = await Promise.all([
      userNames([row.lockedBy]),
      pendingSettings(row.id),
      db.select({ unitId: unitObjectDescriptions.unitId }).from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, row.id)),
      db.select({ unitId: unitTheftReports.unitId }).from(unitTheftReports).where(eq(unitTheftReports.unitId, row.id)),
      db.select({ images: count() }).from(unitImages).where(eq(unitImages.unitId, row.id)),
      isFrequencyDenied(actor.userId),
      ports.timeTillParked ? ports.timeTillParked.get(row.id) : Promise.resolve(null),
    ]);
    // A setting just confirmed changes the unit row; read it again when one was settled.
    const fresh = (await db.select().from(units).where(eq(units.id, row.id)))[0] ?? row;
    const locked = fresh.lockedBy !== null || fresh.lockedAt !== null;
    const workingHours = parseJson<WorkingHoursInput | null>(fresh.workingHours) ?? { enabled: false, days: [] };
    return {
      ...view!,
      OperatingMode: fresh.operatingMode,
      ReportFrequencyS: fresh.reportFrequencyS,
      Vin: fresh.vin,
      ChassisNumber: fresh.chassisNumber,
      ChassisPlacement: fresh.chassisPlacement,
      ObdPortType: fresh.obdPortType,
      ObdPlacement: fresh.obdPlacement,
      Horsepower: fresh.horsepower,
      InspectionPeriodMonths: fresh.inspectionPeriodMonths,
      ServiceIntervalKm: fresh.serviceIntervalKm,
      LastService: fresh.lastService,
      FuelConsumptionPer10Km: fresh.fuelConsumptionPer10km,
      Co2GPerKm: fresh.co2GPerKm,
      FuelPayer: fresh.fuelPayer,
      ReimbursementPer10Km: fresh.reimbursementPer10km,
      WorkingHours: workingHours,
      BluetoothEnabled: fresh.bluetoothEnabled,
      ReportFrequencyLocked: fresh.reportFrequencyLocked,
      CanChangeReportFrequency: actor.role === 'support' || (!denied && !fresh.reportFrequencyLocked),
      TimeTillParkedMin: timeTillParkedS === null ? null : Math.round(timeTillParkedS / 60),
      Lock: {
        lockedBy: fresh.lockedBy === null ? null : { id: fresh.lockedBy, name: lockerNames.get(fresh.lockedBy) ?? '' },
        lockedAt: iso(fresh.lockedAt),
        canUnlock: locked && (actor.role === 'support' || fresh.lockedBy === actor.userId),
        canLock: !locked && fresh.carUsage !== 'none',
      },
      PendingSettings: pending,
      Position: state && state.lat !== null && state.lon !== null ? { lat: state.lat, lon: state.lon, time: state.time } : null,
      HasObjectDescription: description.length > 0,
      HasTheftReport: theft.length > 0,
      ImageCount: Number(imageCount[0]?.images ?? 0),
    };
  }

  return service;
}

export type UnitService = ReturnType<typeof createUnitService>;
