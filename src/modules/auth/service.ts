import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { jwtVerify, SignJWT } from 'jose';
import { AppError, fieldError, forbidden, UNAUTHENTICATED } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { users } from '../accounts/schema';
import {
  type Actor,
  actorOf,
  findUserByEmail,
  findUserById,
  sessionUserOf,
  type UserWithAccount,
} from '../accounts/users';
import type { BrandService } from '../brands/service';
import {
  type Fingerprint,
  LOGIN_LOCK_MS,
  LOGIN_MAX_ATTEMPTS,
  REMEMBERED_SESSION_MS,
  RESET_LINK_MS,
  SESSION_MS,
  type SessionUser,
  TRUSTED_BROWSER_MS,
  TWO_FACTOR_CODE_MS,
} from './model';
import { appSettings, passwordResets, sessions, trustedBrowsers, twoFactorChallenges } from './schema';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Spec §3: the trusted-browser entry is keyed by user agent, hardware concurrency, device memory and platform. */
export function fingerprintHash(fingerprint: Fingerprint): string {
  return sha256(
    [fingerprint.userAgent, fingerprint.hardwareConcurrency ?? '', fingerprint.deviceMemory ?? '', fingerprint.platform ?? ''].join('|'),
  );
}

/** A password check against a dummy hash keeps timing equal for unknown users. */
const DUMMY_HASH = await Bun.password.hash('not-a-real-password', { algorithm: 'argon2id' });

export async function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}

/** The token signing secret: from AUTH_SECRET, else generated once and kept in the database. */
async function loadSecret({ config, database }: Platform): Promise<Uint8Array> {
  if (config.AUTH_SECRET) return new TextEncoder().encode(config.AUTH_SECRET);
  const generated = randomBytes(48).toString('base64url');
  await database.db.insert(appSettings).values({ key: 'auth.secret', value: generated }).onConflictDoNothing();
  const [row] = await database.db.select().from(appSettings).where(eq(appSettings.key, 'auth.secret'));
  return new TextEncoder().encode(row!.value);
}

export type LoginResult = { user: SessionUser } | { twoFactorRequired: true; user_id: number };

