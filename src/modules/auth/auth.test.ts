import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../../../tests/support/app';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const fingerprint = { userAgent: 'Mozilla/5.0 Test', hardwareConcurrency: 8, deviceMemory: 8, platform: 'Linux x86_64' };

describe('login', () => {
  test('valid credentials answer data.user with a working token', async () => {
    const account = await app.createAccount();
    const result = await app.call<{ user: { token: string; Email: string; IsAdmin: boolean } }>('POST', '/api/login', {
      body: { username: account.email.toUpperCase(), password: account.password, subsiteid: 0, remember_me: true },
    });
    expect(result.status).toBe(200);
    expect(result.body.success).toBe(true);
    expect(result.body.data!.user.Email).toBe(account.email);
    expect(result.body.data!.user.IsAdmin).toBe(true);
    const me = await app.call<{ user: { ID: number } }>('GET', '/api/me', { token: result.body.data!.user.token });
    expect(me.body.data!.user.ID).toBe(account.userId);
  });

  test('missing fields give 422 with translated field errors', async () => {
    const result = await app.call('POST', '/api/login', { body: { username: '', password: '' }, headers: { 'x-lang': 'sv' } });
    expect(result.status).toBe(422);
    expect(result.body.errors).toEqual({ username: ['Ange användarnamn.'], password: ['Ange ett nytt lösenord.'] });
  });

  test('wrong password reports attempts left, then locks for one hour', async () => {
    const account = await app.createAccount();
    const headers = { 'x-forwarded-for': '192.0.2.10' };
    for (let attempt = 1; attempt <= 4; attempt++) {
      const result = await app.call('POST', '/api/login', { body: { username: account.email, password: 'Wrong-123!', subsiteid: 0 }, headers });
      expect(result.status).toBe(401);
      expect(result.body.errors).toEqual({ msg: 'Wrong username or password. {{count}} attempts left.', count: 5 - attempt });
    }
    const fifth = await app.call('POST', '/api/login', { body: { username: account.email, password: 'Wrong-123!', subsiteid: 0 }, headers });
    expect(fifth.status).toBe(429);
    expect(fifth.body.errors).toBe('Too many failed logins. Try again in one hour.');
    expect(fifth.headers.get('retry-after')).toBe('3600');
    // Even the right password is refused while locked.
    const locked = await app.call('POST', '/api/login', { body: { username: account.email, password: account.password, subsiteid: 0 }, headers });
    expect(locked.status).toBe(429);
    app.clock.advance(59 * 60 * 1000);
    expect((await app.call('POST', '/api/login', { body: { username: account.email, password: account.password, subsiteid: 0 }, headers })).status).toBe(429);
    app.clock.advance(61 * 1000);
    const after = await app.call('POST', '/api/login', { body: { username: account.email, password: account.password, subsiteid: 0 }, headers });
    expect(after.status).toBe(200);
  });

  test('unknown user and wrong site are refused', async () => {
    const unknown = await app.call('POST', '/api/login', { body: { username: 'nobody@example.com', password: 'x', subsiteid: 0 } });
    expect(unknown.status).toBe(401);
    // The same answer as a known user's wrong password: the form tells nobody who has an account.
    expect(unknown.body.errors).toEqual({ msg: 'Wrong username or password. {{count}} attempts left.', count: 4 });
    const account = await app.createAccount({ subsiteId: 3 });
    const wrongSite = await app.call('POST', '/api/login', { body: { username: account.email, password: account.password, subsiteid: 0 } });
    expect(wrongSite.status).toBe(403);
    expect(wrongSite.body.errors).toBe('This account belongs to another site.');
  });
});

