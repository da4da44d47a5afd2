import { join } from 'node:path';
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { apiErrors } from './lib/api';
import { currentSchemaVersion } from './lib/db/migrate';
import { ping } from './lib/db/client';
import { ok } from './lib/http';
import type { Platform } from './lib/platform';
import { authRoutes } from './modules/auth';
import { createAuthService } from './modules/auth/service';
import { brandRoutes } from './modules/brands';
import { createBrandService } from './modules/brands/service';
import { accountRoutes } from './modules/accounts';
import { createAccountService } from './modules/accounts/service';
import { unitRoutes } from './modules/units';
import { createUnitService } from './modules/units/service';
import { trackingRoutes } from './modules/tracking';
import { LiveHub } from './modules/tracking/live';
import { createTrackingService } from './modules/tracking/service';
import { webRoutes } from './web/serve';
import { createCommandService } from './modules/io/commands';
import { tripRoutes } from './modules/trips';
import { createTripService } from './modules/trips/service';

export const VERSION = '0.1.0';

/** Builds every module's service and the HTTP API on top of one platform. */
export async function createServices(platform: Platform) {
  const brands = createBrandService(platform.database.db);
  const auth = await createAuthService(platform, brands);
  const commands = createCommandService(platform.database, platform.events, platform.clock);
  const units = createUnitService(platform.database.db);
  const accounts = createAccountService(platform, units, brands);
  const tracking = createTrackingService({ database: platform.database, clock: platform.clock, units });
  const live = new LiveHub({ tracking, auth, events: platform.events, clock: platform.clock, log: platform.log });
  const trips = createTripService(platform, units);
  return { brands, auth, commands, units, accounts, tracking, live, trips };
}
export type Services = Awaited<ReturnType<typeof createServices>>;

export function createApi(platform: Platform, services: Services) {
  return new Elysia()
    .use(apiErrors(platform.log))
    .use(
      openapi({
        path: '/api/docs',
        mapJsonSchema: { zod: (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) },
        documentation: {
          info: { title: 'Fleet portal API', version: VERSION },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        },
      }),
    )
    .get(
      '/api/health',
      async () =>
        ok({
          status: (await ping(platform.database)) ? 'ok' : 'degraded',
          database: platform.database.kind,
          schemaVersion: await currentSchemaVersion(platform.database),
          version: VERSION,
        }),
      { detail: { summary: 'Liveness, database kind and schema version', tags: ['platform'] } },
    )
    .get('/api/config/public', () =>
      ok({ alertNumbersParentAccountId: platform.config.ALERT_NUMBERS_PARENT_ACCOUNT_ID ?? null, version: VERSION }),
    )
    .use(authRoutes(services.auth))
    .use(brandRoutes(services.brands, services.auth))
    .use(accountRoutes(services.accounts))
    .use(unitRoutes(services.units, services.auth))
    .use(trackingRoutes(services.tracking, services.live, services.auth))
    .use(tripRoutes(services.trips, services.auth))
    .use(webRoutes(join(import.meta.dir, 'web/dist')));
}
