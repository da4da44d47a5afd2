import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Button, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import {
  type CatalogEntry,
  type CatalogKind,
  type CatalogView,
  FEATURE_PROFILE_GEOZONES,
  type FeatureProfileView,
  featureProfileCreateSchema,
  GREEN_DRIVING,
  SCHEDULE_RECURRENCES,
} from '../../../modules/units/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field, SelectField } from '../../components/Form';
import { api, errorText, request } from '../../lib/api';
import { GeozonePicker } from '../../components/geofences/GeozonePicker';
import { check, type FieldMessages } from '../../lib/validation';
import { NativeField, saveErrors } from './ui';

/**
 * Account catalogues (spec §2 account settings; §5 names unique): departments, projects and tags (add, rename,
 * delete) and feature profiles (green driving, overspeed, car benefit, working hours repeating every 1-3 weeks).
 */
const catalogKey = ['units', 'catalog'] as const;

/** The catalogues' editor: a tab per catalogue (the unit list's dialog and the account settings screen show it). */
export function CatalogEditor() {
  const { t } = useTranslation();
  const catalog = useQuery({ queryKey: catalogKey, queryFn: () => api.get<CatalogView>('/api/admin/catalog') });
  return (
    <Tabs>
      <TabList aria-label={t('units.catalog.title')} className="catalog-tabs">
        {(['departments', 'projects', 'tags'] as const).map((kind) => (
          <Tab key={kind} id={kind} className="catalog-tab">
            {t(`units.catalog.${kind}`)}
          </Tab>
        ))}
        <Tab id="featureProfiles" className="catalog-tab">
          {t('units.catalog.featureProfiles')}
        </Tab>
      </TabList>
      {(['departments', 'projects', 'tags'] as const).map((kind) => (
        <TabPanel key={kind} id={kind}>
          <EntryList kind={kind} entries={catalog.data?.[kind] ?? []} />
        </TabPanel>
      ))}
      <TabPanel id="featureProfiles">
        <ProfileList profiles={catalog.data?.featureProfiles ?? []} />
      </TabPanel>
    </Tabs>
  );
}

export function CatalogDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={t('units.catalog.title')} className="catalog-modal">
      <div className="dialog-body" data-testid="catalog-dialog">
        <CatalogEditor />
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('units.close')}
        </Button>
      </div>
    </AppDialog>
  );
}

function useRefresh() {
  const client = useQueryClient();
  return async () => {
    await client.invalidateQueries({ queryKey: catalogKey });
    await client.invalidateQueries({ queryKey: ['units', 'options'] });
    await client.invalidateQueries({ queryKey: ['units', 'list'] });
  };
}

function EntryList({ kind, entries }: { kind: CatalogKind; entries: CatalogEntry[] }) {
  const { t } = useTranslation();
  const refresh = useRefresh();
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FieldMessages>({});
  const [busy, setBusy] = useState(false);

  function start(entry: CatalogEntry | null) {
    setEditing(entry ? entry.id : 'new');
    setName(entry?.name ?? '');
    setDescription(entry?.description ?? '');
    setErrors({});
  }
  async function save() {
    if (!name.trim()) {
      setErrors({ name: t('units.catalog.nameRequired') });
      return;
    }
    setBusy(true);
    try {
      await api.post(editing === 'new' ? `/api/admin/${kind}` : `/api/admin/${kind}/${editing}`, { name, description });
      setEditing(null);
      await refresh();
    } catch (error) {
      const failed = saveErrors(error);
      setErrors(failed.message ? { name: failed.message } : failed.fields);
    } finally {
      setBusy(false);
    }
  }

  const form = (
    <div className="catalog-form" data-testid={`catalog-form-${kind}`}>
      <Field label={t('units.catalog.name')} value={name} onChange={setName} error={errors.name} maxLength={100} isRequired testId="catalog-name" />
      <Field label={t('units.catalog.description')} value={description} onChange={setDescription} error={errors.description} maxLength={500} />
      <div className="catalog-form-actions">
        <Button className="btn btn-primary" onPress={() => void save()} isDisabled={busy}>
          {t('common.save')}
        </Button>
        <Button className="btn btn-secondary" onPress={() => setEditing(null)}>
          {t('common.cancel')}
        </Button>
      </div>
    </div>
  );

  return (
    <CatalogRows
      listId={kind}
      entries={entries}
      editing={editing}
      editor={form}
      onEdit={start}
      editText={{ label: 'units.catalog.rename', of: 'units.catalog.renameOf' }}
      deletePath={(entry) => `/api/admin/${kind}/${entry.id}`}
      details={(entry) => entry.description && <span className="access-note">{entry.description}</span>}
      addLabel={t(`units.catalog.add.${kind}`)}
    />
  );
}

type Schedule = NonNullable<FeatureProfileView['workingHours']>;
type ProfileForm = {
  name: string;
  greenDriving: FeatureProfileView['greenDriving'];
  overspeedKmh: string;
  carBenefit: boolean;
  geozoneIds: number[];
  scheduleOn: boolean;
  schedule: Schedule;
};

