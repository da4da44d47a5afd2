import { join } from 'node:path';
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { apiCompression, apiErrors } from './lib/api';
import { currentSchemaVersion } from './lib/db/migrate';
import { ping } from './lib/db/client';
import { ok } from './lib/http';
import type { Platform } from './lib/platform';
import { authRoutes } from './modules/auth';
import { createAuthService } from './modules/auth/service';
import { brandRoutes } from './modules/brands';
import { createBrandService } from './modules/brands/service';
import { accountRoutes, createPurposeService, purposeRoutes } from './modules/accounts';
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
import { placeRoutes } from './modules/places';
import { createPlaceService } from './modules/places/service';
import { createTripSummaries, tripSummaryRoutes } from './modules/trips/summaries';
import { DEFAULT_DETECTION_PARAMS } from './modules/trips/detector';
import { DEFAULT_TRIP_TYPE } from './modules/trips/model';
import { reportRoutes } from './modules/reports';
import { createReportService } from './modules/reports/service';

export const VERSION = '0.1.0';

/** Builds every module's service and the HTTP API on top of one platform. */
export async function createServices(platform: Platform) {
  const brands = createBrandService(platform.database.db);
  const auth = await createAuthService(platform, brands);
  const commands = createCommandService(platform.database, platform.events, platform.clock);
  const units = createUnitService(platform.database.db, { platform, commands, brands });
  const accounts = createAccountService(platform, units, brands);
  const trips = createTripService(platform, units);
  // Places categorize trips by their rules and name the trips' ends; the trip log sees them only through this port.
  const places = createPlaceService(platform, units, trips.geocoder);
  trips.connectPlaces(places.tripPort());
  const purposes = createPurposeService(platform);
  const tripSummaries = createTripSummaries(platform, trips);
  units.connect({
    liveStates: (unitIds) => tracking.liveStates(unitIds),
    checkedInDrivers: (unitIds) => trips.checkedInDrivers(unitIds),
    timeTillParked: {
      get: async (unitId) => (await trips.settings(unitId)).timeTillParkedS,
      set: async (unitId, seconds) => {
        // The trip log keeps all overrides in one row: carry the others over, and a value equal to the default stays a default.
        const current = await trips.settings(unitId);
        const unchanged = (key: keyof typeof DEFAULT_DETECTION_PARAMS) => (current[key] === DEFAULT_DETECTION_PARAMS[key] ? null : current[key]);
        await trips.updateSettings(unitId, {
          detection: unchanged('detection') as 'auto' | 'ignition' | 'motion' | null,
          minDistanceM: unchanged('minDistanceM') as number | null,
          minDurationS: unchanged('minDurationS') as number | null,
          maxGapS: unchanged('maxGapS') as number | null,
          movingSpeedKmh: unchanged('movingSpeedKmh') as number | null,
          defaultTripType: current.defaultTripType === DEFAULT_TRIP_TYPE ? null : current.defaultTripType,
          timeTillParkedS: seconds,
        });
      },
    },
  });
  const tracking = createTrackingService(
    { database: platform.database, clock: platform.clock, units, geocoder: trips.geocoder },
    {
      // Spec §5: private trips never on the map. A trip that began the evening before still counts.
      hiddenIntervals: async (actor, unitId, from, to) => {
        // An administrator sees a locked car in working hours without reading its trip log: its private trips stay hidden all the same.
        const reader = (await units.canReadTracks(actor, unitId)) ? actor : { ...actor, role: 'support' as const };
        const list = await trips.list(reader, { unitId, from: new Date(from.getTime() - 86_400_000).toISOString(), to: to.toISOString() });
        return list.trips.filter((trip) => trip.type === 'private').map((trip) => ({ from: new Date(trip.startTime), to: new Date(trip.stopTime) }));
      },
      // Spec §6: ordinary users see only their units; locked benefit/private cars follow the access rules.
      unitAccess: (actor, unitIds) => units.mapAccess(actor, unitIds),
      visibleUnits: (actor) => units.visibleUnitIds(actor),
      checkedInDrivers: (accountId) => trips.checkedInDriversOfAccount(accountId),
    },
  );
  const live = new LiveHub({ tracking, auth, events: platform.events, clock: platform.clock, log: platform.log });
  const reports = createReportService({ clock: platform.clock, units, tracking, trips });
  return { brands, auth, commands, units, accounts, tracking, live, trips, places, purposes, tripSummaries, reports };
}
export type Services = Awaited<ReturnType<typeof createServices>>;

export function createApi(platform: Platform, services: Services) {
  return new Elysia()
    .use(apiErrors(platform.log))
    .use(apiCompression())
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
    .use(purposeRoutes(services.purposes, services.auth))
    .use(unitRoutes(services.units, services.auth))
    .use(trackingRoutes(services.tracking, services.live, services.auth))
    .use(tripRoutes(services.trips, services.auth))
    .use(placeRoutes(services.places, services.auth))
    .use(tripSummaryRoutes(services.tripSummaries, services.auth))
    .use(reportRoutes(services.reports, services.auth))
    .use(webRoutes(join(import.meta.dir, 'web/dist')));
}
