import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { DeadDeliveryView, DeadJobView } from './model';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

test('support lists dead jobs and dead deliveries and puts them back in line; other roles are refused', async () => {
  let jobFails = true;
  let jobRuns = 0;
  app.platform.queue.define(
    'support.test.job',
    async () => {
      jobRuns += 1;
      if (jobFails) throw new Error('provider down');
    },
    { maxAttempts: 1 },
  );
  const { id: jobId } = await app.platform.queue.enqueue(null, 'support.test.job', { n: 1 });
  await app.platform.queue.drain();

  // A dead outbox delivery, through an outbox of its own events over the same tables.
  const { Outbox } = await import('../../lib/outbox');
  const outbox = new Outbox<{ 'support.test.event': { n: number } }>({ database: app.database, clock: app.clock, log: app.platform.log, maxAttempts: 1 });
  let deliveryFails = true;
  outbox.subscribe('support.test.event', 'support.test.subscriber', async () => {
    if (deliveryFails) throw new Error('subscriber broken');
  });
  await outbox.register();
  await app.database.transaction((tx) => outbox.publish(tx, 'support.test.event', { n: 2 }));
  await outbox.drain();

  const admin = await app.createAccount({ role: 'admin' });
  const supporter = await app.createAccount({ role: 'support' });
  const adminToken = await app.login(admin);
  const supportToken = await app.login(supporter);

  expect((await app.call('GET', '/api/admin/dead-letters', { token: adminToken })).status).toBe(403);
  expect((await app.call('POST', `/api/admin/dead-letters/jobs/${jobId}/retry`, { token: adminToken })).status).toBe(403);
  expect((await app.call('GET', '/api/admin/dead-letters')).status).toBe(401);

  const listed = await app.call<{ jobs: DeadJobView[]; deliveries: DeadDeliveryView[] }>('GET', '/api/admin/dead-letters', { token: supportToken });
  expect(listed.status).toBe(200);
  const job = listed.body.data!.jobs.find((one) => one.id === jobId)!;
  expect(job).toMatchObject({ name: 'support.test.job', attempts: 1, lastError: 'provider down', payload: { n: 1 } });
  const delivery = listed.body.data!.deliveries.find((one) => one.subscriber === 'support.test.subscriber')!;
  expect(delivery).toMatchObject({ type: 'support.test.event', attempts: 1, lastError: 'subscriber broken', payload: { n: 2 } });

  jobFails = false;
  deliveryFails = false;
  expect((await app.call('POST', `/api/admin/dead-letters/jobs/${jobId}/retry`, { token: supportToken })).status).toBe(200);
  expect((await app.call('POST', `/api/admin/dead-letters/jobs/${jobId}/retry`, { token: supportToken })).status).toBe(404);
  const retried = await app.call('POST', '/api/admin/dead-letters/deliveries/retry', {
    token: supportToken,
    body: { eventId: delivery.eventId, subscriber: 'support.test.subscriber' },
  });
  expect(retried.status).toBe(200);
  expect((await app.call('POST', '/api/admin/dead-letters/deliveries/retry', { token: supportToken, body: { eventId: 'x' } })).status).toBe(422);

  await app.platform.queue.drain();
  await outbox.drain();
  expect(jobRuns).toBe(2);
  const after = await app.call<{ jobs: DeadJobView[]; deliveries: DeadDeliveryView[] }>('GET', '/api/admin/dead-letters', { token: supportToken });
  expect(after.body.data!.jobs.some((one) => one.id === jobId)).toBe(false);
  expect(after.body.data!.deliveries.some((one) => one.subscriber === 'support.test.subscriber')).toBe(false);
});
