import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { AdminUserRow } from '../../../modules/accounts/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field, SelectField } from '../../components/Form';
import { UserBulkPanel } from '../../components/UserBulkPanel';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { useSession } from '../../lib/session';
import { type TableView, useTableView } from '../../lib/table-view';
import { adminKeys, type UserFilters, useDeleteUser, useDepartments, useResendInvitation, useUsers } from './api';
import { SessionsDialog } from './SessionsDialog';
import { UserDialog } from './UserDialog';
import './administration.css';

const NO_USERS: AdminUserRow[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'name', desc: false }], hidden: ['phone', 'userGroup'] };

/**
 * Spec §2 /administration/user-accounts (administrators): the account's users with search, filters and sort;
 * create (with an invitation e-mail), edit, delete, resend the invitation and end a user's sessions.
 */
export function UserAccountsPage() {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const session = useSession();
  const readOnly = Boolean(session?.user.ActingAccount);
  const [search, setSearch] = useState('');
  const [filters, setFilters] = useState<UserFilters>({});
  const [editing, setEditing] = useState<AdminUserRow | null | 'new'>(null);
  const client = useQueryClient();
  // The users chosen for a bulk task (spec §2 bulk tasks), by id.
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [sessionsOf, setSessionsOf] = useState<AdminUserRow | null>(null);
  const [choosing, setChoosing] = useState(false);
  const list = useUsers(filters);
  const departmentList = useDepartments();
  const remove = useDeleteUser();
  const resend = useResendInvitation();
  const users = list.data ?? NO_USERS;
  const view = useTableView('user-accounts', DEFAULT_VIEW);
  const format = new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short', timeStyle: 'short' });
  const departments = departmentList.data ?? [];
  const yesNo = (value: boolean) => (value ? t('admin.users.on') : t('admin.users.off'));

  async function confirmDelete(user: AdminUserRow) {
    const confirmed = await dialogs.showMessage({
      title: t('admin.users.delete.title'),
      message: t('admin.users.delete.confirm', { name: user.fullName }),
      cancel: true,
      okLabel: t('admin.users.delete.action'),
    });
    if (!confirmed) return;
    try {
      await remove.mutateAsync(user.id);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  async function resendInvitation(user: AdminUserRow) {
    try {
      await resend.mutateAsync(user.id);
      await dialogs.showMessage({ title: t('admin.users.invited.title'), message: t('admin.users.invited.message', { email: user.email }) });
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  const columns: DataColumn<AdminUserRow>[] = [
    {
      id: 'name',
      header: t('admin.users.fields.name'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (user) => user.fullName.toLocaleLowerCase(),
      searchText: (user) => user.fullName,
      cell: (user) => user.fullName || '–',
    },
    { id: 'email', header: t('admin.users.fields.email'), minRem: 12, sortValue: (user) => user.email, searchText: (user) => user.email, cell: (user) => user.email },
    { id: 'phone', header: t('admin.users.fields.phone'), minRem: 8, sortValue: (user) => user.phone, searchText: (user) => user.phone, cell: (user) => user.phone || '–' },
    { id: 'role', header: t('admin.users.fields.role'), minRem: 8, sortValue: (user) => user.role, cell: (user) => t(`admin.users.roles.${user.role}`) },
    {
      id: 'department',
      header: t('admin.users.fields.department'),
      minRem: 8,
      sortValue: (user) => (user.department ?? '').toLocaleLowerCase(),
      searchText: (user) => user.department ?? '',
      cell: (user) => <span data-testid={`user-department-${user.id}`}>{user.department ?? '–'}</span>,
    },
    {
      id: 'userGroup',
      header: t('admin.users.fields.userGroup'),
      minRem: 8,
      sortValue: (user) => user.userGroup.toLocaleLowerCase(),
      searchText: (user) => user.userGroup,
      cell: (user) => user.userGroup || '–',
    },
    {
      id: 'units',
      header: t('admin.users.fields.unitsVisible'),
      align: 'end',
      minRem: 6,
      sortValue: (user) => user.unitsVisible ?? Number.MAX_SAFE_INTEGER,
      cell: (user) => <span data-testid={`user-units-${user.id}`}>{user.unitsVisible === null ? t('admin.users.allUnits') : user.unitsVisible}</span>,
    },
    { id: 'map', header: t('admin.users.fields.realtimeMap'), minRem: 5, sortValue: (user) => Number(user.realtimeMap), cell: (user) => yesNo(user.realtimeMap) },
    { id: 'twoFactor', header: t('admin.users.fields.twoFactor'), minRem: 5, sortValue: (user) => Number(user.twoFactor), cell: (user) => yesNo(user.twoFactor) },
    {
      id: 'lastLogin',
      header: t('admin.users.fields.lastLogin'),
      minRem: 9,
      sortValue: (user) => user.lastLogin ?? '',
      cell: (user) => (user.lastLogin ? format.format(new Date(user.lastLogin)) : t('admin.users.never')),
    },
    {
      id: 'status',
      header: t('admin.users.fields.status'),
      minRem: 6,
      sortValue: (user) => user.status,
      cell: (user) => <span data-testid={`user-status-${user.id}`}>{t(`admin.users.status.${user.status}`)}</span>,
    },
    {
      id: 'actions',
      header: t('admin.users.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 16,
      cell: (user) =>
        readOnly ? null : (
          <div className="admin-row-actions">
            <Button className="btn btn-secondary btn-small" onPress={() => setEditing(user)} aria-label={t('admin.users.edit', { name: user.fullName })} data-testid={`user-edit-${user.id}`}>
              {t('admin.users.editShort')}
            </Button>
            <Button className="btn btn-secondary btn-small" onPress={() => setSessionsOf(user)} data-testid={`user-sessions-${user.id}`}>
              {t('admin.sessions.open')}
            </Button>
            {user.status === 'invited' && (
              <Button className="btn btn-secondary btn-small" onPress={() => void resendInvitation(user)} data-testid={`user-resend-${user.id}`}>
                {t('admin.users.resend')}
              </Button>
            )}
            {user.id !== session?.user.ID && (
              <Button
                className="btn btn-danger btn-small"
                onPress={() => void confirmDelete(user)}
                aria-label={t('admin.users.delete.labelled', { name: user.fullName })}
                data-testid={`user-delete-${user.id}`}
              >
                {t('admin.users.delete.action')}
              </Button>
            )}
          </div>
        ),
    },
  ];

  return (
    <div className="page admin-page">
      <div className="page-heading">
        <h1 className="page-title">{t('admin.users.title')}</h1>
        <div className="page-heading-actions">
          <Link className="btn btn-secondary" to={PATHS.auditLog}>
            {t('admin.audit.title')}
          </Link>
          <Button className="btn btn-secondary" onPress={() => setChoosing(true)} isDisabled={!view.ready}>
            {t('table.columns')}
          </Button>
          {!readOnly && (
            <Button className="btn btn-primary" onPress={() => setEditing('new')} data-testid="user-new">
              {t('admin.users.create')}
            </Button>
          )}
        </div>
      </div>
      <div className="admin-filters">
        <search aria-label={t('admin.users.search')}>
          <Field type="search" label={t('admin.users.search')} value={search} onChange={setSearch} placeholder={t('admin.users.searchHint')} testId="user-search" />
        </search>
        <SelectField
          label={t('admin.users.fields.role')}
          value={filters.role ?? ''}
          onChange={(value) => setFilters((current) => ({ ...current, role: (value || undefined) as UserFilters['role'] }))}
          options={[
            { value: '', label: t('admin.users.any') },
            { value: 'admin', label: t('admin.users.roles.admin') },
            { value: 'user', label: t('admin.users.roles.user') },
          ]}
          testId="user-filter-role"
        />
        <SelectField
          label={t('admin.users.fields.department')}
          value={filters.departmentId ? String(filters.departmentId) : ''}
          onChange={(value) => setFilters((current) => ({ ...current, departmentId: value ? Number(value) : undefined }))}
          options={[{ value: '', label: t('admin.users.any') }, ...departments.map((d) => ({ value: String(d.id), label: d.name }))]}
          testId="user-filter-department"
        />
        <SelectField
          label={t('admin.users.fields.status')}
          value={filters.status ?? ''}
          onChange={(value) => setFilters((current) => ({ ...current, status: (value || undefined) as UserFilters['status'] }))}
          options={[
            { value: '', label: t('admin.users.any') },
            ...(['active', 'invited'] as const).map((status) => ({ value: status, label: t(`admin.users.status.${status}`) })),
          ]}
          testId="user-filter-status"
        />
      </div>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      {list.isPending || !view.ready ? (
        <p aria-live="polite">{t('common.loading')}</p>
      ) : (
        <DataTable
          label={t('admin.users.title')}
          rows={users}
          columns={columns}
          rowId={(user) => String(user.id)}
          view={view}
          filter={search}
          selection={readOnly ? undefined : { selected, onChange: setSelected, rowLabel: (user) => t('units.list.select', { name: user.fullName }) }}
          rowProps={(user) => ({ 'data-testid': `user-row-${user.id}` })}
          empty={t('admin.users.empty')}
          count={{ text: (shown) => t('admin.users.count', { count: shown }), testId: 'user-count', className: 'admin-count' }}
          testId="user-table"
        />
      )}
      {!readOnly && selected.size > 0 && (
        <UserBulkPanel
          users={users.filter((user) => selected.has(String(user.id))).map((user) => ({ id: user.id, name: user.fullName }))}
          onDone={() => void client.invalidateQueries({ queryKey: adminKeys.users })}
        />
      )}
      <ColumnChooser columns={columns} view={view} isOpen={choosing} onClose={() => setChoosing(false)} title={t('table.columns')} />
      <UserDialog user={editing === 'new' ? null : editing} isOpen={editing !== null} onClose={() => setEditing(null)} departments={departments} />
      <SessionsDialog user={sessionsOf} onClose={() => setSessionsOf(null)} />
    </div>
  );
}
