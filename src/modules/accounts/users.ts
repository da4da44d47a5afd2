import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import type { Actor, SessionUser } from '../auth/model';
import { moveLoginEmailWith } from './login-emails';
import { type AccountRow, accounts, type UserRow, users } from './schema';

/** User look-ups and credential updates that other modules (auth, admin screens) reach through the accounts service. */

/** A Drizzle handle or the transaction it runs, so a credential change can join the caller's transaction. */
type Writer = Pick<Database, 'insert' | 'update'>;

/** The sign-in fields the auth module keeps on a user: failed attempts, lock, password, e-mail and alert opt-outs. */
export type UserCredentials = Partial<Pick<UserRow, 'email' | 'passwordHash' | 'alertsOptOut' | 'pushOptOut'>>;

/** Returns the user's e-mail address after the change (null: no such user). */
export async function updateUserCredentials(db: Writer, userId: number, change: UserCredentials): Promise<string | null> {
  const [row] = await db.update(users).set(change).where(eq(users.id, userId)).returning({ email: users.email, accountId: users.accountId });
  // A new e-mail moves the user's claim in the login directory, in the caller's transaction.
  if (row && change.email !== undefined) await moveLoginEmailWith(db, { userId, accountId: row.accountId }, row.email);
  return row?.email ?? null;
}

export interface UserWithAccount {
  user: UserRow;
  account: AccountRow;
}

export async function findUserByEmail(db: Database, email: string): Promise<UserWithAccount | null> {
  const [row] = await db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(users.email, email.trim().toLowerCase()), isNull(users.deletedAt)))
    .limit(1);
  return row ?? null;
}

export async function findUserById(db: Database, id: number): Promise<UserWithAccount | null> {
  const [row] = await db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(users.id, id), isNull(users.deletedAt)))
    .limit(1);
  return row ?? null;
}

export async function findAccountById(db: Database, id: number): Promise<AccountRow | null> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  return row ?? null;
}

export function actorOf({ user, account }: UserWithAccount, sessionId: string): Actor {
  return {
    userId: user.id,
    accountId: account.id,
    parentAccountId: account.parentId ?? account.id,
    subsiteId: account.subsiteId,
    role: user.role,
    language: user.language,
    timezone: user.timezone,
    sessionId,
    realtimeMap: user.realtimeMap,
    basicOnly: user.basicOnly,
  };
}

export function sessionUserOf({ user, account }: UserWithAccount, token: string): SessionUser {
  return {
    ID: user.id,
    FirstName: user.firstName,
    LastName: user.lastName,
    FullName: `${user.firstName} ${user.lastName}`.trim(),
    Email: user.email,
    Phone: user.phone,
    Role: user.role,
    IsAdmin: user.role === 'admin',
    AccountID: account.id,
    ParentID: account.parentId ?? account.id,
    SubsiteID: account.subsiteId,
    EnableTwoFactorAuth: user.twoFactor ? 1 : 0,
    userHasOnlyBasSubscription: user.basicOnly,
    RealTimeMap: user.realtimeMap,
    Language: user.language,
    TimeZone: user.timezone,
    token,
  };
}
