import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { uniqueViolation } from '../../lib/db/errors';
import { fieldError, forbidden, notFound, ok } from '../../lib/http';
import type { Database } from '../../lib/db/client';
import { drizzleQuerier } from '../../lib/db/querier';
import type { Platform } from '../../lib/platform';
import { type AuditEntry, auditActors } from '../audit/events';
import { authGuard, requireActor } from '../auth';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import {
  type CatalogEntry,
  type CatalogKind,
  type CatalogView,
  catalogCreateSchema,
  catalogEntryParamsSchema,
  featureProfileCreateSchema,
  type FeatureProfileInput,
  type FeatureProfileView,
  type NamedRef,
} from '../units/model';
import { accountGeofences } from '../geofences/views';
import { unitCatalogLinks, unitTagLinks } from '../units/views';
import { accountSettings, departments, featureProfiles, projects, tags } from './schema';

/** A catalogue other modules name entries of: the three named lists and the feature profiles. */
export type CatalogRefKind = CatalogKind | 'featureProfiles';

/** The account's named lists, for a selector in a form. */
export interface CatalogOptions {
  departments: NamedRef[];
  projects: NamedRef[];
  tags: NamedRef[];
  featureProfiles: NamedRef[];
}

/** The audit log's target kind of each catalogue. */
const AUDIT_KIND: Record<CatalogRefKind, string> = { departments: 'department', projects: 'project', tags: 'tag', featureProfiles: 'featureProfile' };

/** Field-by-field changes of an entry, only the fields that changed. */
function diff(before: Record<string, unknown>, after: Record<string, unknown>): AuditEntry['changes'] {
  const changes: NonNullable<AuditEntry['changes']> = {};
  for (const [field, to] of Object.entries(after)) {
    const from = before[field];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from: from ?? null, to: to ?? null };
  }
  return changes;
}

const tableOf = (kind: CatalogRefKind) =>
  kind === 'departments' ? departments : kind === 'projects' ? projects : kind === 'tags' ? tags : featureProfiles;

/**
 * The account catalogues units and users are filed under (spec §3, §5: departments, projects, tags and feature profiles,
 * names unique per account). Administrators keep them; other modules name entries through this service only, each
 * call scoped to one account.
 */
