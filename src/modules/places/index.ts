import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireFullSubscription } from '../auth';
import type { AuthService } from '../auth/service';
import { placeGeocodeQuerySchema, placeIdParamsSchema, placeInputSchema, placeListQuerySchema } from './model';
import { createPlaceService, type PlaceService } from './service';
import type { Geocoder } from '../../lib/geocoding';
import type { UnitService } from '../units/service';
import { defineModule } from '../../composition';

const security = [{ bearer: [] }];

/**
 * Places and rules (spec §2 /user/places, /user/places/add-edit-places/{placeID}). Another account's place is 404;
 * a place of the account the caller may not manage is 403 "place does not belong to you" (spec §8). Applying the
 * rules to a period of trips is the trip log's `POST /api/trips/apply-place-rules`.
 */
export function placeRoutes(places: PlaceService, auth: AuthService) {
  return new Elysia({ prefix: '/api/places', tags: ['places'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await places.list(requireFullSubscription(actor), query)), {
      query: placeListQuerySchema,
      detail: { summary: 'Places the caller sees (administrators: every place of the account), searched by label or address', security },
    })
    .get('/geocode', async ({ actor, query }) => {
      requireFullSubscription(actor);
      return ok(await places.geocode(query));
    }, {
      query: placeGeocodeQuerySchema,
      detail: { summary: 'Address look-up: matches of a typed address (q), or the address at a point (lat, lon); addresses cut to 50 characters', security },
    })
    .get('/geocoder', ({ actor }) => {
      requireFullSubscription(actor);
      return ok(places.geocoder());
    }, {
      detail: { summary: 'How precise the address look-up is: "town" without a configured geocoder (GEOCODER_URL), else "street"', security },
    })
    .post('', async ({ actor, body, headers }) => ok(await places.save(requireFullSubscription(actor), null, body, headers['x-timezone'])), {
      body: placeInputSchema,
      detail: {
        summary: 'Creates a place: label, address (at most 50; empty: looked up), centre, radius 50-9999 m, at least one unit, rules',
        security,
      },
    })
    .get('/:id', async ({ actor, params }) => ok(await places.get(requireFullSubscription(actor), params.id)), {
      params: placeIdParamsSchema,
      detail: { summary: 'One place with its units and rules', security },
    })
    .post('/:id', async ({ actor, params, body, headers }) => ok(await places.save(requireFullSubscription(actor), params.id, body, headers['x-timezone'])), {
      params: placeIdParamsSchema,
      body: placeInputSchema,
      detail: { summary: 'Saves a place (the whole form: label, address, circle, units, rules)', security },
    })
    .delete('/:id', async ({ actor, params }) => ok(await places.remove(requireFullSubscription(actor), params.id)), {
      params: placeIdParamsSchema,
      detail: { summary: 'Deletes a place, its rules and the rules of other places that name it', security },
    });
}

/** Places and their rules, which categorize trips. */
export const placesModule = defineModule({
  name: 'places',
  needs: ['units', 'geocoder'],
  create: (platform, { units, geocoder }: { units: UnitService; geocoder: Geocoder }) => createPlaceService(platform, units, geocoder),
  routes: (places, { auth }: { auth: AuthService }) => placeRoutes(places, auth),
});
