import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { ATTESTED } from './attest';
import { type TripListQuery, tripListQuerySchema, type TripLockState } from './model';
import type { TripService } from './service';

/**
 * What the trip log screen shows about the listed trips beyond the trips themselves: which of them lie in an attested
 * period of their driver (spec §4: attested trips are not editable), so the screen shows them read-only with a marker.
 */
export function createTripSummaries(platform: Platform, trips: TripService) {
  const { database } = platform;
  return {
    /** The attested trips of one unit of the caller's account in a period (the same period rules as the trip list). */
    async attested(actor: Actor, query: TripListQuery, requestTimeZone?: string | null): Promise<TripLockState> {
      // The list checks the unit's account (another account's unit is 404) and the period (at most 12 months).
      const list = await trips.list(actor, query, requestTimeZone);
      const rows = await database.query<{ id: number | string }>(
        `SELECT t.id FROM trips t
         WHERE t.unit_id = $1 AND t.account_id = $2 AND t.start_time >= $3::timestamptz AND t.start_time < $4::timestamptz
           AND ${ATTESTED}
         ORDER BY t.start_time, t.id`,
        [list.unitId, actor.accountId, list.from, list.to],
      );
      return { unitId: list.unitId, from: list.from, to: list.to, attestedTripIds: rows.map((row) => Number(row.id)) };
    },
  };
}

export type TripSummaries = ReturnType<typeof createTripSummaries>;

export function tripSummaryRoutes(summaries: TripSummaries, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['trips'] })
    .use(authGuard(auth))
    .get('/trips/attested', async ({ actor, query, headers }) => ok(await summaries.attested(requireActor(actor), query, headers['x-timezone'])), {
      query: tripListQuerySchema,
      detail: {
        summary: "The attested (read-only) trips of one unit of the caller's account in a period (same period rules as the trip list)",
        security: [{ bearer: [] }],
      },
    });
}
