/** What the accounts module publishes about accounts and their users. */
declare module '../../lib/events' {
  interface EventMap {
    'user.registered': { accountId: number; userId: number; unitId: number };
    /** A user's department changed (spec §6: their unit access is reset). */
    'user.department_changed': { accountId: number; userId: number; departmentId: number | null };
    /** An administrator deleted a user (their unit access goes; their name stays on the trips they drove). */
    'user.deleted': { accountId: number; userId: number };
  }
}

export {};
