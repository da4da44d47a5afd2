import { Elysia } from 'elysia';
import { AppError, forbidden, UNAUTHENTICATED } from '../../lib/http';
import type { Actor } from '../accounts/users';
import type { Role } from './model';
import type { AuthService } from './service';

/**
 * Resolves the bearer token once per request into `actor` (or null). Every module `.use()`s this;
 * Elysia deduplicates it by name, so the lookup runs once.
 */
export function authGuard(auth: AuthService) {
  return new Elysia({ name: 'auth-guard' }).derive({ as: 'global' }, async ({ headers }) => ({
    actor: await auth.authenticate(headers.authorization),
  }));
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
