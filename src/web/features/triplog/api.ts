import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TripCheckInResult, TripDriver, TripList, TripMergeInput, TripType, TripUpdateInput } from '../../../modules/trips/model';
import type { UnitView } from '../../../modules/units/model';
import { api } from '../../lib/api';

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
