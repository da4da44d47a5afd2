import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import {
  benefitSchema,
  CAR_USAGES,
  co2Schema,
  detailsSchema,
  FUEL_PAYERS,
  FUEL_TYPES,
  fuelSchema,
  MARKER_ICONS,
  markerSchema,
  metersSchema,
  nameSchema,
  normalizeRegistrationNumber,
  OPERATING_MODES,
  REPORT_FREQUENCIES_S,
  supportsTheftMode,
  timeTillParkedSchema,
  type UnitDetail,
  VEHICLE_TYPES,
  workingHoursSchema,
} from '../../../modules/units/model';
import { useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field, SelectField } from '../../components/Form';
import { DecimalField } from '../../components/DecimalField';
import { errorText } from '../../lib/api';
import { useSession } from '../../lib/session';
import { check, type FieldMessages } from '../../lib/validation';
import { type LockLogEntry, type MeterHistoryEntry, type NameHistoryEntry, useSaveSection, useUnitOptions, useUnitSub } from './api';
import { formatDateTime, formatNumber, NativeField, PendingBadge, Section, saveErrors, toInt } from './ui';

/** The unit edit page's sections (spec §2 "unit edit sections"); each saves on its own. */

type Props = { unit: UnitDetail };

/** Section state: values, field errors, the save call and its outcome. */
function useSectionForm<T>(unit: UnitDetail, path: string, initial: (unit: UnitDetail) => T) {
  const [values, setValues] = useState<T>(() => initial(unit));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const mutation = useSaveSection(unit.ID, path);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when another unit is shown
  useEffect(() => {
    setValues(initial(unit));
    setErrors({});
    setMessage(null);
    setSaved(false);
  }, [unit.ID]);
  async function submit(body: unknown, schema?: { safeParse: (input: unknown) => unknown }) {
    setSaved(false);
    setMessage(null);
    if (schema) {
      const parsed = check(schema as never, body);
      if (!parsed.ok) {
        setErrors(parsed.errors);
        return false;
      }
    }
    setErrors({});
    try {
      await mutation.mutateAsync(body);
      setSaved(true);
      return true;
    } catch (error) {
      const { fields, message: text } = saveErrors(error);
      setErrors(fields);
      setMessage(text ?? (Object.keys(fields).length === 0 ? errorText(error) : null));
      return false;
    }
  }
  const set = (patch: Partial<T>) => {
    setSaved(false);
    setValues((current) => ({ ...current, ...patch }));
  };
  return { values, set, errors, message, saved, saving: mutation.isPending, submit };
}

