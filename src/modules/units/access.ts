import { and, asc, desc, eq, inArray, notInArray, or, sql } from 'drizzle-orm';
import { AppError, fieldError, forbidden } from '../../lib/http';
import { translate } from '../../lib/i18n';
import type { Querier } from '../../lib/db/client';
import { drizzleQuerier } from '../../lib/db/querier';
import { userDirectory } from '../accounts/views';
import { type AuditEntry, auditActors } from '../audit/events';
import type { Actor } from '../auth/model';
import type { UnitAccess as MapUnitAccess } from '../tracking/model';
import { type Executor, formatTime, type UnitCore } from './core';
import type { UnitListing } from './listing';
import type { LockLogEntry, UnitAccessUser, UnitDetail, UnitView, UserUnitAccess } from './model';
import { unitAccess, unitLockLog, units } from './schema';

/** Spec §6 visibility and grants: who sees a unit, who reads its trips and positions, the units given to users, and locking. */
export function createUnitAccess(core: UnitCore, listing: UnitListing) {
  const { db, platform, now, requirePlatform, seesAllUnits, visibleTo, ownUnit, withoutAccess, weeklyHours, accountUser, reachableUnit, userNames, touch } = core;
  const { views } = listing;
  const { detail } = listing.methods;

  /** An audit entry of the unit's account, in the caller's Drizzle transaction (exactly when the change commits). */
  async function audit(tx: Executor, actor: Actor, accountId: number, action: string, target: AuditEntry['target'], changes?: AuditEntry['changes']) {
    if (!platform) return;
    await platform.outbox.publish(drizzleQuerier(tx), 'audit.entry', { accountId, ...auditActors(actor), action, target, changes, at: now().toISOString() });
  }

  const methods = {
    /**
     * Spec §6: changing a user's department resets their unit access; a deleted user keeps none. Durable: the accounts
     * module publishes both in the transaction of the change, and this runs in the outbox delivery's transaction.
     */
    async dropAccessOf(userId: number, tx: Querier): Promise<void> {
      await tx('DELETE FROM unit_access WHERE user_id = $1', [userId]);
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

    /**
     * The units the caller sees (spec §6), lean: what the car schedule lists per vehicle, in one query (thousands of
     * units). `imeis` or `unitId` narrow it; a unit that is not the caller's is simply absent.
     */
    async scheduleUnits(
      actor: Actor,
      filter: { imeis?: string[]; unitId?: number } = {},
    ): Promise<Array<{ id: number; imei: string; name: string; registrationNumber: string; model: string; subscriptionType: string }>> {
      const narrow = [
        visibleTo(actor),
        filter.imeis && filter.imeis.length > 0 ? inArray(units.imei, filter.imeis) : undefined,
        filter.unitId === undefined ? undefined : eq(units.id, filter.unitId),
      ];
      const rows = await db
        .select({
          id: units.id,
          imei: units.imei,
          name: units.name,
          registrationNumber: units.registrationNumber,
          model: units.model,
          subscriptionType: units.subscriptionType,
        })
        .from(units)
        .where(and(...narrow))
        .orderBy(asc(units.name), asc(units.id));
      return rows;
    },

    /** Spec §6: whether the caller may read the trips and positions of the unit (false for other accounts' units too). */
    async canReadTracks(actor: Actor, id: number): Promise<boolean> {
      try {
        await methods.get(actor, id);
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
          id: userDirectory.id,
          firstName: userDirectory.firstName,
          lastName: userDirectory.lastName,
          email: userDirectory.email,
          role: userDirectory.role,
          granted: sql<boolean>`exists (select 1 from unit_access a where a.unit_id = ${unit.id} and a.user_id = ${userDirectory.id})`.mapWith(Boolean),
        })
        .from(userDirectory)
        .where(eq(userDirectory.accountId, actor.accountId))
        .orderBy(asc(userDirectory.firstName), asc(userDirectory.lastName), asc(userDirectory.id));
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
            .select({ id: userDirectory.id })
            .from(userDirectory)
            .where(and(inArray(userDirectory.id, userIds), eq(userDirectory.accountId, actor.accountId)));
          if (found.length !== userIds.length) throw fieldError('userIds', 'errors.invalidUserId');
        }
        await tx.delete(unitAccess).where(userIds.length > 0 ? and(eq(unitAccess.unitId, unit.id), notInArray(unitAccess.userId, userIds)) : eq(unitAccess.unitId, unit.id));
        if (userIds.length > 0) {
          await tx
            .insert(unitAccess)
            .values(userIds.map((userId) => ({ unitId: unit.id, userId, accountId: unit.accountId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        }
      });
      return methods.unitUsers(actor, id);
    },

    /** How many units of the account each of these users is given (the user table's "units visible"). */
    async accessCounts(accountId: number, userIds: number[]): Promise<Map<number, number>> {
      if (userIds.length === 0) return new Map();
      const rows = await db
        .select({ userId: unitAccess.userId, count: sql<number>`count(*)::int` })
        .from(unitAccess)
        .innerJoin(units, eq(units.id, unitAccess.unitId))
        .where(and(inArray(unitAccess.userId, userIds), eq(units.accountId, accountId)))
        .groupBy(unitAccess.userId);
      return new Map(rows.map((row) => [row.userId, Number(row.count)]));
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
        const before = await tx.select({ id: unitAccess.unitId }).from(unitAccess).where(eq(unitAccess.userId, userId));
        await tx.delete(unitAccess).where(unitIds.length > 0 ? and(eq(unitAccess.userId, userId), notInArray(unitAccess.unitId, unitIds)) : eq(unitAccess.userId, userId));
        if (unitIds.length > 0) {
          await tx
            .insert(unitAccess)
            .values(unitIds.map((unitId) => ({ unitId, userId, accountId: actor.accountId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        }
        const was = before.map((row) => row.id).sort((a, b) => a - b);
        const is = [...new Set(unitIds)].sort((a, b) => a - b);
        if (was.join(',') !== is.join(',')) {
          const [person] = await tx.select({ first: userDirectory.firstName, last: userDirectory.lastName }).from(userDirectory).where(eq(userDirectory.id, userId));
          const name = `${person?.first ?? ''} ${person?.last ?? ''}`.trim();
          await audit(tx, actor, actor.accountId, 'unit.access_changed', { kind: 'user', id: userId, label: name }, { unitIds: { from: was, to: is } });
        }
      });
      return methods.userUnits(actor, userId);
    },

    /**
     * A bulk task on users (spec §2, §6): gives one user of the account these units of the account, or takes them away,
     * in one transaction with its audit entry. The user who locked a car keeps access to it.
     */
    async changeUserUnits(actor: Actor, userId: number, unitIds: number[], mode: 'add' | 'remove'): Promise<void> {
      if (actor.role !== 'admin') throw forbidden();
      await accountUser(actor, userId);
      const outbox = requirePlatform().outbox;
      await db.transaction(async (tx) => {
        const found = await tx
          .select({ id: units.id, lockedBy: units.lockedBy })
          .from(units)
          .where(and(inArray(units.id, unitIds), eq(units.accountId, actor.accountId)));
        if (found.length !== unitIds.length) throw fieldError('unitIds', 'errors.unitNotFound');
        if (mode === 'add') {
          await tx
            .insert(unitAccess)
            .values(unitIds.map((unitId) => ({ unitId, userId, accountId: actor.accountId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        } else {
          if (found.some((unit) => unit.lockedBy === userId)) throw fieldError('unitIds', 'units.bulk.lockerKeepsAccess');
          await tx.delete(unitAccess).where(and(eq(unitAccess.userId, userId), inArray(unitAccess.unitId, unitIds)));
        }
        const [user] = await tx.select({ email: userDirectory.email }).from(userDirectory).where(eq(userDirectory.id, userId));
        await outbox.publish(drizzleQuerier(tx), 'audit.entry', {
          accountId: actor.accountId,
          actorUserId: actor.userId,
          action: 'bulk.unitAccess',
          target: { kind: 'user', id: userId, label: user?.email ?? String(userId) },
          changes: { units: { from: null, to: { mode, unitIds } } },
          at: now().toISOString(),
        });
      });
    },

    /**
     * Spec §6: changing a user's department resets their unit access. Whoever changes the department calls
     * this in the same transaction (or emits `user.department_changed`, which this service also handles).
     */
    async resetUserAccess(userId: number, executor: Executor = db): Promise<void> {
      await executor.delete(unitAccess).where(eq(unitAccess.userId, userId));
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
        await tx.insert(unitLockLog).values({ unitId: unit.id, accountId: unit.accountId, action: 'locked', userId: actor.userId, lockerId: actor.userId, at });
        await audit(tx, actor, unit.accountId, 'unit.locked', { kind: 'unit', id: unit.id, label: unit.name }, { locked: { from: false, to: true } });
      });
      return detail(actor, id);
    },

    /** Spec §4/§6: only the locker or support unlocks; the locker is e-mailed. */
    async unlock(actor: Actor, id: number): Promise<{ unlocked: true; unitId: number }> {
      const { unit, lockerId } = await db.transaction(async (tx) => {
        const unit = await reachableUnit(actor, id, tx, true);
        if (unit.lockedBy === null && unit.lockedAt === null) throw new AppError(409, 'units.lock.notLocked');
        if (actor.role !== 'support' && unit.lockedBy !== actor.userId) throw forbidden('units.lock.onlyLocker');
        const at = now();
        await touch(unit.id, { lockedBy: null, lockedAt: null }, tx);
        await tx.insert(unitLockLog).values({ unitId: unit.id, accountId: unit.accountId, action: 'unlocked', userId: actor.userId, lockerId: unit.lockedBy, at });
        await audit(tx, actor, unit.accountId, 'unit.unlocked', { kind: 'unit', id: unit.id, label: unit.name }, { locked: { from: true, to: false } });
        return { unit, lockerId: unit.lockedBy };
      });
      if (lockerId !== null && platform) {
        const [locker] = await db.select().from(userDirectory).where(eq(userDirectory.id, lockerId));
        if (locker) {
          const by = (await userNames([actor.userId])).get(actor.userId) ?? '';
          const language = locker.language;
          const params = { unit: unit.name, by, time: formatTime(now(), language, locker.timezone) };
          try {
            await platform.mailer.send({
              to: locker.email,
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
  };
  return { methods };
}

export type UnitAccessRules = ReturnType<typeof createUnitAccess>;
