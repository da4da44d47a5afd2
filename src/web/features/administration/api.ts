import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AdminSession, AdminUserRow, UserAdminUpdate, UserCreate } from '../../../modules/accounts/model';
import type { AuditList } from '../../../modules/audit/model';
import type { SessionUser } from '../../../modules/auth/model';
import type { UserUnitAccess } from '../../../modules/units/model';
import { api, request } from '../../lib/api';

/** Server state of the administration screens (TanStack Query). */

export const adminKeys = {
  users: ['admin', 'users'] as const,
  usersList: (filters: UserFilters) => ['admin', 'users', 'list', filters] as const,
  sessions: (userId: number) => ['admin', 'users', 'sessions', userId] as const,
  units: (userId: number) => ['admin', 'users', 'units', userId] as const,
  audit: (filters: AuditFilters) => ['admin', 'audit', filters] as const,
  customers: (q: string) => ['admin', 'customers', q] as const,
};

export interface UserFilters {
  role?: 'admin' | 'user';
  departmentId?: number;
  status?: 'active' | 'invited';
}

export interface AuditFilters {
  from?: string;
  to?: string;
  actorUserId?: number;
  action?: string;
  target?: string;
}

export interface CustomerAccount {
  id: number;
  companyName: string;
  orgNumber: string;
  city: string;
  country: string;
  reseller: string;
  users: number;
}

/** The account's departments (the filters and the user form). */
export function useDepartments() {
  return useQuery({
    queryKey: ['admin', 'departments'],
    queryFn: async () => (await api.get<{ departments: Array<{ id: number; name: string }> }>('/api/units/options')).departments,
    staleTime: 60_000,
  });
}

export function useUsers(filters: UserFilters) {
  return useQuery({ queryKey: adminKeys.usersList(filters), queryFn: () => api.get<AdminUserRow[]>('/api/admin/users', { query: { ...filters } }) });
}

export function useSaveUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: UserCreate | UserAdminUpdate }) =>
      api.post<AdminUserRow>(id === null ? '/api/admin/users' : `/api/admin/users/${id}`, input),
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.users }),
  });
}

export function useDeleteUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request<{ id: number }>('DELETE', `/api/admin/users/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.users }),
  });
}

export function useResendInvitation() {
  return useMutation({ mutationFn: (id: number) => api.post<{ sent: true }>(`/api/admin/users/${id}/invitation`) });
}

export function useUserSessions(userId: number | null) {
  return useQuery({
    queryKey: adminKeys.sessions(userId ?? 0),
    queryFn: () => api.get<AdminSession[]>(`/api/admin/users/${userId}/sessions`),
    enabled: userId !== null,
  });
}

export function useEndSessions(userId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string | null) =>
      request<{ ended: number }>('DELETE', sessionId === null ? `/api/admin/users/${userId}/sessions` : `/api/admin/users/${userId}/sessions/${sessionId}`),
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.sessions(userId) }),
  });
}

export function useUserUnits(userId: number | null) {
  return useQuery({
    queryKey: adminKeys.units(userId ?? 0),
    queryFn: () => api.get<UserUnitAccess>(`/api/admin/users/${userId}/units`),
    enabled: userId !== null,
  });
}

export function useSaveUserUnits() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, unitIds }: { userId: number; unitIds: number[] }) => api.post<UserUnitAccess>(`/api/admin/users/${userId}/units`, { unitIds }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin', 'users'] }),
  });
}

export function useAudit(filters: AuditFilters) {
  return useQuery({ queryKey: adminKeys.audit(filters), queryFn: () => api.get<AuditList>('/api/audit', { query: { ...filters, limit: 1000 } }) });
}

export function useCustomerAccounts(q: string) {
  return useQuery({
    queryKey: adminKeys.customers(q),
    queryFn: () => api.get<CustomerAccount[]>('/api/admin/customer-accounts', { query: { q } }),
    enabled: q.trim().length > 0,
  });
}

export function useOpenCustomerAccount() {
  return useMutation({ mutationFn: (accountId: number) => api.post<{ user: SessionUser }>(`/api/admin/customer-accounts/${accountId}/open`) });
}
