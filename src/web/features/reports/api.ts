import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CongestionReport } from '../../../modules/reports/model';
import type { UnitView } from '../../../modules/units/model';
import { api } from '../../lib/api';

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
