import { createHash, randomBytes } from 'node:crypto';
import type { Querier } from '../../lib/db/client';
import { uniqueViolation } from '../../lib/db/errors';
import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import { hashPassword } from '../../lib/password';
import type { Platform } from '../../lib/platform';
import { type AuditEntry, auditActors } from '../audit/events';
import { requireAdministration } from '../auth';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import type { BrandService } from '../brands/service';
import type { UnitService } from '../units/service';
import { claimLoginEmail, LOGIN_EMAIL_TAKEN, moveLoginEmail } from './login-emails';
import {
  type AdminSession,
  type AdminUserRow,
  INVITATION_MS,
  type UserAdminUpdate,
  type UserCreate,
  type UserListQuery,
  type UserStatus,
} from './model';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

interface UserRecord extends Record<string, unknown> {
  id: number;
  account_id: number;
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
  role: 'admin' | 'user' | 'support' | 'reseller';
  language: 'sv' | 'en' | 'no';
  department_id: number | null;
  department: string | null;
  user_group: string;
  realtime_map: boolean;
  two_factor: boolean;
  invited_at: Date | string | null;
}

const USER_COLUMNS = `u.id, u.account_id, u.email, u.first_name, u.last_name, u.phone, u.role, u.language, u.department_id, d.name AS department,
  u.user_group, u.realtime_map, u.two_factor, u.invited_at`;
const USER_FROM = 'users u LEFT JOIN department_directory d ON d.id = u.department_id';

/** The fields an administrator edits, as the audit log names them. */
const AUDITED = ['firstName', 'lastName', 'email', 'phone', 'isAdmin', 'departmentId', 'userGroup', 'realtimeMap', 'twoFactor'] as const;
type Audited = (typeof AUDITED)[number];

const fullName = (row: { first_name: string; last_name: string }) => `${row.first_name} ${row.last_name}`.trim();

/**
 * User administration (spec §2 /administration/user-accounts, §5, §6; issue 19 point 1): the account's users for
 * its administrators, invitations to set a password, edits with the §5 rules, deletion and open sessions. Every
 * change publishes `audit.entry` (and the department or deletion events the units module resets access on) in
 * its own transaction.
 */
