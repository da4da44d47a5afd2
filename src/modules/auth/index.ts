import { Elysia } from 'elysia';
import { requestLanguage } from '../../lib/api';
import { ok } from '../../lib/http';
import { translate } from '../../lib/i18n';
import { authGuard, requireActor } from './guard';
import {
  alertOptOutSchema,
  forgotPasswordSchema,
  loginSchema,
  resetPasswordSchema,
  twoFactorGenerateSchema,
  twoFactorVerifySchema,
  userUpdateSchema,
} from './model';
import { type AuthService, createAuthService } from './service';
import type { BrandService } from '../brands/service';
import { defineModule } from '../../composition';

/** What every module's routes use to know the caller. */
export { actingMayCall, authGuard, requireActor, requireAdministration, requireFullSubscription, requireRole } from './guard';

export { publicRateLimits } from './rate-limits';

export function authRoutes(auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['auth'] })
    .use(authGuard(auth))
    .post(
      '/login',
      async ({ body, headers, request, server }) => ok(await auth.login(body, headers['user-agent'] ?? '', auth.addressOf(request, server))),
      { body: loginSchema, detail: { summary: 'Log in with e-mail and password' } },
    )
    .post('/2fa/generate', async ({ body }) => ok(await auth.generateTwoFactorCode(body.challenge, body.lang)), {
      body: twoFactorGenerateSchema,
      detail: { summary: 'E-mail a two-factor code for the login that answered this challenge' },
    })
    .post('/2fa/verify', async ({ body, headers }) => ok(await auth.verifyTwoFactorCode(body, headers['user-agent'] ?? '')), {
      body: twoFactorVerifySchema,
      detail: { summary: 'Verify a two-factor code; "remember" answers a device secret that skips the code in this browser' },
    })
    .delete('/2fa/trusted-browsers', async ({ actor }) => ok(await auth.revokeTrustedBrowsers(requireActor(actor))), {
      detail: { summary: 'Forget every browser the caller trusted' },
    })
    .post(
      '/logout',
      async ({ actor }) => {
        await auth.logout(requireActor(actor));
        return ok(null);
      },
      { detail: { summary: 'Revoke the current token' } },
    )
    .get(
      '/me',
      async ({ actor, headers }) => {
        const token = headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
        return ok({ user: await auth.me(requireActor(actor), token) });
      },
      { detail: { summary: 'The signed-in user' } },
    )
    .post(
      '/password/forgot',
      async ({ body }) => {
        await auth.forgotPassword(body);
        return ok({ message: translate(body.lang, 'auth.reset.linkSent') });
      },
      { body: forgotPasswordSchema, detail: { summary: 'Send a password-reset link (the same answer for unknown addresses)' } },
    )
    .post(
      '/password/reset',
      async ({ body, request }) => {
        await auth.resetPassword(body);
        return ok({ message: translate(requestLanguage(request.headers), 'auth.reset.done') });
      },
      { body: resetPasswordSchema, detail: { summary: 'Set a new password with a reset code' } },
    )
    .post(
      '/user/update',
      async ({ body, actor, request, server }) => {
        await auth.updateUser(requireActor(actor), body, auth.addressOf(request, server));
        return ok({ message: translate(requestLanguage(request.headers), 'auth.userUpdated') });
      },
      { body: userUpdateSchema, detail: { summary: "Change e-mail and password (needs the caller's current password)" } },
    )
    .post(
      '/alerts/opt-out',
      async ({ body, request, server }) => {
        const email = await auth.alertOptOut(body, auth.addressOf(request, server));
        return ok({ message: translate(requestLanguage(request.headers), 'auth.optOut.done', { email }) });
      },
      { body: alertOptOutSchema, detail: { summary: 'Remove oneself from alerts and push notifications' } },
    );
}

/** Sign-in, sessions and the caller of every request. */
export const authModule = defineModule({
  name: 'auth',
  needs: ['brands'],
  create: (platform, { brands }: { brands: BrandService }) => createAuthService(platform, brands),
  routes: (auth) => authRoutes(auth),
  stop: (auth) => auth.close(),
});
