import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DefaultPurpose, PurposeCatalog } from '../../../modules/accounts/model';
import type { HistoryDay } from '../../../modules/tracking/model';
import type { TripAttestView, TripCheckInResult, TripDriver, TripList, TripLogEntry, TripMergeInput, TripType, TripUpdateInput } from '../../../modules/trips/model';
import type { TripLockState } from '../../../modules/trips/model';
import type { UnitView } from '../../../modules/units/model';
import { api, request } from '../../lib/api';

/** Server state of the trip log screen (TanStack Query). */

export interface TripPeriod {
  unitId: number;
  /** YYYY-MM-DD, both inclusive; absent: the server's this month. */
  from?: string;
  to?: string;
}

export const triplogKeys = {
  all: ['triplog'] as const,
  units: ['triplog', 'units'] as const,
  list: (period: TripPeriod) => ['triplog', 'list', period] as const,
};

export function useTriplogUnits() {
  return useQuery({ queryKey: triplogKeys.units, queryFn: () => api.get<UnitView[]>('/api/units'), staleTime: 60_000 });
}

export function useTripDrivers() {
  return useQuery({ queryKey: [...triplogKeys.all, 'drivers'], queryFn: () => api.get<TripDriver[]>('/api/trips/drivers'), staleTime: 60_000 });
}

export function useTripList(period: TripPeriod | null) {
  return useQuery({
    queryKey: period ? triplogKeys.list(period) : [...triplogKeys.all, 'none'],
    queryFn: () => api.get<TripList>('/api/trips', { query: { unitId: period!.unitId, from: period!.from, to: period!.to } }),
    enabled: period !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/**
 * A trip's route for the small map: the fixes between its start and stop from the unit's history of the day (two days
 * for a trip over midnight, days taken in the trip log's zone), [lon, lat], oldest first.
 */
export function useTripPath(trip: TripLogEntry | null, timeZone: string | undefined) {
  return useQuery({
    queryKey: [...triplogKeys.all, 'path', trip?.id ?? null, trip?.startTime, trip?.stopTime],
    enabled: trip !== null && timeZone !== undefined,
    staleTime: 60_000,
    retry: false,
    queryFn: async ({ signal }) => {
      const day = (iso: string) => new Date(iso).toLocaleDateString('sv-SE', { timeZone });
      const from = Date.parse(trip!.startTime);
      const to = Date.parse(trip!.stopTime);
      const path: Array<[number, number]> = [];
      for (const date of new Set([day(trip!.startTime), day(trip!.stopTime)])) {
        const history = await api.get<HistoryDay>('/api/tracking/history', { query: { unitId: trip!.unitId, date }, signal });
        for (const [time, lat, lon] of history.positions) if (time >= from && time <= to) path.push([lon, lat]);
      }
      return path;
    },
  });
}

/** Every change refetches the list (totals per type follow). */
function useTripMutation<I, O>(run: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, onSettled: () => client.invalidateQueries({ queryKey: triplogKeys.all }) });
}

export const useUpdateTrip = () => useTripMutation(({ id, ...input }: TripUpdateInput & { id: number }) => api.post<null>(`/api/trips/${id}`, input));
export const useBulkType = () =>
  useTripMutation((input: { tripIds: number[]; type: TripType }) => api.post<{ updated: number }>('/api/trips/type', input));
export const useMergeTrips = () => useTripMutation((input: TripMergeInput) => api.post<{ id: number }>('/api/trips/merge', input));
export const useSplitTrip = () => useTripMutation((id: number) => api.post<{ ids: number[] }>(`/api/trips/${id}/split`));
export const useCheckIn = () =>
  useTripMutation(({ id, driverUserId }: { id: number; driverUserId: number | null }) =>
    api.post<TripCheckInResult>(`/api/trips/${id}/check-in`, { driverUserId }),
  );
export const useCheckOut = () => useTripMutation((id: number) => api.post<{ updated: number }>(`/api/trips/${id}/check-out`));

// --- Attest (spec §3 Attest record, §4, §6) --------------------------------------------------------------------

/** The read-only (attested) trips of the period shown. */
export function useAttestedTrips(period: TripPeriod | null) {
  return useQuery({
    queryKey: period ? ([...triplogKeys.all, 'attested', period] as const) : [...triplogKeys.all, 'attested', 'none'],
    queryFn: () => api.get<TripLockState>('/api/trips/attested', { query: { unitId: period!.unitId, from: period!.from, to: period!.to } }),
    enabled: period !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/** A user's attest of a month (YYYY-MM): the caller's own without a user id. */
export function useAttestStatus(userId: number | undefined, month: string | null) {
  return useQuery({
    queryKey: [...triplogKeys.all, 'attest', userId ?? 'me', month],
    queryFn: () => api.get<TripAttestView>('/api/trips/attests', { query: { userId, period: month! } }),
    enabled: month !== null,
    retry: false,
  });
}

export const useAttest = () =>
  useTripMutation((input: { userId?: number; period: string; note: string }) => api.post<TripAttestView>('/api/trips/attests', input));
export const useUnlockAttest = () => useTripMutation((id: number) => api.post<TripAttestView>(`/api/trips/attests/${id}/unlock`));
export const useUnattest = () => useTripMutation((id: number) => api.post<TripAttestView>(`/api/trips/attests/${id}/unattest`));
export const useRemoveAttest = () => useTripMutation((id: number) => request<TripAttestView>('DELETE', `/api/trips/attests/${id}`));

// --- Default purposes (account settings; spec §3, §5, §6) -----------------------------------------------------

const purposeKey = ['purposes'] as const;

export function usePurposes() {
  return useQuery({ queryKey: purposeKey, queryFn: () => api.get<PurposeCatalog>('/api/purposes'), staleTime: 60_000 });
}

function usePurposeMutation<I, O>(run: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, onSettled: () => client.invalidateQueries({ queryKey: purposeKey }) });
}

export const useCreatePurpose = () => usePurposeMutation((input: { name: string; description: string }) => api.post<DefaultPurpose>('/api/purposes', input));
export const useUpdatePurpose = () =>
  usePurposeMutation(({ id, ...input }: { id: number; name: string; description: string }) => api.post<DefaultPurpose>(`/api/purposes/${id}`, input));
export const useDeletePurpose = () => usePurposeMutation((id: number) => request<{ id: number }>('DELETE', `/api/purposes/${id}`));
export const usePurposeSettings = () =>
  usePurposeMutation((usersMayCreate: boolean) => api.post<PurposeCatalog>('/api/purposes/settings', { usersMayCreate }));
