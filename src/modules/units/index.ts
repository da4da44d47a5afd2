import { Elysia } from 'elysia';
import { requestLanguage } from '../../lib/api';
import { ok } from '../../lib/http';
import { z } from '../../lib/validation';
import { authGuard, requireActor, requireRole } from '../auth';
import type { AuthService } from '../auth/service';
import {
  accountSearchSchema,
  addTerminalSchema,
  benefitSchema,
  bluetoothSchema,
  bulkSchema,
  carInfoSchema,
  co2Schema,
  detailsSchema,
  featuresSchema,
  frequencyPermissionSchema,
  fuelSchema,
  markerSchema,
  metersSchema,
  nameSchema,
  objectDescriptionSchema,
  operatingModeSchema,
  organisationSchema,
  replaceTrackerSchema,
  reportFrequencyLockSchema,
  reportFrequencySchema,
  stockAddSchema,
  stockListQuerySchema,
  theftModeInputSchema,
  theftReportSchema,
  timeTillParkedSchema,
  unitIdParamsSchema,
  unitImageParamsSchema,
  unitListQuerySchema,
  unitUsersSchema,
  userIdParamsSchema,
  userUnitsSchema,
  workingHoursSchema,
} from './model';
import { createUnitService, type UnitService } from './service';
import type { CatalogService } from '../accounts/service';
import type { BrandService } from '../brands/service';
import type { CommandService } from '../io/service';
import type { TripService } from '../trips/service';
import { defineModule, subscription } from '../../composition';
import { THEFT_SUBSCRIBER } from './theft';

const bearer = [{ bearer: [] }];
const imageUploadSchema = z.object({ file: z.instanceof(File, { message: 'units.image.type' }) });

