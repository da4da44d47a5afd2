import { randomUUID } from 'node:crypto';
import type { Querier } from '../../lib/db/client';
import { notFound } from '../../lib/http';
import { translate } from '../../lib/i18n';
import {
  type Channel,
  ChannelError,
  emailChannel,
  embeddedPushChannel,
  embeddedSmsChannel,
  generateVapidKeys,
  type NotificationMessage,
  type PushRecipient,
  twilioSmsChannel,
  type VapidKeys,
  webPushChannel,
} from '../../lib/notify';
import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { requireRole } from '../auth';
import type { NotificationAttemptView, NotificationChannel, PushSubscriptionInput, PushSubscriptionView } from './model';

/** The queued job behind every send. */
export const SEND_JOB = 'notifications.send';
/** A send is tried this often (about 2.5 minutes of backoff in all with the queue's 5 s start) before it fails. */
export const SEND_MAX_ATTEMPTS = 6;

type SendJob = (
  | { accountId: number; channel: 'email' | 'sms'; recipient: string; message: NotificationMessage }
  | { accountId: number; channel: 'push'; subscriptionId: number; message: NotificationMessage }
) & {
  /** The sender's reference (`<prefix>:<id>`): each attempt's outcome is handed to the prefix's `onAttempt` handler. */
  ref?: string;
};

/** One attempt's outcome as a sender's `onAttempt` handler gets it, in the transaction that records the attempt. */
export interface NotificationOutcome {
  jobId: number;
  ref: string;
  attempt: number;
  status: NotificationAttemptView['status'];
  providerId: string | null;
  error: string | null;
}
export type NotificationOutcomeHandler = (tx: Querier, outcome: NotificationOutcome) => Promise<void>;

interface AttemptOutcome {
  status: NotificationAttemptView['status'];
  providerId?: string | null;
  error?: string | null;
  /** The provider's HTTP status or SMTP reply code of a failure; null when no answer came. */
  providerStatus?: number | null;
}

type EarlierAttempt = {
  attempt: number;
  status: NotificationAttemptView['status'];
  provider_status: number | null;
};

/** The provider's clock and ours may differ: its list is searched from this long before the job was queued. */
const CLOCK_SKEW_MS = 15 * 60_000;

/**
 * Whether an earlier attempt may have reached the provider without its acceptance being recorded: an attempt with no
 * row (its process died mid-send), or one that failed without a refusal (4xx) for an answer (a time-out, a lost
 * connection, a 5xx, or a failure to record a send that went). Any such attempt counts, not only the last: a retry's
 * own failure to ask the provider leaves the question open.
 */
function outcomeUnknown(earlier: readonly EarlierAttempt[], attempt: number): boolean {
  const recorded = new Set(earlier.map((row) => row.attempt));
  for (let number = 1; number < attempt; number++) if (!recorded.has(number)) return true;
  return earlier.some((row) => row.provider_status === null || row.provider_status < 400 || row.provider_status >= 500);
}

/** The VAPID key pair: generated once and kept in the database (as the token secret is), so every process and restart signs alike. */
async function loadVapidKeys(platform: Platform): Promise<VapidKeys> {
  const generated = generateVapidKeys();
  await platform.database.query('INSERT INTO push_vapid_keys (public_key, private_key) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    generated.publicKey,
    generated.privateKey,
  ]);
  const [row] = await platform.database.query<{ public_key: string; private_key: string }>('SELECT public_key, private_key FROM push_vapid_keys');
  return { publicKey: row!.public_key, privateKey: row!.private_key };
}

function vapidSubject(platform: Platform): string {
  if (platform.config.VAPID_SUBJECT) return platform.config.VAPID_SUBJECT;
  const address = platform.config.MAIL_FROM.match(/<([^>]+)>/)?.[1] ?? platform.config.MAIL_FROM;
  return `mailto:${address.trim()}`;
}

/**
 * Sends messages by e-mail, SMS and web push (src/lib/notify), each send a queued job (retried with backoff
 * on throttling, provider trouble and time-outs; not on a refusal) with every attempt recorded; owns users'
 * push subscriptions. Other modules call `send`/`pushToUser` with the querier of the transaction that
 * causes the message, so the message exists exactly when its cause does, and with a `key` so it is sent once.
 */
