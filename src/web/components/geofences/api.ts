import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { GeofenceEventView, GeofenceInput, GeofenceSettings, GeofenceView } from '../../../modules/geofences/model';
import type { PlaceGeocodeCandidate } from '../../../modules/places/model';
import type { UnitView } from '../../../modules/units/model';
import { api, request } from '../../lib/api';

/** Server state of the geofence screens, the live map's zone layer and the feature profile's geozone picker (TanStack Query). */

export const geofenceKeys = {
  all: ['geofences'] as const,
  list: (q: string) => ['geofences', 'list', q] as const,
  one: (id: number) => ['geofences', 'one', id] as const,
  settings: ['geofences', 'settings'] as const,
  events: (query: GeofenceEventFilter) => ['geofences', 'events', query] as const,
  units: ['geofences', 'units'] as const,
};

export interface GeofenceEventFilter {
  geofenceId?: number;
  unitId?: number;
  /** ISO instants. */
  from?: string;
  to?: string;
  limit?: number;
}

export function useGeofences(q = '', options: { refetchInterval?: number; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: geofenceKeys.list(q),
    queryFn: () => api.get<GeofenceView[]>('/api/geofences', { query: { q: q || undefined } }),
    refetchInterval: options.refetchInterval,
    enabled: options.enabled ?? true,
  });
}

export function useGeofence(id: number | null) {
  return useQuery({
    queryKey: id === null ? [...geofenceKeys.all, 'new'] : geofenceKeys.one(id),
    queryFn: () => api.get<GeofenceView>(`/api/geofences/${id}`),
    enabled: id !== null,
    retry: false,
  });
}

export function useGeofenceSettings() {
  return useQuery({ queryKey: geofenceKeys.settings, queryFn: () => api.get<GeofenceSettings>('/api/geofences/settings'), staleTime: 300_000 });
}

export function useGeofenceEvents(filter: GeofenceEventFilter, enabled = true) {
  return useQuery({
    queryKey: geofenceKeys.events(filter),
    queryFn: () =>
      api.get<GeofenceEventView[]>('/api/geofences/events', {
        query: { geofenceId: filter.geofenceId, unitId: filter.unitId, from: filter.from, to: filter.to, limit: filter.limit },
      }),
    enabled,
  });
}

/** The units the caller can assign (the ones they see). */
export function useGeofenceUnits() {
  return useQuery({ queryKey: geofenceKeys.units, queryFn: () => api.get<UnitView[]>('/api/units'), staleTime: 60_000 });
}

export function useSaveGeofence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: GeofenceInput }) =>
      api.post<GeofenceView>(id === null ? '/api/geofences' : `/api/geofences/${id}`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: geofenceKeys.all }),
  });
}

export function useSetGeofenceActive() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, active }: { id: number; active: boolean }) => api.post<GeofenceView>(`/api/geofences/${id}/active`, { active }),
    // The lists show the saved zone at once (the switch does not spring back while they are read again).
    onSuccess: (saved) =>
      client.setQueriesData<GeofenceView[]>({ queryKey: [...geofenceKeys.all, 'list'] }, (zones) => zones?.map((zone) => (zone.id === saved.id ? saved : zone))),
    onSettled: () => client.invalidateQueries({ queryKey: geofenceKeys.all }),
  });
}

export function useDeleteGeofence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request<{ deleted: true }>('DELETE', `/api/geofences/${id}`),
    onSettled: () => client.invalidateQueries({ queryKey: geofenceKeys.all }),
  });
}

/** An address to its candidates with coordinates (the places module's geocoder answers it), to move the map there. */
export function geocodeAddress(q: string): Promise<PlaceGeocodeCandidate[]> {
  return api.get<PlaceGeocodeCandidate[]>('/api/places/geocode', { query: { q } });
}
