import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth/guard';
import type { AuthService } from '../auth/service';
import { tripBulkTypeSchema, tripCheckInSchema, tripIdParamsSchema, tripListQuerySchema, tripMergeSchema, tripUpdateSchema } from './model';
import type { TripService } from './service';

const security = [{ bearer: [] }];

/** The trip log API. Every trip is looked up in the caller's account: another account's trip or unit is 404. */
export function tripRoutes(trips: TripService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['trips'] })
    .use(authGuard(auth))
    .get('/trips', async ({ actor, query, headers }) => ok(await trips.list(requireActor(actor), query, headers['x-timezone'])), {
      query: tripListQuerySchema,
      detail: {
        summary: "Trips of one unit of the caller's account in a period (days in the caller's time zone, at most 12 months; default this month), with totals per type",
        security,
      },
    })
    .get('/trips/drivers', async ({ actor }) => ok(await trips.drivers(requireActor(actor))), {
      detail: { summary: 'Users of the account who can be checked in as drivers (an ordinary user: only themself)', security },
    })
    .post('/trips/type', async ({ actor, body }) => ok(await trips.setTypes(requireActor(actor), body)), {
      body: tripBulkTypeSchema,
      detail: { summary: 'Sets the type of several trips at once (a page of the trip log)', security },
    })
    .post('/trips/merge', async ({ actor, body, headers }) => ok(await trips.merge(requireActor(actor), body, headers['x-timezone'])), {
      body: tripMergeSchema,
      detail: {
        summary: 'Merges consecutive trips of one unit (not merged trips, same date, same driver, not private with business); 422 with the reason',
        security,
      },
    })
    .post(
      '/trips/:id',
      async ({ actor, params, body }) => {
        await trips.update(requireActor(actor), params.id, body);
        return ok(null);
      },
      {
        params: tripIdParamsSchema,
        body: tripUpdateSchema,
        detail: { summary: "Changes one trip's type, purpose (at most 100 characters), note or passengers", security },
      },
    )
    .post('/trips/:id/split', async ({ actor, params }) => ok(await trips.split(requireActor(actor), params.id)), {
      params: tripIdParamsSchema,
      detail: { summary: 'Splits a merged trip back into the trips it was made of', security },
    })
    .post('/trips/:id/check-in', async ({ actor, params, body }) => ok(await trips.checkIn(requireActor(actor), params.id, body)), {
      params: tripIdParamsSchema,
      body: tripCheckInSchema,
      detail: { summary: "Checks a driver in from a trip (this and later trips); the unit's driver is checked out first", security },
    })
    .post('/trips/:id/check-out', async ({ actor, params }) => ok(await trips.checkOut(requireActor(actor), params.id)), {
      params: tripIdParamsSchema,
      detail: { summary: "Checks the unit's driver out after a trip (later trips lose that driver)", security },
    });
}
