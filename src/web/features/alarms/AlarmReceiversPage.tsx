import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { ALARM_LANGUAGES, type AlarmClass, type AlarmReceiverView } from '../../../modules/alarm-receivers/model';
import { FUNCTION_ALARMS, SECURITY_ALARMS } from '../../../modules/alarms/model';
import { useBrand } from '../../brands/BrandProvider';
import { phoneText } from '../../components/alarms/ReceiverFields';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { type TableView, useTableView } from '../../lib/table-view';
import { receiverKeys, useDeleteReceiver, useLanguageTimeZone, useReceivers, useSaveLanguageTimeZone, useToggleAlarmType } from './api';
import { EditReceiverDialog, NewReceiverDialog, ReceiverUnitsDialog } from './ReceiverDialogs';
import './alarms.css';

const NO_RECEIVERS: AlarmReceiverView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'name', desc: false }], hidden: [] };

/** A failure on this screen: the error dialog offers to read the screen again or to carry on (spec §2). */
export function useFailureDialog() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const client = useQueryClient();
  return async (error: unknown) => {
    const refresh = await dialogs.showMessage({
      kind: 'error',
      message: errorText(error),
      cancel: true,
      okLabel: t('crash.refresh'),
      cancelLabel: t('crash.ignore'),
    });
    if (refresh) await client.invalidateQueries({ queryKey: receiverKeys.all });
  };
}

/** The info icon beside an alarm class: a dialog explaining what the class holds. */
function ClassInfo({ alarmClass }: { alarmClass: AlarmClass }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button className="icon-button alarm-info" aria-label={t(`alarmReceivers.info.${alarmClass}.open`)} onPress={() => setOpen(true)} data-testid={`info-${alarmClass}`}>
        <span aria-hidden="true">i</span>
      </Button>
      <AppDialog isOpen={open} onOpenChange={setOpen} title={t(`alarmReceivers.info.${alarmClass}.title`)}>
        <div className="dialog-body" data-testid={`info-${alarmClass}-text`}>
          <p>{t(`alarmReceivers.info.${alarmClass}.lead`)}</p>
          <ul>
            {(alarmClass === 'security' ? SECURITY_ALARMS : FUNCTION_ALARMS).map((type) => (
              <li key={type}>{t(`alarms.types.${type}`)}</li>
            ))}
          </ul>
        </div>
        <div className="dialog-actions">
          <Button className="btn btn-primary" onPress={() => setOpen(false)} autoFocus>
            {t('common.ok')}
          </Button>
        </div>
      </AppDialog>
    </>
  );
}

/** Spec §3 Alarm language/time-zone setting: the language and zone alarm texts are written in (below the table). */
function LanguageTimeZoneBlock() {
  const { t } = useTranslation();
  const setting = useLanguageTimeZone();
  const save = useSaveLanguageTimeZone();
  const fail = useFailureDialog();
  const [language, setLanguage] = useState('');
  const [zone, setZone] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (setting.data) {
      setLanguage(setting.data.Language);
      setZone(setting.data.TimeZone);
    }
  }, [setting.data]);
  if (setting.isError) return <Banner kind="error">{errorText(setting.error)}</Banner>;
  if (!setting.data) return <p aria-live="polite">{t('common.loading')}</p>;
  async function submit() {
    setSaved(false);
    try {
      await save.mutateAsync({ Language: language, TimeZone: zone });
      setSaved(true);
    } catch (error) {
      await fail(error);
    }
  }
  return (
    <section className="alarm-language" aria-labelledby="alarm-language-title" data-testid="alarm-language">
      <h2 id="alarm-language-title" className="alarm-section-title">
        {t('alarmReceivers.language.title')}
      </h2>
      <p className="alarm-muted">{t('alarmReceivers.language.lead')}</p>
      <form
        className="alarm-language-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <SelectField
          label={t('alarmReceivers.language.language')}
          value={language}
          onChange={(value) => {
            setLanguage(value);
            setSaved(false);
          }}
          options={ALARM_LANGUAGES.map((code) => ({ value: code, label: t(`alarmReceivers.language.names.${code}`) }))}
          testId="alarm-language-select"
        />
        <SelectField
          label={t('alarmReceivers.language.timeZone')}
          value={zone}
          onChange={(value) => {
            setZone(value);
            setSaved(false);
          }}
          options={setting.data.TimeZones.map((name) => ({ value: name, label: name.replace('_', ' ') }))}
          testId="alarm-timezone-select"
        />
        <Button type="submit" className="btn btn-primary" isDisabled={save.isPending} data-testid="alarm-language-save">
          {t('common.save')}
        </Button>
      </form>
      {saved && (
        <p role="status" className="alarm-saved" data-testid="alarm-language-saved">
          {t('alarmReceivers.language.saved')}
        </p>
      )}
    </section>
  );
}

/**
 * Spec §2 /administration/configure-alarm-receiver (administrators): the account's alarm receivers with search, SMS
 * credits, the units each gets alarms of, their security and function alarms switched in place, new (an existing
 * user or a new person), edit and delete; the language and time zone of the alarm texts below.
 */
