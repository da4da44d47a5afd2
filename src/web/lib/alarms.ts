import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { AlarmSummary } from '../../modules/alarms/model';
import type { LiveMessage } from '../../modules/tracking/model';
import { api } from './api';
import { useSession } from './session';

/**
 * The alarms every screen shares: the bell's summary (`GET /api/alarms/summary`) and the units with an open
 * security alarm (the map's halo, the unit list's badge). The live socket is the map's (`FleetStore`); it hands
 * its `alarms` messages here, and every listener (the bell, the map, the unit list) hears them without a socket of
 * its own. Screens without the map fall back to asking again every minute.
 */

export type LiveAlarmsMessage = Extract<LiveMessage, { type: 'alarms' }>;

/** An `alarms` message, or null when the socket has just (re)opened: what it missed while closed is read again. */
type AlarmsListener = (message: LiveAlarmsMessage | null) => void;
const listeners = new Set<AlarmsListener>();

/** Called by the live socket's owner for every `alarms` message, and with null each time the socket opens. */
export function publishLiveAlarms(message: LiveAlarmsMessage | null): void {
  for (const listener of listeners) listener(message);
}

export const alarmKeys = {
  all: ['alarms'] as const,
  summary: (userId: number) => ['alarms', 'summary', userId] as const,
  open: ['alarms', 'open'] as const,
};

const FALLBACK_REFRESH_MS = 60_000;
const NO_UNITS: readonly number[] = [];

/** The bell's summary, kept current by the live socket (when the map has it open) and a slow refresh otherwise. */
export function useAlarmSummary() {
  const session = useSession();
  const client = useQueryClient();
  const userId = session?.user.ID ?? 0;
  const query = useQuery({
    queryKey: alarmKeys.summary(userId),
    queryFn: () => api.get<AlarmSummary>('/api/alarms/summary'),
    enabled: Boolean(session),
    refetchInterval: FALLBACK_REFRESH_MS,
    staleTime: 10_000,
  });
  useEffect(() => {
    const listener: AlarmsListener = (message) => {
      // The count and the halos change at once; the latest alarms come with the next read.
      if (message) {
        client.setQueryData<AlarmSummary>(alarmKeys.summary(userId), (current) =>
          current ? { ...current, unacknowledged: message.unacknowledged, security: message.security } : current,
        );
      }
      void client.invalidateQueries({ queryKey: alarmKeys.all });
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [client, userId]);
  return query;
}

/** Ids of the units with an open security alarm. */
export function useSecurityUnits(): readonly number[] {
  return useAlarmSummary().data?.security ?? NO_UNITS;
}
