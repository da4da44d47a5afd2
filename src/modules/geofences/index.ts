import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { defineModule } from '../../composition';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import type { BrandService } from '../brands/service';
import type { TrackingService } from '../tracking/service';
import type { UnitService } from '../units/service';
import { geofenceActiveSchema, geofenceEventQuerySchema, geofenceIdParamsSchema, geofenceInputSchema, geofenceListQuerySchema } from './model';
import { createGeofenceService, type GeofenceService } from './service';

const security = [{ bearer: [] }];

/**
 * Geofences (spec §2 /user/geofences, /user/geofences/add-edit-geofences/{geofenceID}). Another account's zone is 404;
 * a zone of the account the caller may not manage is 403 "does not belong to you" (spec §8).
 */
export function geofenceRoutes(geofences: GeofenceService, auth: AuthService) {
  return new Elysia({ prefix: '/api/geofences', tags: ['geofences'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await geofences.list(requireActor(actor), query)), {
      query: geofenceListQuerySchema,
      detail: { summary: 'Zones the caller sees (administrators: every zone of the account), searched by name', security },
    })
    .get('/settings', async ({ actor }) => ok(await geofences.settings(requireActor(actor))), {
      detail: { summary: "The brand's smallest radius, the largest radius and the zones a unit may hold", security },
    })
    .get('/events', async ({ actor, query }) => ok(await geofences.events(requireActor(actor), query)), {
      query: geofenceEventQuerySchema,
      detail: { summary: 'Zone event log: entries and exits of zones and units the caller sees, newest first', security },
    })
    .post('', async ({ actor, body }) => ok(await geofences.save(requireActor(actor), null, body)), {
      body: geofenceInputSchema,
      detail: { summary: "Creates a zone: a circle (centre, the brand's minimum-9999 m) or a polygon, its units (5 zones a unit at most), deactivation windows", security },
    })
    .get('/:id', async ({ actor, params }) => ok(await geofences.get(requireActor(actor), params.id)), {
      params: geofenceIdParamsSchema,
      detail: { summary: 'One zone with its units, deactivation windows and the units inside it now', security },
    })
    .post('/:id', async ({ actor, params, body }) => ok(await geofences.save(requireActor(actor), params.id, body)), {
      params: geofenceIdParamsSchema,
      body: geofenceInputSchema,
      detail: { summary: 'Saves a zone (the whole form)', security },
    })
    .post('/:id/active', async ({ actor, params, body }) => ok(await geofences.setActive(requireActor(actor), params.id, body.active)), {
      params: geofenceIdParamsSchema,
      body: geofenceActiveSchema,
      detail: { summary: 'Switches a zone on or off (off: no enter or exit is raised)', security },
    })
    .delete('/:id', async ({ actor, params }) => ok(await geofences.remove(requireActor(actor), params.id)), {
      params: geofenceIdParamsSchema,
      detail: { summary: 'Deletes a zone with its log (409 while a feature profile names it)', security },
    });
}

/** Geofences: zones, their matching as positions are stored, and the zone event log. */
export const geofencesModule = defineModule({
  name: 'geofences',
  needs: ['units', 'brands', 'tracking'],
  create: (platform, deps: { units: UnitService; brands: BrandService; tracking: TrackingService }) => createGeofenceService(platform, deps),
  routes: (geofences, { auth }: { auth: AuthService }) => geofenceRoutes(geofences, auth),
});
