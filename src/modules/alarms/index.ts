import { Elysia } from 'elysia';
import { batchSubscription, defineModule } from '../../composition';
import { ok } from '../../lib/http';
import type { AlarmRecipientDirectory } from '../alarm-receivers/service';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import type { NotificationService } from '../notifications/service';
import type { TrackingService } from '../tracking/service';
import type { UnitService } from '../units/service';
import { alarmAcknowledgeManySchema, alarmIdParamsSchema, alarmListQuerySchema, deliveryListQuerySchema } from './model';
import { type AlarmLive, type AlarmService, createAlarmService } from './service';

const security = [{ bearer: [] }];

/** The alarms of units the caller sees, the bell's summary, acknowledging, and the delivery log (administrators). */
export function alarmRoutes(alarms: AlarmService, auth: AuthService) {
  return new Elysia({ prefix: '/api/alarms', tags: ['alarms'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await alarms.list(requireActor(actor), query)), {
      query: alarmListQuerySchema,
      detail: { summary: 'Alarms of units the caller sees, newest first (open, acknowledged or all; by unit and class)', security },
    })
    .get('/summary', async ({ actor }) => ok(await alarms.summary(requireActor(actor))), {
      detail: { summary: 'The bell: the count of unacknowledged alarms, the latest ten, and units with an open security alarm', security },
    })
    .get('/deliveries', async ({ actor, query }) => ok(await alarms.deliveries(requireActor(actor), query)), {
      query: deliveryListQuerySchema,
      detail: { summary: "The delivery log: each alarm's messages per receiver and channel, status, attempts, provider id (administrators)", security },
    })
    .post('/acknowledge', async ({ actor, body }) => ok(await alarms.acknowledgeMany(requireActor(actor), body.ids)), {
      body: alarmAcknowledgeManySchema,
      detail: { summary: 'Acknowledges several alarms (any id not of a unit the caller sees: 404, nothing acknowledged)', security },
    })
    .post('/:id/acknowledge', async ({ actor, params }) => ok(await alarms.acknowledge(requireActor(actor), params.id)), {
      params: alarmIdParamsSchema,
      detail: { summary: 'Acknowledges one alarm', security },
    });
}

/** Subscriber names of the alarm engine's durable events (deliveries are recorded under them). */
export const ALARM_SUBSCRIBERS = { zones: 'alarms.zones', theft: 'alarms.theft' } as const;

/** Alarms: the engine (stored batches, durable events, the daily service check), delivery and the bell. */
export const alarmsModule = defineModule({
  name: 'alarms',
  needs: ['units', 'tracking', 'live', 'notifications', 'alarmReceivers'],
  create: async (
    platform,
    deps: { units: UnitService; tracking: TrackingService; live: AlarmLive; notifications: NotificationService; alarmReceivers: AlarmRecipientDirectory },
  ) => {
    const alarms = await createAlarmService(platform, { units: deps.units, notifications: deps.notifications, directory: deps.alarmReceivers, live: deps.live });
    deps.tracking.onStoredBatch((query, positions) => alarms.onStoredBatch(query, positions));
    return alarms;
  },
  routes: (alarms, { auth }: { auth: AuthService }) => alarmRoutes(alarms, auth),
  jobs: (alarms) => [
    {
      name: 'alarms.ble-range',
      intervalSeconds: 60,
      run: async () => {
        await alarms.checkBleRange();
      },
    },
    {
      name: 'alarms.service-dates',
      intervalSeconds: 3600,
      run: async () => {
        await alarms.checkServiceDates();
      },
    },
  ],
  subscriptions: (alarms) => [
    // Batch subscribers: a storm of zone exits (every unit leaving at once) becomes alarms and deliveries in a few statements.
    batchSubscription('geofence.exited', ALARM_SUBSCRIBERS.zones, (events, tx) =>
      alarms.onZoneCrossings(
        events.map((event) => ({ crossing: event.payload, exited: true })),
        tx,
      ),
    ),
    batchSubscription('geofence.entered', ALARM_SUBSCRIBERS.zones, (events, tx) =>
      alarms.onZoneCrossings(
        events.map((event) => ({ crossing: event.payload, exited: false })),
        tx,
      ),
    ),
    batchSubscription('unit.theft_movement', ALARM_SUBSCRIBERS.theft, (events, tx) =>
      alarms.onTheftMovements(
        events.map((event) => event.payload),
        tx,
      ),
    ),
  ],
  stop: (alarms) => alarms.stop(),
});
