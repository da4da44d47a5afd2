import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import i18next from 'i18next';
import type { Envelope } from '../../../lib/http';
import type {
  BulkResult,
  BulkTask,
  ListPreferences,
  LockLogEntry,
  MeterHistoryEntry,
  NameHistoryEntry,
  ObjectDescriptionView,
  TheftReportView,
  TrackerHistoryEntry,
  UnitDetail,
  UnitListQuery,
  UnitOptions,
  UnitView,
} from '../../../modules/units/model';
import { ApiError, api } from '../../lib/api';
import { currentLanguage } from '../../lib/i18n';
import { getSession } from '../../lib/session';

/** Server state of the unit screens (TanStack Query), and the few calls that are not JSON. */

export const unitKeys = {
  all: ['units'] as const,
  list: (query: Partial<UnitListQuery>) => ['units', 'list', query] as const,
  options: ['units', 'options'] as const,
  preferences: ['units', 'preferences'] as const,
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

export function useListPreferences() {
  return useQuery({ queryKey: unitKeys.preferences, queryFn: () => api.get<ListPreferences>('/api/units/list-preferences'), staleTime: Number.POSITIVE_INFINITY });
}

export function useSaveListPreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (preferences: ListPreferences) => api.post<ListPreferences>('/api/units/list-preferences', preferences),
    onSuccess: (saved) => client.setQueryData(unitKeys.preferences, saved),
  });
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

function headers(): Record<string, string> {
  const session = getSession();
  const result: Record<string, string> = { 'x-requested-with': 'portal-web', 'x-lang': currentLanguage() };
  if (session) result.authorization = `Bearer ${session.user.token}`;
  return result;
}

async function failure(response: Response): Promise<never> {
  let body: Envelope<unknown> | null = null;
  try {
    body = (await response.json()) as Envelope<unknown>;
  } catch {
    body = null;
  }
  const message = body?.message ?? (typeof body?.errors === 'string' ? body.errors : '') ?? '';
  throw new ApiError(message || i18next.t('errors.generic'), response.status, body?.errors ?? null);
}

/** A file the API answers (PDF, picture) as an object URL; the caller revokes it. */
export async function fetchObjectUrl(path: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, { headers: headers() });
  } catch {
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  if (!response.ok) await failure(response);
  return URL.createObjectURL(await response.blob());
}

/** Downloads a file from the API under the name the server gives it. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await fetch(path, { headers: headers() });
  if (!response.ok) await failure(response);
  const disposition = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1];
  const name = encoded ? decodeURIComponent(encoded) : fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.dataset.testid = 'download-link';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Uploads one picture (multipart, field "file"). */
export async function uploadImage(unitId: number, file: File): Promise<{ id: number }> {
  const form = new FormData();
  form.append('file', file);
  let response: Response;
  try {
    response = await fetch(`/api/units/${unitId}/images`, { method: 'POST', headers: headers(), body: form });
  } catch {
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  if (!response.ok) await failure(response);
  return ((await response.json()) as Envelope<{ id: number }>).data!;
}

export async function deleteImage(unitId: number, imageId: number): Promise<void> {
  const response = await fetch(`/api/units/${unitId}/images/${imageId}`, { method: 'DELETE', headers: headers() });
  if (!response.ok) await failure(response);
}
