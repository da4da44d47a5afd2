import { and, desc, eq, inArray, notInArray, } from 'drizzle-orm';
import { databaseRefusal } from '../../lib/db/errors';
import { drizzleQuerier } from '../../lib/db/querier';
import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import { userDirectory } from '../accounts/views';
import type { AuditEntry } from '../audit/events';
import type { Actor } from '../auth/model';
import { type Executor, errorKey, round, type UnitCore } from './core';
import type { UnitHours } from './hours';
import type { UnitListing } from './listing';
import { type BenefitInput, type BulkResult, type BulkTask, type Co2Input, type DetailsInput, type FuelInput, type MarkerInput, type MeterHistoryEntry, type MetersInput, NAME_HISTORY_MAX, type NameHistoryEntry, type OrganisationInput, type UnitDetail, type WorkingHoursInput } from './model';
import { type UnitRow, unitAccess, unitMeterCalibrations, unitNameHistory, units, unitTags } from './schema';
import type { SettingQueue } from './settings';

/** The edit page's sections, each saved on its own with its own rules, and the bulk tasks that apply them to many units (spec §2, §5). */
export function createUnitSections(core: UnitCore, hours: UnitHours, queue: SettingQueue, listing: UnitListing) {
  const { db, now, requireCatalog, requirePlatform, visibleTo, ownUnit, userNames, liveStatesOf, touch, recordRegistrationChange } = core;
  const { engineCounters } = hours;
  const { setOperatingMode, setReportFrequency } = queue;
  const { views } = listing;
  const { detail } = listing.methods;

  async function setFeatureProfile(unit: UnitRow, featureProfileId: number | null): Promise<void> {
    if (featureProfileId !== null && unit.deviceKind !== 'triplog') throw fieldError('featureProfileId', 'units.features.triplogOnly');
    await touch(unit.id, { featureProfileId });
  }

  async function replaceTags(unit: Pick<UnitRow, 'id' | 'accountId'>, tagIds: number[], executor: Executor = db) {
    await executor.delete(unitTags).where(eq(unitTags.unitId, unit.id));
    if (tagIds.length > 0) await executor.insert(unitTags).values(tagIds.map((tagId) => ({ unitId: unit.id, tagId, accountId: unit.accountId })));
  }

  /** Applies a bulk task to one unit inside the row's transaction; true when it was queued to the tracker. */
  async function applyBulkTask(actor: Actor, unit: UnitRow, task: BulkTask, tx: Executor): Promise<boolean> {
    switch (task.kind) {
      case 'department':
        await touch(unit.id, { departmentId: task.departmentId }, tx);
        return false;
      case 'project':
        await touch(unit.id, { projectId: task.projectId }, tx);
        return false;
      case 'tags': {
        if (task.mode === 'replace') await replaceTags(unit, task.tagIds, tx);
        else if (task.mode === 'add') {
          if (task.tagIds.length > 0) {
            await tx
              .insert(unitTags)
              .values(task.tagIds.map((tagId) => ({ unitId: unit.id, tagId, accountId: unit.accountId })))
              .onConflictDoNothing();
          }
        } else if (task.tagIds.length > 0) {
          await tx.delete(unitTags).where(and(eq(unitTags.unitId, unit.id), inArray(unitTags.tagId, task.tagIds)));
        }
        await touch(unit.id, {}, tx);
        return false;
      }
      case 'featureProfile':
        if (task.featureProfileId !== null && unit.deviceKind !== 'triplog') throw fieldError('featureProfileId', 'units.features.triplogOnly');
        await touch(unit.id, { featureProfileId: task.featureProfileId }, tx);
        return false;
      case 'workingHours':
        await touch(unit.id, { workingHours: { enabled: task.enabled, days: [...task.days].sort((x, y) => x.day - y.day) } }, tx);
        return false;
      case 'access':
        if (task.mode === 'add') {
          await tx
            .insert(unitAccess)
            .values(task.userIds.map((userId) => ({ unitId: unit.id, userId, accountId: unit.accountId, grantedBy: actor.userId, grantedAt: now() })))
            .onConflictDoNothing();
        } else {
          // Spec §6: the user who locked a car keeps access to it while it is locked.
          if (unit.lockedBy !== null && task.userIds.includes(unit.lockedBy)) throw fieldError('userIds', 'units.bulk.lockerKeepsAccess');
          await tx.delete(unitAccess).where(and(eq(unitAccess.unitId, unit.id), inArray(unitAccess.userId, task.userIds)));
        }
        return false;
      case 'operatingMode':
        await setOperatingMode(actor, unit, task.mode);
        return true;
      case 'reportFrequency':
        await setReportFrequency(actor, unit, task.seconds);
        return true;
    }
  }

  /** The audit entry of one unit's bulk change. */
  function bulkAudit(actor: Actor, unit: UnitRow, task: BulkTask): AuditEntry {
    const { kind, ...values } = task;
    return {
      accountId: unit.accountId,
      actorUserId: actor.userId,
      supportUserId: actor.role === 'support' ? actor.userId : null,
      action: `bulk.${kind}`,
      target: { kind: 'unit', id: unit.id, label: unit.name },
      changes: { [kind]: { from: null, to: values } },
      at: now().toISOString(),
    };
  }

  const methods = {
    // --- sections -------------------------------------------------------------------------

    /** Spec §5 name required; §9 the 50 newest names are kept. */
    async rename(actor: Actor, id: number, name: string): Promise<UnitDetail> {
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        if (unit.name === name) return;
        await touch(unit.id, { name }, tx);
        await tx.insert(unitNameHistory).values({ unitId: unit.id, accountId: unit.accountId, previousName: unit.name, name, changedBy: actor.userId, changedAt: now() });
        const keep = tx
          .select({ id: unitNameHistory.id })
          .from(unitNameHistory)
          .where(eq(unitNameHistory.unitId, unit.id))
          .orderBy(desc(unitNameHistory.changedAt), desc(unitNameHistory.id))
          .limit(NAME_HISTORY_MAX);
        await tx.delete(unitNameHistory).where(and(eq(unitNameHistory.unitId, unit.id), notInArray(unitNameHistory.id, keep)));
      });
      return detail(actor, id);
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
        await recordRegistrationChange(unit, input.registrationNumber, actor.userId, at, tx);
        await touch(unit.id, { ...input }, tx);
      });
      return detail(actor, id);
    },

    async saveOrganisation(actor: Actor, id: number, input: OrganisationInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await requireCatalog().assertOwned(actor.accountId, 'departments', [input.departmentId], 'departmentId', 'units.department.notFound');
      await requireCatalog().assertOwned(actor.accountId, 'projects', [input.projectId], 'projectId', 'units.project.notFound');
      await requireCatalog().assertOwned(actor.accountId, 'tags', input.tagIds, 'tagIds', 'units.tag.notFound');
      await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        await touch(id, { departmentId: input.departmentId, projectId: input.projectId }, tx);
        await replaceTags(unit, input.tagIds, tx);
      });
      return detail(actor, id);
    },

    /** Calibration: today's odometer and operating hours; what the tracker counts from now on adds to them. */
    async calibrateMeters(actor: Actor, id: number, input: MetersInput): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      const [current] = await views([unit], actor);
      const live = (await liveStatesOf([id])).get(id);
      const at = now();
      const rows: Array<typeof unitMeterCalibrations.$inferInsert> = [];
      if (current!.OdometerKm === null || Math.abs(current!.OdometerKm - input.odometerKm) >= 0.05) {
        rows.push({ unitId: id, accountId: unit.accountId, kind: 'odometer', value: input.odometerKm * 1000, sourceValue: live?.odometerM ?? null, setBy: actor.userId, setAt: at });
      }
      if (current!.OperatingHours === null || Math.abs(current!.OperatingHours - input.operatingHours) >= 0.05) {
        const counter = (await engineCounters([id])).get(id);
        rows.push({ unitId: id, accountId: unit.accountId, kind: 'hours', value: input.operatingHours * 3600, sourceValue: counter ?? null, setBy: actor.userId, setAt: at });
      }
      if (rows.length > 0) await db.insert(unitMeterCalibrations).values(rows);
      return detail(actor, id);
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
      return detail(actor, id);
    },

    async saveWorkingHours(actor: Actor, id: number, input: WorkingHoursInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await touch(id, { workingHours: input });
      return detail(actor, id);
    },

    async saveFuel(actor: Actor, id: number, input: FuelInput): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      if (unit.carUsage === 'benefit' && input.fuelConsumptionPer10Km === null) throw fieldError('fuelConsumptionPer10Km', 'units.benefit.fuelRequired');
      await touch(id, { fuelType: input.fuelType, fuelConsumptionPer10km: input.fuelConsumptionPer10Km });
      return detail(actor, id);
    },

    async saveCo2(actor: Actor, id: number, input: Co2Input): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      if (unit.carUsage === 'benefit' && input.co2GPerKm === null) throw fieldError('co2GPerKm', 'units.benefit.co2Required');
      await touch(id, { co2GPerKm: input.co2GPerKm });
      return detail(actor, id);
    },

    async saveMarker(actor: Actor, id: number, input: MarkerInput): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await touch(id, { color: input.color, markerIcon: input.markerIcon });
      return detail(actor, id);
    },

    /**
     * The time till parked is the trip log's setting (its detection reads it): the caller's route hands over the trip
     * log's writer (`save`, in seconds), which is built on units and so is not one of this service's dependencies.
     */
    async setTimeTillParked(actor: Actor, id: number, minutes: number, save: (unitId: number, seconds: number) => Promise<void>): Promise<UnitDetail> {
      await ownUnit(actor, id);
      await save(id, minutes * 60);
      return detail(actor, id);
    },

    /** Spec §5: features (a feature profile) only on trip-log devices. */
    async setFeatures(actor: Actor, id: number, featureProfileId: number | null): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      await requireCatalog().assertOwned(actor.accountId, 'featureProfiles', [featureProfileId], 'featureProfileId', 'units.featureProfile.notFound');
      await setFeatureProfile(unit, featureProfileId);
      return detail(actor, id);
    },

    // --- bulk tasks -----------------------------------------------------------------------------

    /** Spec §2 bulk tasks: every named unit must be the caller's; each unit's rules then decide per unit. */
    async bulk(actor: Actor, unitIds: number[], task: BulkTask, language: Language): Promise<BulkResult> {
      const rows = await db
        .select()
        .from(units)
        .where(and(inArray(units.id, unitIds), visibleTo(actor)));
      if (rows.length !== unitIds.length) throw notFound('errors.unitNotFound');
      if (task.kind === 'department') await requireCatalog().assertOwned(actor.accountId, 'departments', [task.departmentId], 'task.departmentId', 'units.department.notFound');
      if (task.kind === 'project') await requireCatalog().assertOwned(actor.accountId, 'projects', [task.projectId], 'task.projectId', 'units.project.notFound');
      if (task.kind === 'featureProfile') {
        await requireCatalog().assertOwned(actor.accountId, 'featureProfiles', [task.featureProfileId], 'task.featureProfileId', 'units.featureProfile.notFound');
      }
      if (task.kind === 'tags') await requireCatalog().assertOwned(actor.accountId, 'tags', [...new Set(task.tagIds)], 'task.tagIds', 'units.tag.notFound');
      if (task.kind === 'access') {
        if (actor.role !== 'admin') throw forbidden();
        const found = await db
          .select({ id: userDirectory.id })
          .from(userDirectory)
          .where(and(inArray(userDirectory.id, task.userIds), eq(userDirectory.accountId, actor.accountId)));
        if (found.length !== task.userIds.length) throw fieldError('task.userIds', 'errors.invalidUserId');
      }
      const byId = new Map(rows.map((row) => [row.id, row]));
      const results: BulkResult['results'] = [];
      const outbox = requirePlatform().outbox;
      // Each unit is its own transaction with its audit entry: a failing unit leaves the others done.
      for (const unitId of unitIds) {
        const unit = byId.get(unitId)!;
        try {
          let pending = false;
          if (task.kind === 'operatingMode' || task.kind === 'reportFrequency') {
            // Queued to the tracker through the command queue, which keeps its own transaction; the entry follows it.
            pending = await applyBulkTask(actor, unit, task, db);
            await db.transaction((tx) => outbox.publish(drizzleQuerier(tx), 'audit.entry', bulkAudit(actor, unit, task)));
          } else {
            await db.transaction(async (tx) => {
              const [fresh] = await tx.select().from(units).where(eq(units.id, unitId)).for('update');
              pending = await applyBulkTask(actor, fresh ?? unit, task, tx);
              await outbox.publish(drizzleQuerier(tx), 'audit.entry', bulkAudit(actor, fresh ?? unit, task));
            });
          }
          results.push({ unitId, ok: true, error: null, pending });
        } catch (error) {
          // A rule the database checks (a unit given a profile whose zones make more than 5) refuses this unit only.
          const refusal = databaseRefusal(error);
          if (!(error instanceof AppError) && !refusal) throw error;
          results.push({ unitId, ok: false, error: translate(language, error instanceof AppError ? errorKey(error) : refusal!.key) });
        }
      }
      return { results };
    },
  };
  return { replaceTags, methods };
}

export type UnitSections = ReturnType<typeof createUnitSections>;