export function NameSection({ unit }: Props) {
  const { t, i18n } = useTranslation();
  const form = useSectionForm(unit, 'name', (u) => ({ name: u.Name }));
  const history = useUnitSub<NameHistoryEntry[]>(unit.ID, 'name-history');
  return (
    <Section
      id="name"
      title={t('units.sections.name')}
      onSave={() => void form.submit(form.values, nameSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <Field label={t('units.fields.name')} value={form.values.name} onChange={(name) => form.set({ name })} error={form.errors.name} isRequired maxLength={100} testId="unit-name" />
      <details className="unit-history" data-testid="name-history">
        <summary>{t('units.sections.nameHistory', { count: history.data?.length ?? 0 })}</summary>
        {history.data && history.data.length > 0 ? (
          <ol className="history-list">
            {history.data.map((entry) => (
              <li key={`${entry.changedAt}-${entry.name}`}>
                <span className="history-when">{formatDateTime(entry.changedAt, i18n.language)}</span> {entry.previousName} → <strong>{entry.name}</strong>
                {entry.changedBy && <span className="history-who"> ({entry.changedBy})</span>}
              </li>
            ))}
          </ol>
        ) : (
          <p>{t('units.history.none')}</p>
        )}
      </details>
    </Section>
  );
}

export function DetailsSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'details', (u) => ({
    registrationNumber: u.RegistrationNumber,
    vehicleType: u.VehicleType,
    vin: u.Vin,
    chassisNumber: u.ChassisNumber,
    chassisPlacement: u.ChassisPlacement,
    obdPortType: u.ObdPortType,
    obdPlacement: u.ObdPlacement,
    horsepower: u.Horsepower === null ? '' : String(u.Horsepower),
    inspectionPeriodMonths: u.InspectionPeriodMonths === null ? '' : String(u.InspectionPeriodMonths),
    nextInspection: u.NextInspection ?? '',
    serviceIntervalKm: u.ServiceIntervalKm === null ? '' : String(u.ServiceIntervalKm),
    lastService: u.LastService ?? '',
  }));
  const v = form.values;
  const save = () =>
    void form.submit(
      {
        ...v,
        horsepower: toInt(v.horsepower),
        inspectionPeriodMonths: toInt(v.inspectionPeriodMonths),
        serviceIntervalKm: toInt(v.serviceIntervalKm),
        nextInspection: v.nextInspection || null,
        lastService: v.lastService || null,
      },
      detailsSchema,
    );
  const e = form.errors;
  return (
    <Section id="details" title={t('units.sections.details')} onSave={save} saving={form.saving} saved={form.saved} error={form.message} description={t('units.hints.registration')}>
      <div className="field-grid">
        <Field
          label={t('units.fields.registrationNumber')}
          value={v.registrationNumber}
          onChange={(registrationNumber) => form.set({ registrationNumber })}
          error={e.registrationNumber}
          isRequired
          maxLength={24}
          testId="registration-number"
          description={
            // What is stored, shown as it is typed: spaces and dashes dropped, letters in capitals.
            normalizeRegistrationNumber(v.registrationNumber) !== '' && (
              <span data-testid="registration-normal-form">{t('units.edit.registrationNormalForm', { value: normalizeRegistrationNumber(v.registrationNumber) })}</span>
            )
          }
        />
        <SelectField
          label={t('units.columns.vehicleType')}
          value={v.vehicleType}
          onChange={(vehicleType) => form.set({ vehicleType })}
          options={VEHICLE_TYPES.map((type) => ({ value: type, label: t(`units.vehicleType.${type}`) }))}
          error={e.vehicleType}
        />
        <Field label={t('units.fields.vin')} value={v.vin} onChange={(vin) => form.set({ vin })} error={e.vin} maxLength={30} />
        <Field label={t('units.fields.horsepower')} value={v.horsepower} onChange={(horsepower) => form.set({ horsepower })} error={e.horsepower} inputMode="numeric" />
        <Field label={t('units.fields.chassisNumber')} value={v.chassisNumber} onChange={(chassisNumber) => form.set({ chassisNumber })} error={e.chassisNumber} maxLength={50} />
        <Field label={t('units.fields.chassisPlacement')} value={v.chassisPlacement} onChange={(chassisPlacement) => form.set({ chassisPlacement })} error={e.chassisPlacement} maxLength={100} />
        <Field label={t('units.fields.obdPortType')} value={v.obdPortType} onChange={(obdPortType) => form.set({ obdPortType })} error={e.obdPortType} maxLength={50} />
        <Field label={t('units.fields.obdPlacement')} value={v.obdPlacement} onChange={(obdPlacement) => form.set({ obdPlacement })} error={e.obdPlacement} maxLength={100} />
        <Field label={t('units.fields.inspectionPeriodMonths')} value={v.inspectionPeriodMonths} onChange={(inspectionPeriodMonths) => form.set({ inspectionPeriodMonths })} error={e.inspectionPeriodMonths} inputMode="numeric" />
        <NativeField label={t('units.fields.nextInspection')} type="date" value={v.nextInspection} onChange={(nextInspection) => form.set({ nextInspection })} error={e.nextInspection} />
        <Field label={t('units.fields.serviceIntervalKm')} value={v.serviceIntervalKm} onChange={(serviceIntervalKm) => form.set({ serviceIntervalKm })} error={e.serviceIntervalKm} inputMode="numeric" />
        <NativeField label={t('units.fields.lastService')} type="date" value={v.lastService} onChange={(lastService) => form.set({ lastService })} error={e.lastService} />
      </div>
    </Section>
  );
}

