import { and, asc, count, eq, exists, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { CatalogRefKind } from '../accounts/service';
import type { Actor } from '../auth/model';
import { unitStatus } from '../tracking/model';
import { escapeLike, iso, parseJson, round, type UnitCore } from './core';
import type { UnitHours } from './hours';
import { type NamedRef, type UnitDetail, type UnitListQuery, type UnitOptions, type UnitView, unitSortValue, type WorkingHoursInput } from './model';
import { type UnitRow, unitImages, unitObjectDescriptions, units, unitTags, unitTheftReports } from './schema';
import type { SettingQueue } from './settings';
import type { TheftMode } from './theft';

/** The unit list, the edit page's detail and the list's options (spec §2). */
export function createUnitListing(core: UnitCore, hours: UnitHours, queue: SettingQueue, theftMode: Pick<TheftMode, 'statesOf'>) {
  const { db, now, requireCatalog, visibleTo, ownUnit, isLocked, withoutAccess, userNames, liveStatesOf, checkedInDrivers, timeTillParked } = core;
  const { latestCalibrations, engineCounters, operatingSeconds, odometerM } = hours;
  const { isFrequencyDenied, pendingSettings } = queue;

  /** The catalogue names units are filed under, asked of the accounts module one account at a time. */
  async function catalogNames(kind: CatalogRefKind, rows: UnitRow[], pick: (row: UnitRow) => number | null): Promise<Map<number, NamedRef>> {
    const byAccount = new Map<number, Array<number | null>>();
    for (const row of rows) byAccount.set(row.accountId, [...(byAccount.get(row.accountId) ?? []), pick(row)]);
    const found = await Promise.all([...byAccount].map(([accountId, ids]) => requireCatalog().names(accountId, kind, ids)));
    return new Map(found.flatMap((names) => [...names]));
  }

  /** Each unit's tags, by name. */
  async function tagsOf(rows: UnitRow[]): Promise<Array<{ unitId: number; id: number; name: string }>> {
    if (rows.length === 0) return [];
    const links = await db.select({ unitId: unitTags.unitId, tagId: unitTags.tagId }).from(unitTags).where(inArray(unitTags.unitId, rows.map((row) => row.id)));
    // One look-up per account (a list holds one account's units; support's searches may span more).
    const accountOf = new Map(rows.map((row) => [row.id, row.accountId]));
    const byAccount = new Map<number, number[]>();
    for (const link of links) {
      const accountId = accountOf.get(link.unitId)!;
      byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), link.tagId]);
    }
    const found = await Promise.all([...byAccount].map(([accountId, ids]) => requireCatalog().names(accountId, 'tags', ids)));
    const names = new Map(found.flatMap((map) => [...map]));
    return links
      .flatMap((link) => {
        const tag = names.get(link.tagId);
        return tag ? [{ unitId: link.unitId, id: tag.id, name: tag.name }] : [];
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async function views(rows: UnitRow[], actor: Actor | null): Promise<UnitView[]> {
    const ids = rows.map((row) => row.id);
    const [departmentRefs, projectRefs, profileRefs, live, calibrations, tagRows, restricted, drivers, engines, theftStates] = await Promise.all([
      catalogNames('departments', rows, (row) => row.departmentId),
      catalogNames('projects', rows, (row) => row.projectId),
      catalogNames('featureProfiles', rows, (row) => row.featureProfileId),
      liveStatesOf(ids),
      latestCalibrations(ids),
      tagsOf(rows),
      actor ? withoutAccess(actor, rows) : Promise.resolve(new Set<number>()),
      checkedInDrivers(ids),
      engineCounters(ids),
      theftMode.statesOf(ids),
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
        TheftMode: theftStates.get(row.id) ?? 'off',
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
      timeTillParked(row.id),
    ]);
    // A setting just confirmed changes the unit row; read it again when one was settled.
    const fresh = (await db.select().from(units).where(eq(units.id, row.id)))[0] ?? row;
    const theftState = (await theftMode.statesOf([row.id])).get(row.id) ?? 'off';
    const locked = fresh.lockedBy !== null || fresh.lockedAt !== null;
    const workingHours = parseJson<WorkingHoursInput | null>(fresh.workingHours) ?? { enabled: false, days: [] };
    return {
      ...view!,
      OperatingMode: fresh.operatingMode,
      TheftMode: theftState,
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
      TimeTillParkedMin: Math.round(timeTillParkedS / 60),
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

  const methods = {
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
        await requireCatalog().assertOwned(actor.accountId, 'departments', [query.departmentId], 'departmentId', 'units.department.notFound');
        filters.push(eq(units.departmentId, query.departmentId));
      }
      if (query.projectId !== undefined) {
        await requireCatalog().assertOwned(actor.accountId, 'projects', [query.projectId], 'projectId', 'units.project.notFound');
        filters.push(eq(units.projectId, query.projectId));
      }
      if (query.tagId !== undefined) {
        await requireCatalog().assertOwned(actor.accountId, 'tags', [query.tagId], 'tagId', 'units.tag.notFound');
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
      return list
        .map((unit) => ({ unit, key: unitSortValue(unit, sort) }))
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

    /** Everything the edit page shows (spec §2 /user/edit-terminal). */
    async detail(actor: Actor, id: number): Promise<UnitDetail> {
      const row = await ownUnit(actor, id);
      return detailOf(actor, row);
    },

    async options(actor: Actor): Promise<UnitOptions> {
      const [catalog, subscriptions] = await Promise.all([
        requireCatalog().options(actor.accountId),
        db
          .selectDistinct({ value: units.subscriptionType })
          .from(units)
          .where(eq(units.accountId, actor.accountId))
          .orderBy(asc(units.subscriptionType)),
      ]);
      return {
        ...catalog,
        subscriptions: subscriptions.map((row) => row.value),
      };
    },
  };
  return { views, detailOf, methods };
}

export type UnitListing = ReturnType<typeof createUnitListing>;
