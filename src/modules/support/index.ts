import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard } from '../auth';
import type { AuthService } from '../auth/service';
import { deadDeliveryRetrySchema, deadJobParamsSchema, deadLetterListQuerySchema } from './model';
import { createSupportService, type SupportService } from './service';
import { defineModule } from '../../composition';

const security = [{ bearer: [] }];

/** Dead letters of the job queue and the outbox, for support staff (other roles: 403). */
export function supportRoutes(support: SupportService, auth: AuthService) {
  return new Elysia({ prefix: '/api/admin/dead-letters', tags: ['support'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await support.deadLetters(actor, query.limit)), {
      query: deadLetterListQuerySchema,
      detail: { summary: 'Dead jobs and dead event deliveries with their last error, newest jobs first (support)', security },
    })
    .post('/jobs/:id/retry', async ({ actor, params }) => ok(await support.retryJob(actor, params.id)), {
      params: deadJobParamsSchema,
      detail: { summary: 'Puts a dead job back in line with a fresh set of attempts (support)', security },
    })
    .post('/deliveries/retry', async ({ actor, body }) => ok(await support.retryDelivery(actor, body)), {
      body: deadDeliveryRetrySchema,
      detail: { summary: "Hands a dead event delivery to its subscriber again with a fresh set of attempts (support)", security },
    });
}

export const supportModule = defineModule({
  name: 'support',
  needs: [],
  create: (platform) => createSupportService(platform),
  routes: (support, { auth }: { auth: AuthService }) => supportRoutes(support, auth),
});
