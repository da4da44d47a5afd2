import { join } from 'node:path';
import { and, count, eq, exists, gt, inArray, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import { type AppError, fieldError, forbidden, notFound } from '../../lib/http';
import type { Language } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { userDirectory, userNames as userNamesView } from '../accounts/views';
import type { Actor } from '../auth/model';
import type { CatalogService } from '../accounts/service';
import type { BrandService } from '../brands/service';
import type { CommandService } from '../io/service';
import type { WeeklyHours } from '../tracking/model';
import { unitLiveState } from '../tracking/views';
import { DEFAULT_TIME_TILL_PARKED_S } from '../trips/model';
import { unitCheckedInDrivers, unitParkingSettings } from '../trips/views';
import { REGISTRATION_CHANGES_PER_DAY, type WorkingHoursInput } from './model';
import { type UnitRow, unitAccess, unitRegistrationChanges, units } from './schema';

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

export interface UnitServiceDeps {
  platform?: Platform;
  commands?: CommandService;
  brands?: BrandService;
  /** The account catalogues units are filed under (departments, projects, tags, feature profiles). */
  catalog?: CatalogService;
  /** Where the brands' logo files live (src/web/public). */
  webPublicDir?: string;
}

/** Inserts in slices so that a delivery of thousands of IMEIs stays within the drivers' parameter limits. */
export const INSERT_SLICE = 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_PUBLIC_DIR = join(import.meta.dir, '..', '..', 'web', 'public');
export type Executor = Database;

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

function roundOrNull(value: number | null, decimals: number): number | null {
  return value === null || !Number.isFinite(value) ? null : round(value, decimals);
}

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (match) => `\\${match}`);
}

export function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A moment as the reader reads it: their language's short date and time in their time zone. */
export function formatTime(at: Date, language: Language, timeZone: string): string {
  const locale = language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', timeZone, timeZoneName: 'short' }).format(at);
  } catch {
    return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
}

/** The first message key of an AppError (a field error's, else its own). */
export function errorKey(error: AppError): string {
  const fields = error.options.fields;
  if (fields) {
    const first = Object.values(fields)[0]?.[0];
    if (first) return first;
  }
  return error.key;
}

/**
 * What every concern of the units module shares: the database, the platform, what tracking and the trip log
 * publish of a unit, and the caller's reach (spec §6: which units a caller sees and may change).
 */
export function createUnitCore(db: Database, deps: UnitServiceDeps = {}) {
  const { platform, commands, brands } = deps;
  const publicDir = deps.webPublicDir ?? DEFAULT_PUBLIC_DIR;
  const now = () => platform?.clock.now() ?? new Date();

  function requireCatalog(): CatalogService {
    if (!deps.catalog) throw new Error('the unit service was built without the account catalogues');
    return deps.catalog;
  }

  function requirePlatform(): Platform {
    if (!platform) throw new Error('the unit service was built without the platform');
    return platform;
  }

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
      .select({ id: userDirectory.id, role: userDirectory.role })
      .from(userDirectory)
      .where(and(eq(userDirectory.id, userId), eq(userDirectory.accountId, actor.accountId)));
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

  /** Names of users, deleted ones too (history: lockers, name changes). */
  async function userNames(ids: Array<number | null>): Promise<Map<number, string>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await db
      .select({ id: userNamesView.id, firstName: userNamesView.firstName, lastName: userNamesView.lastName, email: userNamesView.email })
      .from(userNamesView)
      .where(inArray(userNamesView.id, wanted));
    return new Map(rows.map((row) => [row.id, `${row.firstName} ${row.lastName}`.trim() || row.email]));
  }

  /** Tracking's latest state of these units (its published view), rounded as the live map rounds it. */
  async function liveStatesOf(ids: number[]): Promise<Map<number, UnitLiveState>> {
    if (ids.length === 0) return new Map();
    const rows = await db.select().from(unitLiveState).where(inArray(unitLiveState.unitId, ids));
    return new Map(
      rows.map((row) => [
        row.unitId,
        {
          id: row.unitId,
          lat: roundOrNull(row.lat, 6),
          lon: roundOrNull(row.lon, 6),
          time: iso(row.time),
          lastSeen: iso(row.lastSeen),
          speed: roundOrNull(row.speedKmh, 1),
          ignition: row.ignition,
          odometerM: roundOrNull(row.odometerM, 0),
          dout1: row.dout1,
          dout2: row.dout2,
          dout3: row.dout3,
          din2: row.din2,
          din3: row.din3,
        },
      ]),
    );
  }

  /** The driver checked in on each of these units now (the trip log's check-ins), by unit id. */
  async function checkedInDrivers(ids: number[]): Promise<Map<number, { userId: number; name: string }>> {
    if (ids.length === 0) return new Map();
    const rows = await db.select().from(unitCheckedInDrivers).where(inArray(unitCheckedInDrivers.unitId, ids));
    const names = await userNames(rows.map((row) => row.userId));
    return new Map(rows.map((row) => [row.unitId, { userId: row.userId, name: names.get(row.userId) ?? '' }]));
  }

  /** The trip log's time till parked of a unit, in seconds (its default when the unit has none). */
  async function timeTillParked(unitId: number): Promise<number> {
    const [row] = await db.select().from(unitParkingSettings).where(eq(unitParkingSettings.unitId, unitId));
    return row?.timeTillParkedS ?? DEFAULT_TIME_TILL_PARKED_S;
  }

  async function touch(unitId: number, values: Partial<typeof units.$inferInsert>, executor: Executor = db) {
    await executor
      .update(units)
      .set({ ...values, updatedAt: now() })
      .where(eq(units.id, unitId));
  }

  /**
   * Records a new registration number in the unit's history; spec §5: it changes at most twice per 24 h, on every form
   * that sets it (the edit page and the car info form). Nothing is recorded when the number stays the same.
   */
  async function recordRegistrationChange(unit: UnitRow, registrationNumber: string, changedBy: number, at: Date, executor: Executor) {
    if (registrationNumber === unit.registrationNumber) return;
    const [{ changes } = { changes: 0 }] = await executor
      .select({ changes: count() })
      .from(unitRegistrationChanges)
      .where(and(eq(unitRegistrationChanges.unitId, unit.id), gt(unitRegistrationChanges.changedAt, new Date(at.getTime() - DAY_MS))));
    if (Number(changes) >= REGISTRATION_CHANGES_PER_DAY) throw fieldError('registrationNumber', 'units.registration.tooOften');
    await executor.insert(unitRegistrationChanges).values({ unitId: unit.id, accountId: unit.accountId, previousNumber: unit.registrationNumber, registrationNumber, changedBy, changedAt: at });
  }

  return { db, platform, commands, brands, publicDir, now, requirePlatform, requireCatalog, seesAllUnits, grantedTo, visibleTo, ownUnit, isLocked, withoutAccess, weeklyHours, accountUser, reachableUnit, userNames, liveStatesOf, checkedInDrivers, timeTillParked, touch, recordRegistrationChange };
}

export type UnitCore = ReturnType<typeof createUnitCore>;
