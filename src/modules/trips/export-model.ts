import { z } from '../../lib/validation';
import { tripListQuerySchema } from './model';

/**
 * Trip log exports: query schema and names shared with the web app (no server-only imports here).
 *
 * - se: Swedish körjournal as Skatteverket expects it (domain.md §1).
 * - no: Norwegian kjørebok (Skatteetaten, domain.md §5).
 * - uk: HMRC business mileage log, distances in miles (domain.md §5).
 */
export const EXPORT_FORMATS = ['pdf', 'csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_VARIANTS = ['se', 'no', 'uk'] as const;
export type ExportVariant = (typeof EXPORT_VARIANTS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** One unit's trips in a period (at most 12 months, spec §5), as a file; the variant follows the account's country unless given. */
export const tripExportQuerySchema = tripListQuerySchema.extend({
  format: z.enum(EXPORT_FORMATS).default('pdf'),
  variant: z.enum(EXPORT_VARIANTS).optional(),
  /** The texts' language; default the X-Lang header, else the user's language. */
  lang: z.enum(['sv', 'en', 'no']).optional(),
});
export type TripExportQuery = z.output<typeof tripExportQuerySchema>;
export type TripExportParams = z.input<typeof tripExportQuerySchema>;
