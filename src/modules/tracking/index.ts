import { Elysia } from 'elysia';
import { AppError, ok, okJson, UNAUTHENTICATED } from '../../lib/http';
import { ServerTiming } from '../../lib/server-timing';
import type { Actor } from '../auth/model';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { LiveHub } from './live';
import type { Geocoder } from '../../lib/geocoding';
import type { TripService } from '../trips/service';
import type { UnitService } from '../units/service';
import { defineModule } from '../../composition';
import { addressQuerySchema, historyQuerySchema, liveQuerySchema } from './model';
import { createTrackingService, requestTimeZone, type TrackingService, trackingJobs } from './service';

/** The subprotocol a browser offers along with its token: `new WebSocket(url, ['bearer', token])`. */
export const LIVE_SUBPROTOCOL = 'bearer';

/** The token from `Sec-WebSocket-Protocol: bearer, <token>`, or null. */
export function tokenFromProtocols(header: string | null): string | null {
  if (!header) return null;
  const offered = header.split(',').map((part) => part.trim());
  const at = offered.indexOf(LIVE_SUBPROTOCOL);
  return at >= 0 ? (offered[at + 1] ?? null) : null;
}

export function trackingRoutes(tracking: TrackingService, live: LiveHub, auth: AuthService) {
  /** Upgrades authenticated in `upgrade`, handed to `open` (Elysia passes the request along). */
  const accepted = new WeakMap<Request, { actor: Actor; token: string; since: Date | null }>();

  return new Elysia({ prefix: '/api/tracking', tags: ['tracking'] })
    .use(authGuard(auth))
    .get(
      '/units',
      async ({ actor, set }) => {
        const caller = requireActor(actor);
        tracking.assertMapEnabled(caller);
        const timing = new ServerTiming();
        const text = await tracking.listUnitsJson(caller, timing);
        set.headers['server-timing'] = timing.header();
        return okJson(text);
      },
      {
        detail: {
          summary: "Every unit of the caller's account with its latest state (live map; one query for any fleet size)",
          security: [{ bearer: [] }],
        },
      },
    )
    .get(
      '/history',
      async ({ actor, query, headers }) => {
        const caller = requireActor(actor);
        tracking.assertMapEnabled(caller);
        return ok(await tracking.history(caller, query, requestTimeZone(headers['x-timezone'], caller)));
      },
      {
        query: historyQuerySchema,
        detail: {
          summary: "A unit's positions of one day (X-Timezone or the user's zone) within the last 7 days, as compact rows",
          security: [{ bearer: [] }],
        },
      },
    )
    .get(
      '/addresses',
      async ({ actor, query }) => {
        const caller = requireActor(actor);
        tracking.assertMapEnabled(caller);
        return ok({ addresses: await tracking.addresses(caller, query.unitIds) });
      },
      {
        query: addressQuerySchema,
        detail: {
          summary: "The last address of up to 100 units of the caller's account (the map's list rows and popup)",
          security: [{ bearer: [] }],
        },
      },
    )
    .ws('/live', {
      query: liveQuerySchema,
      /** Refuses the upgrade (401/403 envelope) unless the token is valid and the map enabled. */
      async upgrade({ request, query, set }) {
        const fromProtocol = tokenFromProtocols(request.headers.get('sec-websocket-protocol'));
        const fromHeader = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? null;
        const token = query.token ?? fromProtocol ?? fromHeader;
        const actor = token ? await auth.authenticate(`Bearer ${token}`) : null;
        if (!actor || !token) throw new AppError(401, UNAUTHENTICATED);
        tracking.assertMapEnabled(actor);
        // A browser that offered subprotocols needs one back; the token itself is never echoed.
        if (fromProtocol) set.headers['sec-websocket-protocol'] = LIVE_SUBPROTOCOL;
        accepted.set(request, { actor, token, since: query.since ? new Date(query.since) : null });
      },
      open(ws) {
        const entry = accepted.get(ws.data.request);
        if (!entry) {
          ws.close(1011, 'not authenticated');
          return;
        }
        accepted.delete(ws.data.request);
        void live.open(ws.raw, entry.actor, entry.token, entry.since);
      },
      message(ws, message) {
        live.message(ws.raw, message);
      },
      drain(ws) {
        live.drained(ws.raw);
      },
      close(ws) {
        live.close(ws.raw);
      },
      detail: {
        summary: "Live positions of the caller's account (WebSocket; token as ?token= or subprotocol 'bearer, <token>')",
        security: [{ bearer: [] }],
      },
    });
}

/** Tracking: positions, the map's unit list, history and addresses. */
export const trackingModule = defineModule({
  name: 'tracking',
  needs: ['units', 'trips', 'geocoder'],
  create: (platform, { units, trips, geocoder }: { units: UnitService; trips: TripService; geocoder: Geocoder }) =>
    createTrackingService(
      { database: platform.database, clock: platform.clock, units, geocoder },
      {
        // Spec §5: private trips never on the map.
        hiddenIntervals: (actor, unitId, from, to) => trips.hiddenOnMap(actor, unitId, from, to),
        // Spec §6: ordinary users see only their units; locked benefit/private cars follow the access rules.
        unitAccess: (actor, unitIds) => units.mapAccess(actor, unitIds),
        visibleUnits: (actor) => units.visibleUnitIds(actor),
        checkedInDrivers: (accountId) => trips.checkedInDriversOfAccount(accountId),
      },
    ),
  routes: (tracking, { live, auth }: { live: LiveHub; auth: AuthService }) => trackingRoutes(tracking, live, auth),
  jobs: (_tracking, platform) => trackingJobs(platform),
});

/** The live map's hub: one WebSocket per open map, fed by the state writer's `unit.states`. */
export const liveModule = defineModule({
  name: 'live',
  needs: ['tracking', 'auth'],
  create: (platform, { tracking, auth }: { tracking: TrackingService; auth: AuthService }) =>
    new LiveHub({ tracking, auth, events: platform.events, clock: platform.clock, log: platform.log, fanout: platform.fanout }),
});
