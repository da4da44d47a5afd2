import { and, asc, eq, isNull, or } from 'drizzle-orm';
import { forbidden } from '../../lib/http';
import type { Actor } from '../auth/model';
import type { UnitCore } from './core';
import type { UnitHours } from './hours';
import type { UnitListing } from './listing';
import type { CarInfoInput, CarInfoPending, UnitDetail } from './model';
import { unitMeterCalibrations, unitOnboarding, units } from './schema';

/**
 * Car info onboarding (spec §2): after registration, and for every unit added later, administrators fill in what the
 * trip log and reports need in one short form, or skip it and come back from the unit list.
 */
export function createUnitOnboarding(core: UnitCore, hours: UnitHours, listing: UnitListing) {
  const { db, now, ownUnit, touch, liveStatesOf, recordRegistrationChange } = core;
  const { latestCalibrations, odometerM } = hours;
  const { detail } = listing.methods;

  const requireAdmin = (actor: Actor) => {
    if (actor.role !== 'admin') throw forbidden();
  };

  const methods = {
    /** The account's trip-log units not yet through the form (skipped ones included, to resume). */
    async carInfoPending(actor: Actor): Promise<CarInfoPending[]> {
      requireAdmin(actor);
      const rows = await db
        .select({ unit: units, status: unitOnboarding.status })
        .from(units)
        .leftJoin(unitOnboarding, eq(unitOnboarding.unitId, units.id))
        .where(and(eq(units.accountId, actor.accountId), eq(units.deviceKind, 'triplog'), or(isNull(unitOnboarding.status), eq(unitOnboarding.status, 'skipped'))))
        .orderBy(asc(units.createdAt), asc(units.id));
      return rows.map(({ unit, status }) => ({
        id: unit.id,
        name: unit.name,
        registrationNumber: unit.registrationNumber,
        model: unit.model,
        fuelType: unit.fuelType,
        fuelConsumptionPer10Km: unit.fuelConsumptionPer10km,
        co2GPerKm: unit.co2GPerKm,
        carUsage: unit.carUsage,
        fuelPayer: unit.fuelPayer,
        skipped: status === 'skipped',
      }));
    },

    /** Saves the form: every field and the odometer at once (or nothing), and the unit is through. */
    async saveCarInfo(actor: Actor, id: number, input: CarInfoInput): Promise<UnitDetail> {
      requireAdmin(actor);
      await ownUnit(actor, id);
      const live = (await liveStatesOf([id])).get(id);
      const current = odometerM((await latestCalibrations([id])).get(`${id}:odometer`), live);
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        const at = now();
        await recordRegistrationChange(unit, input.registrationNumber, actor.userId, at, tx);
        await touch(
          unit.id,
          {
            registrationNumber: input.registrationNumber,
            model: input.model,
            fuelType: input.fuelType,
            fuelConsumptionPer10km: input.fuelConsumptionPer10Km,
            co2GPerKm: input.co2GPerKm,
            carUsage: input.carUsage,
            fuelPayer: input.carUsage === 'none' ? null : input.fuelPayer,
          },
          tx,
        );
        if (current === null || Math.abs(current / 1000 - input.odometerKm) >= 0.05) {
          await tx.insert(unitMeterCalibrations).values({ unitId: unit.id, accountId: unit.accountId, kind: 'odometer', value: input.odometerKm * 1000, sourceValue: live?.odometerM ?? null, setBy: actor.userId, setAt: at });
        }
        await tx
          .insert(unitOnboarding)
          .values({ unitId: unit.id, accountId: unit.accountId, status: 'done', updatedBy: actor.userId, updatedAt: at })
          .onConflictDoUpdate({ target: [unitOnboarding.unitId, unitOnboarding.accountId], set: { status: 'done', updatedBy: actor.userId, updatedAt: at } });
      });
      return detail(actor, id);
    },

    /** Puts the form off for this unit; the unit list offers it again. */
    async skipCarInfo(actor: Actor, id: number): Promise<{ skipped: true }> {
      requireAdmin(actor);
      const unit = await ownUnit(actor, id);
      const at = now();
      await db
        .insert(unitOnboarding)
        .values({ unitId: id, accountId: unit.accountId, status: 'skipped', updatedBy: actor.userId, updatedAt: at })
        .onConflictDoUpdate({ target: [unitOnboarding.unitId, unitOnboarding.accountId], set: { status: 'skipped', updatedBy: actor.userId, updatedAt: at }, where: eq(unitOnboarding.status, 'skipped') });
      return { skipped: true };
    },
  };
  return { methods };
}