describe('logout and tokens', () => {
  test('logout revokes the token', async () => {
    const account = await app.createAccount();
    const token = await app.login(account);
    expect((await app.call('GET', '/api/me', { token })).status).toBe(200);
    expect((await app.call('POST', '/api/logout', { token })).status).toBe(200);
    const after = await app.call('GET', '/api/me', { token });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Unauthenticated.');
  });

  test('anonymous and forged tokens get 401 Unauthenticated.', async () => {
    expect((await app.call('GET', '/api/me')).body.message).toBe('Unauthenticated.');
    const forged = await app.call('GET', '/api/me', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiJ4In0.AAAA' });
    expect(forged.status).toBe(401);
  });

  test('a session expires after 12 hours without remember-me', async () => {
    const account = await app.createAccount();
    const token = await app.login(account);
    app.clock.advance(12 * 60 * 60 * 1000 + 1000);
    expect((await app.call('GET', '/api/me', { token })).status).toBe(401);
  });

  test('the signing secret is generated once and kept', async () => {
    const rows = await app.database.rows<{ value: string }>(
      (await import('drizzle-orm')).sql`select value from app_settings where key = 'auth.secret'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.value.length).toBeGreaterThanOrEqual(48);
  });

  test('passwords are stored as argon2id hashes', async () => {
    const account = await app.createAccount();
    const rows = await app.database.rows<{ password_hash: string }>(
      (await import('drizzle-orm')).sql`select password_hash from users where id = ${account.userId}`,
    );
    expect(rows[0]!.password_hash.startsWith('$argon2id$')).toBe(true);
  });
});

describe('two-factor', () => {
  async function startTwoFactor(withFingerprint = true) {
    const account = await app.createAccount({ twoFactor: true });
    const login = await app.call<{ twoFactorRequired: boolean; challenge: string }>('POST', '/api/login', {
      body: { username: account.email, password: account.password, subsiteid: 0, ...(withFingerprint ? { fingerprint } : {}) },
    });
    expect(login.status).toBe(200);
    expect(login.body.data!.twoFactorRequired).toBe(true);
    expect(Object.keys(login.body.data!)).toEqual(['twoFactorRequired', 'challenge']);
    return { ...account, challenge: login.body.data!.challenge };
  }

  async function requestCode(account: { challenge: string; email: string }): Promise<string> {
    const generated = await app.call('POST', '/api/2fa/generate', { body: { lang: 'en', challenge: account.challenge } });
    expect(generated.status).toBe(200);
    const mail = await app.smtp.waitFor(account.email);
    const code = mail.text.match(/\b(\d{6})\b/)?.[1];
    expect(code).toBeDefined();
    return code!;
  }

  test('code by e-mail logs in; trusting the browser skips the code next time', async () => {
    const account = await startTwoFactor();
    const code = await requestCode(account);
    const verified = await app.call<{ user: { token: string }; device_secret: string }>('POST', '/api/2fa/verify', {
      body: { code, challenge: account.challenge, remember: true, fingerprint },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data!.user.token).toBeString();
    const device_secret = verified.body.data!.device_secret;
    expect(device_secret.length).toBeGreaterThanOrEqual(40);
    const again = await app.call<{ user?: { token: string } }>('POST', '/api/login', {
      body: { username: account.email, password: account.password, subsiteid: 0, fingerprint, device_secret },
    });
    expect(again.body.data!.user?.token).toBeString();
    // A copied fingerprint without the secret, or the secret with another fingerprint, still owes a code.
    for (const body of [{ fingerprint }, { fingerprint: { ...fingerprint, platform: 'MacIntel' }, device_secret }]) {
      const other = await app.call<{ twoFactorRequired?: boolean }>('POST', '/api/login', {
        body: { username: account.email, password: account.password, subsiteid: 0, ...body },
      });
      expect(other.body.data!.twoFactorRequired).toBe(true);
    }
    // The trusted entry runs out after 15552000 s.
    app.clock.advance(15_552_000 * 1000 + 1000);
    const expired = await app.call<{ twoFactorRequired?: boolean }>('POST', '/api/login', {
      body: { username: account.email, password: account.password, subsiteid: 0, fingerprint, device_secret },
    });
    expect(expired.body.data!.twoFactorRequired).toBe(true);
  });

  test('a code expires after 3 minutes and a wrong code is refused', async () => {
    const account = await startTwoFactor();
    const code = await requestCode(account);
    const wrong = await app.call('POST', '/api/2fa/verify', { body: { code: code === '000000' ? '111111' : '000000', challenge: account.challenge } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ code: ['Wrong code.'] });
    app.clock.advance(3 * 60 * 1000 + 1);
    const late = await app.call('POST', '/api/2fa/verify', { body: { code, challenge: account.challenge } });
    expect(late.status).toBe(422);
    expect(late.body.errors).toEqual({ code: ['The code has expired. Request a new code.'] });
    // Resend gives a fresh code that works.
    const fresh = await requestCode(account);
    expect((await app.call('POST', '/api/2fa/verify', { body: { code: fresh, challenge: account.challenge } })).status).toBe(200);
  });

  test('no code can be generated without a password-checked login', async () => {
    const account = await app.createAccount({ twoFactor: true });
    const result = await app.call('POST', '/api/2fa/generate', { body: { lang: 'en', user_id: account.userId, challenge: 'x'.repeat(43) } });
    expect(result.status).toBe(422);
  });
});

describe('forgot and reset password', () => {
  test('the mailed link works once and within one hour', async () => {
    const account = await app.createAccount();
    const sent = await app.call('POST', '/api/password/forgot', { body: { subsite_id: 0, email_address: account.email, lang: 'sv' } });
    expect(sent.status).toBe(200);
    const mail = await app.smtp.waitFor(account.email);
    expect(mail.subject).toContain('Återställ');
    const code = mail.text.match(/\/user\/reset-password\?_c=([\w-]+)/)?.[1];
    expect(code).toBeDefined();
    const reset = await app.call('POST', '/api/password/reset', {
      body: { subsite_id: 0, code, password: 'Brand-New-9!', password_confirmation: 'Brand-New-9!' },
    });
    expect(reset.status).toBe(200);
    expect((await app.call('POST', '/api/login', { body: { username: account.email, password: 'Brand-New-9!', subsiteid: 0 } })).status).toBe(200);
    const reuse = await app.call('POST', '/api/password/reset', {
      body: { subsite_id: 0, code, password: 'Other-Pass-9!', password_confirmation: 'Other-Pass-9!' },
    });
    expect(reuse.status).toBe(422);
    expect(reuse.body.errors).toEqual({ code: ['Invalid reset code.'] });
  });

  test('a link older than one hour has expired', async () => {
    const account = await app.createAccount();
    await app.call('POST', '/api/password/forgot', { body: { subsite_id: 0, email_address: account.email, lang: 'en' } });
    const code = (await app.smtp.waitFor(account.email)).text.match(/_c=([\w-]+)/)?.[1];
    app.clock.advance(60 * 60 * 1000 + 1);
    const late = await app.call('POST', '/api/password/reset', {
      body: { subsite_id: 0, code, password: 'Brand-New-9!', password_confirmation: 'Brand-New-9!' },
    });
    expect(late.status).toBe(422);
    expect(late.body.errors).toEqual({ code: ['The link has expired. Request a new one.'] });
  });

  test('an unknown e-mail gets the same answer; weak and unequal passwords are field errors', async () => {
    const unknown = await app.call('POST', '/api/password/forgot', { body: { subsite_id: 0, email_address: 'ghost@example.com', lang: 'en' } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual({ message: 'If the address belongs to an account, a password reset link has been sent to it.' });
    const weak = await app.call('POST', '/api/password/reset', { body: { subsite_id: 0, code: 'x', password: 'short', password_confirmation: 'short' } });
    expect(weak.status).toBe(422);
    expect((weak.body.errors as Record<string, string[]>).password).toContain('The password must have at least 8 characters.');
    const unequal = await app.call('POST', '/api/password/reset', {
      body: { subsite_id: 0, code: 'x', password: 'Brand-New-9!', password_confirmation: 'Brand-New-8!' },
    });
    expect((unequal.body.errors as Record<string, string[]>).password_confirmation).toEqual(['The passwords do not match.']);
  });
});

describe('user update and alert opt-out', () => {
  test('a user changes own password; another account cannot', async () => {
    const account = await app.createAccount({ role: 'user' });
    const token = await app.login(account);
    const result = await app.call<{ message: string }>('POST', '/api/user/update', {
      token,
      body: { userId: account.userId, email: account.email, password: 'Changed-123!', current_password: account.password },
    });
    expect(result.status).toBe(200);
    expect(result.body.data!.message).toBe('User updated successfully');
    const stranger = await app.createAccount();
    const strangerToken = await app.login(stranger);
    const denied = await app.call('POST', '/api/user/update', {
      token: strangerToken,
      body: { userId: account.userId, email: 'taken@example.com', password: 'Changed-123!', current_password: stranger.password },
    });
    expect(denied.status).toBe(404);
    expect((await app.call('POST', '/api/login', { body: { username: account.email, password: 'Changed-123!', subsiteid: 0 } })).status).toBe(200);
  });

  test('opt-out needs the right password and names the address', async () => {
    const account = await app.createAccount();
    const wrong = await app.call('POST', '/api/alerts/opt-out', {
      body: { nt_useremail: account.email, nt_password: 'nope', remove_push: 1, subsite_id: 0 },
    });
    expect(wrong.status).toBe(422);
    const done = await app.call<{ message: string }>('POST', '/api/alerts/opt-out', {
      body: { nt_useremail: account.email, nt_password: account.password, remove_push: 1, subsite_id: 0 },
    });
    expect(done.status).toBe(200);
    expect(done.body.data!.message).toContain(account.email);
  });
});
