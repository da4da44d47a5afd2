import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api';
import { useSession } from '../lib/session';

export interface PublicConfig {
  alertNumbersParentAccountId: number | null;
  version: string;
}

export function usePublicConfig() {
  return useQuery({
    queryKey: ['config', 'public'],
    queryFn: () => api.get<PublicConfig>('/api/config/public'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Spec §2: the car schedule entry and page exist only when the server enables them. */
export function useCarScheduleEnabled() {
  const session = useSession();
  return useQuery({
    queryKey: ['car-schedule', 'enabled', session?.user.ID],
    queryFn: async () => (await api.get<{ EnableCarSchedule: boolean }>('/api/car-schedule/enabled')).EnableCarSchedule,
    enabled: Boolean(session),
    staleTime: 5 * 60 * 1000,
  });
}

/** Spec §2: safe return home, for administrators, when the server enables it. */
export function useSafeReturnHomeEnabled() {
  const session = useSession();
  const isAdmin = Boolean(session?.user.IsAdmin);
  return useQuery({
    queryKey: ['safe-home', 'config', session?.user.ID],
    queryFn: async () => (await api.get<{ EnableSafeReturnHome: boolean }>('/api/admin/safe-home/config')).EnableSafeReturnHome,
    enabled: isAdmin,
    staleTime: 5 * 60 * 1000,
  });
}

/** Spec §2: the parent account named in configuration alone gets /administration/configure-alert-numbers. */
export function useAlertNumbersAllowed(): boolean {
  const session = useSession();
  const config = usePublicConfig();
  const parent = config.data?.alertNumbersParentAccountId;
  return Boolean(session && parent !== null && parent !== undefined && session.user.ParentID === parent);
}
