import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth/guard';
import type { AuthService } from '../auth/service';
import { tripListQuerySchema } from './model';
import type { TripService } from './service';

export function tripRoutes(trips: TripService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['trips'] })
    .use(authGuard(auth))
    .get('/trips', async ({ actor, query, headers }) => ok(await trips.list(requireActor(actor), query, headers['x-timezone'])), {
      query: tripListQuerySchema,
      detail: {
        summary: "Trips of one unit of the caller's account in a period (days in the caller's time zone, at most 12 months; default this month), with totals per type",
        security: [{ bearer: [] }],
      },
    });
}
