import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { startPushService, type TestPushService } from '../../../tests/support/push';
import { startTwilioServer, type TestTwilio } from '../../../tests/support/twilio';
import type { NotificationAttemptView, PushSubscriptionView } from './model';

/**
 * Every channel against a server on loopback that speaks the provider's protocol: SMTP, Twilio's Messages
 * API, a web push service that decrypts the payload. Each send is a queued job: retried on 429 and 503
 * (and a transient SMTP reply), not on a permanent refusal, and each attempt is in the log.
 */
let app: TestApp;
let twilio: TestTwilio;
let push: TestPushService;
let admin: { accountId: number; userId: number; token: string };

beforeAll(async () => {
  twilio = await startTwilioServer();
  push = await startPushService();
  app = await createTestApp({
    env: { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken, TWILIO_FROM: '+46700000001', TWILIO_API_URL: twilio.url },
  });
  const account = await app.createAccount({ role: 'admin' });
  admin = { accountId: account.accountId, userId: account.userId, token: await app.login(account) };
}, 60_000);
afterAll(async () => {
  await app?.close();
  twilio?.close();
  push?.close();
});

const message = { title: 'Alarm: Volvo', body: 'The Volvo left Home', url: '/map?unit=7' };

async function attemptsOf(jobId: number): Promise<NotificationAttemptView[]> {
  const result = await app.call<NotificationAttemptView[]>('GET', '/api/notifications/attempts?limit=500', { token: admin.token });
  expect(result.status).toBe(200);
  return result.body.data!.filter((attempt) => attempt.jobId === jobId).sort((x, y) => x.attempt - y.attempt);
}

/** Runs what is due, then what comes due after each backoff, `retries` times. */
async function runWithRetries(retries: number) {
  await app.platform.queue.drain();
  for (let retry = 1; retry <= retries; retry++) {
    app.clock.advance(app.platform.queue.backoff(retry));
    await app.platform.queue.drain();
  }
}

describe('SMS through Twilio', () => {
  test('sent: the provider has it and its SID is in the log', async () => {
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701234567', message });
    await app.platform.queue.drain();
    const sent = twilio.messages.at(-1)!;
    expect(sent).toMatchObject({ to: '+46701234567', from: '+46700000001' });
    // The text, its link, and the delivery's reference (which a retry looks for in the provider's list).
    expect(sent.body).toMatch(/^The Volvo left Home\nhttp:\/\/portal\.test\/map\?unit=7\n#[0-9A-HJKMNP-TV-Z]{8}$/);
    expect(await attemptsOf(jobId)).toMatchObject([{ channel: 'sms', provider: 'twilio', recipient: '+46701234567', status: 'sent', providerId: sent.sid, error: null }]);
  });

  test('429 and 503 are retried with backoff until it is sent', async () => {
    twilio.failNext(429, 503);
    const before = twilio.messages.length;
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701234568', message });
    await app.platform.queue.drain();
    expect(twilio.messages.length).toBe(before); // not before its backoff
    await runWithRetries(2);
    expect(twilio.messages.length).toBe(before + 1);
    const attempts = await attemptsOf(jobId);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'sent'],
    ]);
    expect(attempts[0]!.error).toContain('429');
    expect(attempts[1]!.error).toContain('503');
    expect(attempts[2]!.providerId).toBe(twilio.messages.at(-1)!.sid);
    expect((await app.platform.queue.get(jobId))!.status).toBe('done');
  });

  test('an invalid number is refused once and not retried', async () => {
    const requests = twilio.requests.length;
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '0701', message });
    await runWithRetries(3);
    expect(twilio.requests.length).toBe(requests + 1);
    const attempts = await attemptsOf(jobId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'failed', providerId: null });
    expect(attempts[0]!.error).toContain('21211');
    expect((await app.platform.queue.get(jobId))!.status).toBe('dead');
  });

  test('a send queued in a transaction that rolls back is never sent; one key is one message', async () => {
    const requests = twilio.requests.length;
    await expect(
      app.database.transaction(async (tx) => {
        await app.services.notifications.send(tx, { accountId: admin.accountId, channel: 'sms', to: '+46701234569', message });
        throw new Error('the alarm was not stored');
      }),
    ).rejects.toThrow('the alarm was not stored');
    const first = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701234569', message, key: 'alarm:1' });
    const again = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701234569', message, key: 'alarm:1' });
    expect(again.jobId).toBe(first.jobId);
    await app.platform.queue.drain();
    expect(twilio.requests.length).toBe(requests + 1);
  });
});

/**
 * Twilio's send call has no idempotency key. A retry after an attempt whose outcome is unknown (its process died
 * between the provider's acceptance and the write of the outcome, or the answer was lost) asks the provider's list of
 * messages for the delivery's reference first; an attempt the provider refused is simply sent again.
 */
