import { Elysia } from 'elysia';
import { AppError, forbidden, UNAUTHENTICATED } from '../../lib/http';
import type { Actor, Role } from './model';
import type { AuthService } from './service';

/**
 * What support (and a reseller) may change while inside a customer's account, which is otherwise read-only
 * (issue 19): unlock units, register IMEIs into stock and add them, replace trackers, and leave.
 */
const ACTING_WRITES: ReadonlyArray<readonly [string, RegExp]> = [
  ['POST', /^\/api\/logout$/],
  ['POST', /^\/api\/units\/\d+\/unlock$/],
  ['POST', /^\/api\/units\/\d+\/replace-tracker$/],
  ['POST', /^\/api\/admin\/tracker-stock$/],
  ['POST', /^\/api\/admin\/units$/],
  ['POST', /^\/api\/admin\/customer-accounts\/\d+\/open$/],
  // Reads sent as POST, and the support user's own table layouts (not the customer's data).
  ['POST', /^\/api\/announcement$/],
  ['POST', /^\/api\/preferences\/tables\/[\w-]+$/],
  ['POST', /^\/api\/units\/list-preferences$/],
];

/** Whether an acting support or reseller session may make this request (reads always). */
export function actingMayCall(method: string, path: string): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true;
  return ACTING_WRITES.some(([allowed, pattern]) => allowed === method && pattern.test(path));
}

/**
 * Resolves the bearer token once per request into `actor` (or null). Every module `.use()`s this;
 * Elysia deduplicates it by name, so the lookup runs once. A support or reseller session inside a customer's
 * account is refused every change but the few support performs (403 before the route runs).
 */
export function authGuard(auth: AuthService) {
  return new Elysia({ name: 'auth-guard' })
    .derive({ as: 'global' }, async ({ headers }) => ({
      actor: await auth.authenticate(headers.authorization),
    }))
    .onBeforeHandle({ as: 'global' }, ({ actor, request }) => {
      if (actor?.acting && !actingMayCall(request.method, new URL(request.url).pathname)) throw forbidden('errors.readOnlyAccount');
    });
}

export function requireActor(actor: Actor | null): Actor {
  if (!actor) throw new AppError(401, UNAUTHENTICATED);
  return actor;
}

export function requireRole(actor: Actor | null, ...roles: Role[]): Actor {
  const caller = requireActor(actor);
  if (!roles.includes(caller.role)) throw forbidden('errors.forbidden');
  return caller;
}

/** Places, the car schedule and safe return home: not part of a Bas-only subscription (spec §2 sidebar rule). */
export function requireFullSubscription(actor: Actor | null): Actor {
  const caller = requireActor(actor);
  if (caller.basicOnly) throw forbidden('errors.basicOnly');
  return caller;
}

/**
 * The account's administration screens: its administrators, and support or a reseller who opened the account
 * (they read it; the guard above refuses their changes).
 */
export function requireAdministration(actor: Actor | null): Actor {
  const caller = requireActor(actor);
  if (caller.role === 'admin' || caller.acting) return caller;
  throw forbidden('errors.forbidden');
}
