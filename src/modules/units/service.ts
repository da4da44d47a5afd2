import { and, asc, count, eq, exists, like, not, sql } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import { AppError, notFound } from '../../lib/http';
import type { Actor } from '../accounts/users';
import {
  DEFAULT_PAYMENT_TYPES,
  type StockAddInput,
  type StockAddResult,
  type StockItem,
  type StockListQuery,
  type UnitView,
} from './model';
import { type UnitRow, trackerStock, units } from './schema';

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

function toView(row: UnitRow): UnitView {
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
  };
}

/** Inserts in slices so that a delivery of thousands of IMEIs stays within the drivers' parameter limits. */
const INSERT_SLICE = 1000;

/**
 * Units (scoped by the caller's account) and the tracker stock that registration draws from.
 * Methods that take `executor` run inside a caller's transaction (registration) when given one.
 */
export function createUnitService(db: Database) {
  /** Correlated: the stock row's IMEI is a unit. */
  const registered = () => exists(db.select({ one: sql`1` }).from(units).where(eq(units.imei, trackerStock.imei)));

  return {
    /** Spec §6: ordinary users see only their own units; for now that is every unit of their account. */
    async list(actor: Actor): Promise<UnitView[]> {
      const rows = await db.select().from(units).where(eq(units.accountId, actor.accountId)).orderBy(asc(units.name), asc(units.id));
      return rows.map(toView);
    },

    /** Another account's unit is indistinguishable from a missing one: 404, no data. */
    async get(actor: Actor, id: number): Promise<UnitView> {
      const [row] = await db
        .select()
        .from(units)
        .where(and(eq(units.id, id), eq(units.accountId, actor.accountId)))
        .limit(1);
      if (!row) throw notFound('errors.unitNotFound');
      return toView(row);
    },

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
        query.q ? like(trackerStock.imei, `${query.q}%`) : undefined,
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
          addedAt: stock.addedAt.toISOString(),
          registered: unitId !== null,
        })),
      };
    },
  };
}

export type UnitService = ReturnType<typeof createUnitService>;