describe('SMS sent once across a crash', () => {
  const listCalls = () => twilio.requests.filter((request) => request.method === 'GET').length;

  /** The job as a process that died running attempt `attempts` leaves it: running, its lease run out, no outcome after it. */
  async function leaveAsCrashed(jobId: number, attempts: number): Promise<void> {
    await app.database.query('DELETE FROM notification_attempts WHERE job_id = $1 AND attempt >= $2', [jobId, attempts]);
    await app.database.query(
      `UPDATE job_queue SET status = 'running', attempts = $2, locked_until = $3, finished_at = NULL, last_error = NULL WHERE id = $1`,
      [jobId, attempts, new Date(app.clock.now().getTime() - 1000).toISOString()],
    );
  }

  test('the provider took it and the process died before writing the outcome: the retry finds it, records its SID and sends nothing', async () => {
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230001', message });
    await app.platform.queue.drain();
    const taken = twilio.messages.at(-1)!;
    expect(taken.to).toBe('+46701230001');
    // Undo what the dead process wrote after the provider's 201: its attempt and the job's completion.
    await leaveAsCrashed(jobId, 1);
    const sends = twilio.messages.length;
    const lists = listCalls();

    await app.platform.queue.drain();
    expect(twilio.messages.length).toBe(sends);
    expect(listCalls()).toBe(lists + 1);
    expect(await attemptsOf(jobId)).toMatchObject([{ attempt: 2, status: 'sent', providerId: taken.sid, error: null }]);
    expect((await app.platform.queue.get(jobId))!.status).toBe('done');
  });

  test('the process died before the request left: the provider has nothing with its reference, so it is sent', async () => {
    // Another message to the same number (another delivery's reference) is not taken for this one.
    const other = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230002', message });
    await app.platform.queue.drain();
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230002', message });
    await leaveAsCrashed(jobId, 1);
    const sends = twilio.messages.length;
    const lists = listCalls();

    await app.platform.queue.drain();
    expect(listCalls()).toBe(lists + 1);
    expect(twilio.messages.length).toBe(sends + 1);
    const sent = twilio.messages.at(-1)!;
    expect(sent.to).toBe('+46701230002');
    expect(await attemptsOf(jobId)).toMatchObject([{ attempt: 2, status: 'sent', providerId: sent.sid }]);
    expect((await attemptsOf(other.jobId))[0]!.providerId).not.toBe(sent.sid);
  });

  test('taken, then answered with 500: the retry finds it among more than a page of newer messages to the number', async () => {
    twilio.takeThenFailNext();
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230003', message });
    await app.platform.queue.drain();
    const taken = twilio.messages.at(-1)!;
    expect((await attemptsOf(jobId)).map((attempt) => [attempt.attempt, attempt.status])).toEqual([[1, 'retrying']]);
    // 1,200 later messages to the same number: Twilio lists newest first, at most 1,000 a page.
    for (let index = 0; index < 1200; index++) {
      twilio.messages.push({ sid: `SMlater${index}`, to: taken.to, from: taken.from, body: `Later ${index}\n#00000000`, dateSent: new Date() });
    }
    const sends = twilio.messages.length;
    const lists = listCalls();

    await runWithRetries(1);
    expect(twilio.messages.length).toBe(sends);
    expect(listCalls()).toBe(lists + 2);
    expect((await attemptsOf(jobId)).map((attempt) => [attempt.attempt, attempt.status, attempt.providerId])).toEqual([
      [1, 'retrying', null],
      [2, 'sent', taken.sid],
    ]);
  });

  test('a refusal (429) left nothing at the provider: the retry sends without asking', async () => {
    twilio.failNext(429);
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230004', message });
    const lists = listCalls();
    await runWithRetries(1);
    expect(listCalls()).toBe(lists);
    expect((await attemptsOf(jobId)).map((attempt) => attempt.status)).toEqual(['retrying', 'sent']);
  });

  test('the list call itself throttled: the next attempt still asks before sending', async () => {
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230005', message });
    await app.platform.queue.drain();
    const taken = twilio.messages.at(-1)!;
    await leaveAsCrashed(jobId, 1);
    twilio.failNext(429);
    const sends = twilio.messages.length;
    await app.platform.queue.drain();
    app.clock.advance(app.platform.queue.backoff(2));
    await app.platform.queue.drain();
    expect(twilio.messages.length).toBe(sends);
    expect((await attemptsOf(jobId)).map((attempt) => [attempt.attempt, attempt.status, attempt.providerId])).toEqual([
      [2, 'retrying', null],
      [3, 'sent', taken.sid],
    ]);
  });

  test('the outcome was written but the job not completed: the rerun sends and asks nothing', async () => {
    const { jobId } = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'sms', to: '+46701230006', message });
    await app.platform.queue.drain();
    await app.database.query(`UPDATE job_queue SET status = 'running', locked_until = $2, finished_at = NULL WHERE id = $1`, [
      jobId,
      new Date(app.clock.now().getTime() - 1000).toISOString(),
    ]);
    const requests = twilio.requests.length;
    await app.platform.queue.drain();
    expect(twilio.requests.length).toBe(requests);
    expect((await attemptsOf(jobId)).map((attempt) => attempt.attempt)).toEqual([1]);
    expect((await app.platform.queue.get(jobId))!.status).toBe('done');
  });
});

