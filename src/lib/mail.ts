import { sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { DatabaseHandle } from './db/client';
import type { Logger } from './log';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The Message-ID header (`<id@host>`); nodemailer makes a random one when absent. */
  messageId?: string;
  /** Files sent along (passed to nodemailer as they are; the outbox row keeps the text only). */
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface Mailer {
  /** Sends (or, embedded, stores) the message; answers the SMTP message id. A failure keeps nodemailer's error as `cause`. */
  send(message: MailMessage): Promise<{ messageId: string | null }>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set. Otherwise the embedded outbox: every message is
 * stored in mail_outbox and its links and codes are written to the log, so every flow works out of the box.
 */
export function createMailer(options: {
  smtpUrl?: string;
  from: string;
  database: DatabaseHandle;
  log: Logger;
}): Mailer {
  const transport = options.smtpUrl
    ? nodemailer.createTransport(options.smtpUrl)
    : nodemailer.createTransport({ jsonTransport: true });
  const kind = options.smtpUrl ? 'smtp' : 'outbox';

  return {
    async send(message) {
      let status: 'sent' | 'stored' | 'failed' = kind === 'smtp' ? 'sent' : 'stored';
      let error: string | null = null;
      let failure: unknown = null;
      let messageId: string | null = null;
      try {
        const { messageId: fixedId, ...mail } = message;
        messageId = (await transport.sendMail({ from: options.from, ...mail, ...(fixedId ? { messageId: fixedId } : {}) })).messageId ?? null;
      } catch (cause) {
        status = 'failed';
        failure = cause;
        error = (cause as Error).message;
      }
      await options.database.rows(sql`
        insert into mail_outbox (to_address, subject, text_body, html_body, transport, status, error)
        values (${message.to}, ${message.subject}, ${message.text}, ${message.html ?? null}, ${kind}, ${status}, ${error})`);
      if (kind === 'outbox') {
        const links = message.text.match(/https?:\/\/\S+|\b\d{6}\b/g) ?? [];
        options.log.info('mail stored in outbox', { to: message.to, subject: message.subject, links });
      }
      if (status === 'failed') {
        options.log.error('mail failed', { to: message.to, error });
        throw new Error(`Mail to ${message.to} failed: ${error}`, { cause: failure });
      }
      return { messageId };
    },
  };
}
