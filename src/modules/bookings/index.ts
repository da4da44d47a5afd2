import { Elysia } from 'elysia';
import { defineModule } from '../../composition';
import { requestLanguage } from '../../lib/api';
import { ok } from '../../lib/http';
import { z } from '../../lib/validation';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import type { BrandService } from '../brands/service';
import type { NotificationService } from '../notifications/service';
import type { UnitService } from '../units/service';
import {
  deleteBookingSchema,
  driverListSchema,
  monthQuerySchema,
  saveBookingSchema,
  unitBookingsQuerySchema,
  updateBookingSchema,
  weekQuerySchema,
} from './model';
import { type BookingServiceDeps, type BookingService, createBookingService } from './service';

const security = [{ bearer: [] }];
const unitParamsSchema = z.object({ unitId: z.coerce.number<unknown>().int().positive().max(2_147_483_647) });

/**
 * The car booking schedule (spec §2 car schedule, §7). Every route answers 404 `bookings.disabled` while the brand's
 * EnableCarSchedule is off; the enable status itself is the brands module's `GET /api/car-schedule/enabled`.
 */
export function bookingRoutes(bookings: BookingService, auth: AuthService) {
  return new Elysia({ prefix: '/api/car-schedule', tags: ['car schedule'] })
    .use(authGuard(auth))
    .get('/week', async ({ actor, query }) => ok(await bookings.week(requireActor(actor), query)), {
      query: weekQuerySchema,
      detail: { summary: 'Bookings of the Monday-first week holding week_day, per vehicle the caller sees (Imeis empty: all)', security },
    })
    .get('/month', async ({ actor, query }) => ok(await bookings.month(requireActor(actor), query)), {
      query: monthQuerySchema,
      detail: { summary: "Bookings of the month's 42-day Monday-first calendar (mine=true: the caller's own)", security },
    })
    .get('/units/:unitId/bookings', async ({ actor, params, query }) => ok(await bookings.unitBookings(requireActor(actor), params.unitId, query.from)), {
      params: unitParamsSchema,
      query: unitBookingsQuerySchema,
      detail: { summary: "A vehicle's bookings for 90 days from a day (default today), for its unit page", security },
    })
    .post('/drivers', async ({ actor, body }) => ok(await bookings.drivers(requireActor(actor), body)), {
      body: driverListSchema,
      detail: { summary: 'Drivers a booking of the vehicle may name (administrators: every user of the account; users: themselves)', security },
    })
    .post('/save', async ({ actor, body, headers }) => ok(await bookings.save(requireActor(actor), body, requestLanguage(headers))), {
      body: saveBookingSchema,
      detail: { summary: 'Books a vehicle: start and end in 15-minute steps, at least 10 minutes, in the future; 409 when already booked', security },
    })
    .post('/update', async ({ actor, body, headers }) => ok(await bookings.update(requireActor(actor), body, requestLanguage(headers))), {
      body: updateBookingSchema,
      detail: { summary: 'Changes a future booking (a running one keeps its start); own bookings only unless administrator', security },
    })
    .post('/delete', async ({ actor, body, headers }) => ok(await bookings.remove(requireActor(actor), body, requestLanguage(headers))), {
      body: deleteBookingSchema,
      detail: { summary: 'Deletes a booking that has not started; own bookings only unless administrator', security },
    });
}

/** Pool-car booking: the car schedule's week and month views and the bookings behind them. */
export const bookingsModule = defineModule({
  name: 'bookings',
  needs: ['units', 'brands', 'accountSettings', 'notifications'],
  create: (platform, deps: { units: UnitService; brands: BrandService; accountSettings: BookingServiceDeps['accountSettings']; notifications: NotificationService }) =>
    createBookingService(platform, deps),
  routes: (bookings, { auth }: { auth: AuthService }) => bookingRoutes(bookings, auth),
});