export function OrganisationSection({ unit }: Props) {
  const { t } = useTranslation();
  const options = useUnitOptions();
  const form = useSectionForm(unit, 'organisation', (u) => ({
    departmentId: u.Department ? String(u.Department.id) : '',
    projectId: u.Project ? String(u.Project.id) : '',
    tagIds: u.Tags.map((tag) => tag.id),
  }));
  const v = form.values;
  const none = { value: '', label: t('units.none') };
  return (
    <Section
      id="organisation"
      title={t('units.sections.organisation')}
      onSave={() => void form.submit({ departmentId: v.departmentId ? Number(v.departmentId) : null, projectId: v.projectId ? Number(v.projectId) : null, tagIds: v.tagIds })}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <div className="field-grid">
        <SelectField
          label={t('units.columns.department')}
          value={v.departmentId}
          onChange={(departmentId) => form.set({ departmentId })}
          options={[none, ...(options.data?.departments ?? []).map((item) => ({ value: String(item.id), label: item.name }))]}
          error={form.errors.departmentId}
        />
        <SelectField
          label={t('units.columns.project')}
          value={v.projectId}
          onChange={(projectId) => form.set({ projectId })}
          options={[none, ...(options.data?.projects ?? []).map((item) => ({ value: String(item.id), label: item.name }))]}
          error={form.errors.projectId}
        />
      </div>
      <fieldset className="form-section">
        <legend>{t('units.columns.tags')}</legend>
        {(options.data?.tags ?? []).length === 0 && <p>{t('units.hints.noTags')}</p>}
        {(options.data?.tags ?? []).map((tag) => (
          <CheckboxField
            key={tag.id}
            isSelected={v.tagIds.includes(tag.id)}
            onChange={(selected) => form.set({ tagIds: selected ? [...v.tagIds, tag.id] : v.tagIds.filter((id) => id !== tag.id) })}
          >
            {tag.name}
          </CheckboxField>
        ))}
      </fieldset>
    </Section>
  );
}

