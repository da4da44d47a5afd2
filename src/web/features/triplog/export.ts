import { EXPORT_FORMATS, EXPORT_VARIANTS, type ExportFormat, type ExportVariant } from '../../../modules/trips/model';

/**
 * Trip log exports for the trip log screen (GET /api/trips/export): PDF, CSV or XLSX of one unit's period
 * (at most 12 months), as the Swedish körjournal, Norwegian kjørebok or HMRC mileage log. Without a variant
 * the server picks the account's market. The menu fetches it with `useDownload` (components/DownloadProgress.tsx),
 * which sends the session's headers, shows the progress and saves the file under the name the server gives.
 * Texts: `tripExport.*`.
 */

export { EXPORT_FORMATS, EXPORT_VARIANTS, type ExportFormat, type ExportVariant };

export interface TripExportRequest {
  unitId: number;
  /** YYYY-MM-DD, both inclusive (the caller's time zone); absent: this month. */
  from?: string;
  to?: string;
  format: ExportFormat;
  /** se, no or uk; absent: the account's country decides. */
  variant?: ExportVariant;
}

/** The API path of an export (relative, with its query). */
export function tripExportUrl(request: TripExportRequest): string {
  const query = new URLSearchParams({ unitId: String(request.unitId), format: request.format });
  if (request.from) query.set('from', request.from);
  if (request.to) query.set('to', request.to);
  if (request.variant) query.set('variant', request.variant);
  return `/api/trips/export?${query.toString()}`;
}

/** The file name to use when the answer names none. */
export function tripExportFallbackName(request: TripExportRequest): string {
  return `trip-log-${request.unitId}${request.from ? `-${request.from}` : ''}${request.to ? `-${request.to}` : ''}.${request.format}`;
}
