import { z } from '../../lib/validation';

/** Dead letters of the job queue and the outbox (support, `/api/admin/dead-letters`). Shared with the web app. */
export const deadJobParamsSchema = z.object({ id: z.coerce.number().int().positive() });

export const deadDeliveryRetrySchema = z.object({
  eventId: z.number().int().positive(),
  subscriber: z.string().trim().min(1).max(200),
});
export type DeadDeliveryRetry = z.infer<typeof deadDeliveryRetrySchema>;

export const deadLetterListQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export interface DeadJobView {
  id: number;
  name: string;
  uniqueKey: string | null;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  runAt: string;
  createdAt: string;
  failedAt: string | null;
}

export interface DeadDeliveryView {
  eventId: number;
  type: string;
  subscriber: string;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  failedAt: string | null;
}
