/**
 * One way to send a message to a recipient on a channel (e-mail, SMS, web push) and get the provider's id
 * back. Channels know no feature: what to say and to whom is the caller's; that every send is a queued job
 * with its attempts recorded is the notifications module's.
 */
export type ChannelName = 'email' | 'sms' | 'push';

export interface NotificationMessage {
  /** E-mail subject and push title; not sent by SMS. */
  title: string;
  body: string;
  /** The screen the message is about (a path of the web app); push opens it on click, e-mail and SMS carry it as a link. */
  url?: string;
  /**
   * Files an e-mail carries (text content, e.g. an iCalendar invitation, or binary content as base64 with
   * `encoding: 'base64'`, e.g. a PDF); other channels leave them out.
   */
  attachments?: Array<{ filename: string; contentType: string; content: string; encoding?: 'utf8' | 'base64' }>;
}

/** A browser's push subscription as `PushSubscription.toJSON()` gives it. */
export interface PushRecipient {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface Recipients {
  email: string;
  sms: string;
  push: PushRecipient;
}

export interface SendResult {
  /** 'sent': handed to the provider; 'recorded': kept by the embedded default without sending. */
  status: 'sent' | 'recorded';
  /** The provider's id of the message (SMTP message id, Twilio SID, push service's location), when it gives one. */
  providerId: string | null;
}

/**
 * One delivery's identity, the same on every attempt: a send that is repeated after a crash (delivery is at least
 * once) carries the same e-mail Message-ID and push Topic, so the receiving side can drop the repeat.
 */
export interface Delivery {
  /** Letters, digits, '-' and '_' only, at most 32 characters (a push Topic's limit). */
  id: string;
}

export interface Channel<Name extends ChannelName = ChannelName> {
  readonly name: Name;
  /** Which implementation sends: 'smtp', 'twilio', 'web-push', or 'embedded' (records only). */
  readonly provider: string;
  send(recipient: Recipients[Name], message: NotificationMessage, delivery?: Delivery): Promise<SendResult>;
  /**
   * Asks the provider whether it already took `delivery` (sent to `recipient` since `since`): for a retry after an
   * attempt whose outcome is unknown (its process died mid-send, or no answer came), on a channel whose receivers cannot
   * drop a repeat themselves (SMS). The provider's result when it has the message, else null.
   */
  findSent?(recipient: Recipients[Name], message: NotificationMessage, delivery: Delivery, since: Date): Promise<SendResult | null>;
}

/**
 * A failed send. `retryable` says whether trying again later can help: throttling (429), a provider's
 * trouble (5xx), a time-out or a lost connection can; a refusal of the recipient or the message cannot.
 */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider's status: HTTP status or SMTP reply code. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** HTTP providers: 408, 425, 429 and every 5xx are worth another try; any other 4xx is a refusal. */
export function retryableHttpStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** How long one send may take before it counts as a (retryable) time-out. */
export const SEND_TIMEOUT_MS = 10_000;

/** A text with the message's link after it (e-mail and SMS have no other place for it). */
export function textWithLink(message: NotificationMessage, publicUrl: string): string {
  return message.url ? `${message.body}\n${new URL(message.url, publicUrl).toString()}` : message.body;
}
