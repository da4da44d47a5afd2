import type { Platform } from '../../lib/platform';
import type { Actor } from '../auth/model';
import { type TableView, tableViewSchema } from './model';

/** Preferences are the caller's own: every read and write names the caller's user id, nobody else's. */
export function createPreferenceService(platform: Pick<Platform, 'database' | 'clock'>) {
  const { database, clock } = platform;
  const tableKey = (table: string) => `table.${table}`;

  return {
    /** The caller's view of a table, or null when they have not chosen one (the screen's defaults apply). */
    async tableView(actor: Actor, table: string): Promise<TableView | null> {
      const [row] = await database.query<{ value: unknown }>('SELECT value FROM user_preferences WHERE user_id = $1 AND key = $2', [actor.userId, tableKey(table)]);
      if (!row) return null;
      // A stored value from an older shape is dropped rather than handed to the screen.
      const parsed = tableViewSchema.safeParse(typeof row.value === 'string' ? JSON.parse(row.value) : row.value);
      return parsed.success ? parsed.data : null;
    },

    async saveTableView(actor: Actor, table: string, view: TableView): Promise<TableView> {
      await database.query(
        `INSERT INTO user_preferences (user_id, account_id, key, value, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5::timestamptz)
         ON CONFLICT (user_id, key, account_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [actor.userId, actor.accountId, tableKey(table), JSON.stringify(view), clock.now().toISOString()],
      );
      return view;
    },
  };
}
export type PreferenceService = ReturnType<typeof createPreferenceService>;
