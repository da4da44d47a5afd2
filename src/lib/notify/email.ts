import type { Mailer } from '../mail';
import { type Channel, ChannelError, textWithLink } from './channel';

/**
 * E-mail through the product's mailer (src/lib/mail.ts): SMTP with SMTP_URL, else the embedded outbox
 * (`mail_outbox`). SMTP's own classes decide: a 4xx reply is transient, a 5xx one a refusal; no reply at
 * all (connection refused, time-out) is worth another try.
 */
export function emailChannel(mailer: Mailer, options: { publicUrl: string; embedded: boolean }): Channel<'email'> {
  return {
    name: 'email',
    provider: options.embedded ? 'embedded' : 'smtp',
    async send(to, message) {
      try {
        const { messageId } = await mailer.send({
          to,
          subject: message.title,
          text: textWithLink(message, options.publicUrl),
          attachments: message.attachments?.map((file) => ({ filename: file.filename, contentType: file.contentType, content: Buffer.from(file.content, file.encoding ?? 'utf8') })),
        });
        return { status: options.embedded ? 'recorded' : 'sent', providerId: messageId };
      } catch (error) {
        const cause = (error as { cause?: { responseCode?: unknown } }).cause;
        const code = typeof cause?.responseCode === 'number' ? cause.responseCode : null;
        throw new ChannelError((error as Error).message, code === null || code < 500, code);
      }
    },
  };
}
