import { notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { requireRole } from '../auth';
import type { DeadDeliveryRetry, DeadDeliveryView, DeadJobView } from './model';

/**
 * What support sees of background work that gave up: dead jobs of the queue and dead outbox deliveries, and
 * putting them back in line once the cause is fixed. Platform-wide, so support staff only.
 */
export function createSupportService(platform: Pick<Platform, 'queue' | 'outbox'>) {
  return {
    async deadLetters(actor: Actor | null, limit: number): Promise<{ jobs: DeadJobView[]; deliveries: DeadDeliveryView[] }> {
      requireRole(actor, 'support');
      const [jobs, deliveries] = await Promise.all([platform.queue.deadLetters(limit), platform.outbox.deadLetters(limit)]);
      return {
        jobs: jobs.map((job) => ({
          id: job.id,
          name: job.name,
          uniqueKey: job.uniqueKey,
          payload: job.payload,
          attempts: job.attempts,
          lastError: job.lastError,
          runAt: job.runAt.toISOString(),
          createdAt: job.createdAt.toISOString(),
          failedAt: job.finishedAt?.toISOString() ?? null,
        })),
        deliveries: deliveries.map((delivery) => ({
          ...delivery,
          createdAt: delivery.createdAt.toISOString(),
          failedAt: delivery.failedAt?.toISOString() ?? null,
        })),
      };
    },

    async retryJob(actor: Actor | null, id: number): Promise<{ id: number }> {
      requireRole(actor, 'support');
      if (!(await platform.queue.retryDead(id))) throw notFound('support.deadLetter.notFound');
      return { id };
    },

    async retryDelivery(actor: Actor | null, input: DeadDeliveryRetry): Promise<DeadDeliveryRetry> {
      requireRole(actor, 'support');
      if (!(await platform.outbox.retryDead(input.eventId, input.subscriber))) throw notFound('support.deadLetter.notFound');
      return input;
    },
  };
}
export type SupportService = ReturnType<typeof createSupportService>;
