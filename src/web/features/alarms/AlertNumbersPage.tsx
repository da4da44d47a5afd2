import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { AlertNumberView } from '../../../modules/alarm-receivers/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { AppDialog, DialogActions, useDialogs } from '../../components/Dialogs';
import { Banner, Field, FormError } from '../../components/Form';
import { errorText, isApiError } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { type TableView, useTableView } from '../../lib/table-view';
import { useAlertNumbers, useDeleteAlertNumber, useSaveAlertNumber } from './api';
import { dialCode, PhoneFields, phoneText, type SaveFailure, saveFailure } from '../../components/alarms/ReceiverFields';
import './alarms.css';

const NO_NUMBERS: AlertNumberView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'phone', desc: false }], hidden: [] };

/** A 403: the screen is only for the users of the configured parent account. */
function forbidden(error: unknown): boolean {
  return isApiError(error) && error.status === 403;
}

function NumberDialog({ number, onClose }: { number: AlertNumberView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const save = useSaveAlertNumber();
  const [countryCode, setCountryCode] = useState(dialCode(number?.country_code));
  const [phone, setPhone] = useState(number?.phone ?? '');
  const [label, setLabel] = useState(number?.label ?? '');
  const [failure, setFailure] = useState<SaveFailure>({ fields: {}, message: null });

  async function submit() {
    setFailure({ fields: {}, message: null });
    try {
      await save.mutateAsync({ id: number?.id ?? null, input: { country_code: countryCode, phone: phone.trim(), label: label.trim() || undefined } });
      onClose();
    } catch (error) {
      setFailure(forbidden(error) ? { fields: {}, message: t('alertNumbers.forbidden') } : saveFailure(error));
    }
  }

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={number ? t('alertNumbers.edit.title') : t('alertNumbers.add.title')} className="alarm-dialog">
      <form
        noValidate
        className="alarm-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        data-testid="alert-number-form"
      >
        <PhoneFields countryCode={countryCode} phone={phone} onCountryCode={setCountryCode} onPhone={setPhone} errors={failure.fields} isRequired testIdPrefix="alert-number" />
        <Field label={t('alertNumbers.fields.label')} value={label} onChange={setLabel} maxLength={50} description={t('alertNumbers.fields.labelHint')} testId="alert-number-label" />
        <FormError error={failure.message} testId="alert-number-error" />
        <DialogActions onCancel={onClose} isDisabled={save.isPending} saveTestId="alert-number-save" />
      </form>
    </AppDialog>
  );
}

/**
 * Spec §2 /administration/configure-alert-numbers (users of the configured parent account): phone numbers that get
 * SMS alarms for every unit of the account; list, add, edit and remove, with §5's phone rules checked by the server.
 */
export function AlertNumbersPage() {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const list = useAlertNumbers();
  const remove = useDeleteAlertNumber();
  const view = useTableView('alert-numbers', DEFAULT_VIEW);
  const [editing, setEditing] = useState<AlertNumberView | null | 'new'>(null);
  const numbers = list.data ?? NO_NUMBERS;
  const format = new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short' });

  async function confirmDelete(number: AlertNumberView) {
    const text = phoneText(number.country_code, number.phone);
    const confirmed = await dialogs.showMessage({
      title: t('alertNumbers.delete.title'),
      message: t('alertNumbers.delete.confirm', { phone: text }),
      cancel: true,
      okLabel: t('alertNumbers.delete.action'),
    });
    if (!confirmed) return;
    try {
      await remove.mutateAsync(number.id);
    } catch (error) {
      await dialogs.showError(forbidden(error) ? t('alertNumbers.forbidden') : errorText(error));
    }
  }

  const columns: DataColumn<AlertNumberView>[] = [
    {
      id: 'phone',
      header: t('alarmReceivers.fields.phone'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (number) => `${dialCode(number.country_code)}${number.phone}`,
      cell: (number) => <span data-testid={`alert-number-${number.id}`}>{phoneText(number.country_code, number.phone)}</span>,
    },
    { id: 'label', header: t('alertNumbers.fields.label'), minRem: 10, sortValue: (number) => number.label ?? '', cell: (number) => number.label || '–' },
    { id: 'created', header: t('alertNumbers.fields.created'), minRem: 8, sortValue: (number) => number.createdAt, cell: (number) => format.format(new Date(number.createdAt)) },
    {
      id: 'actions',
      header: t('alarmReceivers.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 10,
      cell: (number) => (
        <div className="alarm-row-actions">
          <Button className="btn btn-secondary btn-small" onPress={() => setEditing(number)} aria-label={t('alertNumbers.edit.labelled', { phone: number.phone })} data-testid={`alert-number-edit-${number.id}`}>
            {t('alarmReceivers.edit.action')}
          </Button>
          <Button className="btn btn-danger btn-small" onPress={() => void confirmDelete(number)} aria-label={t('alertNumbers.delete.labelled', { phone: number.phone })} data-testid={`alert-number-delete-${number.id}`}>
            {t('alertNumbers.delete.action')}
          </Button>
        </div>
      ),
    },
  ];

  return (
    <div className="page alarm-page">
      <div className="page-heading">
        <h1 className="page-title">{t('alertNumbers.title')}</h1>
        {!forbidden(list.error) && (
          <Button className="btn btn-primary" onPress={() => setEditing('new')} data-testid="alert-number-new">
            {t('alertNumbers.add.open')}
          </Button>
        )}
      </div>
      <p className="alarm-muted">{t('alertNumbers.lead')}</p>
      {list.isError &&
        (forbidden(list.error) ? (
          <Banner kind="error">
            <span data-testid="alert-numbers-forbidden">{t('alertNumbers.forbidden')}</span>
          </Banner>
        ) : (
          <Banner kind="error">{errorText(list.error)}</Banner>
        ))}
      {!list.isError && (
        <DataTable
          label={t('alertNumbers.title')}
          rows={numbers}
          columns={columns}
          rowId={(number) => String(number.id)}
          view={view}
          empty={list.isPending ? t('common.loading') : t('alertNumbers.empty')}
          testId="alert-number-table"
        />
      )}
      {editing && <NumberDialog number={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </div>
  );
}
