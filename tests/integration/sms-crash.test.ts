import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopServices } from '../../src/app';
import { assemble } from '../../src/bootstrap';
import { loadConfig } from '../../src/lib/config';
import { type DatabaseHandle, openPglite, openPostgres } from '../../src/lib/db/client';
import { createLogger } from '../../src/lib/log';
import { hashPassword } from '../../src/lib/password';
import type { NotificationAttemptView } from '../../src/modules/notifications/model';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { freePort } from '../support/instances';
import { startTwilioServer, type TestTwilio } from '../support/twilio';

/**
 * An SMS survives kill -9 without going twice: the real portal (src/main.ts, its job queue on) hands the message to a
 * loopback server speaking Twilio's API, which takes it and does not answer; the portal is killed while it waits, so no
 * outcome is written. Restarted, the portal runs the job again once its lease is out, finds the message in Twilio's list
 * by its reference and records it as sent with Twilio's SID: the phone gets one SMS.
 */
const PHONE = '+46701239999';
const PASSWORD = 'Secret-123!';

let database: TestDatabase | null = null;
let twilio: TestTwilio | null = null;
let dataRoot: string | null = null;

afterAll(async () => {
  await database?.dispose();
  twilio?.close();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

test('an SMS the provider took before the portal was killed is not sent again by the restarted portal', async () => {
  twilio = await startTwilioServer();
  database = await createTestDatabase();
  const port = freePort();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: 'http://portal.test',
    GATEWAY: '0',
    JOBS: '1',
    DEMO: '0',
    LOG_LEVEL: 'error',
    JOB_LEASE_SECONDS: '10',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM: '+46700000009',
    TWILIO_API_URL: twilio.url,
  };

  // The SMS is queued through the product's notifications service, as an alarm queues it.
  const { services } = await assemble(loadConfig({ ...env, JOBS: '0' }), database.handle, { log: createLogger('silent') });
  const [account] = await database.handle.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Crash SMS') RETURNING id`);
  const email = 'crash-sms@example.com';
  await database.handle.query(
    `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role) VALUES ($1, $2, $3, 'Crash', 'Admin', 'admin')`,
    [account!.id, email, await hashPassword(PASSWORD)],
  );
  const { jobId } = await services.notifications.send(null, {
    accountId: account!.id,
    channel: 'sms',
    to: PHONE,
    message: { title: 'Alarm', body: 'The boat left the harbour', url: '/user/realtime-tracking?unit=1' },
    key: 'crash-test',
  });
  await stopServices(services);

  dataRoot = mkdtempSync(join(tmpdir(), 'fleet-sms-crash-'));
  if (database.location.kind === 'pglite') {
    // The portal keeps its embedded database in DATA_DIR/pglite; one process holds it at a time.
    await database.handle.close();
    renameSync(database.location.dir, join(dataRoot, 'pglite'));
    env.DATA_DIR = dataRoot;
  } else {
    env.DATABASE_URL = database.location.url;
  }
  const startPortal = () => Bun.spawn(['bun', 'src/main.ts'], { cwd: new URL('../../', import.meta.url).pathname, env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'inherit' });

  // 1. Twilio takes the message and keeps the portal waiting; the portal is killed meanwhile.
  twilio.takeThenHangNext();
  let portal = startPortal();
  const taken = await waitUntil('the send', () => twilio!.messages.find((message) => message.to === PHONE));
  portal.kill('SIGKILL');
  await portal.exited;
  expect(taken.body).toMatch(/\n#[0-9A-HJKMNP-TV-Z]{8}$/);

  // 2. Restarted: once the lease is out the job runs again, asks Twilio, and records the message it finds.
  portal = startPortal();
  try {
    const api = `http://127.0.0.1:${port}`;
    const token = await waitUntil('the login', async () => {
      try {
        const response = await fetch(`${api}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: email, password: PASSWORD, subsiteid: 0 }),
        });
        if (!response.ok) return undefined;
        return ((await response.json()) as { data: { user: { token: string } } }).data.user.token;
      } catch {
        return undefined; // not listening yet
      }
    });
    const attempts = await waitUntil('the recorded attempt', async () => {
      const response = await fetch(`${api}/api/notifications/attempts`, { headers: { authorization: `Bearer ${token}` } });
      const rows = ((await response.json()) as { data: NotificationAttemptView[] }).data.filter((attempt) => attempt.jobId === jobId);
      return rows.length > 0 ? rows : undefined;
    });
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.providerId])).toEqual([[2, 'sent', taken.sid]]);
  } finally {
    // A clean stop: the job whose attempt was just recorded is completed before the process ends.
    portal.kill('SIGTERM');
    await portal.exited;
  }
  expect(twilio.messages.filter((message) => message.to === PHONE)).toHaveLength(1);
  expect(twilio.requests.filter((request) => request.method === 'GET' && request.status === 200).length).toBeGreaterThan(0);

  // The job is done in the database the portals shared.
  const handle: DatabaseHandle =
    database.location.kind === 'pglite' ? await openPglite(join(dataRoot, 'pglite')) : await openPostgres(database.location.url, 1);
  try {
    const [job] = await handle.query<{ status: string; attempts: number }>('SELECT status, attempts FROM job_queue WHERE id = $1', [jobId]);
    expect(job).toEqual({ status: 'done', attempts: 2 });
  } finally {
    await handle.close();
  }
}, 180_000);
