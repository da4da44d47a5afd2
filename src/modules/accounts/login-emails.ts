import { and, eq } from 'drizzle-orm';
import type { Database, Querier } from '../../lib/db/client';
import { loginEmails } from './schema';

/**
 * A login e-mail is unique over every account. The users table is distributed by account and its keys cannot check
 * that, so each e-mail is claimed in `login_emails` (a reference table keyed by the e-mail), in the transaction that
 * creates the user or changes their e-mail. A taken e-mail fails that transaction with a unique violation on
 * `LOGIN_EMAIL_TAKEN`, as the users' own unique index did before.
 */
export const LOGIN_EMAIL_TAKEN = 'login_emails_pkey';

export interface LoginOwner {
  userId: number;
  accountId: number;
}

/** Claims `email` for a new user. */
export async function claimLoginEmail(query: Querier, owner: LoginOwner, email: string): Promise<void> {
  await query('INSERT INTO login_emails (email, user_id, account_id) VALUES ($1, $2, $3)', [email, owner.userId, owner.accountId]);
}

/** Moves the user's claim to `email` (a user created before the directory without one gets it now). */
export async function moveLoginEmail(query: Querier, owner: LoginOwner, email: string): Promise<void> {
  const moved = await query('UPDATE login_emails SET email = $1 WHERE user_id = $2 AND account_id = $3 RETURNING email', [
    email,
    owner.userId,
    owner.accountId,
  ]);
  if (moved.length === 0) await claimLoginEmail(query, owner, email);
}

/** The same through a Drizzle handle or transaction, for the paths that write users with Drizzle. */
type DrizzleWriter = Pick<Database, 'insert' | 'update'>;

export async function claimLoginEmailWith(db: DrizzleWriter, owner: LoginOwner, email: string): Promise<void> {
  await db.insert(loginEmails).values({ email, userId: owner.userId, accountId: owner.accountId });
}

export async function moveLoginEmailWith(db: DrizzleWriter, owner: LoginOwner, email: string): Promise<void> {
  const moved = await db
    .update(loginEmails)
    .set({ email })
    .where(and(eq(loginEmails.userId, owner.userId), eq(loginEmails.accountId, owner.accountId)))
    .returning({ email: loginEmails.email });
  if (moved.length === 0) await claimLoginEmailWith(db, owner, email);
}