export async function createAuthService(platform: Platform, brands: BrandService) {
  const { database, clock, mailer } = platform;
  const db = database.db;
  const secret = await loadSecret(platform);

  async function issueSession(found: UserWithAccount, remember: boolean, userAgent: string): Promise<SessionUser> {
    const now = clock.now();
    const id = randomUUID();
    const expiresAt = new Date(now.getTime() + (remember ? REMEMBERED_SESSION_MS : SESSION_MS));
    await db.insert(sessions).values({ id, userId: found.user.id, remember, userAgent: userAgent.slice(0, 512), createdAt: now, expiresAt });
    const token = await new SignJWT({ sid: id })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(found.user.id))
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(secret);
    return sessionUserOf(found, token);
  }

  async function isTrusted(userId: number, fingerprint: Fingerprint | undefined): Promise<boolean> {
    if (!fingerprint) return false;
    const [row] = await db
      .select({ id: trustedBrowsers.id })
      .from(trustedBrowsers)
      .where(
        and(
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

  return {
    /** Resolves a bearer token to its caller, or null when missing, expired or revoked. */
    async authenticate(authorization: string | null | undefined): Promise<Actor | null> {
      const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!token) return null;
      let sessionId: string;
      try {
        const { payload } = await jwtVerify(token, secret, { currentDate: clock.now(), algorithms: ['HS256'] });
        if (typeof payload.sid !== 'string') return null;
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
      return found ? actorOf(found, session.id) : null;
    },

    async login(
      input: { username: string; password: string; subsiteid: number; remember_me: boolean; fingerprint?: Fingerprint },
      userAgent: string,
    ): Promise<LoginResult> {
      const now = clock.now();
      const found = await findUserByEmail(db, input.username);
      if (!found) {
        await Bun.password.verify(input.password, DUMMY_HASH);
        throw new AppError(401, 'auth.invalidCredentials');
      }
      const { user } = found;
      if (user.lockedUntil && user.lockedUntil > now) throw new AppError(429, 'auth.lockedOut');
      const valid = await Bun.password.verify(input.password, user.passwordHash);
      if (!valid) {
        // A lock that has run out starts a fresh count.
        const previous = user.lockedUntil && user.lockedUntil <= now ? 0 : user.failedLogins;
        const failures = previous + 1;
        const lockedUntil = failures >= LOGIN_MAX_ATTEMPTS ? new Date(now.getTime() + LOGIN_LOCK_MS) : null;
        await db.update(users).set({ failedLogins: failures, lockedUntil }).where(eq(users.id, user.id));
        if (lockedUntil) throw new AppError(429, 'auth.lockedOut');
        throw new AppError(401, 'auth.invalidCredentialsAttempts', { detail: { count: LOGIN_MAX_ATTEMPTS - failures } });
      }
      // Support staff may sign in on any sub-site; everybody else on their own brand only.
      if (found.account.subsiteId !== input.subsiteid && user.role !== 'support') throw forbidden('auth.wrongSite');
      await db.update(users).set({ failedLogins: 0, lockedUntil: null }).where(eq(users.id, user.id));
      if (user.twoFactor && !(await isTrusted(user.id, input.fingerprint))) {
        const challenge = {
          userId: user.id,
          codeHash: null,
          codeExpiresAt: null,
          attempts: 0,
          remember: input.remember_me,
          challengeExpiresAt: new Date(now.getTime() + 15 * 60 * 1000),
          createdAt: now,
        };
        await db.insert(twoFactorChallenges).values(challenge).onConflictDoUpdate({ target: twoFactorChallenges.userId, set: challenge });
        return { twoFactorRequired: true, user_id: user.id };
      }
      return { user: await issueSession(found, input.remember_me, userAgent) };
    },

    /** E-mails a fresh 6-digit code for a login that passed its password. */
    async generateTwoFactorCode(userId: number, language: Language): Promise<{ expires_in: number }> {
      const now = clock.now();
      const [challenge] = await db
        .select()
        .from(twoFactorChallenges)
        .where(and(eq(twoFactorChallenges.userId, userId), gt(twoFactorChallenges.challengeExpiresAt, now)));
      const found = challenge ? await findUserById(db, userId) : null;
      if (!challenge || !found) throw new AppError(422, 'auth.twoFactor.invalidEmail');
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await db
        .update(twoFactorChallenges)
        .set({ codeHash: sha256(`${userId}:${code}`), codeExpiresAt: new Date(now.getTime() + TWO_FACTOR_CODE_MS), attempts: 0 })
        .where(eq(twoFactorChallenges.userId, userId));
      await sendMail(found.user.email, found.account.subsiteId, language, 'twoFactor', { code, minutes: 3 });
      return { expires_in: TWO_FACTOR_CODE_MS / 1000 };
    },

    async verifyTwoFactorCode(
      input: { code: string; user_id: number; remember: boolean; fingerprint?: Fingerprint },
      userAgent: string,
    ): Promise<{ user: SessionUser }> {
      const now = clock.now();
      const [challenge] = await db.select().from(twoFactorChallenges).where(eq(twoFactorChallenges.userId, input.user_id));
      if (!challenge || challenge.challengeExpiresAt <= now || !challenge.codeHash || !challenge.codeExpiresAt) {
        throw fieldError('code', 'auth.twoFactor.noCode');
      }
      if (challenge.codeExpiresAt <= now) throw fieldError('code', 'auth.twoFactor.expired');
      if (challenge.attempts >= 5) throw fieldError('code', 'auth.twoFactor.tooManyAttempts');
      if (challenge.codeHash !== sha256(`${input.user_id}:${input.code}`)) {
        await db.update(twoFactorChallenges).set({ attempts: challenge.attempts + 1 }).where(eq(twoFactorChallenges.userId, input.user_id));
        throw fieldError('code', 'auth.twoFactor.wrongCode');
      }
      await db.delete(twoFactorChallenges).where(eq(twoFactorChallenges.userId, input.user_id));
      const found = await findUserById(db, input.user_id);
      if (!found) throw fieldError('code', 'auth.twoFactor.noCode');
      if (input.remember && input.fingerprint) {
        const entry = { userId: input.user_id, fingerprintHash: fingerprintHash(input.fingerprint), expiresAt: new Date(now.getTime() + TRUSTED_BROWSER_MS), createdAt: now };
        await db.delete(trustedBrowsers).where(and(eq(trustedBrowsers.userId, entry.userId), eq(trustedBrowsers.fingerprintHash, entry.fingerprintHash)));
        await db.insert(trustedBrowsers).values(entry);
      }
      return { user: await issueSession(found, challenge.remember, userAgent) };
    },

    async logout(actor: Actor): Promise<void> {
      await db.update(sessions).set({ revokedAt: clock.now() }).where(eq(sessions.id, actor.sessionId));
    },

    async me(actor: Actor, token: string): Promise<SessionUser> {
      const found = await findUserById(db, actor.userId);
      if (!found) throw new AppError(401, UNAUTHENTICATED);
      return sessionUserOf(found, token);
    },

    /** Spec §8 names "e-mail not found" as a reset error shown under the field. */
    async forgotPassword(input: { subsite_id: number; email_address: string; lang: Language }): Promise<void> {
      const found = await findUserByEmail(db, input.email_address);
      if (!found) throw fieldError('email_address', 'auth.reset.emailNotFound');
      const now = clock.now();
      const code = randomBytes(24).toString('base64url');
      await db.insert(passwordResets).values({ codeHash: sha256(code), userId: found.user.id, expiresAt: new Date(now.getTime() + RESET_LINK_MS), createdAt: now });
      const link = `${platform.config.PUBLIC_URL.replace(/\/$/, '')}/user/reset-password?_c=${code}`;
      await sendMail(found.user.email, found.account.subsiteId, input.lang, 'reset', { link });
    },

    async resetPassword(input: { code: string; password: string }): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const [reset] = await tx.select().from(passwordResets).where(eq(passwordResets.codeHash, sha256(input.code))).for('update');
        if (!reset || reset.usedAt) throw fieldError('code', 'auth.reset.invalidCode');
        if (reset.expiresAt <= now) throw fieldError('code', 'auth.reset.expired');
        await tx.update(passwordResets).set({ usedAt: now }).where(eq(passwordResets.codeHash, reset.codeHash));
        await tx.update(users).set({ passwordHash: await hashPassword(input.password), failedLogins: 0, lockedUntil: null }).where(eq(users.id, reset.userId));
        // A new password ends every open session of that user.
        await tx.update(sessions).set({ revokedAt: now }).where(and(eq(sessions.userId, reset.userId), isNull(sessions.revokedAt)));
      });
    },

    /** Change-password dialog: a user updates themself; an administrator any user of the same account. */
    async updateUser(actor: Actor, input: { userId: number; email: string; password: string }): Promise<void> {
      const target = await findUserById(db, input.userId);
      const allowed = target && (target.user.id === actor.userId || (actor.role === 'admin' && target.account.id === actor.accountId));
      if (!target || !allowed) throw new AppError(404, 'errors.invalidUserId');
      if (input.email !== target.user.email) {
        const taken = await findUserByEmail(db, input.email);
        if (taken) throw fieldError('email', 'validation.email.taken');
      }
      await db.transaction(async (tx) => {
        await tx.update(users).set({ email: input.email, passwordHash: await hashPassword(input.password) }).where(eq(users.id, target.user.id));
        await tx
          .update(sessions)
          .set({ revokedAt: clock.now() })
          .where(and(eq(sessions.userId, target.user.id), isNull(sessions.revokedAt), sql`${sessions.id} <> ${actor.sessionId}`));
      });
    },

    /** Spec §6: alarm receivers remove themselves with e-mail and password. */
    async alertOptOut(input: { nt_useremail: string; nt_password: string; remove_push: boolean; subsite_id: number }): Promise<string> {
      const found = await findUserByEmail(db, input.nt_useremail);
      const valid = found ? await Bun.password.verify(input.nt_password, found.user.passwordHash) : false;
      if (!found || !valid) throw new AppError(422, 'auth.optOut.failed');
      if (found.account.subsiteId !== input.subsite_id && found.user.role !== 'support') throw forbidden('auth.wrongSite');
      await db.update(users).set({ alertsOptOut: true, pushOptOut: found.user.pushOptOut || input.remove_push }).where(eq(users.id, found.user.id));
      return found.user.email;
    },
  };
}

export type AuthService = Awaited<ReturnType<typeof createAuthService>>;