export function createCatalogService(platform: Platform) {
  const db = platform.database.db;

  /** The audit log's entry for a catalogue change, in the transaction that makes it (durable outbox). */
  async function audit(tx: Database, actor: Actor, kind: CatalogRefKind, action: 'created' | 'updated' | 'deleted', target: { id: number; name: string }, changes?: AuditEntry['changes']) {
    await platform.outbox.publish(drizzleQuerier(tx), 'audit.entry', {
      accountId: actor.accountId,
      ...auditActors(actor),
      action: `catalog.${action}`,
      target: { kind: AUDIT_KIND[kind], id: target.id, label: target.name },
      changes,
      at: platform.clock.now().toISOString(),
    });
  }

  function profileView(row: typeof featureProfiles.$inferSelect, unitCount: number): FeatureProfileView {
    const hours = typeof row.workingHours === 'string' ? (JSON.parse(row.workingHours) as typeof row.workingHours) : row.workingHours;
    return {
      id: row.id,
      name: row.name,
      greenDriving: row.greenDriving,
      overspeedKmh: row.overspeedKmh,
      carBenefit: row.carBenefit,
      geozoneIds: row.geozoneIds,
      workingHours: hours ? { recurrence: hours.recurrence as 1 | 2 | 3, startDate: hours.startDate ?? null, days: hours.days.map((day) => ({ ...day, week: day.week ?? 1 })) } : null,
      units: unitCount,
    };
  }

  /** A stored profile's fields as the input names them (working hours parsed when the driver hands back text). */
  function profileFields(row: typeof featureProfiles.$inferSelect) {
    const workingHours = typeof row.workingHours === 'string' ? (JSON.parse(row.workingHours) as typeof row.workingHours) : row.workingHours;
    return { ...row, workingHours };
  }

  /** Spec §9: at most 5 geozones, each one of the account's geofences. */
  async function assertGeozones(actor: Actor, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await db
      .select({ id: accountGeofences.geofenceId })
      .from(accountGeofences)
      .where(and(eq(accountGeofences.accountId, actor.accountId), inArray(accountGeofences.geofenceId, ids)));
    const owned = new Set(rows.map((row) => row.id));
    if (ids.some((id) => !owned.has(id))) throw fieldError('geozoneIds', 'units.featureProfile.geozoneNotFound');
  }

  /** The names of these entries of the account, by id (ids of another account are left out). */
  async function names(accountId: number, kind: CatalogRefKind, ids: ReadonlyArray<number | null>): Promise<Map<number, NamedRef>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const table = tableOf(kind);
    const rows = await db
      .select({ id: table.id, name: table.name })
      .from(table)
      .where(and(inArray(table.id, wanted), eq(table.accountId, accountId)));
    return new Map(rows.map((row) => [row.id, row]));
  }

  async function usersMayCreateProjects(accountId: number): Promise<boolean> {
    const [row] = await db.select({ allowed: accountSettings.usersMayCreateProjects }).from(accountSettings).where(eq(accountSettings.accountId, accountId));
    return row?.allowed === true;
  }

  const requireAdmin = (actor: Actor) => {
    if (actor.role !== 'admin') throw forbidden();
  };

  return {
    // --- for other modules ----------------------------------------------------------------------

    names,

    /** Fails with the field's message key unless every id is an entry of the account. */
    async assertOwned(accountId: number, kind: CatalogRefKind, ids: ReadonlyArray<number | null>, field: string, key: string): Promise<void> {
      const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
      if (wanted.length === 0) return;
      const found = await names(accountId, kind, wanted);
      if (found.size !== wanted.length) throw fieldError(field, key);
    },

    /** The account's entries of each catalogue by name (selectors, filters, bulk tasks). */
    async options(accountId: number): Promise<CatalogOptions> {
      const list = (kind: CatalogRefKind) => {
        const table = tableOf(kind);
        return db.select({ id: table.id, name: table.name }).from(table).where(eq(table.accountId, accountId)).orderBy(asc(table.name));
      };
      const [departmentList, projectList, tagList, profileList] = await Promise.all([list('departments'), list('projects'), list('tags'), list('featureProfiles')]);
      return { departments: departmentList, projects: projectList, tags: tagList, featureProfiles: profileList };
    },

    // --- administration ---------------------------------------------------------------------------

    /** Spec §5: names unique per account. */
    async createCatalogEntry(actor: Actor, kind: CatalogKind, input: { name: string; description: string }): Promise<NamedRef> {
      // Spec §6: ordinary users create projects when the account settings let them.
      if (!(kind === 'projects' && actor.role === 'user' && (await usersMayCreateProjects(actor.accountId)))) requireAdmin(actor);
      const table = tableOf(kind) as typeof departments;
      try {
        return await db.transaction(async (tx) => {
          const [row] = await tx
            .insert(table)
            .values({ accountId: actor.accountId, name: input.name, description: input.description })
            .returning({ id: table.id, name: table.name });
          await audit(tx, actor, kind, 'created', row!, { name: { from: null, to: input.name }, description: { from: null, to: input.description } });
          return row!;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    async createFeatureProfile(actor: Actor, input: FeatureProfileInput): Promise<NamedRef> {
      requireAdmin(actor);
      await assertGeozones(actor, input.geozoneIds);
      try {
        return await db.transaction(async (tx) => {
          const [row] = await tx
            .insert(featureProfiles)
            .values({ accountId: actor.accountId, ...input })
            .returning({ id: featureProfiles.id, name: featureProfiles.name });
          await audit(tx, actor, 'featureProfiles', 'created', row!, diff({}, input));
          return row!;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    /** The account's departments, projects, tags and feature profiles with descriptions and unit counts (administrators). */
    async catalog(actor: Actor): Promise<CatalogView> {
      requireAdmin(actor);
      // Units filed under each entry, read from the view units publishes (unit_catalog_links, unit_tag_links).
      const countBy = async (column: 'departmentId' | 'projectId' | 'featureProfileId'): Promise<Map<number, number>> => {
        const key = unitCatalogLinks[column];
        const rows = await db
          .select({ id: key, n: count() })
          .from(unitCatalogLinks)
          .where(and(eq(unitCatalogLinks.accountId, actor.accountId), sql`${key} is not null`))
          .groupBy(key);
        return new Map(rows.map((row) => [row.id!, Number(row.n)]));
      };
      const tagCounts = async (): Promise<Map<number, number>> => {
        const rows = await db
          .select({ id: unitTagLinks.tagId, n: count() })
          .from(unitTagLinks)
          .innerJoin(tags, eq(tags.id, unitTagLinks.tagId))
          .where(eq(tags.accountId, actor.accountId))
          .groupBy(unitTagLinks.tagId);
        return new Map(rows.map((row) => [row.id, Number(row.n)]));
      };
      const entries = async (kind: CatalogKind, counts: Map<number, number>): Promise<CatalogEntry[]> => {
        const table = tableOf(kind) as typeof departments;
        const rows = await db
          .select({ id: table.id, name: table.name, description: table.description })
          .from(table)
          .where(eq(table.accountId, actor.accountId))
          .orderBy(asc(table.name), asc(table.id));
        return rows.map((row) => ({ ...row, units: counts.get(row.id) ?? 0 }));
      };
      const [byDepartment, byProject, byProfile, byTag, profiles] = await Promise.all([
        countBy('departmentId'),
        countBy('projectId'),
        countBy('featureProfileId'),
        tagCounts(),
        db.select().from(featureProfiles).where(eq(featureProfiles.accountId, actor.accountId)).orderBy(asc(featureProfiles.name), asc(featureProfiles.id)),
      ]);
      const [departmentList, projectList, tagList] = await Promise.all([entries('departments', byDepartment), entries('projects', byProject), entries('tags', byTag)]);
      return {
        departments: departmentList,
        projects: projectList,
        tags: tagList,
        featureProfiles: profiles.map((profile) => profileView(profile, byProfile.get(profile.id) ?? 0)),
      };
    },

    /** Spec §5: renaming keeps names unique per account. */
    async updateCatalogEntry(actor: Actor, kind: CatalogKind, id: number, input: { name: string; description: string }): Promise<NamedRef> {
      requireAdmin(actor);
      const table = tableOf(kind) as typeof departments;
      try {
        return await db.transaction(async (tx) => {
          const [before] = await tx
            .select({ name: table.name, description: table.description })
            .from(table)
            .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)))
            .for('update');
          if (!before) throw notFound('units.catalog.notFound');
          const [row] = await tx
            .update(table)
            .set({ name: input.name, description: input.description })
            .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)))
            .returning({ id: table.id, name: table.name });
          await audit(tx, actor, kind, 'updated', row!, diff(before, { name: input.name, description: input.description }));
          return row!;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    /** Units filed under a deleted department, project or tag keep everything else (the database clears the reference). */
    async deleteCatalogEntry(actor: Actor, kind: CatalogKind, id: number): Promise<{ deleted: true }> {
      requireAdmin(actor);
      const table = tableOf(kind) as typeof departments;
      await db.transaction(async (tx) => {
        const [deleted] = await tx
          .delete(table)
          .where(and(eq(table.id, id), eq(table.accountId, actor.accountId)))
          .returning({ id: table.id, name: table.name, description: table.description });
        if (!deleted) throw notFound('units.catalog.notFound');
        await audit(tx, actor, kind, 'deleted', deleted, { name: { from: deleted.name, to: null }, description: { from: deleted.description, to: null } });
      });
      return { deleted: true };
    },

    async updateFeatureProfile(actor: Actor, id: number, input: FeatureProfileInput): Promise<FeatureProfileView> {
      requireAdmin(actor);
      await assertGeozones(actor, input.geozoneIds);
      try {
        const row = await db.transaction(async (tx) => {
          const [before] = await tx
            .select()
            .from(featureProfiles)
            .where(and(eq(featureProfiles.id, id), eq(featureProfiles.accountId, actor.accountId)))
            .for('update');
          if (!before) throw notFound('units.catalog.notFound');
          const [row] = await tx.update(featureProfiles).set(input).where(eq(featureProfiles.id, id)).returning();
          const { id: _id, accountId: _account, createdAt: _created, ...was } = profileFields(before);
          await audit(tx, actor, 'featureProfiles', 'updated', row!, diff(was, input));
          return row!;
        });
        const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(unitCatalogLinks).where(eq(unitCatalogLinks.featureProfileId, id));
        return profileView(row, Number(n));
      } catch (error) {
        if (uniqueViolation(error)) throw fieldError('name', 'units.catalog.nameTaken');
        throw error;
      }
    },

    async deleteFeatureProfile(actor: Actor, id: number): Promise<{ deleted: true }> {
      requireAdmin(actor);
      await db.transaction(async (tx) => {
        const [deleted] = await tx
          .delete(featureProfiles)
          .where(and(eq(featureProfiles.id, id), eq(featureProfiles.accountId, actor.accountId)))
          .returning({ id: featureProfiles.id, name: featureProfiles.name });
        if (!deleted) throw notFound('units.catalog.notFound');
        await audit(tx, actor, 'featureProfiles', 'deleted', deleted, { name: { from: deleted.name, to: null } });
      });
      return { deleted: true };
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;

const bearer = [{ bearer: [] }];

/** The catalogues' administration (spec §2 account settings): the paths the unit screens have always used. */
export function catalogRoutes(catalog: CatalogService, auth: AuthService) {
  const entryRoutes = (kind: CatalogKind) =>
    new Elysia()
      .use(authGuard(auth))
      .post(`/admin/${kind}`, async ({ actor, body }) => ok(await catalog.createCatalogEntry(requireActor(actor), kind, body)), {
        body: catalogCreateSchema,
        detail: { summary: `Create one of the account's ${kind} (administrators; names unique)`, security: bearer, tags: ['units'] },
      })
      .post(`/admin/${kind}/:id`, async ({ actor, params, body }) => ok(await catalog.updateCatalogEntry(requireActor(actor), kind, params.id, body)), {
        params: catalogEntryParamsSchema,
        body: catalogCreateSchema,
        detail: { summary: `Rename one of the account's ${kind} (administrators; names unique)`, security: bearer, tags: ['units'] },
      })
      .delete(`/admin/${kind}/:id`, async ({ actor, params }) => ok(await catalog.deleteCatalogEntry(requireActor(actor), kind, params.id)), {
        params: catalogEntryParamsSchema,
        detail: { summary: `Delete one of the account's ${kind}; its units are no longer filed under it (administrators)`, security: bearer, tags: ['units'] },
      });

  return new Elysia({ prefix: '/api', tags: ['units'] })
    .use(authGuard(auth))
    .post('/admin/feature-profiles', async ({ actor, body }) => ok(await catalog.createFeatureProfile(requireActor(actor), body)), {
      body: featureProfileCreateSchema,
      detail: { summary: 'Create a feature profile: green driving, overspeed, up to 5 geozones, working hours every 1-3 weeks (administrators)', security: bearer },
    })
    .post('/admin/feature-profiles/:id', async ({ actor, params, body }) => ok(await catalog.updateFeatureProfile(requireActor(actor), params.id, body)), {
      params: catalogEntryParamsSchema,
      body: featureProfileCreateSchema,
      detail: { summary: 'Change a feature profile (administrators; names unique)', security: bearer },
    })
    .delete('/admin/feature-profiles/:id', async ({ actor, params }) => ok(await catalog.deleteFeatureProfile(requireActor(actor), params.id)), {
      params: catalogEntryParamsSchema,
      detail: { summary: 'Delete a feature profile (its units keep running without one)', security: bearer },
    })
    .get('/admin/catalog', async ({ actor }) => ok(await catalog.catalog(requireActor(actor))), {
      detail: { summary: "The account's departments, projects, tags and feature profiles with descriptions and unit counts (administrators)", security: bearer },
    })
    .use(entryRoutes('departments'))
    .use(entryRoutes('projects'))
    .use(entryRoutes('tags'));
}