export function AlarmReceiversPage() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const brand = useBrand();
  const fail = useFailureDialog();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<AlarmReceiverView | null>(null);
  const [unitsOf, setUnitsOf] = useState<AlarmReceiverView | null>(null);
  const list = useReceivers(query);
  const remove = useDeleteReceiver();
  const toggle = useToggleAlarmType();
  const view = useTableView('alarm-receivers', DEFAULT_VIEW);
  const receivers = list.data?.alarmReceivers ?? NO_RECEIVERS;
  // Spec §2: the phone column (and SMS) only on sub-site 0.
  const showsPhone = brand.subsiteId === 0;

  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);

  async function confirmDelete(receiver: AlarmReceiverView) {
    const confirmed = await dialogs.showMessage({
      title: t('alarmReceivers.delete.title'),
      message: t('alarmReceivers.delete.confirm', { name: receiver.name }),
      cancel: true,
      okLabel: t('alarmReceivers.delete.action'),
    });
    if (!confirmed) return;
    try {
      await remove.mutateAsync(receiver.id);
    } catch (error) {
      await fail(error);
    }
  }

  async function switchClass(receiver: AlarmReceiverView, type: AlarmClass, on: boolean) {
    try {
      await toggle.mutateAsync({ receiverId: receiver.id, type, state: on ? 1 : 0 });
    } catch (error) {
      await fail(error);
    }
  }

  const classColumn = (type: AlarmClass): DataColumn<AlarmReceiverView> => ({
    id: type,
    header: t(`alarmReceivers.fields.${type}`),
    minRem: 6.5,
    sortValue: (receiver) => (type === 'security' ? receiver.security_alarm : receiver.function_alarm),
    cell: (receiver) => (
      <div className="alarm-class-cell" data-testid={`receiver-${type}-${receiver.id}`}>
        <CheckboxField isSelected={(type === 'security' ? receiver.security_alarm : receiver.function_alarm) === 1} onChange={(on) => void switchClass(receiver, type, on)}>
          <span className="visually-hidden">{t(`alarmReceivers.toggle.${type}`, { name: receiver.name })}</span>
        </CheckboxField>
      </div>
    ),
  });

  const columns: DataColumn<AlarmReceiverView>[] = [
    {
      id: 'name',
      header: t('alarmReceivers.fields.receiver'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (receiver) => receiver.name.toLocaleLowerCase(),
      cell: (receiver) => <span data-testid={`receiver-name-${receiver.id}`}>{receiver.name}</span>,
    },
    { id: 'email', header: t('alarmReceivers.fields.email'), minRem: 10, sortValue: (receiver) => receiver.email ?? '', cell: (receiver) => receiver.email || '–' },
    ...(showsPhone
      ? [
          {
            id: 'phone',
            header: t('alarmReceivers.fields.phone'),
            minRem: 8,
            sortValue: (receiver: AlarmReceiverView) => receiver.phone ?? '',
            cell: (receiver: AlarmReceiverView) => phoneText(receiver.country_code, receiver.phone),
          },
        ]
      : []),
    {
      id: 'units',
      header: t('alarmReceivers.fields.units'),
      minRem: 9,
      sortValue: (receiver) => receiver.total_units + receiver.total_ble_units,
      cell: (receiver) => (
        <Button className="btn btn-secondary btn-small" onPress={() => setUnitsOf(receiver)} data-testid={`receiver-units-${receiver.id}`}>
          {t('alarmReceivers.units.button', { gps: receiver.total_units, ble: receiver.total_ble_units })}
        </Button>
      ),
    },
    classColumn('security'),
    classColumn('function'),
    {
      id: 'actions',
      header: t('alarmReceivers.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 9,
      cell: (receiver) => (
        <div className="alarm-row-actions">
          <Button className="btn btn-secondary btn-small" onPress={() => setEditing(receiver)} aria-label={t('alarmReceivers.edit.labelled', { name: receiver.name })} data-testid={`receiver-edit-${receiver.id}`}>
            {t('alarmReceivers.edit.action')}
          </Button>
          <Button className="btn btn-danger btn-small" onPress={() => void confirmDelete(receiver)} aria-label={t('alarmReceivers.delete.labelled', { name: receiver.name })} data-testid={`receiver-delete-${receiver.id}`}>
            {t('alarmReceivers.delete.action')}
          </Button>
        </div>
      ),
    },
  ];

  return (
    <div className="page alarm-page">
      <div className="page-heading">
        <h1 className="page-title">{t('alarmReceivers.title')}</h1>
        <Button className="btn btn-primary" onPress={() => setCreating(true)} data-testid="receiver-new">
          {t('alarmReceivers.new.open')}
        </Button>
      </div>
      <div className="alarm-toolbar">
        <search aria-label={t('alarmReceivers.search')}>
          <Field type="search" label={t('alarmReceivers.search')} value={search} onChange={setSearch} placeholder={t('alarmReceivers.searchHint')} testId="receiver-search" />
        </search>
        {list.data && (
          <p className="alarm-credits" data-testid="sms-credits">
            {t('alarmReceivers.smsCredits', { count: list.data.SmsCredits })}
          </p>
        )}
        <span className="alarm-class-infos">
          {t('alarmReceivers.fields.security')} <ClassInfo alarmClass="security" /> {t('alarmReceivers.fields.function')} <ClassInfo alarmClass="function" />
        </span>
      </div>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      <DataTable
        label={t('alarmReceivers.title')}
        rows={receivers}
        columns={columns}
        rowId={(receiver) => String(receiver.id)}
        view={view}
        rowProps={(receiver) => ({ 'data-testid': `receiver-row-${receiver.id}` })}
        empty={list.isPending ? t('common.loading') : query ? t('alarmReceivers.noMatch') : t('alarmReceivers.empty')}
        count={{ text: (shown) => t('alarmReceivers.count', { count: shown }), testId: 'receiver-count', className: 'alarm-muted' }}
        testId="receiver-table"
      />
      <LanguageTimeZoneBlock />
      {creating && <NewReceiverDialog showsPhone={showsPhone} onClose={() => setCreating(false)} onFailure={fail} />}
      {editing && <EditReceiverDialog receiver={editing} showsPhone={showsPhone} onClose={() => setEditing(null)} />}
      {unitsOf && <ReceiverUnitsDialog receiver={unitsOf} onClose={() => setUnitsOf(null)} onFailure={fail} />}
    </div>
  );
}
