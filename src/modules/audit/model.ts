import { EXPORT_FORMATS } from '../../lib/export/formats';
import { z } from '../../lib/validation';

/** The audit log's screen and API (`GET /api/audit`, administrators). Shared with the web app. */

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'validation.dateRange.format');

export const auditQuerySchema = z
  .object({
    from: day.optional(),
    to: day.optional(),
    actorUserId: z.coerce.number().int().positive().optional(),
    action: z.string().trim().max(100).optional(),
    /** Searches the target's kind and name as they were at the time. */
    target: z.string().trim().max(100).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(200),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .refine((value) => !value.from || !value.to || value.from <= value.to, { path: ['to'], message: 'validation.dateRange.order' });
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditExportQuerySchema = z
  .object({
    from: day.optional(),
    to: day.optional(),
    actorUserId: z.coerce.number().int().positive().optional(),
    action: z.string().trim().max(100).optional(),
    target: z.string().trim().max(100).optional(),
    format: z.enum(EXPORT_FORMATS),
  })
  .refine((value) => !value.from || !value.to || value.from <= value.to, { path: ['to'], message: 'validation.dateRange.order' });
export type AuditExportQuery = z.infer<typeof auditExportQuerySchema>;

export interface AuditEntryView {
  id: number;
  at: string;
  actorUserId: number | null;
  /** The actor's name (a deleted user keeps theirs); null for the system. */
  actor: string | null;
  /** The support or reseller user who acted inside the account, by name. */
  support: string | null;
  action: string;
  target: { kind: string; id: number | null; label: string };
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

export interface AuditList {
  entries: AuditEntryView[];
  total: number;
  /** Everyone who appears as an actor, for the filter. */
  actors: Array<{ id: number; name: string }>;
  /** Every action that appears, for the filter. */
  actions: string[];
}
