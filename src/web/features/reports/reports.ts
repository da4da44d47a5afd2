/**
 * The reports screen's reports and filters (spec §1 reports; issue "Reports"): which reports there are, which of
 * them a user without access to a locked benefit or private car may see (spec §6: benefit value and summary), and
 * the query string every report, export and schedule shares.
 */

export const REPORT_KINDS = ['summary', 'benefit', 'eco', 'fuel', 'co2', 'environment'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** The reports a schedule can send (every report; see `scheduleInputSchema`). */
export const SCHEDULED_KINDS = ['summary', 'benefit', 'eco', 'fuel', 'co2', 'environment'] as const satisfies readonly ReportKind[];
export type ScheduledKind = (typeof SCHEDULED_KINDS)[number];
export const isScheduledKind = (kind: ReportKind): kind is ScheduledKind => SCHEDULED_KINDS.includes(kind as ScheduledKind);

/** Spec §6: the reports of a locked benefit/private car the caller has no access to. */
export const LOCKED_CAR_REPORTS: readonly ReportKind[] = ['summary', 'benefit'];

export const isReportKind = (value: string | undefined): value is ReportKind => REPORT_KINDS.includes(value as ReportKind);

export type ReportGrouping = 'vehicle' | 'driver';
export const EXPORT_FORMATS = ['pdf', 'xlsx', 'csv'] as const;
export type ReportExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ReportFilters {
  /** Chosen vehicles; none: the whole fleet (narrowed by department or driver when chosen). */
  unitIds: number[];
  departmentId: number | null;
  driverId: number | null;
  /** YYYY-MM-DD, both included; absent: the server's default period. */
  from?: string;
  to?: string;
  groupBy: ReportGrouping;
}

/** The reports that group per vehicle or per driver. */
export const GROUPED_REPORTS: readonly ReportKind[] = ['summary', 'benefit', 'eco', 'fuel', 'co2'];

/** The filters as the API's query (unitIds comma-separated; unset filters left out). */
export function reportQuery(kind: ReportKind, filters: ReportFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.unitIds.length > 0) query.set('unitIds', [...filters.unitIds].sort((a, b) => a - b).join(','));
  if (filters.departmentId !== null) query.set('departmentId', String(filters.departmentId));
  if (filters.driverId !== null) query.set('driverId', String(filters.driverId));
  if (filters.from) query.set('from', filters.from);
  if (filters.to) query.set('to', filters.to);
  if (GROUPED_REPORTS.includes(kind)) query.set('groupBy', filters.groupBy);
  return query;
}

/** A report's data path. */
export const reportPath = (kind: ReportKind, filters: ReportFilters) => `/api/reports/${kind}?${reportQuery(kind, filters).toString()}`;

/**
 * A report's export in a format, in the app's language: the fleet reports answer their own path with `format`, the
 * benefit report has an export path of its own.
 */
export function reportExportPath(kind: ReportKind, filters: ReportFilters, format: ReportExportFormat, lang: string): string {
  const query = reportQuery(kind, filters);
  query.set('format', format);
  if (kind !== 'benefit') return `/api/reports/${kind}?${query.toString()}`;
  query.set('lang', lang);
  return `/api/reports/benefit/export?${query.toString()}`;
}

/** The file name used when the server names none. */
export function reportFallbackName(kind: ReportKind, filters: ReportFilters, format: ReportExportFormat): string {
  return `${kind}${filters.from ? `-${filters.from}` : ''}${filters.to ? `-${filters.to}` : ''}.${format}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const positiveId = (value: string | null): number | null => {
  if (value === null || !/^\d{1,10}$/.test(value)) return null;
  const id = Number(value);
  return id > 0 && id <= 2_147_483_647 ? id : null;
};

/**
 * The filters kept in the screen's address (`?unitIds=1,2&departmentId=3&driverId=4&from=…&to=…&groupBy=driver`), so a
 * reload or a shared link shows the same report. What cannot be read is left out (the default in its place).
 */
export function filtersFromSearch(search: URLSearchParams): ReportFilters {
  const unitIds = [...new Set((search.get('unitIds') ?? '').split(',').map((part) => positiveId(part.trim())).filter((id): id is number => id !== null))];
  const from = search.get('from');
  const to = search.get('to');
  return {
    unitIds,
    departmentId: positiveId(search.get('departmentId')),
    driverId: positiveId(search.get('driverId')),
    ...(from && DAY.test(from) ? { from } : {}),
    ...(to && DAY.test(to) ? { to } : {}),
    groupBy: search.get('groupBy') === 'driver' ? 'driver' : 'vehicle',
  };
}

/** The filters as the screen's address query (the per-vehicle default and unset filters left out). */
export function filtersToSearch(filters: ReportFilters): URLSearchParams {
  const search = new URLSearchParams();
  if (filters.unitIds.length > 0) search.set('unitIds', [...filters.unitIds].sort((a, b) => a - b).join(','));
  if (filters.departmentId !== null) search.set('departmentId', String(filters.departmentId));
  if (filters.driverId !== null) search.set('driverId', String(filters.driverId));
  if (filters.from) search.set('from', filters.from);
  if (filters.to) search.set('to', filters.to);
  if (filters.groupBy !== 'vehicle') search.set('groupBy', filters.groupBy);
  return search;
}
