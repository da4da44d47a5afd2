import { randomUUID } from 'node:crypto';
import twilio from 'twilio';
import type { Logger } from '../log';
import { type Channel, ChannelError, retryableHttpStatus, SEND_TIMEOUT_MS, textWithLink } from './channel';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  /** Base of the REST API (default https://api.twilio.com); tests point it at a server on loopback. */
  apiUrl: string;
}

const TWILIO_API = 'https://api.twilio.com';

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
    async send(to, message) {
      try {
        const sent = await client.messages.create({ to, from: settings.from, body: textWithLink(message, publicUrl) });
        return { status: 'sent', providerId: sent.sid };
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        if (typeof status === 'number') {
          const code = (error as { code?: unknown }).code;
          throw new ChannelError(`Twilio ${status}${code ? ` (${code})` : ''}: ${(error as Error).message}`, retryableHttpStatus(status), status);
        }
        // No answer: refused connection, reset, time-out.
        throw new ChannelError(`Twilio unreachable: ${(error as Error).message}`, true);
      }
    },
  };
}

/** The embedded default: the message is recorded (the attempt log, and a log line) and not sent. */
export function embeddedSmsChannel(log: Logger, publicUrl: string): Channel<'sms'> {
  return {
    name: 'sms',
    provider: 'embedded',
    async send(to, message) {
      log.info('SMS recorded, not sent (set TWILIO_* to send)', { to, text: textWithLink(message, publicUrl) });
      return { status: 'recorded', providerId: `embedded-${randomUUID()}` };
    },
  };
}
