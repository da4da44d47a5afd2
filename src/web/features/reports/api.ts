import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CongestionReport } from '../../../modules/reports/model';
import type { TripDriver } from '../../../modules/trips/model';
import type { UnitView } from '../../../modules/units/model';
import { api } from '../../lib/api';
import { type ReportFilters, type ReportKind, reportPath } from './reports';

/** Server state of the report screens (TanStack Query). */

export interface ReportPeriod {
  unitId: number;
  /** YYYY-MM-DD, both inclusive (Swedish days); absent: the server's this month. */
  from?: string;
  to?: string;
}

export const reportKeys = {
  all: ['reports'] as const,
  units: ['reports', 'units'] as const,
  congestion: (period: ReportPeriod) => ['reports', 'congestion', period] as const,
};

export function useReportUnits() {
  return useQuery({ queryKey: reportKeys.units, queryFn: () => api.get<UnitView[]>('/api/units'), staleTime: 60_000 });
}

export function useCongestionReport(period: ReportPeriod | null) {
  return useQuery({
    queryKey: period ? reportKeys.congestion(period) : [...reportKeys.all, 'none'],
    queryFn: () => api.get<CongestionReport>('/api/reports/congestion', { query: { unitId: period!.unitId, from: period!.from, to: period!.to } }),
    enabled: period !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

// ---- The reports screen (summary, benefit, eco, fuel, CO2, environmental) ----

export function useReportDrivers() {
  return useQuery({ queryKey: [...reportKeys.all, 'drivers'], queryFn: () => api.get<TripDriver[]>('/api/trips/drivers'), staleTime: 60_000 });
}

/** A report's data for the filters; not fetched while `enabled` is false (a locked car's report the caller may not see). */
export function useReport<T>(kind: ReportKind, filters: ReportFilters, enabled: boolean) {
  const path = reportPath(kind, filters);
  return useQuery({
    queryKey: [...reportKeys.all, kind, path],
    queryFn: () => api.get<T>(path),
    enabled,
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === kind ? previous : undefined),
    retry: false,
  });
}
