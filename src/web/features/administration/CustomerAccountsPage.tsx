import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { errorText } from '../../lib/api';
import { PATHS } from '../../lib/paths';
import { getSession, startSession } from '../../lib/session';
import { type TableView, useTableView } from '../../lib/table-view';
import { type CustomerAccount, useCustomerAccounts, useOpenCustomerAccount } from './api';
import './administration.css';

const NO_ACCOUNTS: CustomerAccount[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'company', desc: false }], hidden: [] };

/**
 * Support (every customer) and resellers (their own customers): find an account by company, org number or id and
 * open it read-only. The opening is recorded in that account's audit log.
 */
export function CustomerAccountsPage() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const found = useCustomerAccounts(search);
  const open = useOpenCustomerAccount();
  const view = useTableView('customer-accounts', DEFAULT_VIEW);

  async function openAccount(account: CustomerAccount) {
    try {
      const { user } = await open.mutateAsync(account.id);
      await startSession(user, getSession()?.remember ?? false);
      navigate(PATHS.userAccounts, { replace: true });
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  const columns: DataColumn<CustomerAccount>[] = [
    { id: 'company', header: t('admin.customers.company'), rowHeader: true, canHide: false, minRem: 12, sortValue: (a) => a.companyName.toLocaleLowerCase(), cell: (a) => a.companyName || `#${a.id}` },
    { id: 'id', header: t('admin.customers.id'), align: 'end', minRem: 5, sortValue: (a) => a.id, cell: (a) => a.id },
    { id: 'org', header: t('admin.customers.orgNumber'), minRem: 8, sortValue: (a) => a.orgNumber, cell: (a) => a.orgNumber || '–' },
    { id: 'city', header: t('admin.customers.city'), minRem: 8, sortValue: (a) => a.city, cell: (a) => a.city || '–' },
    { id: 'reseller', header: t('admin.customers.reseller'), minRem: 8, sortValue: (a) => a.reseller, cell: (a) => a.reseller || '–' },
    { id: 'users', header: t('admin.customers.users'), align: 'end', minRem: 5, sortValue: (a) => a.users, cell: (a) => a.users },
    {
      id: 'open',
      header: t('admin.customers.open'),
      headerHidden: true,
      canHide: false,
      minRem: 8,
      cell: (a) => (
        <Button className="btn btn-primary btn-small" onPress={() => void openAccount(a)} isDisabled={open.isPending} data-testid={`customer-open-${a.id}`}>
          {t('admin.customers.open')}
        </Button>
      ),
    },
  ];

  return (
    <div className="page admin-page">
      <div className="page-heading">
        <h1 className="page-title">{t('admin.customers.title')}</h1>
      </div>
      <p>{t('admin.customers.intro')}</p>
      <search aria-label={t('admin.customers.search')}>
        <Field type="search" label={t('admin.customers.search')} value={search} onChange={setSearch} testId="customer-search" />
      </search>
      {found.isError && <Banner kind="error">{errorText(found.error)}</Banner>}
      {view.ready && search.trim() !== '' && (
        <DataTable
          label={t('admin.customers.title')}
          rows={found.data ?? NO_ACCOUNTS}
          columns={columns}
          rowId={(a) => String(a.id)}
          view={view}
          empty={found.isPending ? t('common.loading') : t('admin.customers.none')}
          testId="customer-table"
        />
      )}
    </div>
  );
}