const emptySchedule = (): Schedule => ({ recurrence: 1, startDate: null, days: [] });

function ProfileList({ profiles }: { profiles: FeatureProfileView[] }) {
  const { t } = useTranslation();
  const refresh = useRefresh();
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [form, setForm] = useState<ProfileForm | null>(null);
  const [errors, setErrors] = useState<FieldMessages>({});
  const [busy, setBusy] = useState(false);

  function start(profile: FeatureProfileView | null) {
    setEditing(profile ? profile.id : 'new');
    setErrors({});
    setForm({
      name: profile?.name ?? '',
      greenDriving: profile?.greenDriving ?? 'normal',
      overspeedKmh: profile?.overspeedKmh === null || profile?.overspeedKmh === undefined ? '' : String(profile.overspeedKmh),
      carBenefit: profile?.carBenefit ?? false,
      geozoneIds: profile?.geozoneIds ?? [],
      scheduleOn: Boolean(profile?.workingHours),
      schedule: profile?.workingHours ?? emptySchedule(),
    });
  }

  async function save() {
    if (!form) return;
    const body = {
      name: form.name,
      greenDriving: form.greenDriving,
      overspeedKmh: form.overspeedKmh === '' ? null : Number(form.overspeedKmh),
      carBenefit: form.carBenefit,
      geozoneIds: form.geozoneIds,
      workingHours: form.scheduleOn ? { ...form.schedule, startDate: form.schedule.recurrence > 1 ? form.schedule.startDate : null } : null,
    };
    const parsed = check(featureProfileCreateSchema, body);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setBusy(true);
    try {
      await api.post(editing === 'new' ? '/api/admin/feature-profiles' : `/api/admin/feature-profiles/${editing}`, body);
      setEditing(null);
      await refresh();
    } catch (error) {
      const failed = saveErrors(error);
      setErrors(failed.message ? { name: failed.message } : failed.fields);
    } finally {
      setBusy(false);
    }
  }

  const editor = form && (
    <ProfileEditor form={form} errors={errors} onChange={(patch) => setForm({ ...form, ...patch })} onSave={() => void save()} onCancel={() => setEditing(null)} busy={busy} />
  );
  return (
    <CatalogRows
      listId="featureProfiles"
      entries={profiles}
      editing={editing}
      editor={editor}
      onEdit={start}
      editText={{ label: 'units.catalog.edit', of: 'units.catalog.editOf' }}
      deletePath={(profile) => `/api/admin/feature-profiles/${profile.id}`}
      details={(profile) => (
        <span className="access-note">
          {t(`units.catalog.greenDriving.${profile.greenDriving}`)}
          {profile.workingHours ? ` · ${t('units.catalog.every', { count: profile.workingHours.recurrence })}` : ''}
        </span>
      )}
      addLabel={t('units.catalog.add.featureProfiles')}
    />
  );
}

/**
 * A catalogue's entries, each with its unit count, details, edit and delete (asked first: the units using it are
 * named by count), and below them the editor of a new entry or the button that opens it. `editing` is the entry whose
 * `editor` shows in its place, or 'new'.
 */
