import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { congestionQuerySchema } from './model';
import { createReportService, type ReportService } from './service';
import type { TrackingService } from '../tracking/service';
import type { TripService } from '../trips/service';
import type { UnitService } from '../units/service';
import { defineModule } from '../../composition';
import { createBenefitService } from './benefit';
import { benefitRoutes } from './benefit-export';

const security = [{ bearer: [] }];

/** Reports API. The unit is looked up in the caller's account: another account's unit is 404. */
export function reportRoutes(reports: ReportService, auth: AuthService) {
  return new Elysia({ prefix: '/api/reports', tags: ['reports'] })
    .use(authGuard(auth))
    .get('/congestion', async ({ actor, query }) => ok(await reports.congestion(requireActor(actor), query)), {
      query: congestionQuerySchema,
      detail: {
        summary:
          "Congestion tax (Stockholm, Göteborg) of one unit of the caller's account in a period of Swedish days (at most 12 months; default this month): passages through payment stations with amounts in SEK, per day with the daily maximum, per trip (private trips flagged) and the period total",
        security,
      },
    });
}

/** Reports: congestion tax from the tracks. */
export const reportsModule = defineModule({
  name: 'reports',
  needs: ['units', 'tracking', 'trips'],
  create: (platform, { units, tracking, trips }: { units: UnitService; tracking: TrackingService; trips: TripService }) =>
    Object.assign(createReportService({ clock: platform.clock, units, tracking, trips }), { benefit: createBenefitService(platform, { units, trips }) }),
  routes: (reports, { auth }: { auth: AuthService }) => new Elysia().use(reportRoutes(reports, auth)).use(benefitRoutes(reports.benefit, auth)),
});
