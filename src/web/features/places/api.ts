import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PlaceGeocodeCandidate, PlaceGeocoderView, PlaceInput, PlaceView } from '../../../modules/places/model';
import type { TripApplyRulesResult } from '../../../modules/trips/model';
import type { UnitView } from '../../../modules/units/model';
import { api, request } from '../../lib/api';

/** Server state of the places screens (TanStack Query). */

export const placeKeys = {
  all: ['places'] as const,
  list: (q: string) => ['places', 'list', q] as const,
  one: (id: number) => ['places', 'one', id] as const,
  units: ['places', 'units'] as const,
};

export function usePlaces(q = '') {
  return useQuery({ queryKey: placeKeys.list(q), queryFn: () => api.get<PlaceView[]>('/api/places', { query: { q: q || undefined } }) });
}

export function usePlace(id: number | null) {
  return useQuery({
    queryKey: id === null ? [...placeKeys.all, 'new'] : placeKeys.one(id),
    queryFn: () => api.get<PlaceView>(`/api/places/${id}`),
    enabled: id !== null,
    retry: false,
  });
}

/** The units the caller can assign (the ones they see). */
export function usePlaceUnits() {
  return useQuery({ queryKey: placeKeys.units, queryFn: () => api.get<UnitView[]>('/api/units'), staleTime: 60_000 });
}

export function useSavePlace() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: PlaceInput }) => api.post<PlaceView>(id === null ? '/api/places' : `/api/places/${id}`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: placeKeys.all }),
  });
}

export function useDeletePlace() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request<{ id: number }>('DELETE', `/api/places/${id}`),
    onSettled: () => client.invalidateQueries({ queryKey: placeKeys.all }),
  });
}

/** A typed address (forward) or a point (reverse) to addresses with their coordinates. */
/** Whether addresses are looked up as streets (a configured geocoder) or as town names only. */
export function useGeocoder() {
  return useQuery({ queryKey: [...placeKeys.all, 'geocoder'], queryFn: () => api.get<PlaceGeocoderView>('/api/places/geocoder'), staleTime: Number.POSITIVE_INFINITY });
}

export function geocode(query: { q: string } | { lat: number; lon: number }): Promise<PlaceGeocodeCandidate[]> {
  return api.get<PlaceGeocodeCandidate[]>('/api/places/geocode', { query: 'q' in query ? { q: query.q } : { lat: query.lat, lon: query.lon } });
}

/** Applies the place rules to a unit's trips of a period; the trip log refetches. */
export function useApplyRules() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { unitId: number; from: string; to: string }) => api.post<TripApplyRulesResult>('/api/trips/apply-place-rules', input),
    onSuccess: () => client.invalidateQueries({ queryKey: ['triplog'] }),
  });
}
