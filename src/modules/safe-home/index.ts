import { Elysia } from 'elysia';
import { defineModule } from '../../composition';
import { requestLanguage } from '../../lib/api';
import type { Geocoder } from '../../lib/geocoding';
import { ok } from '../../lib/http';
import type { AlarmService } from '../alarms/service';
import { authGuard, requireAdministration } from '../auth';
import type { AuthService } from '../auth/service';
import type { BrandService } from '../brands/service';
import type { UnitService } from '../units/service';
import { latestPositionQuerySchema, setGeofenceSchema, toggleStatusSchema, updateScheduleSchema } from './model';
import { createSafeHomeService, type SafeHomeService, type SafeHomeServiceDeps } from './service';

const security = [{ bearer: [] }];

/**
 * Safe return home (spec §2, §7): administrators (and support or a reseller working in the account). Every route
 * answers 403 `safeHome.disabled` while the brand's EnableSafeReturnHome is off; the switch itself is the brands
 * module's `GET /api/admin/safe-home/config`.
 */
export function safeHomeRoutes(safeHome: SafeHomeService, auth: AuthService) {
  return new Elysia({ prefix: '/api/admin/safe-home', tags: ['safe return home'] })
    .use(authGuard(auth))
    .get('/list', async ({ actor }) => ok(await safeHome.list(requireAdministration(actor))), {
      detail: { summary: "Every vehicle of the account with its home, schedule and switch (spec §3 Safe home record)", security },
    })
    .get('/tracker/latest-position', async ({ actor, query }) => ok(await safeHome.latestPosition(requireAdministration(actor), query.imei)), {
      query: latestPositionQuerySchema,
      detail: { summary: "The vehicle's latest valid position: Latitude and Longitude, null when it has none", security },
    })
    .put(
      '/toggle-status',
      async ({ actor, body, headers }) => ok(await safeHome.toggleStatus(requireAdministration(actor), body, requestLanguage(headers))),
      {
        body: toggleStatusSchema,
        detail: { summary: 'Switches the check on (only with a schedule and an address: else 422 SafeHomeEnableMsg) or off', security },
      },
    )
    .put(
      '/set-geofence',
      async ({ actor, body, headers }) => ok(await safeHome.setGeofence(requireAdministration(actor), body, requestLanguage(headers))),
      {
        body: setGeofenceSchema,
        detail: { summary: 'Sets the home circle: radius at least 300 m, an address that geocodes, coordinates to 6 decimals', security },
      },
    )
    .put(
      '/update-schedule-alert',
      async ({ actor, body, headers }) => ok(await safeHome.updateSchedule(requireAdministration(actor), body, requestLanguage(headers))),
      {
        body: updateScheduleSchema,
        detail: { summary: 'Sets the weekly alert schedule: checked days with a time per week, frequency, start date, time zone', security },
      },
    );
}

/** Safe return home: each vehicle's home and weekly schedule, and the queued checks that raise "not back home". */
export const safeHomeModule = defineModule({
  name: 'safeHome',
  needs: ['brands', 'accountSettings', 'geocoder', 'alarms', 'units'],
  create: (
    platform,
    deps: { brands: BrandService; accountSettings: SafeHomeServiceDeps['accountSettings']; geocoder: Geocoder; alarms: AlarmService; units: UnitService },
  ) => createSafeHomeService(platform, deps),
  routes: (safeHome, { auth }: { auth: AuthService }) => safeHomeRoutes(safeHome, auth),
});
