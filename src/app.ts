import { join } from 'node:path';
import { type AnyElysia, Elysia } from 'elysia';
import { apiCompression, apiErrors, requestLimits } from './lib/api';
import { apiDocs } from './lib/api-docs';
import { securityHeaders } from './lib/security-headers';
import { currentSchemaVersion } from './lib/db/migrate';
import { ping } from './lib/db/client';
import { createGeocoder } from './lib/geocoding';
import { ok } from './lib/http';
import type { Platform } from './lib/platform';
import { createModuleServices, defineModule, moduleJobs, moduleRoutes, moduleSubscriptions, stopModules } from './composition';
import { accountSettingsModule, accountsModule, catalogModule, purposesModule, userBulkModule } from './modules/accounts';
import { auditModule } from './modules/audit';
import { authModule, publicRateLimits } from './modules/auth';
import { bookingsModule } from './modules/bookings';
import { brandsModule } from './modules/brands';
import { geofencesModule } from './modules/geofences';
import { alarmReceiversModule } from './modules/alarm-receivers';
import { alarmsModule } from './modules/alarms';
import { bleDevicesModule, commandsModule } from './modules/io';
import { placesModule } from './modules/places';
import { reportSchedulesModule, reportsModule } from './modules/reports';
import { liveModule, trackingModule } from './modules/tracking';
import { tripSummariesModule, tripsModule } from './modules/trips';
import { unitsModule } from './modules/units';
import { notificationsModule } from './modules/notifications';
import { preferencesModule } from './modules/preferences';
import { supportModule } from './modules/support';
import { webRoutes } from './web/serve';

export const VERSION = '0.1.0';

/** One geocoder (and its cache) for places, trip addresses and the map's address look-ups. */
const geocoderModule = defineModule({
  name: 'geocoder',
  needs: [],
  create: (platform) => createGeocoder(platform.config, platform.database, platform.log),
});

/** Every module, each after the services it is created from. */
export const MODULES = [
  brandsModule,
  authModule,
  commandsModule,
  bleDevicesModule,
  catalogModule,
  unitsModule,
  accountsModule,
  accountSettingsModule,
  userBulkModule,
  purposesModule,
  geocoderModule,
  placesModule,
  tripsModule,
  tripSummariesModule,
  trackingModule,
  liveModule,
  geofencesModule,
  alarmReceiversModule,
  reportsModule,
  supportModule,
  notificationsModule,
  bookingsModule,
  preferencesModule,
  auditModule,
  // After the services it raises and delivers through: units, tracking, live, notifications, alarm receivers.
  alarmsModule,
  // After reports and the notification channels its e-mails go through.
  reportSchedulesModule,
] as const;

/** Builds every module's service on top of one platform. */
export async function createServices(platform: Platform) {
  return createModuleServices(platform, MODULES);
}
export type Services = Awaited<ReturnType<typeof createServices>>;

export function createApi(platform: Platform, services: Services) {
  const api = new Elysia()
    .use(securityHeaders(platform.config.PUBLIC_URL))
    .use(requestLimits())
    .use(apiErrors(platform.log))
    .use(apiCompression())
    .use(apiDocs({ enabled: platform.config.API_DOCS, title: 'Fleet portal API', version: VERSION }))
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
    // Rate limits before any route parses its input, so malformed requests count too.
    .use(publicRateLimits(services.auth));
  // Each module's routes in list order, then the web app for every other path.
  const routed = moduleRoutes(MODULES, services).reduce<AnyElysia>((app, routes) => app.use(routes), api);
  return routed.use(webRoutes(join(import.meta.dir, 'web/dist')));
}

/** Every module's scheduled jobs, for the job scheduler. */
export function servicesJobs(platform: Platform, services: Services) {
  return moduleJobs(MODULES, services, platform);
}

/** Every module's durable-event subscriptions, for the outbox. */
export function servicesSubscriptions(platform: Platform, services: Services) {
  return moduleSubscriptions(MODULES, services, platform);
}

/** Closes what the modules hold open (shutdown, and a test's app). */
export function stopServices(services: Services) {
  return stopModules(MODULES, services);
}
