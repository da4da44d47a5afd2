import { Elysia } from 'elysia';
import { uniqueViolation } from '../../lib/db/errors';
import { fieldError, forbidden, notFound, ok } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import type { Actor } from '../auth/model';
import { type DefaultPurpose, type PurposeCatalog, purposeIdParamsSchema, purposeInputSchema, type PurposeInput, purposeSettingsSchema, type PurposeSettingsInput } from './model';

/**
 * Default purposes (spec §1, §2 account settings, §3 Default purpose, §5, §6): an account's named trip purposes that
 * the trip log offers besides free text. Administrators manage them; an account setting lets ordinary users create
 * them too. Names are unique per account (case-insensitively) and at most 100 characters, like a trip's purpose.
 */

type PurposeRow = DefaultPurpose & Record<string, unknown>;

const isAdmin = (actor: Actor) => actor.role === 'admin';
const purposeNotFound = () => notFound('purposes.notFound');

export function createPurposeService(platform: Platform) {
  const { database, clock } = platform;
  type Tx = Parameters<Parameters<typeof database.transaction>[0]>[0];

  async function usersMayCreate(query: Tx, accountId: number, lock = false): Promise<boolean> {
    const [row] = await query<{ users_may_create: boolean }>(
      `SELECT users_may_create FROM purpose_settings WHERE account_id = $1${lock ? ' FOR SHARE' : ''}`,
      [accountId],
    );
    return row?.users_may_create === true;
  }

  /** Runs a write; a lost race on the unique name index answers as the name being taken (spec §5). */
  async function write<T>(work: (query: Tx) => Promise<T>): Promise<T> {
    try {
      return await database.transaction(work);
    } catch (error) {
      if (uniqueViolation(error) !== null) throw fieldError('name', 'purposes.nameTaken');
      throw error;
    }
  }

  async function nameFree(query: Tx, accountId: number, name: string, exceptId: number | null): Promise<void> {
    const [taken] = await query<{ id: number }>('SELECT id FROM purposes WHERE account_id = $1 AND lower(name) = lower($2) AND id <> $3', [
      accountId,
      name,
      exceptId ?? 0,
    ]);
    if (taken) throw fieldError('name', 'purposes.nameTaken');
  }

  /** Every user of the account reads the default purposes (the trip log offers them). */
  async function list(actor: Actor): Promise<PurposeCatalog> {
    return database.transaction(async (query) => {
      const rows = await query<PurposeRow>('SELECT id, name, description FROM purposes WHERE account_id = $1 ORDER BY lower(name), id', [
        actor.accountId,
      ]);
      const allowed = await usersMayCreate(query, actor.accountId);
      return {
        purposes: rows.map((row) => ({ id: row.id, name: row.name, description: row.description })),
        usersMayCreate: allowed,
        canCreate: isAdmin(actor) || allowed,
        canManage: isAdmin(actor),
      };
    });
  }

  return {
    list,

    /** Spec §6: administrators create; ordinary users only when the account allows it. */
    async create(actor: Actor, input: PurposeInput): Promise<DefaultPurpose> {
      return write(async (query) => {
        if (!isAdmin(actor) && !(await usersMayCreate(query, actor.accountId, true))) throw forbidden('purposes.createNotAllowed');
        await nameFree(query, actor.accountId, input.name, null);
        const [row] = await query<PurposeRow>(
          `INSERT INTO purposes (account_id, name, description, created_by, created_at) VALUES ($1, $2, $3, $4, $5::timestamptz)
           RETURNING id, name, description`,
          [actor.accountId, input.name, input.description, actor.userId, clock.now().toISOString()],
        );
        return { id: row!.id, name: row!.name, description: row!.description };
      });
    },

    /** Administrators rename or describe a default purpose of their account; another account's purpose is 404. */
    async update(actor: Actor, id: number, input: PurposeInput): Promise<DefaultPurpose> {
      return write(async (query) => {
        const [existing] = await query<{ id: number }>('SELECT id FROM purposes WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, actor.accountId]);
        if (!existing) throw purposeNotFound();
        if (!isAdmin(actor)) throw forbidden();
        await nameFree(query, actor.accountId, input.name, id);
        const [row] = await query<PurposeRow>(
          'UPDATE purposes SET name = $3, description = $4 WHERE id = $1 AND account_id = $2 RETURNING id, name, description',
          [id, actor.accountId, input.name, input.description],
        );
        return { id: row!.id, name: row!.name, description: row!.description };
      });
    },

    /** Administrators delete a default purpose; trips keep the purpose text they were given. */
    async remove(actor: Actor, id: number): Promise<{ id: number }> {
      return write(async (query) => {
        const [existing] = await query<{ id: number }>('SELECT id FROM purposes WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, actor.accountId]);
        if (!existing) throw purposeNotFound();
        if (!isAdmin(actor)) throw forbidden();
        await query('DELETE FROM purposes WHERE id = $1 AND account_id = $2', [id, actor.accountId]);
        return { id };
      });
    },

    /** Spec §6: the administrator allows (or stops) ordinary users creating default purposes. */
    async setSettings(actor: Actor, input: PurposeSettingsInput): Promise<PurposeCatalog> {
      if (!isAdmin(actor)) throw forbidden();
      await database.transaction(async (query) => {
        await query(
          `INSERT INTO purpose_settings (account_id, users_may_create, changed_by, changed_at) VALUES ($1, $2, $3, $4::timestamptz)
           ON CONFLICT (account_id) DO UPDATE SET users_may_create = EXCLUDED.users_may_create, changed_by = EXCLUDED.changed_by,
             changed_at = EXCLUDED.changed_at`,
          [actor.accountId, input.usersMayCreate, actor.userId, clock.now().toISOString()],
        );
      });
      return list(actor);
    },
  };
}

export type PurposeService = ReturnType<typeof createPurposeService>;

const security = [{ bearer: [] }];

/** Default purposes API (account settings). Every purpose is looked up in the caller's account: another account's is 404. */
export function purposeRoutes(purposes: PurposeService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['accounts'] })
    .use(authGuard(auth))
    .get('/purposes', async ({ actor }) => ok(await purposes.list(requireActor(actor))), {
      detail: { summary: "The account's default purposes and whether the caller may create or manage them", security },
    })
    .post('/purposes', async ({ actor, body }) => ok(await purposes.create(requireActor(actor), body)), {
      body: purposeInputSchema,
      detail: {
        summary: 'Creates a default purpose (name unique in the account, at most 100 characters); ordinary users only when the administrator allows',
        security,
      },
    })
    .post('/purposes/settings', async ({ actor, body }) => ok(await purposes.setSettings(requireActor(actor), body)), {
      body: purposeSettingsSchema,
      detail: { summary: 'Administrators: allows or stops ordinary users creating default purposes', security },
    })
    .post('/purposes/:id', async ({ actor, params, body }) => ok(await purposes.update(requireActor(actor), params.id, body)), {
      params: purposeIdParamsSchema,
      body: purposeInputSchema,
      detail: { summary: 'Administrators: renames or describes a default purpose', security },
    })
    .delete('/purposes/:id', async ({ actor, params }) => ok(await purposes.remove(requireActor(actor), params.id)), {
      params: purposeIdParamsSchema,
      detail: { summary: 'Administrators: deletes a default purpose (trips keep their purpose text)', security },
    });
}
