import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PlaceGeocodeCandidate } from '../../../modules/places/model';
import type { LatestPosition, SafeHomeRecord, SafeHomeSaved, SetGeofenceInput, ToggleStatusInput } from '../../../modules/safe-home/model';
import { api, request } from '../../lib/api';

/**
 * Server state of safe return home (spec §7 safe home calls). Every call goes through the app's request, so a 401 on
 * these paths sends the user to the map (spec §7).
 */
const BASE = '/api/admin/safe-home';

export const safeHomeKeys = {
  all: ['safe-home', 'list'] as const,
  position: (imei: string) => ['safe-home', 'position', imei] as const,
};

/** Every vehicle of the account with its switch, schedule and home. */
export function useSafeHomes() {
  return useQuery({ queryKey: safeHomeKeys.all, queryFn: ({ signal }) => api.get<SafeHomeRecord[]>(`${BASE}/list`, { signal }) });
}

/** The vehicle's latest valid position (both null without one): where a new home's map opens. */
export function fetchLatestPosition(imei: string): Promise<LatestPosition> {
  return api.get<LatestPosition>(`${BASE}/tracker/latest-position`, { query: { imei } });
}

/** The schedule as the update call takes it: JSON text of the weeks with their days (already reduced by the form). */
export interface ScheduleUpdate {
  imei: string;
  schedule: string;
  frequency: number;
  start_date: string;
  time_zone: string;
}

/** Puts a saved record in the list at once, then reads the list again behind it. */
function useSafeHomeMutation<I>(path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => request<SafeHomeSaved>('PUT', `${BASE}/${path}`, { body: input }),
    onSuccess: (saved) => {
      client.setQueryData<SafeHomeRecord[]>(safeHomeKeys.all, (list) => list?.map((record) => (record.imei === saved.record.imei ? saved.record : record)));
      void client.invalidateQueries({ queryKey: safeHomeKeys.all });
    },
  });
}

export const useToggleStatus = () => useSafeHomeMutation<ToggleStatusInput>('toggle-status');
export const useSetGeofence = () => useSafeHomeMutation<SetGeofenceInput>('set-geofence');
export const useUpdateSchedule = () => useSafeHomeMutation<ScheduleUpdate>('update-schedule-alert');

/** Address search: candidates for typed text, or the address at a point (the server's geocoder answers both). */
export function geocode(query: { q: string } | { lat: number; lon: number }, signal?: AbortSignal): Promise<PlaceGeocodeCandidate[]> {
  return api.get<PlaceGeocodeCandidate[]>('/api/places/geocode', { query: 'q' in query ? { q: query.q } : { lat: query.lat, lon: query.lon }, signal });
}