export function createUserAdmin(platform: Platform, deps: { auth: AuthService; units: UnitService; brands: BrandService }) {
  const { database, clock, queue, outbox, mailer, config } = platform;
  const { auth, units, brands } = deps;

  /** The invitation mail is a queued job in the transaction that creates the user: it is sent once that commits. */
  queue.define<{ userId: number }>('accounts.invitation-mail', async ({ userId }) => {
    const [user] = await database.query<{ email: string; account_id: number; language: Language; subsite_id: number; first_name: string; deleted_at: unknown }>(
      `SELECT u.email, u.account_id, u.language, a.subsite_id, u.first_name, u.deleted_at FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.id = $1`,
      [userId],
    );
    if (!user || user.deleted_at) return;
    // The code is made here, so no link is ever stored in clear; a retried job sends a fresh one.
    const code = randomBytes(24).toString('base64url');
    const now = clock.now();
    await database.query('INSERT INTO user_invitations (code_hash, user_id, account_id, expires_at, created_at) VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz)', [
      sha256(code),
      userId,
      user.account_id,
      new Date(now.getTime() + INVITATION_MS).toISOString(),
      now.toISOString(),
    ]);
    const brand = await brands.get(Number(user.subsite_id));
    const link = `${config.PUBLIC_URL.replace(/\/$/, '')}/user/accept-invitation?_c=${code}`;
    const values = { brand: brand.name, link, name: user.first_name, days: 7 };
    await mailer.send({
      to: user.email,
      subject: translate(user.language, 'mail.invitation.subject', values),
      text: translate(user.language, 'mail.invitation.body', values),
    });
  });

  function audit(query: Querier, actor: Actor, action: string, target: { id: number; label: string }, changes?: AuditEntry['changes']) {
    return outbox.publish(query, 'audit.entry', {
      accountId: actor.accountId,
      ...auditActors(actor),
      action,
      target: { kind: 'user', ...target },
      changes,
      at: clock.now().toISOString(),
    });
  }

  /** A user of the caller's account (another account's, a deleted one or none: 404 "invalid user ID"). */
  async function accountUser(query: Querier, actor: Actor, userId: number, lock = false): Promise<UserRecord> {
    const [row] = await query<UserRecord>(
      `SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.id = $1 AND u.account_id = $2 AND u.deleted_at IS NULL${lock ? ' FOR UPDATE OF u' : ''}`,
      [userId, actor.accountId],
    );
    if (!row) throw notFound('errors.invalidUserId');
    return row;
  }

  async function checkDepartment(query: Querier, actor: Actor, departmentId: number | null): Promise<void> {
    if (departmentId === null) return;
    const [row] = await query('SELECT 1 FROM department_directory WHERE id = $1 AND account_id = $2', [departmentId, actor.accountId]);
    if (!row) throw fieldError('departmentId', 'units.department.notFound');
  }

  async function checkEmailFree(query: Querier, email: string, exceptUserId: number | null): Promise<void> {
    const [row] = await query('SELECT 1 FROM users WHERE email = $1 AND ($2::int IS NULL OR id <> $2)', [email, exceptUserId]);
    if (row) throw fieldError('email', 'validation.email.taken');
  }

  /** Spec: the account always keeps an administrator. Counted with the account's administrators locked. */
  async function otherAdmins(query: Querier, actor: Actor, userId: number): Promise<number> {
    const rows = await query<{ id: number }>("SELECT id FROM users WHERE account_id = $1 AND role = 'admin' AND deleted_at IS NULL AND id <> $2 FOR UPDATE", [
      actor.accountId,
      userId,
    ]);
    return rows.length;
  }

  // Login lockouts count per address in the rate-limit store, not per user, so a user is active or invited.
  function statusOf(row: UserRecord): UserStatus {
    return row.invited_at ? 'invited' : 'active';
  }

  async function toRows(actor: Actor, records: UserRecord[]): Promise<AdminUserRow[]> {
    const ids = records.map((row) => row.id);
    const [logins, counts] = await Promise.all([auth.lastLogins(ids), units.accessCounts(actor.accountId, ids)]);
    return records.map((row) => ({
      id: row.id,
      firstName: row.first_name,
      lastName: row.last_name,
      fullName: fullName(row),
      email: row.email,
      phone: row.phone,
      role: row.role,
      isAdmin: row.role === 'admin',
      departmentId: row.department_id,
      department: row.department,
      userGroup: row.user_group,
      // Spec §6: everyone but ordinary users sees every unit of the account.
      unitsVisible: row.role === 'user' ? (counts.get(row.id) ?? 0) : null,
      realtimeMap: row.realtime_map,
      twoFactor: row.two_factor,
      language: row.language,
      lastLogin: logins.get(row.id)?.toISOString() ?? null,
      status: statusOf(row),
    }));
  }

  const snapshot = (row: UserRecord): Record<Audited, unknown> => ({
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    isAdmin: row.role === 'admin',
    departmentId: row.department_id,
    userGroup: row.user_group,
    realtimeMap: row.realtime_map,
    twoFactor: row.two_factor,
  });

  async function mapUniqueEmail<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // Two administrators raced past the check: the unique index decides.
      if (uniqueViolation(error) === LOGIN_EMAIL_TAKEN) throw fieldError('email', 'validation.email.taken');
      throw error;
    }
  }

  return {
    /** The account's users with search, filters and sort (administrators). */
    async listUsers(actorOrNull: Actor | null, query: UserListQuery): Promise<AdminUserRow[]> {
      const actor = requireAdministration(actorOrNull);
      const params: unknown[] = [actor.accountId];
      const clauses = ['u.account_id = $1', 'u.deleted_at IS NULL'];
      if (query.q) {
        params.push(`%${query.q.replace(/[\\%_]/g, '\\$&')}%`);
        const n = `$${params.length}`;
        clauses.push(`(u.first_name || ' ' || u.last_name ILIKE ${n} OR u.email ILIKE ${n} OR u.phone ILIKE ${n} OR u.user_group ILIKE ${n})`);
      }
      if (query.role) {
        params.push(query.role);
        clauses.push(`u.role = $${params.length}`);
      }
      if (query.departmentId) {
        // Another account's department is refused, not answered with an empty list.
        await checkDepartment(database.query, actor, query.departmentId);
        params.push(query.departmentId);
        clauses.push(`u.department_id = $${params.length}`);
      }
      const records = await database.query<UserRecord>(`SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE ${clauses.join(' AND ')}`, params);
      let rows = await toRows(actor, records);
      if (query.status) rows = rows.filter((row) => row.status === query.status);
      const key = (row: AdminUserRow): string | number =>
        query.sort === 'name'
          ? row.fullName.toLowerCase()
          : query.sort === 'email'
            ? row.email
            : query.sort === 'role'
              ? row.role
              : query.sort === 'department'
                ? (row.department ?? '').toLowerCase()
                : query.sort === 'lastLogin'
                  ? (row.lastLogin ?? '')
                  : row.status;
      const sign = query.dir === 'desc' ? -1 : 1;
      return rows.sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
      });
    },

    async getUser(actorOrNull: Actor | null, userId: number): Promise<AdminUserRow> {
      const actor = requireAdministration(actorOrNull);
      const [row] = await toRows(actor, [await accountUser(database.query, actor, userId)]);
      return row!;
    },

    /** Creates a user of the account and e-mails an invitation in the brand and the user's language. */
    async createUser(actorOrNull: Actor | null, input: UserCreate): Promise<AdminUserRow> {
      const actor = requireAdministration(actorOrNull);
      // Nobody knows this password: the user sets theirs through the invitation.
      const unusable = await hashPassword(randomBytes(32).toString('base64url'));
      const userId = await mapUniqueEmail(() =>
        database.transaction(async (query) => {
          await checkEmailFree(query, input.email, null);
          await checkDepartment(query, actor, input.departmentId);
          const [created] = await query<{ id: number }>(
            `INSERT INTO users (account_id, email, password_hash, first_name, last_name, phone, role, language, timezone, two_factor, realtime_map,
                                department_id, user_group, invited_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::timestamptz, $14::timestamptz) RETURNING id`,
            [
              actor.accountId,
              input.email,
              unusable,
              input.firstName,
              input.lastName,
              input.phone,
              input.isAdmin ? 'admin' : 'user',
              input.language,
              actor.timezone || 'Europe/Stockholm',
              input.twoFactor,
              input.realtimeMap,
              input.departmentId,
              input.userGroup,
              clock.now().toISOString(),
            ],
          );
          const id = created!.id;
          await claimLoginEmail(query, { userId: id, accountId: actor.accountId }, input.email);
          await queue.enqueue(query, 'accounts.invitation-mail', { userId: id }, { uniqueKey: `invitation:${id}:${clock.now().toISOString()}` });
          await audit(query, actor, 'user.created', { id, label: `${input.firstName} ${input.lastName}`.trim() }, {
            email: { from: null, to: input.email },
            isAdmin: { from: null, to: input.isAdmin },
            departmentId: { from: null, to: input.departmentId },
          });
          return id;
        }),
      );
      return this.getUser(actor, userId);
    },

    /** Sends the invitation again (a user who has not set a password yet); earlier links stay valid until used or expired. */
    async resendInvitation(actorOrNull: Actor | null, userId: number): Promise<{ sent: true }> {
      const actor = requireAdministration(actorOrNull);
      await database.transaction(async (query) => {
        const user = await accountUser(query, actor, userId, true);
        if (!user.invited_at) throw new AppError(409, 'users.invitation.accepted');
        await query('UPDATE users SET invited_at = $2::timestamptz WHERE id = $1', [userId, clock.now().toISOString()]);
        await queue.enqueue(query, 'accounts.invitation-mail', { userId }, { uniqueKey: `invitation:${userId}:${clock.now().toISOString()}` });
        await audit(query, actor, 'user.invitation_sent', { id: userId, label: fullName(user) });
      });
      return { sent: true };
    },

    /** The invitation link: sets the first password once; the link and every other of the user's links are used up. */
    async acceptInvitation(input: { code: string; password: string }): Promise<{ email: string }> {
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      return database.transaction(async (query) => {
        const [invitation] = await query<{ user_id: number; expires_at: Date | string; used_at: unknown }>(
          'SELECT user_id, expires_at, used_at FROM user_invitations WHERE code_hash = $1 FOR UPDATE',
          [sha256(input.code)],
        );
        if (!invitation || invitation.used_at) throw fieldError('code', 'users.invitation.invalid');
        if (new Date(invitation.expires_at) <= now) throw fieldError('code', 'users.invitation.expired');
        const [user] = await query<{ email: string; account_id: number; first_name: string; last_name: string }>(
          'UPDATE users SET password_hash = $2, invited_at = NULL WHERE id = $1 AND deleted_at IS NULL RETURNING email, account_id, first_name, last_name',
          [invitation.user_id, passwordHash],
        );
        if (!user) throw fieldError('code', 'users.invitation.invalid');
        await query('UPDATE user_invitations SET used_at = $2::timestamptz WHERE user_id = $1 AND used_at IS NULL', [invitation.user_id, now.toISOString()]);
        await outbox.publish(query, 'audit.entry', {
          accountId: user.account_id,
          actorUserId: invitation.user_id,
          action: 'user.invitation_accepted',
          target: { kind: 'user', id: invitation.user_id, label: fullName(user) },
          at: now.toISOString(),
        });
        return { email: user.email };
      });
    },

    /**
     * Edits a user with every §5 rule. The last administrator cannot be demoted; a new department resets the user's
     * unit access (spec §6, through `user.department_changed`).
     */
    async updateUser(actorOrNull: Actor | null, userId: number, input: UserAdminUpdate): Promise<AdminUserRow> {
      const actor = requireAdministration(actorOrNull);
      await mapUniqueEmail(() =>
        database.transaction(async (query) => {
          const before = await accountUser(query, actor, userId, true);
          if (input.email !== before.email) await checkEmailFree(query, input.email, userId);
          await checkDepartment(query, actor, input.departmentId);
          // Support and reseller users keep their role; the flag toggles administrator and ordinary user.
          const role = before.role === 'admin' || before.role === 'user' ? (input.isAdmin ? 'admin' : 'user') : before.role;
          if (before.role === 'admin' && role !== 'admin' && (await otherAdmins(query, actor, userId)) === 0) {
            throw fieldError('isAdmin', 'users.lastAdmin');
          }
          const [after] = await query<UserRecord>(
            `UPDATE users SET first_name = $2, last_name = $3, email = $4, phone = $5, role = $6, department_id = $7, user_group = $8,
                              realtime_map = $9, two_factor = $10, language = coalesce($11, language)
             WHERE id = $1 RETURNING id, account_id, email, first_name, last_name, phone, role, language, department_id, NULL AS department,
                                     user_group, realtime_map, two_factor, invited_at`,
            [
              userId,
              input.firstName,
              input.lastName,
              input.email,
              input.phone,
              role,
              input.departmentId,
              input.userGroup,
              input.realtimeMap,
              input.twoFactor,
              input.language ?? null,
            ],
          );
          if (input.email !== before.email) await moveLoginEmail(query, { userId, accountId: after!.account_id }, input.email);
          const was = snapshot(before);
          const now = snapshot(after!);
          const changes: NonNullable<AuditEntry['changes']> = {};
          for (const field of AUDITED) if (was[field] !== now[field]) changes[field] = { from: was[field], to: now[field] };
          if (before.department_id !== input.departmentId) {
            await outbox.publish(query, 'user.department_changed', { accountId: actor.accountId, userId, departmentId: input.departmentId });
          }
          if (Object.keys(changes).length > 0) await audit(query, actor, 'user.updated', { id: userId, label: fullName(after!) }, changes);
        }),
      );
      return this.getUser(actor, userId);
    },

    /**
     * Deletes a user: no sign-in, no sessions, no unit access, in no list; the trips they drove keep their name.
     * The last administrator cannot be removed.
     */
    async deleteUser(actorOrNull: Actor | null, userId: number): Promise<{ id: number }> {
      const actor = requireAdministration(actorOrNull);
      // Spec §6: an ordinary user cannot delete themself (administrators may, while another administrator remains).
      if (actor.userId === userId && actor.role !== 'admin') throw forbidden();
      await database.transaction(async (query) => {
        const user = await accountUser(query, actor, userId, true);
        if (user.role === 'admin' && (await otherAdmins(query, actor, userId)) === 0) throw new AppError(422, 'users.lastAdmin');
        // The address is free again for a new user; the row stays for the names on trips and in the audit log.
        const [deleted] = await query<{ email: string; account_id: number }>(
          "UPDATE users SET deleted_at = $2::timestamptz, email = 'deleted-' || id || '@users.invalid', password_hash = '' WHERE id = $1 RETURNING email, account_id",
          [userId, clock.now().toISOString()],
        );
        await moveLoginEmail(query, { userId, accountId: deleted!.account_id }, deleted!.email);
        await query('UPDATE user_invitations SET used_at = $2::timestamptz WHERE user_id = $1 AND used_at IS NULL', [userId, clock.now().toISOString()]);
        await auth.endSessions(query, userId, null);
        await outbox.publish(query, 'user.deleted', { accountId: actor.accountId, userId });
        await audit(query, actor, 'user.deleted', { id: userId, label: fullName(user) }, { email: { from: user.email, to: null } });
      });
      return { id: userId };
    },

    /** A user's open sessions (administrators). */
    async sessions(actorOrNull: Actor | null, userId: number): Promise<AdminSession[]> {
      const actor = requireAdministration(actorOrNull);
      await accountUser(database.query, actor, userId);
      const open = await auth.openSessions(userId);
      return open.map((session) => ({
        id: session.id,
        userAgent: session.userAgent,
        createdAt: session.createdAt.toISOString(),
        expiresAt: session.expiresAt.toISOString(),
        current: session.id === actor.sessionId,
      }));
    },

    /** Ends one open session of a user, or every one (sessionId null). */
    async endSessions(actorOrNull: Actor | null, userId: number, sessionId: string | null): Promise<{ ended: number }> {
      const actor = requireAdministration(actorOrNull);
      return database.transaction(async (query) => {
        const user = await accountUser(query, actor, userId, true);
        const ended = await auth.endSessions(query, userId, sessionId);
        if (sessionId !== null && ended === 0) throw notFound('users.session.notFound');
        await audit(query, actor, 'user.sessions_ended', { id: userId, label: fullName(user) }, { sessions: { from: ended, to: 0 } });
        return { ended };
      });
    },
  };
}

export type UserAdmin = ReturnType<typeof createUserAdmin>;
