import { randomUUID } from 'node:crypto';
import webpush from 'web-push';
import type { Logger } from '../log';
import { type Channel, ChannelError, retryableHttpStatus, SEND_TIMEOUT_MS } from './channel';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

/** What the service worker (src/web/sw.ts) receives: it shows `title`/`body` and opens `url` on click. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
}

/**
 * Web push (RFC 8030/8291/8292): `web-push` encrypts the payload (aes128gcm) and signs the VAPID header;
 * the request itself goes out with fetch, which reaches http:// endpoints too (a push service on loopback in
 * tests) and has a time-out. 404 and 410 mean the subscription is gone: a permanent refusal.
 */
export function webPushChannel(options: { vapid: VapidKeys; subject: string; ttlSeconds?: number }): Channel<'push'> {
  return {
    name: 'push',
    provider: 'web-push',
    async send(subscription, message, delivery) {
      const payload: PushPayload = { title: message.title, body: message.body, url: message.url ?? '/' };
      let details: ReturnType<typeof webpush.generateRequestDetails>;
      try {
        details = webpush.generateRequestDetails(subscription, JSON.stringify(payload), {
          vapidDetails: { subject: options.subject, publicKey: options.vapid.publicKey, privateKey: options.vapid.privateKey },
          TTL: options.ttlSeconds ?? 86_400,
          contentEncoding: 'aes128gcm',
          // A push service keeps one undelivered message per topic: a repeated send replaces, not adds (RFC 8030 §5.4).
          ...(delivery ? { topic: delivery.id } : {}),
        });
      } catch (error) {
        throw new ChannelError(`push subscription unusable: ${(error as Error).message}`, false);
      }
      let response: Response;
      try {
        response = await fetch(details.endpoint, {
          method: details.method,
          headers: details.headers as Record<string, string>,
          body: details.body ? new Uint8Array(details.body) : null,
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
      } catch (error) {
        throw new ChannelError(`push service unreachable: ${(error as Error).message}`, true);
      }
      if (!response.ok) {
        const text = (await response.text().catch(() => '')).slice(0, 300);
        throw new ChannelError(`push service ${response.status}: ${text}`, retryableHttpStatus(response.status), response.status);
      }
      await response.body?.cancel().catch(() => {});
      return { status: 'sent', providerId: response.headers.get('location') };
    },
  };
}

/** The embedded default: recorded (the attempt log, and a log line), not sent. */
export function embeddedPushChannel(log: Logger): Channel<'push'> {
  return {
    name: 'push',
    provider: 'embedded',
    async send(subscription, message) {
      log.info('push recorded, not sent (WEB_PUSH=0)', { endpoint: subscription.endpoint, title: message.title });
      return { status: 'recorded', providerId: `embedded-${randomUUID()}` };
    },
  };
}
