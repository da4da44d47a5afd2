import { useEffect, useMemo, useState } from 'react';
import { Radio, RadioGroup, Label, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { AlarmReceiverView, ReceiverDeviceType, ReceiverUnits } from '../../../modules/alarm-receivers/model';
import { AppDialog, DialogActions } from '../../components/Dialogs';
import { Banner, FormError, SelectField } from '../../components/Form';
import { dialCode, emptyReceiverForm, type ReceiverFormState, ReceiverFields, receiverPayload, type SaveFailure, saveFailure } from '../../components/alarms/ReceiverFields';
import { type PickerUnit, UnitChoice } from '../../components/UnitPicker';
import { errorText, isApiError } from '../../lib/api';
import { useAccountUsers, useAssignUnits, useReceiverUnits, useSaveReceiver } from './api';

export interface UnitSelection {
  gps: number[];
  ble: number[];
}

/** The units of the choice from the server's lists: what is selected, and the GPS units a lock keeps out of reach. */
function initialSelection(units: ReceiverUnits): UnitSelection {
  return { gps: units.gps.filter((unit) => unit.IsSelected).map((unit) => unit.ID), ble: units.ble.filter((unit) => unit.IsSelected).map((unit) => unit.id) };
}

/** GPS and BLE tabs, each searched and selected in full with the shared unit choice. Locked units the user cannot reach are left out. */
function UnitTabs({ units, selection, onChange }: { units: ReceiverUnits; selection: UnitSelection; onChange: (next: UnitSelection) => void }) {
  const { t } = useTranslation();
  const gps = useMemo<PickerUnit[]>(
    () => units.gps.filter((unit) => !unit.isLocked).map((unit) => ({ ID: unit.ID, Name: unit.Name, Imei: unit.Imei, RegistrationNumber: '', Department: null, Tags: [] })),
    [units.gps],
  );
  const ble = useMemo<PickerUnit[]>(
    () => units.ble.map((unit) => ({ ID: unit.id, Name: unit.Name, Imei: unit.SerialNumber, RegistrationNumber: '', Department: null, Tags: [] })),
    [units.ble],
  );
  const locked = units.gps.filter((unit) => unit.isLocked).length;
  return (
    <Tabs className="unit-picker-tabs" data-testid="receiver-unit-tabs">
      <TabList aria-label={t('alarmReceivers.units.title')} className="unit-picker-tablist">
        <Tab id="gps" className="unit-picker-tab" data-testid="receiver-tab-gps">
          {t('alarmReceivers.units.gps', { count: selection.gps.length })}
        </Tab>
        <Tab id="ble" className="unit-picker-tab" data-testid="receiver-tab-ble">
          {t('alarmReceivers.units.ble', { count: selection.ble.length })}
        </Tab>
      </TabList>
      <TabPanel id="gps">
        <UnitChoice units={gps} selectionMode="multiple" selected={selection.gps} onChange={(ids) => onChange({ ...selection, gps: ids })} />
        {locked > 0 && <p className="alarm-muted">{t('alarmReceivers.units.locked', { count: locked })}</p>}
      </TabPanel>
      <TabPanel id="ble">
        <UnitChoice units={ble} selectionMode="multiple" selected={selection.ble} onChange={(ids) => onChange({ ...selection, ble: ids })} />
      </TabPanel>
    </Tabs>
  );
}

function terminalsOf(selection: UnitSelection): Array<{ terminal_id: number; device_type: ReceiverDeviceType }> {
  return [...selection.gps.map((id) => ({ terminal_id: id, device_type: 'gps' as const })), ...selection.ble.map((id) => ({ terminal_id: id, device_type: 'ble' as const }))];
}

/**
 * New Alarm Receiver (spec §2): an existing user of the account (those already receivers are not offered) or a new
 * person, the classes they take, and their units in the GPS and BLE tabs. The first unit goes with the new receiver
 * (§5: at least one unit), the whole choice is assigned right after.
 */
export function NewReceiverDialog({ showsPhone, onClose, onFailure }: { showsPhone: boolean; onClose: () => void; onFailure: (error: unknown) => Promise<void> }) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<'existing' | 'new'>('existing');
  const users = useAccountUsers(true);
  const offered = (users.data ?? []).filter((user) => !user.IsReceiver);
  const [memberId, setMemberId] = useState('');
  const [form, setForm] = useState(emptyReceiverForm);
  const [failure, setFailure] = useState<SaveFailure>({ fields: {}, message: null });
  const member = mode === 'existing' ? offered.find((user) => String(user.ID) === memberId) : undefined;
  const units = useReceiverUnits(0, member?.ID ?? null, true);
  const [selection, setSelection] = useState<UnitSelection>({ gps: [], ble: [] });
  const save = useSaveReceiver();
  const assign = useAssignUnits();
  const busy = save.isPending || assign.isPending;

  useEffect(() => {
    if (units.data) setSelection(initialSelection(units.data));
  }, [units.data]);
  // The first user not yet a receiver is chosen to begin with.
  useEffect(() => {
    if (mode === 'existing' && !memberId && offered[0]) setMemberId(String(offered[0].ID));
  }, [mode, memberId, offered]);

  async function submit() {
    setFailure({ fields: {}, message: null });
    if (mode === 'existing' && !member) {
      setFailure({ fields: {}, message: t('alarmReceivers.new.chooseUser') });
      return;
    }
    const terminals = terminalsOf(selection);
    const base = receiverPayload(member ? { ...form, name: member.FirstName, email: member.Email } : form, showsPhone);
    try {
      const { id } = await save.mutateAsync({
        id: 0,
        ...base,
        member_id: member?.ID ?? null,
        ...(terminals[0] ? { terminal_id: terminals[0].terminal_id, device_type: terminals[0].device_type } : {}),
      });
      if (terminals.length > 1) await assign.mutateAsync({ receiver_id: id, terminals });
      onClose();
    } catch (error) {
      if (isApiError(error) && error.status === 422) setFailure(saveFailure(error));
      else await onFailure(error);
    }
  }

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('alarmReceivers.new.title')} className="alarm-dialog">
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        data-testid="receiver-new-form"
      >
        <RadioGroup className="alarm-mode" value={mode} onChange={(value) => setMode(value as 'existing' | 'new')} orientation="horizontal">
          <Label className="field-label">{t('alarmReceivers.new.who')}</Label>
          <div className="alarm-mode-options">
            <Radio value="existing" className="radio" data-testid="receiver-mode-existing">
              <span className="radio-dot" aria-hidden="true" />
              {t('alarmReceivers.new.existing')}
            </Radio>
            <Radio value="new" className="radio" data-testid="receiver-mode-new">
              <span className="radio-dot" aria-hidden="true" />
              {t('alarmReceivers.new.create')}
            </Radio>
          </div>
        </RadioGroup>
        {mode === 'existing' ? (
          users.isPending ? (
            <p aria-live="polite">{t('common.loading')}</p>
          ) : offered.length === 0 ? (
            <p className="alarm-muted" data-testid="receiver-no-users">
              {t('alarmReceivers.new.noUsers')}
            </p>
          ) : (
            <>
              <SelectField
                label={t('alarmReceivers.new.user')}
                value={memberId}
                onChange={setMemberId}
                options={offered.map((user) => ({ value: String(user.ID), label: `${user.FirstName} (${user.Email})` }))}
                testId="receiver-user"
              />
              <ReceiverFields form={form} onChange={setForm} errors={failure.fields} showsPhone={showsPhone} linked />
            </>
          )
        ) : (
          <ReceiverFields form={form} onChange={setForm} errors={failure.fields} showsPhone={showsPhone} />
        )}
        <h3 className="alarm-subtitle">{t('alarmReceivers.units.title')}</h3>
        {units.isError && <Banner kind="error">{errorText(units.error)}</Banner>}
        {units.data ? <UnitTabs units={units.data} selection={selection} onChange={setSelection} /> : !units.isError && <p aria-live="polite">{t('common.loading')}</p>}
        <FormError error={failure.message} testId="receiver-form-error" />
        <DialogActions onCancel={onClose} isDisabled={busy} saveTestId="receiver-save" />
      </form>
    </AppDialog>
  );
}