export async function createNotificationService(platform: Platform) {
  const { config, database, queue, clock, log } = platform;
  const vapid = await loadVapidKeys(platform);
  const channels: { [Name in NotificationChannel]: Channel<Name> } = {
    email: emailChannel(platform.mailer, { publicUrl: config.PUBLIC_URL, embedded: !config.SMTP_URL }),
    sms: config.TWILIO_ACCOUNT_SID
      ? twilioSmsChannel(
          { accountSid: config.TWILIO_ACCOUNT_SID, authToken: config.TWILIO_AUTH_TOKEN!, from: config.TWILIO_FROM!, apiUrl: config.TWILIO_API_URL },
          config.PUBLIC_URL,
        )
      : embeddedSmsChannel(log, config.PUBLIC_URL),
    push: config.WEB_PUSH ? webPushChannel({ vapid, subject: vapidSubject(platform) }) : embeddedPushChannel(log),
  };

  /** Handlers of attempts' outcomes, by the prefix of the sender's reference. */
  const outcomeHandlers = new Map<string, NotificationOutcomeHandler>();

  async function record(
    job: { id: number; attempt: number },
    payload: SendJob,
    recipient: string,
    outcome: AttemptOutcome,
  ): Promise<void> {
    const handler = payload.ref ? outcomeHandlers.get(payload.ref.slice(0, payload.ref.indexOf(':'))) : undefined;
    if (!handler || !payload.ref) {
      await insertAttempt(database.query, job, payload, recipient, outcome);
      return;
    }
    // The attempt and the sender's own record of it commit together: the sender's log never misses an outcome.
    const ref = payload.ref;
    await database.transaction(async (tx) => {
      await insertAttempt(tx, job, payload, recipient, outcome);
      await handler(tx, {
        jobId: job.id,
        ref,
        attempt: job.attempt,
        status: outcome.status,
        providerId: outcome.providerId ?? null,
        error: outcome.error?.slice(0, 2000) ?? null,
      });
    });
  }

  async function insertAttempt(
    query: Querier,
    job: { id: number; attempt: number },
    payload: SendJob,
    recipient: string,
    outcome: AttemptOutcome,
  ): Promise<void> {
    await query(
      `INSERT INTO notification_attempts (account_id, job_id, attempt, channel, provider, recipient, status, provider_id, error, provider_status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        payload.accountId,
        job.id,
        job.attempt,
        payload.channel,
        channels[payload.channel].provider,
        recipient,
        outcome.status,
        outcome.providerId ?? null,
        outcome.error?.slice(0, 2000) ?? null,
        outcome.providerStatus ?? null,
        clock.now().toISOString(),
      ],
    );
  }

  async function earlierAttempts(jobId: number): Promise<EarlierAttempt[]> {
    return database.query<EarlierAttempt>('SELECT attempt, status, provider_status FROM notification_attempts WHERE job_id = $1', [jobId]);
  }

  queue.define<SendJob>(
    SEND_JOB,
    async (payload, job) => {
      let recipient: string | PushRecipient;
      let recipientText: string;
      if (payload.channel === 'push') {
        const [subscription] = await database.query<{ endpoint: string; p256dh: string; auth: string }>(
          'SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE id = $1 AND account_id = $2',
          [payload.subscriptionId, payload.accountId],
        );
        if (!subscription) {
          // Unsubscribed since: nothing to send to, and nothing to retry.
          await record(job, payload, `subscription ${payload.subscriptionId}`, { status: 'failed', error: 'unsubscribed' });
          return;
        }
        recipient = { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } };
        recipientText = subscription.endpoint;
      } else {
        recipient = payload.recipient;
        recipientText = payload.recipient;
      }
      const channel = channels[payload.channel] as Channel;
      const delivery = { id: `notification-${job.id}` };
      try {
        const earlier = job.attempt > 1 ? await earlierAttempts(job.id) : [];
        // Its outcome was recorded and only the job's completion was lost: the message went.
        if (earlier.some((attempt) => attempt.status === 'sent' || attempt.status === 'recorded')) return;
        if (channel.findSent && outcomeUnknown(earlier, job.attempt)) {
          const createdAt = (await queue.get(job.id))!.createdAt;
          const found = await channel.findSent(recipient as never, payload.message, delivery, new Date(createdAt.getTime() - CLOCK_SKEW_MS));
          if (found) {
            await record(job, payload, recipientText, { status: found.status, providerId: found.providerId });
            return;
          }
        }
        const result = await channel.send(recipient as never, payload.message, delivery);
        await record(job, payload, recipientText, { status: result.status, providerId: result.providerId });
      } catch (error) {
        const retryable = !(error instanceof ChannelError) || error.retryable;
        const message = error instanceof Error ? error.message : String(error);
        await record(job, payload, recipientText, {
          status: retryable && job.attempt < job.maxAttempts ? 'retrying' : 'failed',
          error: message,
          providerStatus: error instanceof ChannelError ? error.status : null,
        });
        // The push service says the subscription is gone: forget it, so no more messages go to it.
        if (payload.channel === 'push' && error instanceof ChannelError && (error.status === 404 || error.status === 410)) {
          await database.query('DELETE FROM push_subscriptions WHERE id = $1', [payload.subscriptionId]);
        }
        throw error;
      }
    },
    { maxAttempts: SEND_MAX_ATTEMPTS },
  );

  const keyed = (key: string | undefined, suffix: string) => (key === undefined ? undefined : `${key}:${suffix}`);

  return {
    /**
     * Queues an e-mail or SMS (in `tx` when given). `key` makes it idempotent: the same key is one message
     * however often the cause is handled (an outbox subscriber passes its event id).
     */
    async send(
      tx: Querier | null,
      input: { accountId: number; channel: 'email' | 'sms'; to: string; message: NotificationMessage; key?: string; ref?: string },
    ): Promise<{ jobId: number }> {
      const payload: SendJob = { accountId: input.accountId, channel: input.channel, recipient: input.to, message: input.message, ref: input.ref };
      const { id } = await queue.enqueue(tx, SEND_JOB, payload, { uniqueKey: keyed(input.key, `${input.channel}:${input.to}`) });
      return { jobId: id };
    },

    /** Queues a push to each browser the user has subscribed (none: nothing queued). */
    async pushToUser(
      tx: Querier | null,
      input: { accountId: number; userId: number; message: NotificationMessage; key?: string; ref?: string },
    ): Promise<{ jobIds: number[] }> {
      const query = tx ?? database.query;
      const subscriptions = await query<{ id: number }>('SELECT id FROM push_subscriptions WHERE user_id = $1 AND account_id = $2 ORDER BY id', [
        input.userId,
        input.accountId,
      ]);
      const jobIds: number[] = [];
      for (const subscription of subscriptions) {
        const payload: SendJob = { accountId: input.accountId, channel: 'push', subscriptionId: subscription.id, message: input.message, ref: input.ref };
        const { id } = await queue.enqueue(tx, SEND_JOB, payload, { uniqueKey: keyed(input.key, `push:${subscription.id}`) });
        jobIds.push(id);
      }
      return { jobIds };
    },

    /**
     * Queues many messages at once in `tx` (a storm of alarms): e-mails and SMS to their address, pushes to every
     * browser of their user (one query for all the users' browsers, one statement for all the jobs). Each needs a `key`,
     * as in `send`/`pushToUser` (the same keys: a message queued either way is one message). Returns per input the ids of
     * its jobs (an e-mail or SMS: one; a push: one per browser, none without one).
     */
    async sendMany(
      tx: Querier,
      inputs: ReadonlyArray<
        | { accountId: number; channel: 'email' | 'sms'; to: string; message: NotificationMessage; key: string; ref?: string }
        | { accountId: number; channel: 'push'; userId: number; message: NotificationMessage; key: string; ref?: string }
      >,
    ): Promise<number[][]> {
      const pushUsers = [...new Set(inputs.flatMap((input) => (input.channel === 'push' ? [input.userId] : [])))];
      const browsers = new Map<string, number[]>();
      if (pushUsers.length > 0) {
        const rows = await tx<{ id: number; user_id: number; account_id: number }>(
          'SELECT id, user_id, account_id FROM push_subscriptions WHERE user_id = ANY($1::int[]) ORDER BY id',
          [`{${pushUsers.join(',')}}`],
        );
        for (const row of rows) {
          const key = `${row.account_id}:${row.user_id}`;
          browsers.set(key, [...(browsers.get(key) ?? []), Number(row.id)]);
        }
      }
      const jobs: Array<{ payload: SendJob; uniqueKey: string }> = [];
      const owners: number[] = [];
      inputs.forEach((input, index) => {
        if (input.channel === 'push') {
          for (const subscriptionId of browsers.get(`${input.accountId}:${input.userId}`) ?? []) {
            jobs.push({
              payload: { accountId: input.accountId, channel: 'push', subscriptionId, message: input.message, ref: input.ref },
              uniqueKey: `${input.key}:push:${subscriptionId}`,
            });
            owners.push(index);
          }
        } else {
          jobs.push({
            payload: { accountId: input.accountId, channel: input.channel, recipient: input.to, message: input.message, ref: input.ref },
            uniqueKey: `${input.key}:${input.channel}:${input.to}`,
          });
          owners.push(index);
        }
      });
      const queued = await queue.enqueueMany(tx, SEND_JOB, jobs);
      const result: number[][] = inputs.map(() => []);
      queued.forEach((job, index) => {
        result[owners[index]!]!.push(job.id);
      });
      return result;
    },

    /**
     * Hands every attempt of messages sent with a `ref` of `<prefix>:…` to `handler`, in the transaction that records
     * the attempt (a sender keeps its own delivery log from it). One handler per prefix; register before the queue runs.
     */
    onAttempt(prefix: string, handler: NotificationOutcomeHandler): void {
      outcomeHandlers.set(prefix, handler);
    },

    /** The public half of the VAPID pair, which the browser subscribes with; `enabled` false when pushes are only recorded. */
    pushKey(): { publicKey: string; enabled: boolean } {
      return { publicKey: vapid.publicKey, enabled: config.WEB_PUSH };
    },

    async subscribe(actor: Actor, input: PushSubscriptionInput, userAgent: string): Promise<PushSubscriptionView> {
      const [row] = await database.transaction(async (query) => {
        // A browser's endpoint pushes to one signed-in user only. The key holds it unique within an account; a
        // subscription the browser made in another account (another user, or a reseller inside a customer's account)
        // is dropped here.
        await query('DELETE FROM push_subscriptions WHERE endpoint = $1 AND account_id <> $2', [input.endpoint, actor.accountId]);
        return query<{ id: number; endpoint: string; user_agent: string; created_at: Date | string }>(
          `INSERT INTO push_subscriptions (account_id, user_id, endpoint, p256dh, auth, user_agent) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (endpoint, account_id) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh,
             auth = EXCLUDED.auth, user_agent = EXCLUDED.user_agent
           RETURNING id, endpoint, user_agent, created_at`,
          [actor.accountId, actor.userId, input.endpoint, input.keys.p256dh, input.keys.auth, userAgent.slice(0, 300)],
        );
      });
      return { id: row!.id, endpoint: row!.endpoint, userAgent: row!.user_agent, createdAt: new Date(row!.created_at).toISOString() };
    },

    async subscriptions(actor: Actor): Promise<PushSubscriptionView[]> {
      const rows = await database.query<{ id: number; endpoint: string; user_agent: string; created_at: Date | string }>(
        'SELECT id, endpoint, user_agent, created_at FROM push_subscriptions WHERE user_id = $1 AND account_id = $2 ORDER BY id',
        [actor.userId, actor.accountId],
      );
      return rows.map((row) => ({ id: row.id, endpoint: row.endpoint, userAgent: row.user_agent, createdAt: new Date(row.created_at).toISOString() }));
    },

    /** Removes one of the caller's own subscriptions (another's, of any account: 404). */
    async unsubscribe(actor: Actor, id: number): Promise<{ id: number }> {
      const rows = await database.query('DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2 AND account_id = $3 RETURNING id', [
        id,
        actor.userId,
        actor.accountId,
      ]);
      if (rows.length === 0) throw notFound('notifications.subscription.notFound');
      return { id };
    },

    /** Sends a test push to the caller's own browsers, so a user can see that notifications arrive. */
    async pushTest(actor: Actor): Promise<{ jobIds: number[] }> {
      return this.pushToUser(null, {
        accountId: actor.accountId,
        userId: actor.userId,
        message: { title: translate(actor.language, 'notifications.test.title'), body: translate(actor.language, 'notifications.test.body'), url: '/' },
        key: `test:${randomUUID()}`,
      });
    },

    /** The delivery attempts of the caller's account, newest first (administrators and support). */
    async attempts(actor: Actor, query: { limit: number; channel?: NotificationChannel }): Promise<NotificationAttemptView[]> {
      requireRole(actor, 'admin', 'support');
      const rows = await database.query<{
        id: string;
        job_id: string;
        attempt: number;
        channel: NotificationChannel;
        provider: string;
        recipient: string;
        status: NotificationAttemptView['status'];
        provider_id: string | null;
        error: string | null;
        created_at: Date | string;
      }>(
        `SELECT * FROM notification_attempts WHERE account_id = $1 AND ($2::text IS NULL OR channel = $2) ORDER BY id DESC LIMIT $3`,
        [actor.accountId, query.channel ?? null, query.limit],
      );
      return rows.map((row) => ({
        id: Number(row.id),
        jobId: Number(row.job_id),
        attempt: row.attempt,
        channel: row.channel,
        provider: row.provider,
        recipient: row.recipient,
        status: row.status,
        providerId: row.provider_id,
        error: row.error,
        createdAt: new Date(row.created_at).toISOString(),
      }));
    },
  };
}
export type NotificationService = Awaited<ReturnType<typeof createNotificationService>>;
