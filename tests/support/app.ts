import { sql } from 'drizzle-orm';
import { stopServices } from '../../src/app';
import { assemble } from '../../src/bootstrap';
import { ManualClock } from '../../src/lib/clock';
import { loadConfig } from '../../src/lib/config';
import type { Envelope } from '../../src/lib/http';
import { createLogger } from '../../src/lib/log';
import { hashPassword } from '../../src/lib/password';
import { createTestDatabase } from './database';
import { startSmtpServer, type TestSmtp } from './smtp';

export interface CallResult<T = unknown> {
  status: number;
  body: Envelope<T>;
  headers: Headers;
}

/**
 * The whole API over a fresh database, a controllable clock and a real SMTP server on loopback.
 * `call` goes through Elysia's request handling exactly as HTTP would.
 */
export async function createTestApp(options: { env?: Record<string, string> } = {}) {
  const database = await createTestDatabase();
  const smtp: TestSmtp = await startSmtpServer();
  const clock = new ManualClock('2026-03-02T08:00:00Z');
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SMTP_URL: smtp.url,
    PUBLIC_URL: 'http://portal.test',
    GATEWAY: '0',
    JOBS: '0',
    // Calls name their address in X-Forwarded-For, as a proxy in front would (rate limits count per address).
    TRUST_PROXY: '1',
    ...options.env,
  });
  const { platform, services, api } = await assemble(config, database.handle, {
    clock,
    log: createLogger('silent'),
  });

  let addressSequence = 0;
  async function call<T = unknown>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ): Promise<CallResult<T>> {
    // Each call comes from an address of its own unless it names one, so only tests of the limits meet them.
    addressSequence += 1;
    const address = `10.${(addressSequence >> 16) & 255}.${(addressSequence >> 8) & 255}.${addressSequence & 255}`;
    const headers: Record<string, string> = { accept: 'application/json', 'x-lang': 'en', 'x-forwarded-for': address, ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await api.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    return { status: response.status, body: (await response.json()) as Envelope<T>, headers: response.headers };
  }

  let sequence = 0;
  /** Inserts an account with one user of the given role and returns a logged-in token. */
  async function createAccount(
    input: { subsiteId?: number; role?: 'admin' | 'user' | 'support' | 'reseller'; twoFactor?: boolean; parentId?: number } = {},
  ) {
    sequence += 1;
    const email = `user${sequence}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const password = 'Secret-123!';
    const [account] = await database.handle.rows<{ id: number }>(sql`
      insert into accounts (subsite_id, company_name, parent_id) values (${input.subsiteId ?? 0}, ${`Company ${sequence}`}, ${input.parentId ?? null})
      returning id`);
    const [user] = await database.handle.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, last_name, role, two_factor)
      values (${account!.id}, ${email}, ${await hashPassword(password)}, 'Test', ${`User ${sequence}`}, ${input.role ?? 'admin'}, ${input.twoFactor ?? false})
      returning id`);
    await database.handle.rows(sql`insert into login_emails (email, user_id, account_id) values (${email}, ${user!.id}, ${account!.id})`);
    return { accountId: account!.id, userId: user!.id, email, password, subsiteId: input.subsiteId ?? 0 };
  }

  async function login(account: { email: string; password: string; subsiteId: number }): Promise<string> {
    const result = await call<{ user: { token: string } }>('POST', '/api/login', {
      body: { username: account.email, password: account.password, subsiteid: account.subsiteId },
    });
    if (result.status !== 200 || !result.body.data) throw new Error(`login failed: ${JSON.stringify(result.body)}`);
    return result.body.data.user.token;
  }

  /**
   * Spec §6: an ordinary user sees only the units given to them. Gives the user these units (default: every
   * unit of the user's account), as an administrator does on the unit's "access and lock" section.
   */
  async function grantUnits(userId: number, unitIds?: number[]): Promise<void> {
    if (unitIds && unitIds.length === 0) return;
    const only = unitIds === undefined ? sql`` : sql` and n.id = any(${`{${unitIds.join(',')}}`}::int[])`;
    await database.handle.rows(sql`
      insert into unit_access (unit_id, user_id, account_id)
      select n.id, u.id, n.account_id from units n join users u on u.account_id = n.account_id
      where u.id = ${userId}${only}
      on conflict do nothing`);
  }

  return {
    platform,
    services,
    api,
    clock,
    smtp,
    database: database.handle,
    call,
    createAccount,
    login,
    grantUnits,
    async close() {
      await stopServices(services);
      await smtp.close();
      await database.dispose();
    },
  };
}
export type TestApp = Awaited<ReturnType<typeof createTestApp>>;
