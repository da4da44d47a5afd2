import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { z } from '../../lib/validation';
import type { AuthService } from '../auth/service';
import { authGuard, requireActor, requireRole } from '../auth';
import { announcementSchema, subsiteQuerySchema } from './model';
import { type BrandService, createBrandService } from './service';
import { defineModule } from '../../composition';

export function brandRoutes(brands: BrandService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['brands'] })
    .use(authGuard(auth))
    .get('/brands', async () => ok(await brands.list()), { detail: { summary: 'All sub-site brands (public)' } })
    .get('/brands/:subsiteId', async ({ params }) => ok(await brands.get(params.subsiteId)), {
      params: z.object({ subsiteId: z.coerce.number().int().min(0).max(7) }),
      detail: { summary: 'One sub-site brand (public)' },
    })
    .get(
      '/contact-address',
      async ({ query }) => {
        const brand = await brands.get(query.SubsiteID);
        return ok({ email: brand.contactEmail, phonelbl: brand.contactPhone, address: brand.contactAddress });
      },
      { query: subsiteQuerySchema, detail: { summary: "The provider's contact address per sub-site" } },
    )
    .post('/announcement', async ({ body }) => ok(await brands.announcement(body.subsiteID, body.lang)), {
      body: announcementSchema,
      detail: { summary: 'The current announcement for a language and sub-site' },
    })
    .get(
      '/car-schedule/enabled',
      async ({ actor }) => {
        const caller = requireActor(actor);
        return ok({ EnableCarSchedule: (await brands.get(caller.subsiteId)).features.EnableCarSchedule });
      },
      { detail: { summary: 'Whether the car schedule is enabled' } },
    )
    .get(
      '/admin/safe-home/config',
      async ({ actor }) => {
        const caller = requireRole(actor, 'admin', 'support');
        return ok({ EnableSafeReturnHome: (await brands.get(caller.subsiteId)).features.EnableSafeReturnHome });
      },
      { detail: { summary: 'Whether safe return home is enabled (administrators)' } },
    );
}

/** Brands: sub-sites, announcements and contact details. */
export const brandsModule = defineModule({
  name: 'brands',
  needs: [],
  create: (platform) => createBrandService(platform.database.db),
  routes: (brands, { auth }: { auth: AuthService }) => brandRoutes(brands, auth),
});