describe('web push', () => {
  let subscription: ReturnType<TestPushService['subscribe']>;
  let subscriptionId: number;

  test('a browser subscribes; the push service decrypts the payload with its keys and sees the VAPID key', async () => {
    subscription = push.subscribe();
    const subscribed = await app.call<PushSubscriptionView>('POST', '/api/notifications/push/subscriptions', { token: admin.token, body: subscription });
    expect(subscribed.status).toBe(200);
    subscriptionId = subscribed.body.data!.id;
    const key = await app.call<{ publicKey: string; enabled: boolean }>('GET', '/api/notifications/push/key', { token: admin.token });
    expect(key.body.data!.enabled).toBe(true);

    const { jobIds } = await app.services.notifications.pushToUser(null, { accountId: admin.accountId, userId: admin.userId, message });
    expect(jobIds).toHaveLength(1);
    await app.platform.queue.drain();
    const received = push.received.at(-1)!;
    expect(JSON.parse(received.payload)).toEqual({ title: 'Alarm: Volvo', body: 'The Volvo left Home', url: '/map?unit=7' });
    expect(received.vapidKey).toBe(key.body.data!.publicKey);
    // The Topic is the delivery's: a push service replaces an undelivered repeat instead of adding it.
    expect(received.topic).toBe(`notification-${jobIds[0]}`);
    expect(await attemptsOf(jobIds[0]!)).toMatchObject([
      { channel: 'push', provider: 'web-push', recipient: subscription.endpoint, status: 'sent', providerId: received.location },
    ]);
  });

  test('429 and 503 are retried until delivered', async () => {
    push.failNext(429, 503);
    const { jobIds } = await app.services.notifications.pushToUser(null, { accountId: admin.accountId, userId: admin.userId, message });
    await runWithRetries(2);
    expect((await attemptsOf(jobIds[0]!)).map((attempt) => attempt.status)).toEqual(['retrying', 'retrying', 'sent']);
  });

  test('a subscription the push service no longer knows (410) is refused once and forgotten', async () => {
    push.expire(subscription.endpoint);
    const { jobIds } = await app.services.notifications.pushToUser(null, { accountId: admin.accountId, userId: admin.userId, message });
    await runWithRetries(3);
    const attempts = await attemptsOf(jobIds[0]!);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'failed' });
    expect(attempts[0]!.error).toContain('410');
    const listed = await app.call<PushSubscriptionView[]>('GET', '/api/notifications/push/subscriptions', { token: admin.token });
    expect(listed.body.data!.some((one) => one.id === subscriptionId)).toBe(false);
  });
});

describe('e-mail over SMTP', () => {
  test('sent, with the link; a transient refusal (451) is retried, a permanent one (550) is not', async () => {
    const sent = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'email', to: 'fleet@example.com', message });
    await app.platform.queue.drain();
    const mail = await app.smtp.waitFor('fleet@example.com');
    expect(mail.subject).toBe('Alarm: Volvo');
    expect(mail.text).toContain('http://portal.test/map?unit=7');
    const [first] = await attemptsOf(sent.jobId);
    expect(first).toMatchObject({ channel: 'email', provider: 'smtp', status: 'sent' });
    expect(first!.providerId).toMatch(/^<.+>$/);
    // The Message-ID is the delivery's: a send repeated after a crash carries the same, and the receiver drops it.
    expect(mail.messageId).toBe(`<notification-${sent.jobId}@portal.test>`);

    app.smtp.refuseNext(451);
    const retried = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'email', to: 'later@example.com', message });
    await runWithRetries(1);
    await app.smtp.waitFor('later@example.com');
    expect((await attemptsOf(retried.jobId)).map((attempt) => attempt.status)).toEqual(['retrying', 'sent']);

    app.smtp.refuseNext(550);
    const refused = await app.services.notifications.send(null, { accountId: admin.accountId, channel: 'email', to: 'nobody@example.com', message });
    await runWithRetries(3);
    const attempts = await attemptsOf(refused.jobId);
    expect(attempts.map((attempt) => attempt.status)).toEqual(['failed']);
    expect((await app.platform.queue.get(refused.jobId))!.status).toBe('dead');
  });
});

