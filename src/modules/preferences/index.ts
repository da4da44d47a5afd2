import { Elysia } from 'elysia';
import { ok } from '../../lib/http';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import { tableViewParamsSchema, tableViewSchema } from './model';
import { createPreferenceService, type PreferenceService } from './service';
import { defineModule } from '../../composition';

const security = [{ bearer: [] }];

/** The caller's own screen preferences: a data table's sorting and hidden columns, kept per user. */
export function preferenceRoutes(preferences: PreferenceService, auth: AuthService) {
  return new Elysia({ prefix: '/api/preferences', tags: ['preferences'] })
    .use(authGuard(auth))
    .get('/tables/:table', async ({ actor, params }) => ok(await preferences.tableView(requireActor(actor), params.table)), {
      params: tableViewParamsSchema,
      detail: { summary: "The caller's sorting and hidden columns of a data table (null: the screen's defaults)", security },
    })
    .post('/tables/:table', async ({ actor, params, body }) => ok(await preferences.saveTableView(requireActor(actor), params.table, body)), {
      params: tableViewParamsSchema,
      body: tableViewSchema,
      detail: { summary: "Saves the caller's sorting (at most 3 columns) and hidden columns of a data table", security },
    });
}
export { createPreferenceService, type PreferenceService } from './service';
export { type TableView, tableViewSchema } from './model';

export const preferencesModule = defineModule({
  name: 'preferences',
  needs: [],
  create: (platform) => createPreferenceService(platform),
  routes: (preferences, { auth }: { auth: AuthService }) => preferenceRoutes(preferences, auth),
});