function CatalogRows<Entry extends { id: number; name: string; units: number }>(props: {
  listId: string;
  entries: Entry[];
  editing: number | 'new' | null;
  editor: ReactNode;
  onEdit: (entry: Entry | null) => void;
  editText: { label: string; of: string };
  deletePath: (entry: Entry) => string;
  details: (entry: Entry) => ReactNode;
  addLabel: string;
}) {
  const { t } = useTranslation();
  const refresh = useRefresh();
  const dialogs = useDialogs();
  async function remove(entry: Entry) {
    if (!(await dialogs.showMessage({ message: t('units.catalog.confirmDelete', { name: entry.name, count: entry.units }), cancel: true }))) return;
    try {
      await request('DELETE', props.deletePath(entry));
      await refresh();
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }
  return (
    <div className="catalog-panel">
      <ul className="catalog-list" data-testid={`catalog-list-${props.listId}`}>
        {props.entries.map((entry) => (
          <li key={entry.id}>
            {props.editing === entry.id ? (
              props.editor
            ) : (
              <div className="catalog-row">
                <span className="catalog-name">{entry.name}</span>
                <span className="access-note">{t('units.catalog.units', { count: entry.units })}</span>
                {props.details(entry)}
                <span className="catalog-row-actions">
                  <Button className="btn btn-link" onPress={() => props.onEdit(entry)} aria-label={t(props.editText.of, { name: entry.name })}>
                    {t(props.editText.label)}
                  </Button>
                  <Button className="btn btn-link btn-danger" onPress={() => void remove(entry)} aria-label={t('units.catalog.deleteOf', { name: entry.name })}>
                    {t('units.catalog.delete')}
                  </Button>
                </span>
              </div>
            )}
          </li>
        ))}
        {props.entries.length === 0 && <li className="access-note">{t('units.catalog.empty')}</li>}
      </ul>
      {props.editing === 'new' ? (
        props.editor
      ) : (
        <Button className="btn btn-secondary" onPress={() => props.onEdit(null)} isDisabled={props.editing !== null}>
          {props.addLabel}
        </Button>
      )}
    </div>
  );
}

function ProfileEditor({
  form,
  errors,
  onChange,
  onSave,
  onCancel,
  busy,
}: {
  form: ProfileForm;
  errors: FieldMessages;
  onChange: (patch: Partial<ProfileForm>) => void;
  onSave: () => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const { schedule } = form;
  const setSchedule = (patch: Partial<Schedule>) => onChange({ schedule: { ...schedule, ...patch } });
  const dayOf = (week: number, day: number) => schedule.days.find((entry) => entry.week === week && entry.day === day);
  function toggleDay(week: number, day: number, on: boolean) {
    const rest = schedule.days.filter((entry) => !(entry.week === week && entry.day === day));
    setSchedule({ days: on ? [...rest, { week, day, start: '07:00', end: '16:00' }] : rest });
  }
  function setTime(week: number, day: number, patch: { start?: string; end?: string }) {
    setSchedule({ days: schedule.days.map((entry) => (entry.week === week && entry.day === day ? { ...entry, ...patch } : entry)) });
  }
  const scheduleError = Object.entries(errors)
    .filter(([key]) => key.startsWith('workingHours'))
    .map(([, message]) => message)
    .join(' ');
  return (
    <div className="catalog-form profile-form" data-testid="profile-form">
      <div className="field-grid">
        <Field label={t('units.catalog.name')} value={form.name} onChange={(name) => onChange({ name })} error={errors.name} maxLength={100} isRequired testId="profile-name" />
        <SelectField
          label={t('units.catalog.greenDrivingLabel')}
          value={form.greenDriving}
          onChange={(value) => onChange({ greenDriving: value as ProfileForm['greenDriving'] })}
          options={GREEN_DRIVING.map((value) => ({ value, label: t(`units.catalog.greenDriving.${value}`) }))}
        />
        <Field label={t('units.catalog.overspeed')} value={form.overspeedKmh} onChange={(overspeedKmh) => onChange({ overspeedKmh })} error={errors.overspeedKmh} inputMode="numeric" />
      </div>
      <CheckboxField isSelected={form.carBenefit} onChange={(carBenefit) => onChange({ carBenefit })}>
        {t('units.catalog.carBenefit')}
      </CheckboxField>
      <GeozonePicker selected={form.geozoneIds} onChange={(geozoneIds) => onChange({ geozoneIds })} max={FEATURE_PROFILE_GEOZONES} error={errors.geozoneIds} testId="profile-geozones" />
      <CheckboxField isSelected={form.scheduleOn} onChange={(scheduleOn) => onChange({ scheduleOn })}>
        {t('units.catalog.schedule')}
      </CheckboxField>
      {form.scheduleOn && (
        <fieldset className="profile-schedule" data-testid="profile-schedule">
          <legend className="field-label">{t('units.catalog.schedule')}</legend>
          <div className="field-grid">
            <SelectField
              label={t('units.catalog.recurrence')}
              value={String(schedule.recurrence)}
              onChange={(value) => {
                const recurrence = Number(value) as Schedule['recurrence'];
                setSchedule({ recurrence, days: schedule.days.filter((entry) => entry.week <= recurrence) });
              }}
              options={SCHEDULE_RECURRENCES.map((value) => ({ value: String(value), label: t('units.catalog.every', { count: value }) }))}
              testId="profile-recurrence"
            />
            {schedule.recurrence > 1 && (
              <NativeField
                label={t('units.catalog.startDate')}
                type="date"
                value={schedule.startDate ?? ''}
                onChange={(startDate) => setSchedule({ startDate: startDate || null })}
                error={errors['workingHours.startDate']}
              />
            )}
          </div>
          {Array.from({ length: schedule.recurrence }, (_, index) => index + 1).map((week) => (
            <div key={week} className="profile-week" data-testid={`profile-week-${week}`}>
              {schedule.recurrence > 1 && <h3 className="profile-week-title">{t('units.catalog.week', { week })}</h3>}
              {[1, 2, 3, 4, 5, 6, 7].map((day) => {
                const entry = dayOf(week, day);
                return (
                  <div key={day} className="profile-day">
                    <CheckboxField isSelected={Boolean(entry)} onChange={(on) => toggleDay(week, day, on)}>
                      {t(`units.weekday.${day}`)}
                    </CheckboxField>
                    {entry && (
                      <>
                        <NativeField label={t('units.catalog.from')} type="time" value={entry.start} onChange={(start) => setTime(week, day, { start })} />
                        <NativeField label={t('units.catalog.to')} type="time" value={entry.end} onChange={(end) => setTime(week, day, { end })} />
                      </>
                    )}
                  </div>
                );
              })}
            </div>
          ))}
          {scheduleError && <p className="field-error">{scheduleError}</p>}
        </fieldset>
      )}
      <div className="catalog-form-actions">
        <Button className="btn btn-primary" onPress={onSave} isDisabled={busy}>
          {t('common.save')}
        </Button>
        <Button className="btn btn-secondary" onPress={onCancel}>
          {t('common.cancel')}
        </Button>
      </div>
    </div>
  );
}