describe('scope', () => {
  test("the log and the subscriptions are the caller's account's; others' ids are not found; users do not read the log", async () => {
    const other = await app.createAccount({ role: 'admin' });
    const otherToken = await app.login(other);
    const theirs = await app.call<NotificationAttemptView[]>('GET', '/api/notifications/attempts', { token: otherToken });
    expect(theirs.body.data).toEqual([]);
    const mine = await app.call<PushSubscriptionView>('POST', '/api/notifications/push/subscriptions', { token: admin.token, body: push.subscribe() });
    expect((await app.call('DELETE', `/api/notifications/push/subscriptions/${mine.body.data!.id}`, { token: otherToken })).status).toBe(404);
    expect((await app.call('DELETE', `/api/notifications/push/subscriptions/${mine.body.data!.id}`, { token: admin.token })).status).toBe(200);
    const user = await app.createAccount({ role: 'user' });
    expect((await app.call('GET', '/api/notifications/attempts', { token: await app.login(user) })).status).toBe(403);
    const bad = await app.call('POST', '/api/notifications/push/subscriptions', {
      token: admin.token,
      body: { endpoint: 'http://push.example.com/x', keys: { p256dh: 'short', auth: 'x' } },
    });
    expect(bad.status).toBe(422);
  });

  test("a browser's endpoint subscribed again by a user of another account pushes to that user only", async () => {
    const other = await app.createAccount({ role: 'admin' });
    const otherToken = await app.login(other);
    const subscription = push.subscribe();
    expect((await app.call('POST', '/api/notifications/push/subscriptions', { token: admin.token, body: subscription })).status).toBe(200);
    expect((await app.call('POST', '/api/notifications/push/subscriptions', { token: otherToken, body: subscription })).status).toBe(200);
    const endpoints = async (token: string) =>
      (await app.call<PushSubscriptionView[]>('GET', '/api/notifications/push/subscriptions', { token })).body.data!.map((row) => row.endpoint);
    expect(await endpoints(admin.token)).not.toContain(subscription.endpoint);
    expect(await endpoints(otherToken)).toEqual([subscription.endpoint]);
    const rows = await app.database.query('SELECT account_id FROM push_subscriptions WHERE endpoint = $1', [subscription.endpoint]);
    expect(rows).toEqual([{ account_id: other.accountId }]);
  });
});

test('without a provider, SMS and push are recorded, not sent (the quick start needs no account)', async () => {
  const embedded = await createTestApp({ env: { WEB_PUSH: '0' } });
  try {
    const account = await embedded.createAccount({ role: 'admin' });
    const token = await embedded.login(account);
    const requests = push.requests.length;
    await embedded.call('POST', '/api/notifications/push/subscriptions', { token, body: push.subscribe() });
    const sms = await embedded.services.notifications.send(null, { accountId: account.accountId, channel: 'sms', to: '+46701234567', message });
    const pushes = await embedded.services.notifications.pushToUser(null, { accountId: account.accountId, userId: account.userId, message });
    await embedded.platform.queue.drain();
    const log = await embedded.call<NotificationAttemptView[]>('GET', '/api/notifications/attempts', { token });
    const byJob = new Map(log.body.data!.map((attempt) => [attempt.jobId, attempt]));
    expect(byJob.get(sms.jobId)).toMatchObject({ provider: 'embedded', status: 'recorded' });
    expect(byJob.get(pushes.jobIds[0]!)).toMatchObject({ provider: 'embedded', status: 'recorded' });
    expect(push.requests.length).toBe(requests);
  } finally {
    await embedded.close();
  }
}, 60_000);

test('Twilio is configured with all three of SID, token and sender, or none', async () => {
  const { loadConfig, ConfigError } = await import('../../lib/config');
  const sid = `AC${'0'.repeat(32)}`;
  expect(() => loadConfig({ TWILIO_ACCOUNT_SID: sid })).toThrow(ConfigError);
  try {
    loadConfig({ TWILIO_ACCOUNT_SID: sid });
  } catch (error) {
    expect((error as Error).message).toContain('TWILIO_AUTH_TOKEN is not set');
    expect((error as Error).message).toContain('TWILIO_FROM is not set');
  }
  expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'not-a-sid', TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_FROM: '+46700000001' })).toThrow('TWILIO_ACCOUNT_SID');
  expect(loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_FROM: 'Fleet' }).TWILIO_FROM).toBe('Fleet');
  expect(loadConfig({}).WEB_PUSH).toBe(true);
  expect(() => loadConfig({ VAPID_SUBJECT: 'http://insecure.example.com' })).toThrow('VAPID_SUBJECT');
});
