import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AccountUserItem,
  AlarmLanguageTimeZone,
  AlarmReceiverInput,
  AlarmReceiverList,
  AlarmReceiverView,
  AlarmTypeToggle,
  AlertNumberInput,
  AlertNumberView,
  ReceiverUnits,
  UnitAssignment,
} from '../../../modules/alarm-receivers/model';
import type { AlarmView } from '../../../modules/alarms/model';
import { alarmKeys } from '../../lib/alarms';
import { api, request } from '../../lib/api';

/** Server state of the alarm screens (TanStack Query), on the wire contracts of `alarm-receivers` and `alarms`. */

const ADMIN = '/api/admin';

export const receiverKeys = {
  all: ['alarm-receivers'] as const,
  list: (q: string) => ['alarm-receivers', 'list', q] as const,
  users: ['alarm-receivers', 'users'] as const,
  units: (receiverId: number, memberId: number | null) => ['alarm-receivers', 'units', receiverId, memberId] as const,
  languageTimeZone: ['alarm-receivers', 'language-timezone'] as const,
  alertNumbers: ['alert-numbers'] as const,
};

export function useReceivers(q: string) {
  return useQuery({
    queryKey: receiverKeys.list(q),
    queryFn: () => api.get<AlarmReceiverList>(`${ADMIN}/alarm-receiver/list`, { query: { q: q || undefined } }),
    placeholderData: (previous) => previous,
  });
}

/** The account's users for "choose an existing user"; those already receivers are marked. */
export function useAccountUsers(enabled: boolean) {
  return useQuery({
    queryKey: receiverKeys.users,
    queryFn: async () => (await api.get<{ user: AccountUserItem[] }>(`${ADMIN}/user/list`, { query: { limit: -1 } })).user,
    enabled,
  });
}

export function useSaveReceiver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Partial<AlarmReceiverInput> & Pick<AlarmReceiverInput, 'id' | 'name'>) => api.post<{ id: number }>(`${ADMIN}/alarm-receiver/add-edit`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: receiverKeys.all }),
  });
}

export function useDeleteReceiver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.get<{ deleted: true }>(`${ADMIN}/alarm-receiver/${id}/delete`),
    onSuccess: () => client.invalidateQueries({ queryKey: receiverKeys.all }),
  });
}

export function useToggleAlarmType() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (toggle: AlarmTypeToggle) => api.post<AlarmReceiverView>(`${ADMIN}/alarm-receiver/alarm-type/toggle`, toggle),
    onSuccess: (receiver) => {
      // The row changes in place: every cached list that holds it takes the server's answer.
      client.setQueriesData<AlarmReceiverList>({ queryKey: ['alarm-receivers', 'list'] }, (current) =>
        current ? { ...current, alarmReceivers: current.alarmReceivers.map((row) => (row.id === receiver.id ? { ...row, ...receiver } : row)) } : current,
      );
    },
  });
}

export function useReceiverUnits(receiverId: number, memberId: number | null, enabled: boolean) {
  return useQuery({
    queryKey: receiverKeys.units(receiverId, memberId),
    queryFn: () => api.post<ReceiverUnits>(`${ADMIN}/alarm-receiver/get-units`, { receiverId, memberId }),
    enabled,
  });
}

export function useAssignUnits() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (assignment: UnitAssignment) => api.post<{ id: number }>(`${ADMIN}/alarm-receiver/unit/assign`, assignment),
    onSuccess: () => client.invalidateQueries({ queryKey: receiverKeys.all }),
  });
}

export function useSmsCredits() {
  return useQuery({
    queryKey: ['alarm-receivers', 'sms-credit'],
    queryFn: async () => (await api.get<{ sms_credit: number }>(`${ADMIN}/alertconfig/list`)).sms_credit,
  });
}

export function useLanguageTimeZone() {
  return useQuery({
    queryKey: receiverKeys.languageTimeZone,
    queryFn: () => api.get<AlarmLanguageTimeZone>(`${ADMIN}/alertconfig/language-timezone/get`),
  });
}

export function useSaveLanguageTimeZone() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { Language: string; TimeZone: string }) => api.post<AlarmLanguageTimeZone>(`${ADMIN}/alertconfig/language-timezone/save`, input),
    onSuccess: (saved) => {
      client.setQueryData(receiverKeys.languageTimeZone, saved);
      void client.invalidateQueries({ queryKey: ['alarm-receivers', 'list'] });
    },
  });
}

export function useAlertNumbers() {
  return useQuery({ queryKey: receiverKeys.alertNumbers, queryFn: () => api.get<AlertNumberView[]>(`${ADMIN}/alert-numbers`) });
}

export function useSaveAlertNumber() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: AlertNumberInput }) =>
      api.post<AlertNumberView>(id === null ? `${ADMIN}/alert-numbers` : `${ADMIN}/alert-numbers/${id}`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: receiverKeys.alertNumbers }),
  });
}

export function useDeleteAlertNumber() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request<{ deleted: true }>('DELETE', `${ADMIN}/alert-numbers/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: receiverKeys.alertNumbers }),
  });
}

/** The bell's acknowledgements: one alarm, or every open one. */
export function useAcknowledge() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (target: number | 'all') => {
      if (target !== 'all') {
        await api.post<AlarmView>(`/api/alarms/${target}/acknowledge`);
        return 1;
      }
      let total = 0;
      // Open alarms in pages of the most the server takes at once, until none is left.
      for (let round = 0; round < 20; round++) {
        const open = await api.get<AlarmView[]>('/api/alarms', { query: { state: 'open', limit: 500 } });
        if (open.length === 0) break;
        total += (await api.post<{ acknowledged: number }>('/api/alarms/acknowledge', { ids: open.map((alarm) => alarm.id) })).acknowledged;
        if (open.length < 500) break;
      }
      return total;
    },
    onSettled: () => client.invalidateQueries({ queryKey: alarmKeys.all }),
  });
}
