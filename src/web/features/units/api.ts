import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import i18next from 'i18next';
import type {
  BulkResult,
  BulkTask,
  LockLogEntry,
  MeterHistoryEntry,
  NameHistoryEntry,
  ObjectDescriptionView,
  TheftModeView,
  TheftReportView,
  TrackerHistoryEntry,
  UnitDetail,
  UnitListQuery,
  UnitOptions,
  UnitView,
} from '../../../modules/units/model';
import { ApiError, api, apiHeaders, type Envelope } from '../../lib/api';
import { failed } from '../../lib/download';
import type { BulkJobView } from '../../../modules/accounts/model';

/** Server state of the unit screens (TanStack Query), and the few calls that are not JSON. */

export const unitKeys = {
  all: ['units'] as const,
  list: (query: Partial<UnitListQuery>) => ['units', 'list', query] as const,
  options: ['units', 'options'] as const,
  detail: (id: number) => ['units', 'detail', id] as const,
  sub: (id: number, what: string) => ['units', 'detail', id, what] as const,
};

function queryOf(query: Partial<UnitListQuery>): Record<string, string | number | undefined> {
  return { ...query } as Record<string, string | number | undefined>;
}

export function useUnitList(query: Partial<UnitListQuery>) {
  return useQuery({
    queryKey: unitKeys.list(query),
    queryFn: () => api.get<UnitView[]>('/api/units', { query: queryOf(query) }),
    placeholderData: keepPreviousData,
  });
}

export function useUnitOptions() {
  return useQuery({ queryKey: unitKeys.options, queryFn: () => api.get<UnitOptions>('/api/units/options'), staleTime: 60_000 });
}

export function useUnit(id: number | null) {
  return useQuery({
    queryKey: unitKeys.detail(id ?? 0),
    queryFn: () => api.get<UnitDetail>(`/api/units/${id}`),
    enabled: id !== null,
  });
}

export function useUnitSub<T>(id: number, what: 'name-history' | 'lock-log' | 'meters/history' | 'tracker-history' | 'object-description' | 'theft-report') {
  return useQuery({ queryKey: unitKeys.sub(id, what), queryFn: () => api.get<T>(`/api/units/${id}/${what}`) });
}
export type { LockLogEntry, MeterHistoryEntry, NameHistoryEntry, ObjectDescriptionView, TheftReportView, TrackerHistoryEntry };

/** Saves one section; the unit (and its lists) reload with what the server answered. */
export function useSaveSection<T = UnitDetail>(id: number, path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: unknown) => api.post<T>(`/api/units/${id}/${path}`, body),
    onSuccess: async (data) => {
      if (data && typeof data === 'object' && 'ID' in data) client.setQueryData(unitKeys.detail(id), data);
      await client.invalidateQueries({ queryKey: ['units', 'detail', id] });
      await client.invalidateQueries({ queryKey: ['units', 'list'] });
    },
  });
}

export function runBulk(unitIds: number[], task: BulkTask): Promise<BulkResult> {
  return api.post<BulkResult>('/api/units/bulk', { unitIds, task });
}

/** Starts a bulk task as a queued job on the server (administrators); `bulkJob` reads its progress. */
export function startBulkJob(unitIds: number[], task: BulkTask): Promise<BulkJobView> {
  return api.post<BulkJobView>('/api/admin/bulk-jobs', { target: 'units', ids: unitIds, task });
}

export function bulkJob(id: number): Promise<BulkJobView> {
  return api.get<BulkJobView>(`/api/admin/bulk-jobs/${id}`);
}

/** Uploads one picture (multipart, field "file"). */
export async function uploadImage(unitId: number, file: File): Promise<{ id: number }> {
  const form = new FormData();
  form.append('file', file);
  let response: Response;
  try {
    response = await fetch(`/api/units/${unitId}/images`, { method: 'POST', headers: apiHeaders(), body: form });
  } catch {
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  if (!response.ok) await failed(response);
  return ((await response.json()) as Envelope<{ id: number }>).data!;
}

export async function deleteImage(unitId: number, imageId: number): Promise<void> {
  const response = await fetch(`/api/units/${unitId}/images/${imageId}`, { method: 'DELETE', headers: apiHeaders() });
  if (!response.ok) await failed(response);
}

/** Spec §4 theft mode of one unit; while a switch is pending it is asked again until the tracker has answered. */
export function useTheftMode(id: number) {
  return useQuery({
    queryKey: unitKeys.sub(id, 'theft-mode'),
    queryFn: () => api.get<TheftModeView>(`/api/units/${id}/theft-mode`),
    refetchInterval: (query) => (query.state.data?.state === 'pending-on' || query.state.data?.state === 'pending-off' ? 15_000 : false),
  });
}

export function useSwitchTheftMode(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (on: boolean) => api.post<TheftModeView>(`/api/units/${id}/theft-mode`, { on }),
    onSuccess: async (view) => {
      client.setQueryData(unitKeys.sub(id, 'theft-mode'), view);
      // The operating mode's pending request and the list's theft mark change with it.
      await client.invalidateQueries({ queryKey: unitKeys.detail(id), exact: true });
      await client.invalidateQueries({ queryKey: ['units', 'list'] });
    },
  });
}
