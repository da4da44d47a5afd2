import { Elysia } from 'elysia';
import { requestLanguage } from '../../lib/api';
import { exportResponse } from '../../lib/export';
import { ok } from '../../lib/http';
import { authGuard } from '../auth';
import type { AuthService } from '../auth/service';
import { defineModule, subscription } from '../../composition';
import type { BrandService } from '../brands/service';
import { auditExportQuerySchema, auditQuerySchema } from './model';
import { type AuditService, createAuditService } from './service';

const security = [{ bearer: [] }];

/** The account's audit log (issue 19 point 6): administrators read and export it. */
export function auditRoutes(audit: AuditService, auth: AuthService) {
  return new Elysia({ prefix: '/api/audit', tags: ['audit'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await audit.list(actor, query)), {
      query: auditQuerySchema,
      detail: { summary: "The account's audit log, newest first: period (the caller's days), actor, action, target (administrators)", security },
    })
    .get(
      '/export',
      async ({ actor, query, request }) => {
        const document = await audit.exportDocument(actor, query, requestLanguage(request.headers));
        return exportResponse(document, query.format, `audit-log.${query.format}`);
      },
      { query: auditExportQuerySchema, detail: { summary: 'The audit log as PDF, CSV or XLSX with the same filters (administrators)', security } },
    );
}

/** Stores every `audit.entry` and shows the log. */
export const auditModule = defineModule({
  name: 'audit',
  needs: ['brands'],
  create: (platform, { brands }: { brands: BrandService }) => createAuditService(platform, brands),
  routes: (audit, { auth }: { auth: AuthService }) => auditRoutes(audit, auth),
  subscriptions: (audit) => [subscription('audit.entry', 'audit.store', (event, tx) => audit.store(event, tx))],
});
