import { Elysia } from 'elysia';
import { exportResponse } from '../../lib/export';
import { ok } from '../../lib/http';
import { isLanguage } from '../../lib/i18n';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { congestionQuerySchema, type ReportKind, type ReportQuery, reportQuerySchema } from './model';
import type { Actor } from '../auth/model';
import { createReportService, type ReportService } from './service';
import type { TrackingService } from '../tracking/service';
import type { TripService } from '../trips/service';
import type { UnitService } from '../units/service';
import type { FuelType } from '../accounts/model';
import type { NotificationService } from '../notifications/service';
import { defineModule } from '../../composition';
import { type BenefitService, createBenefitService } from './benefit';
import { benefitRoutes } from './benefit-export';
import { createReportSchedules, reportScheduleRoutes, SCHEDULE_SCAN_JOB } from './schedule';

const security = [{ bearer: [] }];

const FLEET_SUMMARIES: Record<ReportKind, string> = {
  summary:
    'Summary: trips, distance per trip type, driving and idle time, stops, average and top speed per vehicle or driver, first start and last stop per day, totals per department and fleet, distance per day',
  eco: 'Eco driving: score per trip, vehicle or driver from harsh events per 100 km, time over the speed threshold and idle share (feature profile sensitivity), ranking and weekly trend',
  fuel: "Fuel: litres or kWh (measured from the tracker's fuel level, else consumption × distance), cost at the account's market price, refuel events",
  co2: "CO2: from the unit's g/km, else fuel × a stated factor per fuel, country and year; per vehicle or driver, department and month",
  environment: 'Environmental report: distance, energy and CO2 per fuel type and vehicle class, electric share, against the same days a year earlier',
};

/** Reports API. The unit is looked up in the caller's account: another account's unit is 404. */
export function reportRoutes(reports: ReportService, auth: AuthService) {
  // The fleet reports: JSON, or with `format` the file through the export kit. Units, a department, a driver or the
  // whole fleet; at most 12 months; a locked benefit/private car without access only in the summary (§6).
  const fleet =
    (kind: ReportKind) =>
    async ({ actor, query, headers }: { actor: Actor | null; query: ReportQuery; headers: Record<string, string | undefined> }) => {
      const caller = requireActor(actor);
      const header = headers['x-lang'];
      const language = isLanguage(header) ? header : caller.language;
      const { format, ...rest } = query;
      if (format) {
        const file = await reports.fleet.fleetReportFile(caller, kind, rest, format, language, headers['x-timezone']);
        return exportResponse(file.document, file.format, file.fileName);
      }
      return ok(await reports.fleet.fleetReport(caller, kind, rest, language, headers['x-timezone']));
    };
  const fleetDetail = (kind: ReportKind) => ({ query: reportQuerySchema, detail: { summary: `${FLEET_SUMMARIES[kind]}; ?format=pdf|xlsx|csv for a file`, security } });
  return new Elysia({ prefix: '/api/reports', tags: ['reports'] })
    .use(authGuard(auth))
    .get('/congestion', async ({ actor, query }) => ok(await reports.congestion(requireActor(actor), query)), {
      query: congestionQuerySchema,
      detail: {
        summary:
          "Congestion tax (Stockholm, Göteborg) of one unit of the caller's account in a period of Swedish days (at most 12 months; default this month): passages through payment stations with amounts in SEK, per day with the daily maximum, per trip (private trips flagged) and the period total",
        security,
      },
    })
    .get('/summary', fleet('summary'), fleetDetail('summary'))
    .get('/eco', fleet('eco'), fleetDetail('eco'))
    .get('/fuel', fleet('fuel'), fleetDetail('fuel'))
    .get('/co2', fleet('co2'), fleetDetail('co2'))
    .get('/environment', fleet('environment'), fleetDetail('environment'));
}

/** Reports: congestion tax from the tracks, and the fleet reports. */
export const reportsModule = defineModule({
  name: 'reports',
  needs: ['units', 'tracking', 'trips', 'accountSettings'],
  create: (
    platform,
    {
      units,
      tracking,
      trips,
      accountSettings,
    }: {
      units: UnitService;
      tracking: TrackingService;
      trips: TripService;
      accountSettings: { fuelPrices(accountId: number): Promise<Array<{ market: 'SE' | 'NO'; fuelType: FuelType; price: number }>> };
    },
  ) =>
    Object.assign(
      createReportService({
        clock: platform.clock,
        units,
        tracking,
        trips,
        fleet: { database: platform.database, units, fuelPrices: (accountId) => accountSettings.fuelPrices(accountId) },
      }),
      { benefit: createBenefitService(platform, { units }) },
    ),
  routes: (reports, { auth }: { auth: AuthService }) => new Elysia().use(reportRoutes(reports, auth)).use(benefitRoutes(reports.benefit, auth)),
});

/** Scheduled reports: CRUD and the job that e-mails each due report (after the notification channels it sends through). */
export const reportSchedulesModule = defineModule({
  name: 'reportSchedules',
  needs: ['reports', 'notifications'],
  create: (platform, { reports, notifications }: { reports: ReportService & { benefit: BenefitService }; notifications: NotificationService }) =>
    createReportSchedules(platform, reports.fleet, notifications, reports.benefit),
  routes: (schedules, { auth }: { auth: AuthService }) => reportScheduleRoutes(schedules, auth),
  jobs: (schedules) => [
    {
      name: SCHEDULE_SCAN_JOB,
      intervalSeconds: 60,
      run: async () => {
        await schedules.queueDue();
      },
    },
  ],
});
