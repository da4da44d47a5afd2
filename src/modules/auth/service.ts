import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { jwtVerify, SignJWT } from 'jose';
import { clientAddress } from '../../lib/api';
import { AppError, fieldError, forbidden, tooManyRequests, UNAUTHENTICATED } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import { hashPassword, verifyPassword } from '../../lib/password';
import type { Platform } from '../../lib/platform';
import { databaseRateLimits, type HitOptions, type RateLimitStore, redisRateLimits } from '../../lib/rate-limit';
import type { Querier } from '../../lib/db/client';
import type { AccountRow } from '../accounts/service';
import {
  actorOf,
  findAccountById,
  findUserByEmail,
  findUserById,
  sessionUserOf,
  updateUserCredentials,
  type UserWithAccount,
} from '../accounts/service';
import type { BrandService } from '../brands/service';
import {
  ACCOUNT_MAX_FAILURES,
  type Actor,
  type Fingerprint,
  LOGIN_LOCK_MS,
  LOGIN_MAX_ATTEMPTS,
  REMEMBERED_SESSION_MS,
  RESET_LINK_MS,
  SESSION_MS,
  type SessionUser,
  TRUSTED_BROWSER_MS,
  TWO_FACTOR_ACCOUNT_ATTEMPTS,
  TWO_FACTOR_ACCOUNT_CODES,
  TWO_FACTOR_CHALLENGE_ATTEMPTS,
  TWO_FACTOR_CHALLENGE_MS,
  TWO_FACTOR_CODE_ATTEMPTS,
  TWO_FACTOR_CODE_MS,
  TWO_FACTOR_MAX_CODES,
  TWO_FACTOR_RESEND_MS,
} from './model';
import { appSettings, passwordResets, sessions, trustedBrowsers, twoFactorChallenges } from './schema';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Spec §3: the trusted-browser entry names user agent, hardware concurrency, device memory and platform. It is
 * checked together with the entry's random device secret: a fingerprint alone can be copied by anyone.
 */
export function fingerprintHash(fingerprint: Fingerprint): string {
  return sha256(
    [fingerprint.userAgent, fingerprint.hardwareConcurrency ?? '', fingerprint.deviceMemory ?? '', fingerprint.platform ?? ''].join('|'),
  );
}

/** A password check against a dummy hash keeps timing equal for unknown users. */
const DUMMY_HASH = await hashPassword('not-a-real-password');

/** The token signing secret: from AUTH_SECRET, else generated once and kept in the database. */
async function loadSecret({ config, database }: Platform): Promise<Uint8Array> {
  if (config.AUTH_SECRET) return new TextEncoder().encode(config.AUTH_SECRET);
  const generated = randomBytes(48).toString('base64url');
  await database.db.insert(appSettings).values({ key: 'auth.secret', value: generated }).onConflictDoNothing();
  const [row] = await database.db.select().from(appSettings).where(eq(appSettings.key, 'auth.secret'));
  return new TextEncoder().encode(row!.value);
}

export type LoginResult = { user: SessionUser } | { twoFactorRequired: true; challenge: string };

/** Password checks count per account and address (a lockout the attacker sees) and per account (several addresses). */
const pairKey = (email: string, address: string) => `password:${email}:${address}`;
const accountKey = (email: string) => `password:${email}`;
const LOCK: HitOptions = { windowMs: LOGIN_LOCK_MS, lockMs: LOGIN_LOCK_MS };

