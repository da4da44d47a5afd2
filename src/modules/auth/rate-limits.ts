import { Elysia } from 'elysia';
import type { AuthService } from './service';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

interface Limit {
  /** Counter name; operations naming the same one share it. */
  name: string;
  limit: number;
  windowMs: number;
  /** Counted per target (the e-mail or IMEI asked about) instead of per address. */
  target?: (input: { body: Record<string, unknown>; query: Record<string, unknown> }) => unknown;
}

const lower = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : undefined);

/**
 * Rate limits of the public and password-taking operations, per caller address and per target, counted in the
 * shared store (database or Redis) so they hold across instances. Password guesses are limited further by the
 * lockout in the auth service; two-factor codes per challenge and account by the challenge.
 */
export const RATE_LIMITS: Record<string, Limit[]> = {
  'POST /api/login': [{ name: 'login', limit: 50, windowMs: 15 * MINUTE }],
  'POST /api/2fa/generate': [{ name: 'two-factor', limit: 30, windowMs: 15 * MINUTE }],
  'POST /api/2fa/verify': [{ name: 'two-factor', limit: 30, windowMs: 15 * MINUTE }],
  'POST /api/password/forgot': [
    { name: 'forgot', limit: 10, windowMs: HOUR },
    { name: 'forgot-target', limit: 3, windowMs: HOUR, target: ({ body }) => lower(body.email_address) },
  ],
  'POST /api/password/reset': [{ name: 'reset', limit: 10, windowMs: 15 * MINUTE }],
  'POST /api/alerts/opt-out': [{ name: 'opt-out', limit: 10, windowMs: 15 * MINUTE }],
  'POST /api/user/update': [{ name: 'user-update', limit: 10, windowMs: 15 * MINUTE }],
  'POST /api/register': [{ name: 'register', limit: 20, windowMs: HOUR }],
  'GET /api/validate/email': [
    { name: 'validate', limit: 120, windowMs: MINUTE },
    { name: 'validate-email', limit: 20, windowMs: MINUTE, target: ({ query }) => lower(query.email) },
  ],
  'GET /api/validate/imei': [
    { name: 'validate', limit: 120, windowMs: MINUTE },
    { name: 'validate-imei', limit: 20, windowMs: MINUTE, target: ({ query }) => lower(query.imei) },
  ],
  'POST /api/payment-types': [{ name: 'validate', limit: 120, windowMs: MINUTE }],
};

/** Applies RATE_LIMITS before validation, so malformed requests count too. */
export function publicRateLimits(auth: AuthService) {
  return new Elysia({ name: 'public-rate-limits' }).onTransform({ as: 'global' }, async ({ request, route, server, body, query }) => {
    const limits = RATE_LIMITS[`${request.method} ${route}`];
    if (!limits) return;
    const address = auth.addressOf(request, server);
    const input = { body: (body ?? {}) as Record<string, unknown>, query: (query ?? {}) as Record<string, unknown> };
    for (const limit of limits) {
      const target = limit.target ? limit.target(input)?.toString().slice(0, 254) : address;
      if (target === undefined || target === '') continue;
      await auth.rateLimit(`${limit.name}:${String(target)}`, limit.limit, limit.windowMs);
    }
  });
}
