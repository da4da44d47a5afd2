import { randomBytes } from 'node:crypto';

/**
 * A server on loopback that speaks Twilio's Messages REST API as the `twilio` package calls it:
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form fields To, From and Body, HTTP basic auth
 * with the account SID and auth token; 201 with the message resource (its `sid`), or Twilio's error body.
 * A number that is not E.164 gets Twilio's 400/21211; `failNext` makes the next requests fail as a test asks.
 */
export interface SentSms {
  sid: string;
  to: string;
  from: string;
  body: string;
}

export async function startTwilioServer(credentials = { accountSid: `AC${randomBytes(16).toString('hex')}`, authToken: randomBytes(16).toString('hex') }) {
  const messages: SentSms[] = [];
  const requests: Array<{ status: number; to: string | null }> = [];
  const failures: number[] = [];
  /** A share of requests (0-1) answered with a status at random, as a throttling provider does. */
  let randomFailure: { rate: number; status: number } | null = null;
  const expectedAuth = `Basic ${Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64')}`;

  const error = (status: number, code: number, message: string) =>
    Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status });

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const match = url.pathname.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/);
      if (!match || request.method !== 'POST') return error(404, 20404, 'The requested resource was not found');
      const form = new URLSearchParams(await request.text());
      const to = form.get('To');
      const respond = (response: Response) => {
        requests.push({ status: response.status, to });
        return response;
      };
      if (request.headers.get('authorization') !== expectedAuth || match[1] !== credentials.accountSid) {
        return respond(error(401, 20003, 'Authenticate'));
      }
      const failure = failures.shift() ?? (randomFailure && Math.random() < randomFailure.rate ? randomFailure.status : undefined);
      if (failure === 429) return respond(error(429, 20429, 'Too Many Requests'));
      if (failure !== undefined) return respond(error(failure, 20500, 'Internal Server Error'));
      const from = form.get('From');
      const body = form.get('Body');
      if (!to || !from) return respond(error(400, 21604, "A 'To' phone number is required."));
      if (!body) return respond(error(400, 21602, 'Message body is required.'));
      if (!/^\+[1-9]\d{7,14}$/.test(to)) return respond(error(400, 21211, `The 'To' number ${to} is not a valid phone number.`));
      const sid = `SM${randomBytes(16).toString('hex')}`;
      messages.push({ sid, to, from, body });
      const now = new Date().toUTCString();
      return respond(
        Response.json(
          {
            sid,
            account_sid: credentials.accountSid,
            to,
            from,
            body,
            status: 'queued',
            num_segments: '1',
            direction: 'outbound-api',
            api_version: '2010-04-01',
            date_created: now,
            date_updated: now,
            uri: `/2010-04-01/Accounts/${credentials.accountSid}/Messages/${sid}.json`,
          },
          { status: 201 },
        ),
      );
    },
  });
  return {
    ...credentials,
    url: `http://127.0.0.1:${server.port}`,
    messages,
    /** Every request answered, in order, with its status. */
    requests,
    /** The next requests are answered with these statuses (429, 500, 503, …), one each. */
    failNext(...statuses: number[]) {
      failures.push(...statuses);
    },
    /** From now on answers this share of requests (0-1) with `status` (429: Too Many Requests), at random. */
    failRandomly(rate: number, status = 429) {
      randomFailure = rate > 0 ? { rate, status } : null;
    },
    close: () => server.stop(true),
  };
}
export type TestTwilio = Awaited<ReturnType<typeof startTwilioServer>>;
