import { randomBytes } from 'node:crypto';

/**
 * A server on loopback that speaks Twilio's Messages REST API as the `twilio` package calls it, with HTTP basic auth
 * by the account SID and auth token:
 * - `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form fields To, From and Body: 201 with the message
 *   resource (its `sid`), or Twilio's error body. A number that is not E.164 gets Twilio's 400/21211.
 * - `GET` of the same path: the list of messages, newest first, filtered by `To`, `From` and `DateSent`, `DateSent>`
 *   (on or after), `DateSent<` (on or before), in pages of `PageSize` (Twilio's default 50, at most 1000) with
 *   `Page`/`PageToken` and the page's `next_page_uri`, as Twilio answers. A message here is sent at once: its
 *   `date_sent` is the time it was taken.
 * `failNext` makes the next requests (either kind) fail as a test asks; `failRandomly` a share of them.
 */
export interface SentSms {
  sid: string;
  to: string;
  from: string;
  body: string;
  /** When it was taken (and, here, sent). */
  dateSent: Date;
}

const MAX_PAGE_SIZE = 1000;
/** Queued failures that take the message before failing (see `takeThenFailNext`, `takeThenHangNext`). */
const TAKE_THEN_FAIL = -1;
const TAKE_THEN_HANG = -2;

/** Twilio's `DateSent` filters: a date (the whole UTC day) or a date-time. */
function parseDateFilter(value: string): { start: Date; end: Date } | null {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const start = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(start.getTime())) return null;
  return { start, end: day ? new Date(start.getTime() + 86_400_000 - 1) : start };
}

export async function startTwilioServer(credentials = { accountSid: `AC${randomBytes(16).toString('hex')}`, authToken: randomBytes(16).toString('hex') }) {
  const messages: SentSms[] = [];
  const requests: Array<{ method: string; status: number; to: string | null }> = [];
  const failures: number[] = [];
  /** A share of requests (0-1) answered with a status at random, as a throttling provider does. */
  let randomFailure: { rate: number; status: number } | null = null;
  const expectedAuth = `Basic ${Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64')}`;

  const error = (status: number, code: number, message: string) =>
    Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status });
  const resource = (message: SentSms) => ({
    sid: message.sid,
    account_sid: credentials.accountSid,
    to: message.to,
    from: message.from,
    body: message.body,
    status: 'sent',
    num_segments: '1',
    direction: 'outbound-api',
    api_version: '2010-04-01',
    date_created: message.dateSent.toUTCString(),
    date_updated: message.dateSent.toUTCString(),
    date_sent: message.dateSent.toUTCString(),
    uri: `/2010-04-01/Accounts/${credentials.accountSid}/Messages/${message.sid}.json`,
  });

  /** The list call: Twilio's page object (`messages` and the paging URIs); a bad filter is Twilio's 400. */
  function list(url: URL): Response {
    const query = url.searchParams;
    const bounds: Array<[string, (date: Date, filter: { start: Date; end: Date }) => boolean]> = [
      ['DateSent', (date, filter) => date >= filter.start && date <= filter.end],
      ['DateSent>', (date, filter) => date >= filter.start],
      ['DateSent<', (date, filter) => date <= filter.end],
    ];
    const tests: Array<(message: SentSms) => boolean> = [];
    for (const [name, test] of bounds) {
      const value = query.get(name);
      if (value === null) continue;
      const filter = parseDateFilter(value);
      if (!filter) return error(400, 20001, `Invalid ${name}: ${value}`);
      tests.push((message) => test(message.dateSent, filter));
    }
    const to = query.get('To');
    const from = query.get('From');
    const matching = messages
      .filter((message) => (to === null || message.to === to) && (from === null || message.from === from) && tests.every((test) => test(message)))
      .reverse();
    const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(query.get('PageSize') ?? 50) || 50));
    const page = Math.max(0, Number(query.get('Page') ?? 0) || 0);
    const items = matching.slice(page * pageSize, (page + 1) * pageSize);
    const pageUri = (number: number) => {
      const params = new URLSearchParams(query);
      params.set('PageSize', String(pageSize));
      params.set('Page', String(number));
      // Twilio's token: where the page starts (here the index of its first message in the filtered list).
      params.set('PageToken', `PA${number * pageSize}`);
      return `${url.pathname}?${params}`;
    };
    const hasNext = (page + 1) * pageSize < matching.length;
    return Response.json({
      messages: items.map(resource),
      uri: `${url.pathname}${url.search}`,
      first_page_uri: pageUri(0),
      next_page_uri: hasNext ? pageUri(page + 1) : null,
      previous_page_uri: page > 0 ? pageUri(page - 1) : null,
      page,
      page_size: pageSize,
      start: page * pageSize,
      end: page * pageSize + Math.max(0, items.length - 1),
    });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const match = url.pathname.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/);
      if (!match || (request.method !== 'POST' && request.method !== 'GET')) return error(404, 20404, 'The requested resource was not found');
      const form = request.method === 'POST' ? new URLSearchParams(await request.text()) : url.searchParams;
      const to = form.get('To');
      const respond = (response: Response) => {
        requests.push({ method: request.method, status: response.status, to });
        return response;
      };
      if (request.headers.get('authorization') !== expectedAuth || match[1] !== credentials.accountSid) {
        return respond(error(401, 20003, 'Authenticate'));
      }
      const failure = failures.shift() ?? (randomFailure && Math.random() < randomFailure.rate ? randomFailure.status : undefined);
      if (failure === 429) return respond(error(429, 20429, 'Too Many Requests'));
      if (failure !== undefined && failure !== TAKE_THEN_FAIL && failure !== TAKE_THEN_HANG) return respond(error(failure, 20500, 'Internal Server Error'));
      if (request.method === 'GET') return respond(list(url));
      const from = form.get('From');
      const body = form.get('Body');
      if (!to || !from) return respond(error(400, 21604, "A 'To' phone number is required."));
      if (!body) return respond(error(400, 21602, 'Message body is required.'));
      if (!/^\+[1-9]\d{7,14}$/.test(to)) return respond(error(400, 21211, `The 'To' number ${to} is not a valid phone number.`));
      const message: SentSms = { sid: `SM${randomBytes(16).toString('hex')}`, to, from, body, dateSent: new Date() };
      messages.push(message);
      // Taken, and the answer lost on the way back: the sender sees a failure without knowing the message went.
      if (failure === TAKE_THEN_FAIL) return respond(error(500, 20500, 'Internal Server Error'));
      // Taken, and no answer while the sender waits (it is killed meanwhile, or times out).
      if (failure === TAKE_THEN_HANG) return new Promise<Response>(() => {});
      return respond(Response.json({ ...resource(message), status: 'queued' }, { status: 201 }));
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
    /** The next send is taken (and sent) and then answered with 500, as when a reply is lost after the provider took the message. */
    takeThenFailNext() {
      failures.push(TAKE_THEN_FAIL);
    },
    /** The next send is taken (and sent) and never answered: the sender is left waiting, as when it dies mid-send. */
    takeThenHangNext() {
      failures.push(TAKE_THEN_HANG);
    },
    /** From now on answers this share of requests (0-1) with `status` (429: Too Many Requests), at random. */
    failRandomly(rate: number, status = 429) {
      randomFailure = rate > 0 ? { rate, status } : null;
    },
    close: () => server.stop(true),
  };
}
export type TestTwilio = Awaited<ReturnType<typeof startTwilioServer>>;
