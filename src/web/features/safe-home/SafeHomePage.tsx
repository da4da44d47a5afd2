import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { SafeHomeRecord } from '../../../modules/safe-home/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { Icon } from '../../components/Icons';
import { errorText } from '../../lib/api';
import { type TableView, useTableView } from '../../lib/table-view';
import { HomeDialog } from './HomeDialog';
import { ScheduleDialog } from './ScheduleDialog';
import { alertCount } from './schedule';
import { useSafeHomes, useToggleStatus } from './api';
import './safe-home.css';

const DEFAULT_VIEW: TableView = { sorting: [{ id: 'name', desc: false }], hidden: [] };
const NO_RECORDS: SafeHomeRecord[] = [];

/**
 * Safe return home (spec §2 /administration/safe-return-home): every vehicle of the account with its on/off switch,
 * name, registration number, alert schedule and home. The table is searched by name or registration number and
 * sorted by either; the schedule icon opens the alert schedule modal, the home (its address, or Add Home) the map
 * modal. The switch goes on only for a vehicle with a schedule and an address (spec §4): the server refuses it
 * otherwise and its message is shown, the switch staying off.
 */
export function SafeHomePage() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const [search, setSearch] = useState('');
  const [homeOf, setHomeOf] = useState<SafeHomeRecord | null>(null);
  const [scheduleOf, setScheduleOf] = useState<SafeHomeRecord | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The switch shows the asked state while the server saves it.
  const [switching, setSwitching] = useState<Record<string, boolean>>({});
  const list = useSafeHomes();
  const toggle = useToggleStatus();
  const view = useTableView('safe-home', DEFAULT_VIEW);
  const records = list.data ?? NO_RECORDS;

  async function switchTo(record: SafeHomeRecord, on: boolean) {
    setNotice(null);
    setSwitching((current) => ({ ...current, [record.imei]: on }));
    let failure: unknown = null;
    try {
      const saved = await toggle.mutateAsync({ imei: record.imei, status: on ? 1 : 0 });
      setNotice(saved.message);
    } catch (error) {
      failure = error;
    } finally {
      setSwitching(({ [record.imei]: _done, ...rest }) => rest);
    }
    // Refused: the switch is back where it was before the message shows (spec §4: no change).
    if (failure) await dialogs.showMessage({ title: t('safeReturnHome.switchRefused'), message: errorText(failure), kind: 'error' });
  }

  const columns: DataColumn<SafeHomeRecord>[] = [
    {
      id: 'status',
      header: t('safeReturnHome.fields.status'),
      canHide: false,
      minRem: 5.5,
      cell: (record) => {
        const on = switching[record.imei] ?? record.status === 1;
        return (
          <label className="safe-home-switch">
            <input
              type="checkbox"
              role="switch"
              checked={on}
              aria-checked={on}
              disabled={record.imei in switching}
              onChange={(event) => void switchTo(record, event.target.checked)}
              aria-label={t('safeReturnHome.switchLabelled', { name: record.name })}
              data-testid={`safe-home-switch-${record.imei}`}
            />
            <span className="safe-home-switch-track" aria-hidden="true" />
            <span className="safe-home-switch-text">{on ? t('safeReturnHome.on') : t('safeReturnHome.off')}</span>
          </label>
        );
      },
    },
    {
      id: 'name',
      header: t('safeReturnHome.fields.name'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (record) => record.name.toLocaleLowerCase(),
      searchText: (record) => record.name,
      cell: (record) => <span data-testid={`safe-home-name-${record.imei}`}>{record.name}</span>,
    },
    {
      id: 'registration',
      header: t('safeReturnHome.fields.registration'),
      minRem: 8,
      sortValue: (record) => record.RegistrationNumber.toLocaleLowerCase(),
      searchText: (record) => record.RegistrationNumber,
      cell: (record) => record.RegistrationNumber || '–',
    },
    {
      id: 'schedule',
      header: t('safeReturnHome.fields.schedule'),
      minRem: 6.5,
      cell: (record) => {
        const count = alertCount(record.schedule);
        return (
          <Button
            className={`safe-home-schedule${count > 0 ? ' safe-home-schedule--set' : ''}`}
            onPress={() => setScheduleOf(record)}
            data-testid={`safe-home-schedule-${record.imei}`}
            data-alerts={count}
          >
            <Icon name="calendar" />
            <span className="visually-hidden">{t('safeReturnHome.schedule.open', { name: record.name })}: </span>
            <span className="safe-home-schedule-text">{count > 0 ? t('safeReturnHome.schedule.count', { count }) : t('safeReturnHome.schedule.none')}</span>
          </Button>
        );
      },
    },
    {
      id: 'home',
      header: t('safeReturnHome.fields.home'),
      minRem: 12,
      cell: (record) =>
        record.address ? (
          <Button
            className="btn-link safe-home-address"
            onPress={() => setHomeOf(record)}
            aria-label={t('safeReturnHome.home.editLabelled', { name: record.name, address: record.address })}
            data-testid={`safe-home-home-${record.imei}`}
          >
            {record.address}
          </Button>
        ) : (
          <Button
            className="btn btn-secondary btn-small"
            onPress={() => setHomeOf(record)}
            aria-label={t('safeReturnHome.home.addLabelled', { name: record.name })}
            data-testid={`safe-home-home-${record.imei}`}
          >
            {t('safeReturnHome.home.add')}
          </Button>
        ),
    },
  ];

  return (
    <div className="page safe-home-page">
      <h1 className="page-title">{t('safeReturnHome.title')}</h1>
      <p className="safe-home-intro">{t('safeReturnHome.intro')}</p>
      <search aria-label={t('safeReturnHome.search')} className="safe-home-search">
        <Field type="search" label={t('safeReturnHome.search')} value={search} onChange={setSearch} placeholder={t('safeReturnHome.searchHint')} testId="safe-home-search" />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      {notice && (
        <Banner kind="success" onClose={() => setNotice(null)} closeLabel={t('common.close')}>
          <span data-testid="safe-home-notice">{notice}</span>
        </Banner>
      )}
      <DataTable
        label={t('safeReturnHome.title')}
        rows={records}
        columns={columns}
        rowId={(record) => record.imei}
        view={view}
        filter={search.trim()}
        rowProps={(record) => ({ 'data-testid': `safe-home-row-${record.imei}` })}
        empty={list.isPending ? t('common.loading') : search.trim() ? t('safeReturnHome.noMatch') : t('safeReturnHome.empty')}
        count={{ text: (shown) => t('safeReturnHome.count', { count: shown }), testId: 'safe-home-count', className: 'safe-home-muted' }}
        testId="safe-home-table"
      />
      {homeOf && (
        <HomeDialog
          record={homeOf}
          onClose={(message) => {
            setHomeOf(null);
            if (message) setNotice(message);
          }}
        />
      )}
      {scheduleOf && (
        <ScheduleDialog
          record={scheduleOf}
          onClose={(message) => {
            setScheduleOf(null);
            if (message) setNotice(message);
          }}
        />
      )}
    </div>
  );
}
