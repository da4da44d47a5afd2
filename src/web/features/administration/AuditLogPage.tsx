import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { AuditEntryView } from '../../../modules/audit/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { DownloadProgress, useDownload } from '../../components/DownloadProgress';
import { Banner, Field, SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { type TableView, useTableView } from '../../lib/table-view';
import { type AuditFilters, useAudit } from './api';
import './administration.css';

const NO_ENTRIES: AuditEntryView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'at', desc: true }], hidden: [] };

const show = (value: unknown) => (value === null || value === undefined || value === '' ? '–' : typeof value === 'string' ? value : JSON.stringify(value));

/** The account's audit log (administrators): who changed what and when, filtered by period, actor, action and target, exported. */
export function AuditLogPage() {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const download = useDownload();
  const [filters, setFilters] = useState<AuditFilters>({});
  const list = useAudit(filters);
  const view = useTableView('audit-log', DEFAULT_VIEW);
  const format = new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short', timeStyle: 'medium' });
  const entries = list.data?.entries ?? NO_ENTRIES;
  const set = <K extends keyof AuditFilters>(key: K, value: AuditFilters[K]) => setFilters((current) => ({ ...current, [key]: value || undefined }));
  const actionName = (action: string) => t(`admin.audit.actions.${action}`, { defaultValue: action });

  async function exportAs(fileFormat: 'pdf' | 'csv' | 'xlsx') {
    const params = new URLSearchParams({ format: fileFormat });
    for (const [key, value] of Object.entries(filters)) if (value !== undefined) params.set(key, String(value));
    try {
      await download.start(`/api/audit/export?${params.toString()}`, `audit-log.${fileFormat}`);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  const columns: DataColumn<AuditEntryView>[] = [
    { id: 'at', header: t('admin.audit.col.time'), minRem: 10, canHide: false, sortValue: (entry) => entry.at, cell: (entry) => format.format(new Date(entry.at)) },
    {
      id: 'actor',
      header: t('admin.audit.col.actor'),
      minRem: 10,
      rowHeader: true,
      sortValue: (entry) => (entry.support ?? entry.actor ?? '').toLocaleLowerCase(),
      cell: (entry) =>
        entry.support ? t('admin.audit.bySupport', { name: entry.support }) : (entry.actor ?? t('admin.audit.system')),
    },
    { id: 'action', header: t('admin.audit.col.action'), minRem: 10, sortValue: (entry) => entry.action, cell: (entry) => actionName(entry.action) },
    {
      id: 'target',
      header: t('admin.audit.col.target'),
      minRem: 10,
      sortValue: (entry) => entry.target.label.toLocaleLowerCase(),
      cell: (entry) => entry.target.label || entry.target.kind,
    },
    {
      id: 'changes',
      header: t('admin.audit.col.changes'),
      minRem: 16,
      cell: (entry) =>
        entry.changes ? (
          <span className="admin-changes">
            {Object.entries(entry.changes)
              .map(([field, change]) => `${t(`admin.audit.fields.${field}`, { defaultValue: field })}: ${show(change.from)} → ${show(change.to)}`)
              .join('; ')}
          </span>
        ) : (
          '–'
        ),
    },
  ];

  return (
    <div className="page admin-page">
      <div className="page-heading">
        <h1 className="page-title">{t('admin.audit.title')}</h1>
        <div className="page-heading-actions">
          {(['pdf', 'xlsx', 'csv'] as const).map((fileFormat) => (
            <Button key={fileFormat} className="btn btn-secondary" onPress={() => void exportAs(fileFormat)} isDisabled={download.running !== null} data-testid={`audit-export-${fileFormat}`}>
              {fileFormat.toUpperCase()}
            </Button>
          ))}
        </div>
      </div>
      <DownloadProgress download={download} />
      <div className="admin-filters">
        <Field label={t('admin.audit.from')} value={filters.from ?? ''} onChange={(value) => set('from', value)} placeholder="YYYY-MM-DD" testId="audit-from" />
        <Field label={t('admin.audit.to')} value={filters.to ?? ''} onChange={(value) => set('to', value)} placeholder="YYYY-MM-DD" testId="audit-to" />
        <SelectField
          label={t('admin.audit.col.actor')}
          value={filters.actorUserId ? String(filters.actorUserId) : ''}
          onChange={(value) => set('actorUserId', value ? Number(value) : undefined)}
          options={[{ value: '', label: t('admin.users.any') }, ...(list.data?.actors ?? []).map((actor) => ({ value: String(actor.id), label: actor.name }))]}
          testId="audit-actor"
        />
        <SelectField
          label={t('admin.audit.col.action')}
          value={filters.action ?? ''}
          onChange={(value) => set('action', value)}
          options={[{ value: '', label: t('admin.users.any') }, ...(list.data?.actions ?? []).map((action) => ({ value: action, label: actionName(action) }))]}
          testId="audit-action"
        />
        <Field type="search" label={t('admin.audit.col.target')} value={filters.target ?? ''} onChange={(value) => set('target', value)} testId="audit-target" />
      </div>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      {list.isPending || !view.ready ? (
        <p aria-live="polite">{t('common.loading')}</p>
      ) : (
        <DataTable
          label={t('admin.audit.title')}
          rows={entries}
          columns={columns}
          rowId={(entry) => String(entry.id)}
          view={view}
          rowProps={(entry) => ({ 'data-testid': `audit-row-${entry.action}` })}
          empty={t('admin.audit.empty')}
          count={{ text: (shown) => t('admin.audit.count', { count: shown, total: list.data?.total ?? shown }), testId: 'audit-count', className: 'admin-count' }}
          testId="audit-table"
        />
      )}
    </div>
  );
}