function binary(data: Uint8Array, contentType: string, fileName: string, disposition: 'attachment' | 'inline' = 'attachment'): Response {
  const safe = fileName.replace(/["\\\r\n]/g, '');
  return new Response(data as Uint8Array<ArrayBuffer>, {
    headers: {
      'content-type': contentType,
      'content-length': String(data.byteLength),
      'content-disposition': `${disposition}; filename="${safe.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(safe)}`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}

/**
 * Units (spec §2 /user/edit-terminal-list, /user/edit-terminal, /administration/add-terminal): the list, each
 * edit section saving on its own, lock, settings queued to the tracker, pictures, PDFs, tracker replacement,
 * bulk tasks, and the tracker stock. Every call is scoped to the caller's account (support where the spec says).
 */
export function unitRoutes(units: UnitService, auth: AuthService, trips: Pick<TripService, 'setTimeTillParked'>) {
  const section = <S extends z.ZodType>(path: string, body: S, summary: string, run: (actor: ReturnType<typeof requireActor>, id: number, body: z.output<S>) => Promise<unknown>) =>
    new Elysia().use(authGuard(auth)).post(path, async ({ actor, params, body: input }) => ok(await run(requireActor(actor), params.id, input as z.output<S>)), {
      params: unitIdParamsSchema,
      body,
      detail: { summary, security: bearer, tags: ['units'] },
    });

  return new Elysia({ prefix: '/api', tags: ['units'] })
    .use(authGuard(auth))
    .get('/units', async ({ actor, query }) => ok(await units.list(requireActor(actor), query)), {
      query: unitListQuerySchema,
      detail: { summary: "The units of the caller's account: search (name, registration number, IMEI), filters and sorting", security: bearer },
    })
    .get('/units/options', async ({ actor }) => ok(await units.options(requireActor(actor))), {
      detail: { summary: "The account's departments, projects, tags, feature profiles and subscriptions (filters and bulk tasks)", security: bearer },
    })
    .post(
      '/units/bulk',
      async ({ actor, body, request }) => ok(await units.bulk(requireActor(actor), body.unitIds, body.task, requestLanguage(request.headers))),
      {
        body: bulkSchema,
        detail: {
          summary: 'A bulk task on selected units (department, project, tags, feature profile, operating mode, report frequency) with a result per unit',
          security: bearer,
        },
      },
    )
    .get('/units/car-info', async ({ actor }) => ok(await units.carInfoPending(requireActor(actor))), {
      detail: { summary: 'Car info onboarding: the units still waiting for their car info, skipped ones included (administrators)', security: bearer },
    })
    .post('/units/:id/car-info', async ({ actor, params, body }) => ok(await units.saveCarInfo(requireActor(actor), params.id, body)), {
      params: unitIdParamsSchema,
      body: carInfoSchema,
      detail: { summary: 'Car info onboarding: registration number, model, fuel and consumption, CO2, benefit or private car, odometer (administrators)', security: bearer },
    })
    .post('/units/:id/car-info/skip', async ({ actor, params }) => ok(await units.skipCarInfo(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Car info onboarding: put it off for this unit (resumable from the unit list; administrators)', security: bearer },
    })
    .get('/units/:id', async ({ actor, params }) => ok(await units.detail(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "One unit of the caller's account with every edit section (404 for any other)", security: bearer },
    })
    .use(section('/units/:id/name', nameSchema, 'Rename a unit (the 50 newest names are kept)', (actor, id, body) => units.rename(actor, id, body.name)))
    .get('/units/:id/name-history', async ({ actor, params }) => ok(await units.nameHistory(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "A unit's name history, newest first (at most 50)", security: bearer },
    })
    .use(
      section('/units/:id/details', detailsSchema, 'Registration number (at most twice per 24 h), vehicle type, identification, inspection, service', (actor, id, body) =>
        units.saveDetails(actor, id, body),
      ),
    )
    .use(section('/units/:id/organisation', organisationSchema, 'Department, project and tags of a unit', (actor, id, body) => units.saveOrganisation(actor, id, body)))
    .use(section('/units/:id/meters', metersSchema, "Calibrate today's odometer and operating hours (history kept)", (actor, id, body) => units.calibrateMeters(actor, id, body)))
    .get('/units/:id/meters/history', async ({ actor, params }) => ok(await units.meterHistory(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Odometer and operating-hours calibrations, newest first', security: bearer },
    })
    .use(section('/units/:id/benefit', benefitSchema, 'Benefit or private car, fuel payer and reimbursement per 10 km', (actor, id, body) => units.saveBenefit(actor, id, body)))
    .use(section('/units/:id/working-hours', workingHoursSchema, 'Working hours per weekday', (actor, id, body) => units.saveWorkingHours(actor, id, body)))
    .use(section('/units/:id/fuel', fuelSchema, 'Fuel type and consumption per 10 km', (actor, id, body) => units.saveFuel(actor, id, body)))
    .use(section('/units/:id/co2', co2Schema, 'CO2 emission (g/km)', (actor, id, body) => units.saveCo2(actor, id, body)))
    .use(section('/units/:id/marker', markerSchema, 'Marker symbol and colour', (actor, id, body) => units.saveMarker(actor, id, body)))
    .use(
      section('/units/:id/operating-mode', operatingModeSchema, 'Queue an operating mode for a battery tracker (pending until its next report)', (actor, id, body) =>
        units.setOperatingMode(actor, id, body.mode),
      ),
    )
    .use(
      section('/units/:id/report-frequency', reportFrequencySchema, 'Queue a report frequency for a trip-log tracker (pending until its next report)', (actor, id, body) =>
        units.setReportFrequency(actor, id, body.seconds),
      ),
    )
    .use(
      section('/units/:id/report-frequency-lock', reportFrequencyLockSchema, 'Lock or unlock the report frequency (administrators, support)', (actor, id, body) =>
        units.lockReportFrequency(actor, id, body.locked),
      ),
    )
    .use(
      section('/units/:id/time-till-parked', timeTillParkedSchema, 'Minutes standing still before the unit counts as parked', (actor, id, body) =>
        units.setTimeTillParked(actor, id, body.minutes, trips.setTimeTillParked),
      ),
    )
    .use(section('/units/:id/features', featuresSchema, 'Feature profile of a trip-log device', (actor, id, body) => units.setFeatures(actor, id, body.featureProfileId)))
    .use(section('/units/:id/bluetooth', bluetoothSchema, 'Switch Bluetooth on or off (queued to the tracker)', (actor, id, body) => units.setBluetooth(actor, id, body.enabled)))
    .get('/units/:id/theft-mode', async ({ actor, params }) => ok(await units.theftMode(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Theft mode of a unit: off, pending on, on or pending off (until the tracker confirms), its cause and the mode it restores', security: bearer },
    })
    .use(
      section('/units/:id/theft-mode', theftModeInputSchema, 'Switch theft mode on (Scout v2) or off (restores the previous operating mode); queued to the tracker', (actor, id, body) =>
        units.setTheftMode(actor, id, body.on),
      ),
    )
    .post('/units/:id/lock', async ({ actor, params }) => ok(await units.lock(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Lock a benefit or private car', security: bearer },
    })
    .post('/units/:id/unlock', async ({ actor, params }) => ok(await units.unlock(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Unlock a unit (the locker or support); the locker is e-mailed', security: bearer },
    })
    .get('/units/:id/lock-log', async ({ actor, params }) => ok(await units.lockLog(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "A unit's lock log, newest first", security: bearer },
    })
    .get('/units/:id/object-description', async ({ actor, params }) => ok(await units.objectDescription(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "A unit's object description with its pictures (null before it is saved)", security: bearer },
    })
    .use(
      section('/units/:id/object-description', objectDescriptionSchema, 'Save the object description (with the marine extras)', (actor, id, body) =>
        units.saveObjectDescription(actor, id, body),
      ),
    )
    .get(
      '/units/:id/object-description/pdf',
      async ({ actor, params, request }) => {
        const { pdf, fileName } = await units.objectDescriptionPdf(requireActor(actor), params.id, requestLanguage(request.headers));
        return binary(pdf, 'application/pdf', fileName);
      },
      { params: unitIdParamsSchema, detail: { summary: "The object description as PDF in the caller's language", security: bearer } },
    )
    .post(
      '/units/:id/images',
      async ({ actor, params, body }) => {
        const file = body.file;
        const bytes = new Uint8Array(await file.arrayBuffer());
        return ok(await units.addImage(requireActor(actor), params.id, { name: file.name ?? '', type: file.type ?? '', bytes }));
      },
      {
        params: unitIdParamsSchema,
        body: imageUploadSchema,
        parse: 'formdata',
        detail: { summary: 'Add a picture (PNG, JPG or JPEG, at most 1 MB, at most 5 per unit; multipart field "file")', security: bearer },
      },
    )
    .get(
      '/units/:id/images/:imageId',
      async ({ actor, params }) => {
        const image = await units.image(requireActor(actor), params.id, params.imageId);
        return binary(image.data, image.contentType, image.fileName || `picture-${params.imageId}`, 'inline');
      },
      { params: unitImageParamsSchema, detail: { summary: 'One picture of a unit', security: bearer } },
    )
    .delete('/units/:id/images/:imageId', async ({ actor, params }) => ok(await units.deleteImage(requireActor(actor), params.id, params.imageId)), {
      params: unitImageParamsSchema,
      detail: { summary: 'Remove a picture', security: bearer },
    })
    .get('/units/:id/theft-report', async ({ actor, params }) => ok(await units.theftReport(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "A unit's theft report (null before it is saved)", security: bearer },
    })
    .use(section('/units/:id/theft-report', theftReportSchema, 'Save the theft report', (actor, id, body) => units.saveTheftReport(actor, id, body)))
    .get(
      '/units/:id/theft-report/pdf',
      async ({ actor, params, request }) => {
        const { pdf, fileName } = await units.theftReportPdf(requireActor(actor), params.id, requestLanguage(request.headers));
        return binary(pdf, 'application/pdf', fileName);
      },
      { params: unitIdParamsSchema, detail: { summary: "The theft report as PDF in the caller's language", security: bearer } },
    )
    .post(
      '/units/:id/theft-report/send',
      async ({ actor, params, request }) => ok(await units.sendTheftReport(requireActor(actor), params.id, requestLanguage(request.headers))),
      { params: unitIdParamsSchema, detail: { summary: "E-mail the theft report as PDF to its recipients", security: bearer } },
    )
    .use(
      section('/units/:id/replace-tracker', replaceTrackerSchema, 'Move the unit and its history to a new IMEI from stock (administrators, support; cannot be undone)', (actor, id, body) =>
        units.replaceTracker(actor, id, body.imei),
      ),
    )
    .get('/units/:id/tracker-history', async ({ actor, params }) => ok(await units.trackerHistory(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: "A unit's tracker replacements, newest first", security: bearer },
    })
    .post('/admin/units', async ({ actor, body }) => ok(await units.addTerminal(requireActor(actor), body)), {
      body: addTerminalSchema,
      detail: { summary: 'Add terminal: register a tracker from stock as a unit of the account (administrators; support names the account)', security: bearer },
    })
    .get('/admin/units/:id/first-position', async ({ actor, params }) => ok(await units.firstPosition(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'Whether a newly added unit has reported, and where', security: bearer },
    })
    .post(
      '/admin/users/:userId/report-frequency',
      async ({ actor, params, body }) => ok(await units.setFrequencyPermission(requireActor(actor), params.userId, body.denied)),
      {
        params: userIdParamsSchema,
        body: frequencyPermissionSchema,
        detail: { summary: 'Deny or allow a user of the account changing report frequency (administrators)', security: bearer },
      },
    )
    .get('/admin/units/:id/users', async ({ actor, params }) => ok(await units.unitUsers(requireActor(actor), params.id)), {
      params: unitIdParamsSchema,
      detail: { summary: 'The users of the account and whether each is given access to the unit (administrators; spec §6)', security: bearer },
    })
    .post('/admin/units/:id/users', async ({ actor, params, body }) => ok(await units.setUnitUsers(requireActor(actor), params.id, body.userIds)), {
      params: unitIdParamsSchema,
      body: unitUsersSchema,
      detail: { summary: 'Give exactly these users of the account access to the unit (administrators)', security: bearer },
    })
    .get('/admin/users/:userId/units', async ({ actor, params }) => ok(await units.userUnits(requireActor(actor), params.userId)), {
      params: userIdParamsSchema,
      detail: { summary: 'The units a user of the account is given (administrators; spec §3 visible units)', security: bearer },
    })
    .post('/admin/users/:userId/units', async ({ actor, params, body }) => ok(await units.setUserUnits(requireActor(actor), params.userId, body.unitIds)), {
      params: userIdParamsSchema,
      body: userUnitsSchema,
      detail: { summary: 'Give a user of the account exactly these units (administrators)', security: bearer },
    })
    .get('/admin/add-terminal/accounts', async ({ actor, query }) => ok(await units.searchAccounts(requireActor(actor), query.q)), {
      query: accountSearchSchema,
      detail: { summary: 'Customer accounts for add terminal, by company, org number or id (support)', security: bearer },
    })
    .post(
      '/admin/tracker-stock',
      async ({ actor, body }) => {
        const caller = requireRole(actor, 'support');
        return ok(await units.addStock(body, caller));
      },
      {
        body: stockAddSchema,
        detail: { summary: 'Register sold tracker IMEIs as stock (support)', security: bearer },
      },
    )
    .get(
      '/admin/tracker-stock',
      async ({ actor, query }) => {
        requireRole(actor, 'support');
        return ok(await units.listStock(query));
      },
      {
        query: stockListQuerySchema,
        detail: { summary: 'Tracker stock with registration state (support)', security: bearer },
      },
    );
}

/** Units: the vehicles and their trackers, access, documents and operating hours. */
export const unitsModule = defineModule({
  name: 'units',
  needs: ['brands', 'commands', 'catalog'],
  create: (platform, { brands, commands, catalog }: { brands: BrandService; commands: CommandService; catalog: CatalogService }) =>
    createUnitService(platform.database.db, { platform, commands, brands, catalog }),
  // The unit screens' time till parked is the trip log's setting: the routes, built once every service exists, hand it over.
  routes: (units, { auth, trips }: { auth: AuthService; trips: TripService }) => unitRoutes(units, auth, trips),
  // Theft mode's security events, for positions a process did not publish as they were stored (it died, or another process stored them).
  jobs: (units) => [{ name: 'units.theft-movements', intervalSeconds: 30, run: async () => void (await units.publishTheftMovements()) }],
  subscriptions: (units) => [
    subscription('user.department_changed', 'units.reset-access', (event, tx) => units.dropAccessOf(event.payload.userId, tx)),
    subscription('user.deleted', 'units.remove-access', (event, tx) => units.dropAccessOf(event.payload.userId, tx)),
    subscription('geofence.exited', THEFT_SUBSCRIBER, (event, tx) => units.onZoneCrossing(event.payload, true, tx)),
    subscription('geofence.entered', THEFT_SUBSCRIBER, (event, tx) => units.onZoneCrossing(event.payload, false, tx)),
  ],
});
