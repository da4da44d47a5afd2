import { createHash, randomUUID } from 'node:crypto';
import twilio from 'twilio';
import type { Logger } from '../log';
import { type Channel, ChannelError, type Delivery, type NotificationMessage, retryableHttpStatus, SEND_TIMEOUT_MS, textWithLink } from './channel';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  /** Base of the REST API (default https://api.twilio.com); tests point it at a server on loopback. */
  apiUrl: string;
}

const TWILIO_API = 'https://api.twilio.com';

/** Crockford's base32: letters and digits of GSM 03.38's basic set that cannot be mistaken for one another. */
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const REFERENCE_LENGTH = 8;

/**
 * The reference an SMS ends with: '#' and 8 characters of the delivery id's hash. Twilio's send call has no
 * idempotency key; the reference lets a retry find, in the provider's list of messages, the one an earlier attempt
 * handed over before its outcome was lost.
 */
export function smsReference(delivery: Delivery): string {
  const digest = createHash('sha256').update(delivery.id).digest();
  let code = '';
  for (let index = 0; index < REFERENCE_LENGTH; index++) code += REFERENCE_ALPHABET[digest[index]! % REFERENCE_ALPHABET.length];
  return `#${code}`;
}

/**
 * The text an SMS carries: the message, its link and, on the last line, the delivery's reference. Without a delivery
 * the reference is a stand-in of the same length and alphabet, so a sender counts the segments (credits) before the
 * delivery exists.
 */
export function smsText(message: NotificationMessage, publicUrl: string, delivery?: Delivery): string {
  const reference = delivery ? smsReference(delivery) : `#${'0'.repeat(REFERENCE_LENGTH)}`;
  return `${textWithLink(message, publicUrl)}\n${reference}`;
}

/** The provider's answer as a ChannelError: its HTTP status, or none (refused connection, reset, time-out). */
function twilioError(error: unknown): ChannelError {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    const code = (error as { code?: unknown }).code;
    return new ChannelError(`Twilio ${status}${code ? ` (${code})` : ''}: ${(error as Error).message}`, retryableHttpStatus(status), status);
  }
  return new ChannelError(`Twilio unreachable: ${(error as Error).message}`, true);
}

/**
 * SMS through Twilio's Messages API with the `twilio` package. The client's requests go to `apiUrl`
 * instead of api.twilio.com (a request client that rewrites the base), its own retries are off: the job
 * queue retries, with backoff, and records each attempt.
 */
export function twilioSmsChannel(settings: TwilioSettings, publicUrl: string): Channel<'sms'> {
  const base = settings.apiUrl.replace(/\/+$/, '');
  class RebasedRequestClient extends twilio.RequestClient {
    override request<TData>(opts: Parameters<twilio.RequestClient['request']>[0]) {
      return super.request<TData>({ ...opts, uri: opts.uri.startsWith(TWILIO_API) ? base + opts.uri.slice(TWILIO_API.length) : opts.uri } as never);
    }
  }
  const client = twilio(settings.accountSid, settings.authToken, {
    httpClient: new RebasedRequestClient({ timeout: SEND_TIMEOUT_MS, autoRetry: false }),
  });
  return {
    name: 'sms',
    provider: 'twilio',
    async send(to, message, delivery = { id: randomUUID() }) {
      try {
        const sent = await client.messages.create({ to, from: settings.from, body: smsText(message, publicUrl, delivery) });
        return { status: 'sent', providerId: sent.sid };
      } catch (error) {
        throw twilioError(error);
      }
    },
    /**
     * Twilio's list of messages from our number to `to` sent since `since` (its `DateSent>` filter; newest first,
     * page by page through `next_page_uri`), searched for the delivery's reference; the first match's SID.
     */
    async findSent(to, _message, delivery, since) {
      const reference = smsReference(delivery);
      let found: string | null = null;
      try {
        await client.messages.each({
          to,
          from: settings.from,
          dateSentAfter: since,
          pageSize: 1000,
          callback: (sent, done) => {
            if (found === null && sent.body?.trimEnd().endsWith(reference)) {
              found = sent.sid;
              done();
            }
          },
        });
      } catch (error) {
        throw twilioError(error);
      }
      return found === null ? null : { status: 'sent', providerId: found };
    },
  };
}

/** The embedded default: the message is recorded (the attempt log, and a log line) and not sent. */
export function embeddedSmsChannel(log: Logger, publicUrl: string): Channel<'sms'> {
  return {
    name: 'sms',
    provider: 'embedded',
    async send(to, message, delivery = { id: randomUUID() }) {
      log.info('SMS recorded, not sent (set TWILIO_* to send)', { to, text: smsText(message, publicUrl, delivery) });
      return { status: 'recorded', providerId: `embedded-${randomUUID()}` };
    },
  };
}
