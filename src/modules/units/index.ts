import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor, requireRole } from '../auth/guard';
import type { AuthService } from '../auth/service';
import { stockAddSchema, stockListQuerySchema, unitIdParamsSchema } from './model';
import type { UnitService } from './service';

export function unitRoutes(units: UnitService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['units'] })
    .use(authGuard(auth))
    .get('/units', async ({ actor }) => ok(await units.list(requireActor(actor))), {
      detail: { summary: "The units of the caller's account", security: [{ bearer: [] }] },
    })
    .get('/units/:id', async ({ actor, params }) => ok(await units.get(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "One unit of the caller's account (404 for any other)", security: [{ bearer: [] }] },
    })
    .post(
      '/admin/tracker-stock',
      async ({ actor, body }) => {
        const caller = requireRole(actor, 'support');
        return ok(await units.addStock(body, caller.userId));
      },
      {
        body: stockAddSchema,
        detail: { summary: 'Register sold tracker IMEIs as stock (support)', security: [{ bearer: [] }] },
      },
    )
    .get(
      '/admin/tracker-stock',
      async ({ actor, query }) => {
        requireRole(actor, 'support');
        return ok(await units.listStock(query));
      },
      {
        query: stockListQuerySchema,
        detail: { summary: 'Tracker stock with registration state (support)', security: [{ bearer: [] }] },
      },
    );
}
