import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import {
  tripAttestIdParamsSchema,
  tripAttestQuerySchema,
  tripAttestSchema,
  tripApplyRulesSchema,
  tripBulkTypeSchema, tripCheckInSchema, tripIdParamsSchema, tripListQuerySchema, tripMergeSchema, tripUpdateSchema } from './model';
import { createTripService, type TripService } from './service';
import { createTripSummaries, tripSummaryRoutes } from './summaries';
import type { Geocoder } from '../../lib/geocoding';
import type { PlaceService } from '../places/service';
import type { UnitService } from '../units/service';
import { defineModule } from '../../composition';
import { createTripExport, tripExportResponse } from './export';
import { tripExportQuerySchema } from './model';

/** The trip log's summaries of listed trips (attested periods), with their own routes. */
export { createTripSummaries, type TripSummaries, tripSummaryRoutes } from './summaries';

const security = [{ bearer: [] }];

/** The trip log API. Every trip is looked up in the caller's account: another account's trip or unit is 404. */
export function tripRoutes(trips: TripService, auth: AuthService) {
  const exporter = createTripExport(trips);
  return new Elysia({ prefix: '/api', tags: ['trips'] })
    .use(authGuard(auth))
    .get('/trips', async ({ actor, query, headers }) => ok(await trips.list(requireActor(actor), query, headers['x-timezone'])), {
      query: tripListQuerySchema,
      detail: {
        summary: "Trips of one unit of the caller's account in a period (days in the caller's time zone, at most 12 months; default this month), with totals per type",
        security,
      },
    })
    .get('/trips/export', async ({ actor, query, headers }) => tripExportResponse(await exporter.exportFor(requireActor(actor), query, headers)), {
      query: tripExportQuerySchema,
      detail: {
        summary:
          "One unit's trip log for a period of at most 12 months as a file: format pdf, csv or xlsx; variant se (Skatteverket), no (kjørebok) or uk (HMRC), by default the account's country; 404 when no trip starts in the period",
        security,
      },
    })
    .get('/trips/drivers', async ({ actor }) => ok(await trips.drivers(requireActor(actor))), {
      detail: { summary: 'Users of the account who can be checked in as drivers (an ordinary user: only themself)', security },
    })
    .get('/trips/attests', async ({ actor, query }) => ok(await trips.attestStatus(requireActor(actor), query)), {
      query: tripAttestQuerySchema,
      detail: { summary: "Attest status and history of a user's month (default the caller; administrators: any user of the account)", security },
    })
    .post('/trips/attests', async ({ actor, body }) => ok(await trips.attest(requireActor(actor), body)), {
      body: tripAttestSchema,
      detail: {
        summary: "Attests a month (YYYY-MM) of a user's trips with a note of at most 100 characters; administrators also for other users of the account",
        security,
      },
    })
    .post('/trips/attests/:id/unlock', async ({ actor, params }) => ok(await trips.unlockAttest(requireActor(actor), params.id)), {
      params: tripAttestIdParamsSchema,
      detail: { summary: 'Administrators: makes an attested period editable again, keeping the attest record', security },
    })
    .post('/trips/attests/:id/unattest', async ({ actor, params }) => ok(await trips.unattest(requireActor(actor), params.id)), {
      params: tripAttestIdParamsSchema,
      detail: { summary: 'Administrators: withdraws an attest (the user can attest the period again)', security },
    })
    .delete('/trips/attests/:id', async ({ actor, params }) => ok(await trips.removeAttest(requireActor(actor), params.id)), {
      params: tripAttestIdParamsSchema,
      detail: { summary: 'Administrators: removes an attest record; its history stays', security },
    })
    .post('/trips/type', async ({ actor, body }) => ok(await trips.setTypes(requireActor(actor), body)), {
      body: tripBulkTypeSchema,
      detail: { summary: 'Sets the type of several trips at once (a page of the trip log)', security },
    })
    .post('/trips/apply-place-rules', async ({ actor, body, headers }) => ok(await trips.applyPlaceRules(requireActor(actor), body, headers['x-timezone'])), {
      body: tripApplyRulesSchema,
      detail: {
        summary:
          "Applies the place rules to a unit's trips of a period (not attested trips, not trips typed by a person); answers how many changed",
        security,
      },
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

/** The trip log: detection from stored positions, editing, attest and exports; places categorize its trips. */
export const tripsModule = defineModule({
  name: 'trips',
  needs: ['units', 'geocoder', 'places'],
  create: (platform, { units, geocoder, places }: { units: UnitService; geocoder: Geocoder; places: PlaceService }) =>
    createTripService(platform, units, { geocoder, places: places.tripPort() }),
  routes: (trips, { auth }: { auth: AuthService }) => tripRoutes(trips, auth),
  jobs: (trips) => trips.jobs(),
});

export const tripSummariesModule = defineModule({
  name: 'tripSummaries',
  needs: ['trips'],
  create: (platform, { trips }: { trips: TripService }) => createTripSummaries(platform, trips),
  routes: (summaries, { auth }: { auth: AuthService }) => tripSummaryRoutes(summaries, auth),
});