export function MetersSection({ unit }: Props) {
  const { t, i18n } = useTranslation();
  const form = useSectionForm(unit, 'meters', (u) => ({ odometerKm: u.OdometerKm ?? 0, operatingHours: u.OperatingHours ?? 0 }));
  const history = useUnitSub<MeterHistoryEntry[]>(unit.ID, 'meters/history');
  return (
    <Section
      id="meters"
      title={t('units.sections.meters')}
      description={t('units.hints.meters')}
      onSave={() => void form.submit(form.values, metersSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <div className="field-grid">
        <DecimalField label={t('units.fields.odometerKm')} value={form.values.odometerKm} onChange={(odometerKm) => form.set({ odometerKm })} error={form.errors.odometerKm} isRequired maximumFractionDigits={1} />
        <DecimalField
          label={t('units.fields.operatingHours')}
          value={form.values.operatingHours}
          onChange={(operatingHours) => form.set({ operatingHours })}
          error={form.errors.operatingHours}
          isRequired
          maximumFractionDigits={1}
        />
      </div>
      <details className="unit-history">
        <summary>{t('units.sections.meterHistory', { count: history.data?.length ?? 0 })}</summary>
        <ol className="history-list">
          {(history.data ?? []).map((entry) => (
            <li key={`${entry.setAt}-${entry.kind}-${entry.value}`}>
              <span className="history-when">{formatDateTime(entry.setAt, i18n.language)}</span> {t(`units.meter.${entry.kind}`)}:{' '}
              <strong>
                {formatNumber(entry.value, i18n.language)} {entry.kind === 'odometer' ? 'km' : 'h'}
              </strong>
              {entry.setBy && <span className="history-who"> ({entry.setBy})</span>}
            </li>
          ))}
        </ol>
      </details>
    </Section>
  );
}

export function BenefitSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'benefit', (u) => ({ carUsage: u.CarUsage as string, fuelPayer: u.FuelPayer ?? '', reimbursementPer10Km: u.ReimbursementPer10Km ?? 0 }));
  const v = form.values;
  const body = () => ({
    carUsage: v.carUsage,
    fuelPayer: v.carUsage === 'none' || v.fuelPayer === '' ? null : v.fuelPayer,
    reimbursementPer10Km: v.carUsage === 'none' || v.reimbursementPer10Km === 0 ? (v.carUsage === 'private' ? 0 : null) : v.reimbursementPer10Km,
  });
  return (
    <Section
      id="benefit"
      title={t('units.sections.benefit')}
      description={unit.isLocked && unit.CarUsage !== 'none' ? t('units.hints.benefitLocked') : t('units.hints.benefit')}
      onSave={() => void form.submit(body(), benefitSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <div className="field-grid">
        <SelectField
          label={t('units.fields.carUsage')}
          value={v.carUsage}
          onChange={(carUsage) => form.set({ carUsage })}
          options={CAR_USAGES.map((usage) => ({ value: usage, label: t(`units.carUsage.${usage}`) }))}
          error={form.errors.carUsage}
          testId="car-usage"
        />
        {v.carUsage !== 'none' && (
          <>
            <SelectField
              label={t('units.fields.fuelPayer')}
              value={v.fuelPayer}
              onChange={(fuelPayer) => form.set({ fuelPayer })}
              options={[{ value: '', label: t('units.choose') }, ...FUEL_PAYERS.map((payer) => ({ value: payer, label: t(`units.fuelPayer.${payer}`) }))]}
              error={form.errors.fuelPayer}
            />
            <DecimalField
              label={t('units.fields.reimbursementPer10Km')}
              value={v.reimbursementPer10Km}
              onChange={(reimbursementPer10Km) => form.set({ reimbursementPer10Km })}
              error={form.errors.reimbursementPer10Km}
            />
          </>
        )}
      </div>
      {(form.errors.fuelConsumptionPer10Km || form.errors.co2GPerKm) && (
        <p className="field-error" role="alert">
          {[form.errors.fuelConsumptionPer10Km, form.errors.co2GPerKm].filter(Boolean).join(' ')}
        </p>
      )}
    </Section>
  );
}

export function FuelSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'fuel', (u) => ({ fuelType: u.FuelType ?? '', fuelConsumptionPer10Km: u.FuelConsumptionPer10Km ?? 0 }));
  const v = form.values;
  const body = () => ({ fuelType: v.fuelType || null, fuelConsumptionPer10Km: v.fuelConsumptionPer10Km === 0 ? null : v.fuelConsumptionPer10Km });
  return (
    <Section
      id="fuel"
      title={t('units.sections.fuel')}
      description={t('units.hints.fuel')}
      onSave={() => void form.submit(body(), fuelSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <div className="field-grid">
        <SelectField
          label={t('units.columns.fuelType')}
          value={v.fuelType}
          onChange={(fuelType) => form.set({ fuelType })}
          options={[{ value: '', label: t('units.choose') }, ...FUEL_TYPES.map((type) => ({ value: type, label: t(`units.fuelType.${type}`) }))]}
          error={form.errors.fuelType}
        />
        <DecimalField
          label={v.fuelType === 'electricity' ? t('units.fields.consumptionKwh') : t('units.fields.consumptionLitres')}
          value={v.fuelConsumptionPer10Km}
          onChange={(fuelConsumptionPer10Km) => form.set({ fuelConsumptionPer10Km })}
          error={form.errors.fuelConsumptionPer10Km}
          isRequired={unit.CarUsage === 'benefit'}
        />
      </div>
    </Section>
  );
}

export function Co2Section({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'co2', (u) => ({ co2GPerKm: u.Co2GPerKm ?? 0, set: u.Co2GPerKm !== null }));
  return (
    <Section
      id="co2"
      title={t('units.sections.co2')}
      onSave={() => void form.submit({ co2GPerKm: form.values.set ? form.values.co2GPerKm : null }, co2Schema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <DecimalField
        label={t('units.fields.co2GPerKm')}
        value={form.values.co2GPerKm}
        onChange={(co2GPerKm) => form.set({ co2GPerKm, set: true })}
        error={form.errors.co2GPerKm}
        isRequired={unit.CarUsage === 'benefit'}
        maximumFractionDigits={1}
      />
    </Section>
  );
}

const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

export function WorkingHoursSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'working-hours', (u) => ({
    enabled: u.WorkingHours.enabled,
    days: Object.fromEntries(
      WEEKDAYS.map((day) => {
        const found = u.WorkingHours.days.find((entry) => entry.day === day);
        return [day, { on: Boolean(found), start: found?.start ?? '08:00', end: found?.end ?? '17:00' }];
      }),
    ) as Record<number, { on: boolean; start: string; end: string }>,
  }));
  const v = form.values;
  const body = () => ({
    enabled: v.enabled,
    days: WEEKDAYS.filter((day) => v.days[day]!.on).map((day) => ({ day, start: v.days[day]!.start, end: v.days[day]!.end })),
  });
  const dayError = (day: number) => {
    const index = body().days.findIndex((entry) => entry.day === day);
    return index < 0 ? undefined : (form.errors[`days.${index}.end`] ?? form.errors[`days.${index}.start`]);
  };
  return (
    <Section
      id="working-hours"
      title={t('units.sections.workingHours')}
      onSave={() => void form.submit(body(), workingHoursSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message ?? form.errors.days ?? null}
    >
      <CheckboxField isSelected={v.enabled} onChange={(enabled) => form.set({ enabled })}>
        {t('units.fields.workingHoursOn')}
      </CheckboxField>
      <div className="weekday-grid">
        {WEEKDAYS.map((day) => {
          const entry = v.days[day]!;
          const update = (patch: Partial<typeof entry>) => form.set({ days: { ...v.days, [day]: { ...entry, ...patch } } });
          return (
            <div key={day} className="weekday-row">
              <CheckboxField isSelected={entry.on} onChange={(on) => update({ on })}>
                {t(`units.weekday.${day}`)}
              </CheckboxField>
              <NativeField label={t('units.fields.start')} type="time" value={entry.start} onChange={(start) => update({ start })} isDisabled={!entry.on} />
              <NativeField label={t('units.fields.end')} type="time" value={entry.end} onChange={(end) => update({ end })} isDisabled={!entry.on} error={dayError(day)} />
            </div>
          );
        })}
      </div>
    </Section>
  );
}

export function LockSection({ unit }: Props) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const lockMutation = useSaveSection(unit.ID, 'lock');
  const unlockMutation = useSaveSection<{ unlocked: true }>(unit.ID, 'unlock');
  const log = useUnitSub<LockLogEntry[]>(unit.ID, 'lock-log');
  const busy = lockMutation.isPending || unlockMutation.isPending;
  async function act(kind: 'lock' | 'unlock') {
    try {
      await (kind === 'lock' ? lockMutation : unlockMutation).mutateAsync({});
      await log.refetch();
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }
  const { Lock } = unit;
  return (
    <Section
      id="lock"
      title={t('units.sections.lock')}
      description={t('units.hints.lock')}
      actions={
        <>
          {Lock.canLock && (
            <Button className="btn btn-primary" onPress={() => void act('lock')} isDisabled={busy}>
              {t('units.lock.lock')}
            </Button>
          )}
          {unit.isLocked && (
            <Button className="btn btn-secondary" onPress={() => void act('unlock')} isDisabled={busy || !Lock.canUnlock}>
              {t('units.lock.unlock')}
            </Button>
          )}
        </>
      }
    >
      <p data-testid="lock-state">
        {unit.isLocked
          ? t('units.lock.lockedBy', { name: Lock.lockedBy?.name ?? '–', time: formatDateTime(Lock.lockedAt, i18n.language) })
          : unit.CarUsage === 'none'
            ? t('units.lock.notCar')
            : t('units.lock.unlocked')}
      </p>
      {unit.isLocked && !Lock.canUnlock && <p className="field-description">{t('units.lock.onlyLocker')}</p>}
      <details className="unit-history" data-testid="lock-log">
        <summary>{t('units.sections.lockLog', { count: log.data?.length ?? 0 })}</summary>
        <ol className="history-list">
          {(log.data ?? []).map((entry) => (
            <li key={`${entry.at}-${entry.action}-${entry.by}`}>
              <span className="history-when">{formatDateTime(entry.at, i18n.language)}</span> {t(`units.lock.log.${entry.action}`, { name: entry.by ?? '–' })}
            </li>
          ))}
        </ol>
      </details>
    </Section>
  );
}

export function MarkerSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'marker', (u) => ({ color: u.Color, markerIcon: u.MarkerIcon }));
  return (
    <Section
      id="marker"
      title={t('units.sections.marker')}
      onSave={() => void form.submit(form.values, markerSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <div className="field-grid">
        <SelectField
          label={t('units.fields.markerIcon')}
          value={form.values.markerIcon}
          onChange={(markerIcon) => form.set({ markerIcon })}
          options={MARKER_ICONS.map((icon) => ({ value: icon, label: t(`units.markerIcon.${icon}`) }))}
          error={form.errors.markerIcon}
        />
        <NativeField label={t('units.fields.color')} type="color" value={form.values.color} onChange={(color) => form.set({ color })} error={form.errors.color} />
      </div>
      <p className="marker-preview">
        <span className="unit-swatch unit-swatch--large" style={{ backgroundColor: form.values.color }} aria-hidden="true" />
        {t(`units.markerIcon.${form.values.markerIcon}`)}
      </p>
    </Section>
  );
}

/** Spec §4 operating modes (battery trackers) or report frequency (trip-log trackers); §6 permissions. */
export function ModeSection({ unit }: Props) {
  const { t } = useTranslation();
  const session = useSession();
  const isBattery = unit.DeviceKind === 'battery';
  const path = isBattery ? 'operating-mode' : 'report-frequency';
  const form = useSectionForm(unit, path, (u) => ({ value: isBattery ? (u.OperatingMode ?? '24h') : String(u.ReportFrequencyS ?? 60) }));
  const lockMutation = useSaveSection(unit.ID, 'report-frequency-lock');
  const pending = unit.PendingSettings[isBattery ? 'operating_mode' : 'report_frequency'];
  const canLock = session?.user.IsAdmin || session?.user.Role === 'support';
  const modes = OPERATING_MODES.filter((mode) => mode !== 'theft' || supportsTheftMode(unit.Model));
  const current = isBattery
    ? unit.OperatingMode
      ? t(`units.mode.${unit.OperatingMode}`)
      : t('units.mode.unknown')
    : unit.ReportFrequencyS
      ? t('units.frequency.seconds', { count: unit.ReportFrequencyS })
      : t('units.mode.unknown');
  return (
    <Section
      id="mode"
      title={isBattery ? t('units.sections.operatingMode') : t('units.sections.reportFrequency')}
      description={isBattery ? t('units.hints.operatingMode') : t('units.hints.reportFrequency')}
      onSave={() => void form.submit(isBattery ? { mode: form.values.value } : { seconds: Number(form.values.value) })}
      saving={form.saving}
      saved={form.saved}
      error={form.message ?? form.errors.mode ?? form.errors.seconds ?? null}
      canSave={unit.CanChangeReportFrequency}
      saveLabel={t('units.mode.send')}
      actions={
        canLock && (
          <Button className="btn btn-secondary" onPress={() => lockMutation.mutate({ locked: !unit.ReportFrequencyLocked })} isDisabled={lockMutation.isPending}>
            {unit.ReportFrequencyLocked ? t('units.frequency.unlock') : t('units.frequency.lock')}
          </Button>
        )
      }
    >
      <p data-testid="mode-current">
        {t('units.mode.current')}: <strong>{current}</strong>{' '}
        {pending && (
          <>
            <PendingBadge status={pending.status} /> {isBattery ? t(`units.mode.${pending.value}`) : t('units.frequency.seconds', { count: Number(pending.value) })}
          </>
        )}
      </p>
      {unit.ReportFrequencyLocked && <p className="field-description">{t('units.frequency.lockedNote')}</p>}
      {!unit.CanChangeReportFrequency && !unit.ReportFrequencyLocked && <p className="field-description">{t('units.frequency.deniedNote')}</p>}
      <SelectField
        label={isBattery ? t('units.fields.operatingMode') : t('units.fields.reportFrequency')}
        value={form.values.value}
        onChange={(value) => form.set({ value })}
        options={
          isBattery
            ? modes.map((mode) => ({ value: mode, label: `${t(`units.mode.${mode}`)} – ${t(`units.modeHint.${mode}`)}` }))
            : REPORT_FREQUENCIES_S.map((seconds) => ({ value: String(seconds), label: t('units.frequency.seconds', { count: seconds }) }))
        }
        testId="mode-select"
      />
    </Section>
  );
}

export function TimeTillParkedSection({ unit }: Props) {
  const { t } = useTranslation();
  const form = useSectionForm(unit, 'time-till-parked', (u) => ({ minutes: String(u.TimeTillParkedMin ?? 5) }));
  return (
    <Section
      id="time-till-parked"
      title={t('units.sections.timeTillParked')}
      description={t('units.hints.timeTillParked')}
      onSave={() => void form.submit({ minutes: toInt(form.values.minutes) }, timeTillParkedSchema)}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <Field label={t('units.fields.minutes')} value={form.values.minutes} onChange={(minutes) => form.set({ minutes })} error={form.errors.minutes} inputMode="numeric" />
    </Section>
  );
}

export function FeaturesSection({ unit }: Props) {
  const { t } = useTranslation();
  const options = useUnitOptions();
  const form = useSectionForm(unit, 'features', (u) => ({ profile: u.FeatureProfile ? String(u.FeatureProfile.id) : '' }));
  if (unit.DeviceKind !== 'triplog') {
    return (
      <Section id="features" title={t('units.sections.features')}>
        <p>{t('units.hints.featuresTriplogOnly')}</p>
      </Section>
    );
  }
  return (
    <Section
      id="features"
      title={t('units.sections.features')}
      onSave={() => void form.submit({ featureProfileId: form.values.profile ? Number(form.values.profile) : null })}
      saving={form.saving}
      saved={form.saved}
      error={form.message ?? form.errors.featureProfileId ?? null}
    >
      <SelectField
        label={t('units.fields.featureProfile')}
        value={form.values.profile}
        onChange={(profile) => form.set({ profile })}
        options={[{ value: '', label: t('units.none') }, ...(options.data?.featureProfiles ?? []).map((item) => ({ value: String(item.id), label: item.name }))]}
      />
    </Section>
  );
}

export function BluetoothSection({ unit }: Props) {
  const { t } = useTranslation();
  const pending = unit.PendingSettings.bluetooth;
  const form = useSectionForm(unit, 'bluetooth', (u) => ({ enabled: pending ? pending.value === '1' : u.BluetoothEnabled }));
  return (
    <Section
      id="bluetooth"
      title={t('units.sections.bluetooth')}
      description={t('units.hints.bluetooth')}
      onSave={() => void form.submit({ enabled: form.values.enabled })}
      saving={form.saving}
      saved={form.saved}
      error={form.message}
    >
      <p>
        {t('units.mode.current')}: <strong>{unit.BluetoothEnabled ? t('units.on') : t('units.off')}</strong> {pending && <PendingBadge status={pending.status} />}
      </p>
      <CheckboxField isSelected={form.values.enabled} onChange={(enabled) => form.set({ enabled })}>
        {t('units.fields.bluetooth')}
      </CheckboxField>
    </Section>
  );
}

/** The tracker: IMEI, model, replacement (administrators and support; confirmed first, cannot be undone). */
export function TrackerSection({ unit, onReplace }: Props & { onReplace: () => void }) {
  const { t } = useTranslation();
  const session = useSession();
  const mayReplace = session?.user.IsAdmin || session?.user.Role === 'support';
  return (
    <Section
      id="tracker"
      title={t('units.sections.tracker')}
      actions={
        mayReplace && (
          <Button className="btn btn-secondary" onPress={onReplace}>
            {t('units.replace.open')}
          </Button>
        )
      }
    >
      <dl className="facts">
        <div>
          <dt>IMEI</dt>
          <dd data-testid="tracker-imei">{unit.Imei}</dd>
        </div>
        <div>
          <dt>{t('units.columns.model')}</dt>
          <dd>{unit.Model || '–'}</dd>
        </div>
        <div>
          <dt>{t('units.fields.deviceKind')}</dt>
          <dd>{t(`units.deviceKind.${unit.DeviceKind}`)}</dd>
        </div>
      </dl>
    </Section>
  );
}