export async function createAuthService(platform: Platform, brands: BrandService) {
  const { database, clock, mailer, config, log } = platform;
  const db = database.db;
  const secret = await loadSecret(platform);
  const limits: RateLimitStore = config.REDIS_URL ? redisRateLimits(config.REDIS_URL) : databaseRateLimits(database);

  async function issueSession(found: UserWithAccount, remember: boolean, userAgent: string, acting: AccountRow | null = null): Promise<SessionUser> {
    const now = clock.now();
    const id = randomUUID();
    const expiresAt = new Date(now.getTime() + (remember ? REMEMBERED_SESSION_MS : SESSION_MS));
    await db
      .insert(sessions)
      .values({ id, userId: found.user.id, accountId: found.user.accountId, remember, userAgent: userAgent.slice(0, 512), createdAt: now, expiresAt, actingAccountId: acting?.id ?? null });
    const token = await new SignJWT({ sid: id })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(found.user.id))
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(secret);
    return acting ? actingSessionUser(found, acting, token) : sessionUserOf(found, token);
  }

  /** The signed-in support or reseller user as seen inside the customer's account they opened. */
  function actingSessionUser(found: UserWithAccount, acting: AccountRow, token: string): SessionUser {
    return { ...sessionUserOf({ user: found.user, account: acting }, token), ActingAccount: { ID: acting.id, CompanyName: acting.companyName } };
  }

  const ACTING_ROLES = new Set(['support', 'reseller']);

  async function isTrusted(userId: number, deviceSecret: string | undefined, fingerprint: Fingerprint | undefined): Promise<boolean> {
    if (!deviceSecret || !fingerprint) return false;
    const [row] = await db
      .select({ id: trustedBrowsers.id })
      .from(trustedBrowsers)
      .where(
        and(
          eq(trustedBrowsers.secretHash, sha256(deviceSecret)),
          eq(trustedBrowsers.userId, userId),
          eq(trustedBrowsers.fingerprintHash, fingerprintHash(fingerprint)),
          gt(trustedBrowsers.expiresAt, clock.now()),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  async function sendMail(to: string, subsiteId: number, language: Language, kind: string, params: Record<string, string | number>) {
    const brand = await brands.get(subsiteId);
    const values = { brand: brand.name, ...params };
    await mailer.send({
      to,
      subject: translate(language, `mail.${kind}.subject`, values),
      text: translate(language, `mail.${kind}.body`, values),
    });
  }

  const lockedOut = (until: Date) => tooManyRequests('auth.lockedOut', until.getTime() - clock.now().getTime());

  /**
   * Every password check (login, opt-out, password change) goes through here. An attempt is counted before the
   * password is compared (one atomic step per counter), so parallel guesses cannot outrun the count:
   * - per account and address: the fifth wrong password locks that address out of that account for an hour;
   * - per account: twenty attempts that did not succeed within the hour (at least four addresses) lock the account
   *   for everyone for an hour.
   * A success clears both. Unknown addresses are counted and answered exactly like known ones.
   * Answers the user, or `remaining` attempts when the password was wrong; throws 429 while locked.
   */
  async function checkPassword(
    emailInput: string,
    password: string,
    address: string,
  ): Promise<{ found: UserWithAccount; remaining?: undefined } | { found: null; remaining: number }> {
    const email = emailInput.trim().toLowerCase();
    const now = clock.now();
    // An address locked out of this account is refused before it counts against the account as a whole.
    const pair = await limits.hit(pairKey(email, address), now, { ...LOCK, lockAt: LOGIN_MAX_ATTEMPTS });
    if (pair.count > LOGIN_MAX_ATTEMPTS) throw lockedOut(pair.resetAt);
    const account = await limits.hit(accountKey(email), now, { ...LOCK, lockAt: ACCOUNT_MAX_FAILURES });
    if (account.count > ACCOUNT_MAX_FAILURES) throw lockedOut(account.resetAt);
    const found = await findUserByEmail(db, email);
    // Unknown users cost one hash like known ones, so the answer's time tells nothing.
    const valid = await verifyPassword(password, found?.user.passwordHash ?? DUMMY_HASH);
    if (found && valid) {
      await Promise.all([limits.clear(pairKey(email, address)), limits.clear(accountKey(email))]);
      return { found };
    }
    if (pair.count >= LOGIN_MAX_ATTEMPTS) throw lockedOut(pair.resetAt);
    if (account.count >= ACCOUNT_MAX_FAILURES) throw lockedOut(account.resetAt);
    return { found: null, remaining: LOGIN_MAX_ATTEMPTS - pair.count };
  }

  /** Counts one request against a rate limit; 429 with Retry-After once it is spent. */
  async function rateLimit(key: string, limit: number, windowMs: number, messageKey = 'errors.tooManyRequests'): Promise<void> {
    const now = clock.now();
    const counter = await limits.hit(`rate:${key}`, now, { windowMs });
    if (counter.count > limit) throw tooManyRequests(messageKey, counter.resetAt.getTime() - now.getTime());
  }

  /** Ends every other session, every unused reset code and every trusted browser of a user whose password changed. */
  async function afterPasswordChange(tx: Pick<typeof db, 'update' | 'delete'>, userId: number, keepSessionId: string | null) {
    const now = clock.now();
    const others = keepSessionId ? sql`${sessions.id} <> ${keepSessionId}` : sql`true`;
    await tx.update(sessions).set({ revokedAt: now }).where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), others));
    await tx.update(passwordResets).set({ usedAt: now }).where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
    await tx.delete(trustedBrowsers).where(eq(trustedBrowsers.userId, userId));
    await tx.delete(twoFactorChallenges).where(eq(twoFactorChallenges.userId, userId));
  }

  const challengeRow = async (token: string) =>
    (await db.select().from(twoFactorChallenges).where(eq(twoFactorChallenges.tokenHash, sha256(token))))[0] ?? null;

  return {
    /** Closes the rate limits' connection (Redis) at shutdown. */
    close(): void {
      limits.close();
    },

    /** The caller's address as counted by rate limits and lockouts (behind a proxy: what it appended). */
    addressOf(request: Request, server: { requestIP(request: Request): { address: string } | null } | null): string {
      return clientAddress(request, server, config.TRUST_PROXY);
    },

    rateLimit,

    /** Resolves a bearer token to its caller, or null when missing, expired or revoked. */
    async authenticate(authorization: string | null | undefined): Promise<Actor | null> {
      const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!token) return null;
      let sessionId: string;
      try {
        const { payload } = await jwtVerify(token, secret, { currentDate: clock.now(), algorithms: ['HS256'] });
        // A token signed with a leaked or test secret may carry anything: only a UUID can name a session.
        if (typeof payload.sid !== 'string' || !UUID.test(payload.sid)) return null;
        sessionId = payload.sid;
      } catch {
        return null;
      }
      const [session] = await db
        .select()
        .from(sessions)
        .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt), gt(sessions.expiresAt, clock.now())))
        .limit(1);
      if (!session) return null;
      const found = await findUserById(db, session.userId);
      if (!found) return null;
      if (session.actingAccountId === null) return actorOf(found, session.id);
      // Inside a customer's account: only support and resellers, only while that account exists.
      const customer = ACTING_ROLES.has(found.user.role) ? await findAccountById(db, session.actingAccountId) : null;
      if (!customer) return null;
      return { ...actorOf({ user: found.user, account: customer }, session.id), acting: { homeAccountId: found.account.id } };
    },

    /**
     * A session of a support or reseller user inside a customer's account (read-only; the caller checked the scope).
     * It lasts as long as an ordinary session and is ended like one.
     */
    async openActingSession(actor: Actor, customer: AccountRow, userAgent: string): Promise<SessionUser> {
      const found = await findUserById(db, actor.userId);
      if (!found || !ACTING_ROLES.has(found.user.role)) throw forbidden();
      return issueSession(found, false, userAgent, customer);
    },

    /** A user's sessions that are still open, newest first. */
    async openSessions(userId: number): Promise<Array<{ id: string; userAgent: string; createdAt: Date; expiresAt: Date }>> {
      return db
        .select({ id: sessions.id, userAgent: sessions.userAgent, createdAt: sessions.createdAt, expiresAt: sessions.expiresAt })
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, clock.now())))
        .orderBy(sql`${sessions.createdAt} desc`);
    },

    /** When each user last signed in (the newest session's start). */
    async lastLogins(userIds: number[]): Promise<Map<number, Date>> {
      if (userIds.length === 0) return new Map();
      const rows = await database.query<{ user_id: number; at: Date | string }>(
        'SELECT user_id, max(created_at) AS at FROM sessions WHERE user_id = ANY($1::int[]) GROUP BY user_id',
        [userIds],
      );
      return new Map(rows.map((row) => [Number(row.user_id), new Date(row.at)]));
    },

    /** Ends one open session of a user (or all of them: null) in the caller's transaction; answers how many ended. */
    async endSessions(query: Querier, userId: number, sessionId: string | null): Promise<number> {
      const rows = await query<{ id: string }>(
        `UPDATE sessions SET revoked_at = $3::timestamptz WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id = $2::uuid)
         RETURNING id`,
        [userId, sessionId, clock.now().toISOString()],
      );
      return rows.length;
    },

    async login(
      input: { username: string; password: string; subsiteid: number; remember_me: boolean; fingerprint?: Fingerprint; device_secret?: string },
      userAgent: string,
      address: string,
    ): Promise<LoginResult> {
      const now = clock.now();
      const checked = await checkPassword(input.username, input.password, address);
      if (!checked.found) throw new AppError(401, 'auth.invalidCredentialsAttempts', { detail: { count: checked.remaining } });
      const found = checked.found;
      const { user } = found;
      // Support staff may sign in on any sub-site; everybody else on their own brand only.
      if (found.account.subsiteId !== input.subsiteid && user.role !== 'support') throw forbidden('auth.wrongSite');
      if (user.twoFactor && !(await isTrusted(user.id, input.device_secret, input.fingerprint))) {
        const challenge = randomBytes(32).toString('base64url');
        await db.insert(twoFactorChallenges).values({
          tokenHash: sha256(challenge),
          userId: user.id,
          accountId: user.accountId,
          remember: input.remember_me,
          expiresAt: new Date(now.getTime() + TWO_FACTOR_CHALLENGE_MS),
          createdAt: now,
        });
        await db.delete(twoFactorChallenges).where(and(eq(twoFactorChallenges.userId, user.id), lte(twoFactorChallenges.expiresAt, now)));
        return { twoFactorRequired: true, challenge };
      }
      return { user: await issueSession(found, input.remember_me, userAgent) };
    },

    /**
     * E-mails a fresh 6-digit code for the login that holds `challenge`. The resend countdown (00:10) and the
     * number of codes per challenge and per account are enforced here, in one conditional update.
     */
    async generateTwoFactorCode(challenge: string, language: Language): Promise<{ expires_in: number }> {
      const now = clock.now();
      const tokenHash = sha256(challenge);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const [claimed] = await db
        .update(twoFactorChallenges)
        .set({
          codeHash: sha256(`${tokenHash}:${code}`),
          codeExpiresAt: new Date(now.getTime() + TWO_FACTOR_CODE_MS),
          codeAttempts: 0,
          codesSent: sql`${twoFactorChallenges.codesSent} + 1`,
          lastSentAt: now,
        })
        .where(
          and(
            eq(twoFactorChallenges.tokenHash, tokenHash),
            gt(twoFactorChallenges.expiresAt, now),
            lt(twoFactorChallenges.codesSent, TWO_FACTOR_MAX_CODES),
            lt(twoFactorChallenges.attempts, TWO_FACTOR_CHALLENGE_ATTEMPTS),
            or(isNull(twoFactorChallenges.lastSentAt), lte(twoFactorChallenges.lastSentAt, new Date(now.getTime() - TWO_FACTOR_RESEND_MS))),
          ),
        )
        .returning({ userId: twoFactorChallenges.userId });
      if (!claimed) {
        const row = await challengeRow(challenge);
        if (!row || row.expiresAt <= now) throw new AppError(422, 'auth.twoFactor.invalidEmail');
        if (row.lastSentAt && row.codesSent < TWO_FACTOR_MAX_CODES && row.attempts < TWO_FACTOR_CHALLENGE_ATTEMPTS) {
          throw tooManyRequests('auth.twoFactor.resendTooSoon', row.lastSentAt.getTime() + TWO_FACTOR_RESEND_MS - now.getTime());
        }
        throw tooManyRequests('auth.twoFactor.tooManyCodes', row.expiresAt.getTime() - now.getTime());
      }
      await rateLimit(`2fa-codes:${claimed.userId}`, TWO_FACTOR_ACCOUNT_CODES, 60 * 60 * 1000, 'auth.twoFactor.tooManyCodes');
      const found = await findUserById(db, claimed.userId);
      if (!found) throw new AppError(422, 'auth.twoFactor.invalidEmail');
      await sendMail(found.user.email, found.account.subsiteId, language, 'twoFactor', { code, minutes: 3 });
      return { expires_in: TWO_FACTOR_CODE_MS / 1000 };
    },

    /**
     * Checks a code of the login holding `challenge`. Each attempt is claimed in one conditional update (per code,
     * per challenge) and counted per account before the code is compared; the challenge is used up by the first
     * right code. "Trust this browser" answers a random device secret, stored hashed with its expiry.
     */
    async verifyTwoFactorCode(
      input: { code: string; challenge: string; remember: boolean; fingerprint?: Fingerprint },
      userAgent: string,
    ): Promise<{ user: SessionUser; device_secret?: string }> {
      const now = clock.now();
      const tokenHash = sha256(input.challenge);
      const [attempt] = await db
        .update(twoFactorChallenges)
        .set({ codeAttempts: sql`${twoFactorChallenges.codeAttempts} + 1`, attempts: sql`${twoFactorChallenges.attempts} + 1` })
        .where(
          and(
            eq(twoFactorChallenges.tokenHash, tokenHash),
            gt(twoFactorChallenges.expiresAt, now),
            sql`${twoFactorChallenges.codeHash} is not null`,
            lt(twoFactorChallenges.codeAttempts, TWO_FACTOR_CODE_ATTEMPTS),
            lt(twoFactorChallenges.attempts, TWO_FACTOR_CHALLENGE_ATTEMPTS),
          ),
        )
        .returning();
      if (!attempt) {
        const row = await challengeRow(input.challenge);
        if (!row || row.expiresAt <= now || !row.codeHash) throw fieldError('code', 'auth.twoFactor.noCode');
        throw fieldError('code', 'auth.twoFactor.tooManyAttempts');
      }
      await rateLimit(`2fa-attempts:${attempt.userId}`, TWO_FACTOR_ACCOUNT_ATTEMPTS, 60 * 60 * 1000, 'auth.twoFactor.tooManyAttempts');
      if (!attempt.codeExpiresAt || attempt.codeExpiresAt <= now) throw fieldError('code', 'auth.twoFactor.expired');
      if (attempt.codeHash !== sha256(`${tokenHash}:${input.code}`)) throw fieldError('code', 'auth.twoFactor.wrongCode');
      const [used] = await db.delete(twoFactorChallenges).where(eq(twoFactorChallenges.tokenHash, tokenHash)).returning({ userId: twoFactorChallenges.userId });
      const found = used ? await findUserById(db, used.userId) : null;
      if (!found) throw fieldError('code', 'auth.twoFactor.noCode');
      let deviceSecret: string | undefined;
      if (input.remember && input.fingerprint) {
        deviceSecret = randomBytes(32).toString('base64url');
        await db.insert(trustedBrowsers).values({
          userId: found.user.id,
          accountId: found.user.accountId,
          secretHash: sha256(deviceSecret),
          fingerprintHash: fingerprintHash(input.fingerprint),
          expiresAt: new Date(now.getTime() + TRUSTED_BROWSER_MS),
          createdAt: now,
        });
      }
      const user = await issueSession(found, attempt.remember, userAgent);
      return deviceSecret ? { user, device_secret: deviceSecret } : { user };
    },

    /** Forgets every browser the caller trusted: each asks for a code again. */
    async revokeTrustedBrowsers(actor: Actor): Promise<{ revoked: number }> {
      const removed = await db.delete(trustedBrowsers).where(eq(trustedBrowsers.userId, actor.userId)).returning({ id: trustedBrowsers.id });
      return { revoked: removed.length };
    },

    async logout(actor: Actor): Promise<void> {
      await db.update(sessions).set({ revokedAt: clock.now() }).where(eq(sessions.id, actor.sessionId));
    },

    async me(actor: Actor, token: string): Promise<SessionUser> {
      const found = await findUserById(db, actor.userId);
      if (!found) throw new AppError(401, UNAUTHENTICATED);
      const acting = actor.acting ? await findAccountById(db, actor.accountId) : null;
      return acting ? actingSessionUser(found, acting, token) : sessionUserOf(found, token);
    },

    /**
     * Answers alike for known and unknown addresses (the same message, the mail sent after the answer), so
     * the form cannot be used to find out who has an account.
     */
    async forgotPassword(input: { subsite_id: number; email_address: string; lang: Language }): Promise<void> {
      const found = await findUserByEmail(db, input.email_address);
      if (!found) return;
      const now = clock.now();
      const code = randomBytes(24).toString('base64url');
      await db.insert(passwordResets).values({ codeHash: sha256(code), userId: found.user.id, accountId: found.user.accountId, expiresAt: new Date(now.getTime() + RESET_LINK_MS), createdAt: now });
      const link = `${config.PUBLIC_URL.replace(/\/$/, '')}/user/reset-password?_c=${code}`;
      sendMail(found.user.email, found.account.subsiteId, input.lang, 'reset', { link }).catch((error: unknown) =>
        log.error('reset mail failed', { error: error instanceof Error ? error.message : String(error) }),
      );
    },

    /** A reset ends every other reset code, every session and every trusted browser of the user, and lifts the lock. */
    async resetPassword(input: { code: string; password: string }): Promise<void> {
      const now = clock.now();
      const email = await db.transaction(async (tx) => {
        const [reset] = await tx.select().from(passwordResets).where(eq(passwordResets.codeHash, sha256(input.code))).for('update');
        if (!reset || reset.usedAt) throw fieldError('code', 'auth.reset.invalidCode');
        if (reset.expiresAt <= now) throw fieldError('code', 'auth.reset.expired');
        const email = await updateUserCredentials(tx, reset.userId, { passwordHash: await hashPassword(input.password) });
        await afterPasswordChange(tx, reset.userId, null);
        return email;
      });
      if (email) await limits.clear(accountKey(email));
    },

    /**
     * Change-password dialog: a user updates themself; an administrator any user of the same account. The caller's
     * current password is checked (through the same lockout as a login) before an e-mail or password changes.
     */
    async updateUser(actor: Actor, input: { userId: number; email: string; password: string; current_password: string }, address: string): Promise<void> {
      const target = await findUserById(db, input.userId);
      const allowed = target && (target.user.id === actor.userId || (actor.role === 'admin' && target.account.id === actor.accountId));
      if (!target || !allowed) throw new AppError(404, 'errors.invalidUserId');
      const caller = await findUserById(db, actor.userId);
      if (!caller) throw new AppError(401, UNAUTHENTICATED);
      const checked = await checkPassword(caller.user.email, input.current_password, address);
      if (!checked.found) throw fieldError('current_password', 'validation.currentPassword.wrong');
      if (input.email !== target.user.email) {
        const taken = await findUserByEmail(db, input.email);
        if (taken) throw fieldError('email', 'validation.email.taken');
      }
      await db.transaction(async (tx) => {
        await updateUserCredentials(tx, target.user.id, { email: input.email, passwordHash: await hashPassword(input.password) });
        await afterPasswordChange(tx, target.user.id, target.user.id === actor.userId ? actor.sessionId : null);
      });
    },

    /** Spec §6: alarm receivers remove themselves with e-mail and password (the login's lockout applies). */
    async alertOptOut(input: { nt_useremail: string; nt_password: string; remove_push: boolean; subsite_id: number }, address: string): Promise<string> {
      const checked = await checkPassword(input.nt_useremail, input.nt_password, address);
      if (!checked.found) throw new AppError(422, 'auth.optOut.failed');
      const found = checked.found;
      if (found.account.subsiteId !== input.subsite_id && found.user.role !== 'support') throw forbidden('auth.wrongSite');
      await updateUserCredentials(db, found.user.id, { alertsOptOut: true, pushOptOut: found.user.pushOptOut || input.remove_push });
      return found.user.email;
    },
  };
}

export type AuthService = Awaited<ReturnType<typeof createAuthService>>;
