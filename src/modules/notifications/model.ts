import { z } from '../../lib/validation';

/**
 * Notifications: browser push subscriptions of the caller and the log of delivery attempts. Schemas and
 * wire types shared with the web app: no server-only imports here.
 */
export const NOTIFICATION_CHANNELS = ['email', 'sms', 'push'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
export const ATTEMPT_STATUSES = ['sent', 'recorded', 'retrying', 'failed'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

const base64url = z.string().trim().regex(/^[A-Za-z0-9_-]+=*$/, 'validation.invalidFormat');

/** A push service's endpoint: https, or http on this machine (a push service on loopback). */
const pushEndpoint = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((value) => /^https:\/\//.test(value) || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(value), 'notifications.push.endpoint');

/** What `PushSubscription.toJSON()` gives in the browser. */
export const pushSubscriptionSchema = z.object({
  endpoint: pushEndpoint,
  keys: z.object({ p256dh: base64url.min(80).max(100), auth: base64url.min(16).max(40) }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

export const pushSubscriptionIdParamsSchema = z.object({ id: z.coerce.number().int().positive() });

export const attemptListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  channel: z.enum(NOTIFICATION_CHANNELS).optional(),
});

export interface PushSubscriptionView {
  id: number;
  endpoint: string;
  userAgent: string;
  createdAt: string;
}

export interface NotificationAttemptView {
  id: number;
  jobId: number;
  attempt: number;
  channel: NotificationChannel;
  provider: string;
  recipient: string;
  status: AttemptStatus;
  providerId: string | null;
  error: string | null;
  createdAt: string;
}
