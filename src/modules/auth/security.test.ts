/**
 * Attacks on the password and code checks: parallel guesses, lockout from elsewhere, code guessing across
 * regenerated codes, copied fingerprints, mail floods, enumeration, old reset codes and stolen tokens.
 * The races run on both databases (TEST_DB=postgres runs them against PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { createAuthService } from './service';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const from = (address: string) => ({ 'x-forwarded-for': address });
const fingerprint = { userAgent: 'Mozilla/5.0 Test', hardwareConcurrency: 8, deviceMemory: 8, platform: 'Linux x86_64' };

function login(account: { email: string }, password: string, address: string, extra: Record<string, unknown> = {}) {
  return app.call<{ user?: { token: string }; twoFactorRequired?: boolean; challenge?: string }>('POST', '/api/login', {
    body: { username: account.email, password, subsiteid: 0, ...extra },
    headers: from(address),
  });
}

describe('lockout', () => {
  test('40 parallel wrong passwords from one address: at most 5 are checked, then that address is locked out', async () => {
    const account = await app.createAccount();
    const answers = await Promise.all(Array.from({ length: 40 }, () => login(account, 'Wrong-123!', '198.51.100.1')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(36);
    expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toBe('3600');
    // The right password from that address waits out the hour; from the owner's own address it works.
    expect((await login(account, account.password, '198.51.100.1')).status).toBe(429);
    expect((await login(account, account.password, '203.0.113.7')).status).toBe(200);
  });

  test('wrong passwords from several addresses lock the account for everyone for an hour', async () => {
    const account = await app.createAccount();
    const addresses = ['198.51.100.11', '198.51.100.12', '198.51.100.13', '198.51.100.14', '198.51.100.15'];
    const answers = await Promise.all(addresses.flatMap((address) => Array.from({ length: 5 }, () => login(account, 'Wrong-123!', address))));
    // At most 20 were checked; the account is locked for every address, the owner's too.
    expect(answers.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(20);
    const owner = await login(account, account.password, '203.0.113.8');
    expect(owner.status).toBe(429);
    expect(owner.body.errors).toBe('Too many failed logins. Try again in one hour.');
    app.clock.advance(60 * 60 * 1000 + 1000);
    expect((await login(account, account.password, '203.0.113.8')).status).toBe(200);
  });

  test('opt-out and password change go through the same lockout', async () => {
    const account = await app.createAccount();
    for (let i = 0; i < 5; i++) {
      await app.call('POST', '/api/alerts/opt-out', {
        body: { nt_useremail: account.email, nt_password: `Wrong-${i}!`, subsite_id: 0 },
        headers: from('198.51.100.21'),
      });
    }
    const optOut = await app.call('POST', '/api/alerts/opt-out', {
      body: { nt_useremail: account.email, nt_password: account.password, subsite_id: 0 },
      headers: from('198.51.100.21'),
    });
    expect(optOut.status).toBe(429);
    expect((await login(account, account.password, '198.51.100.21')).status).toBe(429);
    const [row] = await app.database.rows<{ alerts_opt_out: boolean }>(sql`select alerts_opt_out from users where id = ${account.userId}`);
    expect(row!.alerts_opt_out).toBe(false);

    const token = await app.login(account);
    for (let i = 0; i < 5; i++) {
      await app.call('POST', '/api/user/update', {
        token,
        body: { userId: account.userId, email: account.email, password: 'Taken-Over-1!', current_password: `Wrong-${i}!` },
        headers: from('198.51.100.22'),
      });
    }
    const change = await app.call('POST', '/api/user/update', {
      token,
      body: { userId: account.userId, email: account.email, password: 'Taken-Over-1!', current_password: account.password },
      headers: from('198.51.100.22'),
    });
    expect(change.status).toBe(429);
  });
});

describe('across instances', () => {
  async function guessesAcrossTwoInstances(config: Partial<TestApp['platform']['config']>) {
    const account = await app.createAccount();
    const platform = { ...app.platform, config: { ...app.platform.config, ...config } };
    const [first, second] = [await createAuthService(platform, app.services.brands), await createAuthService(platform, app.services.brands)];
    const guess = (instance: typeof first, password: string) =>
      instance.login({ username: account.email, password, subsiteid: 0, remember_me: false }, 'test', '198.51.100.41').then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await guess(i % 2 === 0 ? first : second, 'Wrong-123!'));
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(await guess(second, account.password)).toBe(429);
    first.close();
    second.close();
    return account;
  }

  test('two instances on one database share the lockout', async () => {
    await guessesAcrossTwoInstances({});
  });

  test('with REDIS_URL the counters live in Redis, shared the same way', async () => {
    const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const account = await guessesAcrossTwoInstances({ REDIS_URL: url });
    const rows = await app.database.rows(sql`select key from rate_limits where key like ${`password:${account.email}%`}`);
    expect(rows).toEqual([]);
  });
});

describe('two-factor', () => {
  async function challengeFor(account: { email: string; password: string }, address = '192.0.2.50', extra: Record<string, unknown> = {}) {
    const answer = await login(account, account.password, address, extra);
    expect(answer.body.data!.twoFactorRequired).toBe(true);
    return answer.body.data!.challenge!;
  }
  const generate = (challenge: string) => app.call('POST', '/api/2fa/generate', { body: { lang: 'en', challenge } });
  const verify = (challenge: string, code: string, extra: Record<string, unknown> = {}) =>
    app.call<{ user: { token: string }; device_secret?: string }>('POST', '/api/2fa/verify', { body: { code, challenge, ...extra } });
  async function mailedCode(email: string): Promise<string> {
    const mail = await app.smtp.waitFor(email);
    return mail.text.match(/\b(\d{6})\b/)![1]!;
  }

  test('the old user_id body no longer reaches a challenge', async () => {
    const account = await app.createAccount({ twoFactor: true });
    await challengeFor(account);
    const byUserId = await app.call('POST', '/api/2fa/verify', { body: { code: '123456', user_id: account.userId } });
    expect(byUserId.status).toBe(422);
    expect((await app.call('POST', '/api/2fa/generate', { body: { lang: 'en', user_id: account.userId } })).status).toBe(422);
  });

  test('40 parallel guesses at one code: exactly 5 are compared', async () => {
    const account = await app.createAccount({ twoFactor: true });
    const challenge = await challengeFor(account);
    expect((await generate(challenge)).status).toBe(200);
    const code = await mailedCode(account.email);
    const wrong = code === '000000' ? '111111' : '000000';
    const answers = await Promise.all(Array.from({ length: 40 }, () => verify(challenge, wrong)));
    const messages = answers.map((answer) => (answer.body.errors as Record<string, string[]>).code![0]);
    expect(messages.filter((message) => message === 'Wrong code.')).toHaveLength(5);
    expect(messages.filter((message) => message === 'Too many wrong codes. Request a new code.')).toHaveLength(35);
    // Even the right code is refused now.
    expect((await verify(challenge, code)).status).toBe(422);
  });

  test('regenerating codes neither resets the challenge count nor beats the resend countdown', async () => {
    const account = await app.createAccount({ twoFactor: true });
    const challenge = await challengeFor(account);
    expect((await generate(challenge)).status).toBe(200);
    const tooSoon = await generate(challenge);
    expect(tooSoon.status).toBe(429);
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(0);
    let compared = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) {
        const answer = await verify(challenge, '000001');
        if ((answer.body.errors as Record<string, string[]>).code![0] === 'Wrong code.') compared++;
      }
      app.clock.advance(10_000);
      await generate(challenge);
    }
    // Ten guesses per login, however many codes it asks for.
    expect(compared).toBe(10);
    expect((await generate(challenge)).status).toBe(429);
    const mails = await app.database.rows<{ n: number }>(sql`select count(*)::int as n from mail_outbox where to_address = ${account.email}`);
    expect(mails[0]!.n).toBeLessThanOrEqual(5);
  });

  test('a trusted browser is its device secret with the fingerprint; the user can revoke it', async () => {
    const account = await app.createAccount({ twoFactor: true });
    const challenge = await challengeFor(account);
    await generate(challenge);
    const verified = await verify(challenge, await mailedCode(account.email), { remember: true, fingerprint });
    const secret = verified.body.data!.device_secret!;
    const [stored] = await app.database.rows<{ secret_hash: string; expires_at: Date | string }>(
      sql`select secret_hash, expires_at from trusted_browsers where user_id = ${account.userId}`,
    );
    expect(stored!.secret_hash).not.toContain(secret);
    expect(new Date(stored!.expires_at).getTime() - app.clock.now().getTime()).toBe(15_552_000 * 1000);
    expect((await login(account, account.password, '192.0.2.51', { fingerprint, device_secret: secret })).body.data!.user).toBeDefined();
    // A copied fingerprint alone, or a guessed secret, still owes a code.
    expect((await login(account, account.password, '192.0.2.51', { fingerprint })).body.data!.twoFactorRequired).toBe(true);
    expect((await login(account, account.password, '192.0.2.51', { fingerprint, device_secret: 'x'.repeat(43) })).body.data!.twoFactorRequired).toBe(true);
    const revoked = await app.call<{ revoked: number }>('DELETE', '/api/2fa/trusted-browsers', { token: verified.body.data!.user.token });
    expect(revoked.body.data).toEqual({ revoked: 1 });
    expect((await login(account, account.password, '192.0.2.51', { fingerprint, device_secret: secret })).body.data!.twoFactorRequired).toBe(true);
  });
});

describe('rate limits', () => {
  test('forgot-password: three mails an hour per address named, then 429 with Retry-After', async () => {
    const account = await app.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await app.call('POST', '/api/password/forgot', { body: { email_address: account.email, lang: 'en' } });
      statuses.push(answer.status);
      if (answer.status === 429) expect(answer.headers.get('retry-after')).toBe('3600');
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  test('the public validators and registration are limited per address', async () => {
    const validator: number[] = [];
    for (let i = 0; i < 125; i++) {
      validator.push((await app.call('GET', `/api/validate/email?email=v${i}@example.com`, { headers: from('198.51.100.31') })).status);
    }
    expect(validator.slice(0, 120).every((status) => status === 200 || status === 422)).toBe(true);
    expect(validator.slice(120)).toEqual([429, 429, 429, 429, 429]);
    const registrations: number[] = [];
    for (let i = 0; i < 21; i++) {
      registrations.push((await app.call('POST', '/api/register', { body: {}, headers: from('198.51.100.32') })).status);
    }
    expect(registrations.at(-1)).toBe(429);
    const login = await app.call('POST', '/api/login', { body: { username: 'x@example.com', password: 'x' }, headers: from('198.51.100.31') });
    expect(login.status).toBe(401);
  });
});

describe('enumeration', () => {
  test('login, forgot-password and opt-out answer alike for known and unknown users, in comparable time', async () => {
    const account = await app.createAccount();
    const unknown = { email: 'nobody-here@example.com' };
    const timed = async (run: () => Promise<{ status: number; body: unknown }>) => {
      const started = performance.now();
      const answer = await run();
      return { answer: { status: answer.status, body: answer.body }, ms: performance.now() - started };
    };
    for (const [name, run] of [
      ['login', (who: { email: string }) => login(who, 'Wrong-123!', `192.0.2.${who === unknown ? 60 : 61}`)],
      ['forgot', (who: { email: string }) => app.call('POST', '/api/password/forgot', { body: { email_address: who.email, lang: 'en' } })],
      ['opt-out', (who: { email: string }) => app.call('POST', '/api/alerts/opt-out', { body: { nt_useremail: who.email, nt_password: 'Wrong-123!' } })],
    ] as const) {
      const knownMs: number[] = [];
      const strangerMs: number[] = [];
      for (let round = 0; round < 3; round++) {
        const known = await timed(() => run(account));
        const stranger = await timed(() => run(unknown));
        if (round === 0) expect({ name, ...stranger.answer }).toEqual({ name, ...known.answer });
        knownMs.push(known.ms);
        strangerMs.push(stranger.ms);
      }
      // Both hash a password (or neither sends a mail before answering): the medians lie close together.
      const median = (values: number[]) => values.sort((a, b) => a - b)[1]!;
      const [k, u] = [median(knownMs), median(strangerMs)];
      expect({ name, close: Math.abs(k - u) < Math.max(40, 0.5 * Math.max(k, u)) }).toEqual({ name, close: true });
    }
  });
});

describe('password changes', () => {
  test('a reset ends every other reset code and every session', async () => {
    const account = await app.createAccount();
    const token = await app.login(account);
    const codes: string[] = [];
    for (let i = 0; i < 2; i++) {
      await app.call('POST', '/api/password/forgot', { body: { email_address: account.email, lang: 'en' } });
      codes.push((await app.smtp.waitFor(account.email)).text.match(/_c=([\w-]+)/)![1]!);
    }
    const reset = (code: string, password: string) =>
      app.call('POST', '/api/password/reset', { body: { code, password, password_confirmation: password } });
    expect((await reset(codes[1]!, 'Brand-New-9!')).status).toBe(200);
    const older = await reset(codes[0]!, 'Attacker-9!');
    expect(older.status).toBe(422);
    expect(older.body.errors).toEqual({ code: ['Invalid reset code.'] });
    expect((await app.call('GET', '/api/me', { token })).status).toBe(401);
  });

  test('/api/user/update needs the current password; a change ends the other sessions', async () => {
    const account = await app.createAccount({ role: 'user' });
    const token = await app.login(account);
    const other = await app.login(account);
    const body = { userId: account.userId, email: 'new-owner@example.com', password: 'Taken-Over-1!' };
    const tokenOnly = await app.call('POST', '/api/user/update', { token, body });
    expect(tokenOnly.status).toBe(422);
    expect(tokenOnly.body.errors).toEqual({ current_password: ['Enter your current password.'] });
    const wrong = await app.call('POST', '/api/user/update', { token, body: { ...body, current_password: 'Guess-123!' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ current_password: ['Wrong current password.'] });
    const [unchanged] = await app.database.rows<{ email: string }>(sql`select email from users where id = ${account.userId}`);
    expect(unchanged!.email).toBe(account.email);
    expect((await app.call('POST', '/api/user/update', { token, body: { ...body, current_password: account.password } })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token: other })).status).toBe(401);
  });
});
