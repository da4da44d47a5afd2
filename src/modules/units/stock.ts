import { drizzleQuerier } from '../../lib/db/querier';
import { auditActors } from '../audit/events';
import { and, asc, count, desc, eq, exists, ilike, not, or, sql } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import { uniqueViolation } from '../../lib/db/errors';
import { AppError, fieldError, forbidden } from '../../lib/http';
import { accountDirectory } from '../accounts/views';
import type { Actor } from '../auth/model';
import { escapeLike, INSERT_SLICE, type UnitCore } from './core';
import type { UnitListing } from './listing';
import { type AccountChoice, type AddTerminalInput, DEFAULT_PAYMENT_TYPES, deviceKindOfModel, operatingModeCommand, type StockAddInput, type StockAddResult, type StockItem, type StockListQuery, type TrackerHistoryEntry, type UnitDetail } from './model';
import { trackerStock, type UnitRow, units, unitTrackerHistory } from './schema';
import type { SettingQueue } from './settings';

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

/** Trackers: the stock that registration and add terminal draw from, the gateway's IMEI look-up and tracker replacement (spec §4, §8). */
export function createUnitStock(core: UnitCore, queue: SettingQueue, listing: UnitListing) {
  const { db, platform, commands, now, ownUnit, withoutAccess, reachableUnit, userNames, liveStatesOf, touch } = core;
  const { queueSetting } = queue;
  const { detailOf } = listing;

  /** Correlated: the stock row's IMEI is a unit. */
  const registered = () => exists(db.select({ one: sql`1` }).from(units).where(eq(units.imei, trackerStock.imei)));

  const methods = {
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
          const [account] = await tx.select({ subsiteId: accountDirectory.subsiteId }).from(accountDirectory).where(eq(accountDirectory.id, current.accountId));
          const check = await methods.checkImei(imei, account?.subsiteId ?? actor.subsiteId, { executor: tx, lock: true });
          if (!check.ok) throw fieldError('imei', check.reason);
          await touch(current.id, { imei, model: check.stock.model, protocol: check.stock.protocol, deviceKind: check.stock.deviceKind }, tx);
          await tx.insert(unitTrackerHistory).values({
            unitId: current.id,
            accountId: current.accountId,
            previousImei: current.imei,
            previousModel: current.model,
            imei,
            model: check.stock.model,
            replacedBy: actor.userId,
            replacedAt: now(),
          });
          await platform?.outbox.publish(drizzleQuerier(tx), 'audit.entry', {
            accountId: current.accountId,
            ...auditActors(actor),
            action: 'unit.tracker_replaced',
            target: { kind: 'unit', id: current.id, label: current.name },
            changes: { imei: { from: current.imei, to: imei } },
            at: now().toISOString(),
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
      const [account] = await db.select({ id: accountDirectory.id, subsiteId: accountDirectory.subsiteId }).from(accountDirectory).where(eq(accountDirectory.id, accountId));
      if (!account) throw fieldError('accountId', 'units.account.notFound');
      try {
        const created = await db.transaction(async (tx) => {
          const check = await methods.checkImei(input.imei, account.subsiteId, { executor: tx, lock: true });
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
          await platform?.outbox.publish(drizzleQuerier(tx), 'audit.entry', {
            accountId,
            ...auditActors(actor),
            action: 'unit.added',
            target: { kind: 'unit', id: row!.id, label: row!.name },
            changes: { imei: { from: null, to: input.imei } },
            at: now().toISOString(),
          });
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

    /** Support's account picker on add terminal (spec §6 support registers IMEIs): by company, org number or id. */
    async searchAccounts(actor: Actor, q: string): Promise<AccountChoice[]> {
      if (actor.role !== 'support') throw forbidden();
      const pattern = `%${escapeLike(q)}%`;
      const rows = await db
        .select({ id: accountDirectory.id, companyName: accountDirectory.companyName, orgNumber: accountDirectory.orgNumber, subsiteId: accountDirectory.subsiteId })
        .from(accountDirectory)
        .where(q === '' ? undefined : or(ilike(accountDirectory.companyName, pattern), ilike(accountDirectory.orgNumber, pattern), /^\d{1,9}$/.test(q) ? eq(accountDirectory.id, Number(q)) : undefined))
        .orderBy(asc(accountDirectory.companyName), asc(accountDirectory.id))
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

    /**
     * Support registers sold trackers (spec §6); IMEIs already in stock are left as they are. A signed-in caller's
     * change is audited in their own account in the same transaction (the command line, with no caller, is not).
     */
    async addStock(input: StockAddInput, by: Actor | null): Promise<StockAddResult> {
      const unique = [...new Set(input.imeis.map((imei) => imei.trim()))];
      const added = await db.transaction(async (tx) => {
        const added: string[] = [];
        for (let start = 0; start < unique.length; start += INSERT_SLICE) {
          const slice = unique.slice(start, start + INSERT_SLICE);
          const rows = await tx
            .insert(trackerStock)
            .values(
              slice.map((imei) => ({
                imei,
                model: input.model,
                protocol: input.protocol,
                subsiteId: input.subsiteID ?? null,
                paymentTypes: input.paymentTypes ?? [...DEFAULT_PAYMENT_TYPES],
                deviceKind: input.deviceKind ?? deviceKindOfModel(input.model),
                addedBy: by?.userId ?? null,
              })),
            )
            .onConflictDoNothing({ target: trackerStock.imei })
            .returning({ imei: trackerStock.imei });
          added.push(...rows.map((row) => row.imei));
        }
        if (by && added.length > 0) {
          await platform?.outbox.publish(drizzleQuerier(tx), 'audit.entry', {
            accountId: by.acting?.homeAccountId ?? by.accountId,
            ...auditActors(by),
            action: 'stock.added',
            target: { kind: 'trackerStock', id: null, label: added.length === 1 ? added[0]! : `${added[0]} … ${added[added.length - 1]} (${added.length})` },
            changes: { imeis: { from: null, to: added }, model: { from: null, to: input.model }, subsiteID: { from: null, to: input.subsiteID ?? null } },
            at: now().toISOString(),
          });
        }
        return added;
      });
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
  return { methods };
}

export type UnitStock = ReturnType<typeof createUnitStock>;
