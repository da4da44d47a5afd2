import { eq } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import type { Role, SessionUser } from '../auth/model';
import { type AccountRow, accounts, type UserRow, users } from './schema';

/** User look-ups that other modules (auth, admin screens) reach through this service. */

export interface UserWithAccount {
  user: UserRow;
  account: AccountRow;
}

export async function findUserByEmail(db: Database, email: string): Promise<UserWithAccount | null> {
  const [row] = await db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.email, email.trim().toLowerCase()))
    .limit(1);
  return row ?? null;
}

export async function findUserById(db: Database, id: number): Promise<UserWithAccount | null> {
  const [row] = await db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, id))
    .limit(1);
  return row ?? null;
}

/** The caller as every module sees it after authentication. */
export interface Actor {
  userId: number;
  accountId: number;
  /** The account above this one (reseller or group), or the account itself. */
  parentAccountId: number;
  subsiteId: number;
  role: Role;
  language: 'sv' | 'en' | 'no';
  timezone: string;
  sessionId: string;
  /** Spec §1: whether the real-time map is enabled for this user (the RealTimeMap flag), as read when authenticated. */
  realtimeMap: boolean;
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
