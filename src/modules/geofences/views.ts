import { integer, pgView } from 'drizzle-orm/pg-core';

/**
 * The geofences module's published read views (migrations/0201_account_geofences_view.sql): what other modules may
 * read of zones in their own queries.
 */
export const accountGeofences = pgView('account_geofences', {
  geofenceId: integer('geofence_id').notNull(),
  accountId: integer('account_id').notNull(),
}).existing();