/** Edit a receiver (spec §2 edit form): the server's 422 keys show beside their fields. */
export function EditReceiverDialog({ receiver, showsPhone, onClose }: { receiver: AlarmReceiverView; showsPhone: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<ReceiverFormState>(() => ({
    name: receiver.name,
    email: receiver.email ?? '',
    country_code: dialCode(receiver.country_code),
    phone: receiver.phone ?? '',
    push_notification: receiver.push_notification === 1,
    security_alarm: receiver.security_alarm === 1,
    function_alarm: receiver.function_alarm === 1,
  }));
  const [failure, setFailure] = useState<SaveFailure>({ fields: {}, message: null });
  const save = useSaveReceiver();

  async function submit() {
    setFailure({ fields: {}, message: null });
    try {
      await save.mutateAsync({ id: receiver.id, member_id: receiver.member_id, ...receiverPayload(form, showsPhone) });
      onClose();
    } catch (error) {
      setFailure(saveFailure(error));
    }
  }

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('alarmReceivers.edit.title', { name: receiver.name })} className="alarm-dialog">
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        data-testid="receiver-edit-form"
      >
        {receiver.member_id !== null && <p className="alarm-muted">{t('alarmReceivers.edit.linked', { name: receiver.name, email: receiver.email ?? '' })}</p>}
        <ReceiverFields form={form} onChange={setForm} errors={failure.fields} showsPhone={showsPhone} linked={receiver.member_id !== null} />
        <FormError error={failure.message} testId="receiver-form-error" />
        <DialogActions onCancel={onClose} isDisabled={save.isPending} saveTestId="receiver-save" />
      </form>
    </AppDialog>
  );
}

/** Select Unit (spec §2): the receiver's units in the GPS and BLE tabs, with search and select-all; saved as one set. */
export function ReceiverUnitsDialog({ receiver, onClose, onFailure }: { receiver: AlarmReceiverView; onClose: () => void; onFailure: (error: unknown) => Promise<void> }) {
  const { t } = useTranslation();
  const units = useReceiverUnits(receiver.id, receiver.member_id, true);
  const [selection, setSelection] = useState<UnitSelection | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const assign = useAssignUnits();
  useEffect(() => {
    if (units.data) setSelection(initialSelection(units.data));
  }, [units.data]);

  async function submit() {
    if (!selection) return;
    setMessage(null);
    try {
      await assign.mutateAsync({ receiver_id: receiver.id, terminals: terminalsOf(selection) });
      onClose();
    } catch (error) {
      if (isApiError(error) && error.status === 422) setMessage(errorText(error));
      else await onFailure(error);
    }
  }

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('alarmReceivers.units.titleFor', { name: receiver.name })} className="alarm-dialog">
      {units.isError && <Banner kind="error">{errorText(units.error)}</Banner>}
      {units.data && selection ? <UnitTabs units={units.data} selection={selection} onChange={setSelection} /> : !units.isError && <p aria-live="polite">{t('common.loading')}</p>}
      <FormError error={message} testId="receiver-units-error" />
      <DialogActions onCancel={onClose} onSave={() => void submit()} isDisabled={!selection || assign.isPending} saveTestId="receiver-units-save" />
    </AppDialog>
  );
}
