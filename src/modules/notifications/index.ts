import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { attemptListQuerySchema, pushSubscriptionIdParamsSchema, pushSubscriptionSchema } from './model';
import { createNotificationService, type NotificationService } from './service';
import { defineModule } from '../../composition';

const security = [{ bearer: [] }];

/** The caller's browser push subscriptions and the account's notification delivery log. */
export function notificationRoutes(notifications: NotificationService, auth: AuthService) {
  return new Elysia({ prefix: '/api/notifications', tags: ['notifications'] })
    .use(authGuard(auth))
    .get('/push/key', ({ actor }) => {
      requireActor(actor);
      return ok(notifications.pushKey());
    }, {
      detail: { summary: 'The VAPID public key browsers subscribe with, and whether pushes are sent (else only recorded)', security },
    })
    .get('/push/subscriptions', async ({ actor }) => ok(await notifications.subscriptions(requireActor(actor))), {
      detail: { summary: "The caller's subscribed browsers", security },
    })
    .post(
      '/push/subscriptions',
      async ({ actor, body, headers }) => ok(await notifications.subscribe(requireActor(actor), body, headers['user-agent'] ?? '')),
      {
        body: pushSubscriptionSchema,
        detail: { summary: "Subscribes the caller's browser (PushSubscription.toJSON()); an endpoint subscribed before is taken over", security },
      },
    )
    .delete('/push/subscriptions/:id', async ({ actor, params }) => ok(await notifications.unsubscribe(requireActor(actor), params.id)), {
      params: pushSubscriptionIdParamsSchema,
      detail: { summary: "Removes one of the caller's subscribed browsers", security },
    })
    .post('/push/test', async ({ actor }) => ok(await notifications.pushTest(requireActor(actor))), {
      detail: { summary: "Sends a test notification to the caller's subscribed browsers", security },
    })
    .get('/attempts', async ({ actor, query }) => ok(await notifications.attempts(requireActor(actor), query)), {
      query: attemptListQuerySchema,
      detail: { summary: "Every attempt to deliver the account's messages: channel, recipient, status, provider id, error (administrators)", security },
    });
}

export const notificationsModule = defineModule({
  name: 'notifications',
  needs: [],
  create: (platform) => createNotificationService(platform),
  routes: (notifications, { auth }: { auth: AuthService }) => notificationRoutes(notifications, auth),
});
