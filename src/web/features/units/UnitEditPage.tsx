import { type MouseEvent, useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { imeiSchema, supportsTheftMode, type UnitDetail } from '../../../modules/units/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field } from '../../components/Form';
import { errorText, isApiError } from '../../lib/api';
import { translateMessage } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { useSession } from '../../lib/session';
import { NotFoundPage } from '../../components/NotFoundPage';
import { AccessSection } from './access';
import { UnitBookingsSection } from './bookings';
import { AlarmReceiversSection } from './alarm-receivers';
import { type TrackerHistoryEntry, useSaveSection, useUnit, useUnitSub } from './api';
import { ObjectDescriptionSection, TheftReportSection } from './documents';
import {
  BenefitSection,
  BluetoothSection,
  Co2Section,
  DetailsSection,
  FeaturesSection,
  FuelSection,
  LockSection,
  MarkerSection,
  MetersSection,
  ModeSection,
  NameSection,
  OrganisationSection,
  TimeTillParkedSection,
  TrackerSection,
  WorkingHoursSection,
} from './sections';
import { TheftModeSection } from './theft';
import { formatDateTime } from './ui';
import { UnsavedChangesProvider, useUnsavedChanges } from './unsaved';

/** Spec §4: replacing a tracker moves the unit and its history to a new IMEI; confirmed first, it cannot be undone. */
function ReplaceTrackerDialog({ unit, isOpen, onClose }: { unit: UnitDetail; isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const mutation = useSaveSection(unit.ID, 'replace-tracker');
  const [imei, setImei] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState<string | null>(null);
  function close() {
    setImei('');
    setConfirmed(false);
    setError(null);
    onClose();
  }
  async function replace() {
    const parsed = imeiSchema.safeParse(imei);
    if (!parsed.success) {
      setError(translateMessage(parsed.error.issues[0]?.message ?? 'validation.invalid'));
      return;
    }
    try {
      await mutation.mutateAsync({ imei: parsed.data, confirm: true });
      close();
      await dialogs.showMessage({ message: t('units.replace.done', { imei: parsed.data }) });
    } catch (caught) {
      setError(isApiError(caught) ? (caught.fieldError('imei', 'confirm') ?? errorText(caught)) : errorText(caught));
    }
  }
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && close()} title={t('units.replace.title')} role="alertdialog">
      <div className="dialog-body">
        <p>{t('units.replace.explain', { name: unit.Name, imei: unit.Imei })}</p>
        <Field label={t('units.replace.newImei')} value={imei} onChange={setImei} error={error} inputMode="numeric" maxLength={15} testId="replace-imei" autoFocus />
        <CheckboxField isSelected={confirmed} onChange={setConfirmed}>
          {t('units.replace.confirm')}
        </CheckboxField>
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={close}>
          {t('common.cancel')}
        </Button>
        <Button className="btn btn-primary" onPress={() => void replace()} isDisabled={!confirmed || imei.trim() === '' || mutation.isPending}>
          {t('units.replace.submit')}
        </Button>
      </div>
    </AppDialog>
  );
}

function TrackerHistory({ unitId }: { unitId: number }) {
  const { t, i18n } = useTranslation();
  const history = useUnitSub<TrackerHistoryEntry[]>(unitId, 'tracker-history');
  if (!history.data || history.data.length === 0) return null;
  return (
    <section className="unit-section" aria-labelledby="tracker-history-title" data-testid="tracker-history">
      <h2 id="tracker-history-title" className="unit-section-title">
        {t('units.sections.trackerHistory')}
      </h2>
      <ol className="history-list">
        {history.data.map((entry) => (
          <li key={`${entry.replacedAt}-${entry.imei}`}>
            <span className="history-when">{formatDateTime(entry.replacedAt, i18n.language)}</span>{' '}
            {t('units.replace.entry', { from: entry.previousImei, fromModel: entry.previousModel, to: entry.imei, toModel: entry.model })}
            {entry.replacedBy && <span className="history-who"> ({entry.replacedBy})</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The sections, listed at the side (a strip of tabs on a phone): each jumps to its section, the one in view is marked,
 * and a section with unsaved edits says so.
 */
function SectionList({ entries }: { entries: Array<[string, string]> }) {
  const { t } = useTranslation();
  const unsaved = useUnsavedChanges();
  const [current, setCurrent] = useState<string | null>(null);
  // The section last jumped to stays marked while it is in view (the last ones cannot scroll to the top).
  const pinned = useRef<string | null>(null);
  const ids = entries.map(([id]) => id).join(',');
  useEffect(() => {
    if (typeof IntersectionObserver === 'undefined') return;
    const visible = new Map<string, number>();
    const observer = new IntersectionObserver(
      (changes) => {
        for (const change of changes) {
          if (change.isIntersecting) visible.set(change.target.id, change.boundingClientRect.top);
          else visible.delete(change.target.id);
        }
        if (pinned.current && visible.has(pinned.current)) return setCurrent(pinned.current);
        pinned.current = null;
        const first = [...visible].sort((a, b) => a[1] - b[1])[0];
        if (first) setCurrent(first[0]);
      },
      { rootMargin: '0px 0px -50% 0px' },
    );
    for (const id of ids.split(',')) {
      const element = document.getElementById(id);
      if (element) observer.observe(element);
    }
    return () => observer.disconnect();
  }, [ids]);
  function jump(event: MouseEvent<HTMLAnchorElement>, id: string) {
    const target = document.getElementById(id);
    if (!target) return;
    event.preventDefault();
    target.scrollIntoView({ block: 'start' });
    target.querySelector<HTMLElement>('input, select, textarea, button')?.focus({ preventScroll: true });
    pinned.current = id;
    setCurrent(id);
    window.history.replaceState(window.history.state, '', `#${id}`);
  }
  return (
    <nav className="unit-section-nav" aria-label={t('units.edit.sections')} data-testid="unit-section-nav">
      <ul>
        {entries.map(([id, key]) => {
          const dirty = unsaved?.dirty.has(id) === true;
          return (
            <li key={id}>
              <a href={`#${id}`} aria-current={current === id ? 'location' : undefined} onClick={(event) => jump(event, id)} data-testid={`section-link-${id}`}>
                {t(key)}
                {dirty && (
                  <span className="unit-section-nav-unsaved" data-testid={`section-unsaved-${id}`}>
                    <span aria-hidden="true"> •</span>
                    <span className="visually-hidden"> ({t('units.unsaved.marker')})</span>
                  </span>
                )}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** Spec §2 /user/edit-terminal: one unit with every edit section; a missing or foreign unit is not found. */
export function UnitEditPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const raw = params.get('id') ?? '';
  const id = /^\d{1,10}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
  const unit = useUnit(id);
  const [replacing, setReplacing] = useState(false);
  const session = useSession();
  const isAdmin = session?.user.IsAdmin === true;
  if (id === null || (unit.isError && isApiError(unit.error) && (unit.error.status === 404 || unit.error.status === 422))) return <NotFoundPage />;
  if (unit.isError) return <p role="alert">{errorText(unit.error)}</p>;
  if (!unit.data) return <p aria-live="polite">{t('common.loading')}</p>;
  const data = unit.data;
  // Battery trackers have operating modes; theft mode is one of them on the models that support it.
  const showsTheftMode = data.DeviceKind === 'battery' || supportsTheftMode(data.Model) || data.TheftMode !== 'off';
  const sectionEntries: Array<[string, string]> = [
    ['name', 'units.sections.name'],
    ['details', 'units.sections.details'],
    ['organisation', 'units.sections.organisation'],
    ['meters', 'units.sections.meters'],
    ['benefit', 'units.sections.benefit'],
    ['fuel', 'units.sections.fuel'],
    ['co2', 'units.sections.co2'],
    ['working-hours', 'units.sections.workingHours'],
    ['lock', 'units.sections.lock'],
    ...(isAdmin ? ([['access', 'units.access.title'], ['alarm-receivers', 'alarmReceivers.unit.title']] as Array<[string, string]>) : []),
    ['marker', 'units.sections.marker'],
    ['mode', data.DeviceKind === 'battery' ? 'units.sections.operatingMode' : 'units.sections.reportFrequency'],
    ...(showsTheftMode ? ([['theft-mode', 'units.theftMode.title']] as Array<[string, string]>) : []),
    ['time-till-parked', 'units.sections.timeTillParked'],
    ['features', 'units.sections.features'],
    ['bluetooth', 'units.sections.bluetooth'],
    ['object-description', 'units.sections.objectDescription'],
    ['theft-report', 'units.sections.theftReport'],
    ['tracker', 'units.sections.tracker'],
  ];
  return (
    <UnsavedChangesProvider key={data.ID}>
    <div className="page unit-edit-page">
      <p className="breadcrumb">
        <Link to={PATHS.unitList}>{t('units.edit.back')}</Link>
      </p>
      <div className="page-heading">
        <h1 className="page-title">
          <span className="unit-swatch unit-swatch--large" style={{ backgroundColor: data.Color }} aria-hidden="true" /> {data.Name}
        </h1>
        <p className="unit-summary">
          {data.HasAccess && <span className={`status-pill status-pill--${data.Status}`}>{t(`unitStatus.${data.Status}`)}</span>} {data.RegistrationNumber || '–'} · IMEI {data.Imei} ·{' '}
          {t('units.columns.lastSeen')}: {formatDateTime(data.LastSeen, i18n.language)}
        </p>
        {!data.HasAccess && (
          <p className="unit-restricted" role="note" data-testid="unit-restricted">
            {t('units.access.restricted')}
          </p>
        )}
      </div>
      <div className="unit-edit-layout">
        <SectionList entries={sectionEntries} />
      <div className="unit-sections">
        <NameSection unit={data} />
        <DetailsSection unit={data} />
        <OrganisationSection unit={data} />
        <MetersSection unit={data} />
        <BenefitSection unit={data} />
        <FuelSection unit={data} />
        <Co2Section unit={data} />
        <WorkingHoursSection unit={data} />
        <LockSection unit={data} />
        {isAdmin && <AccessSection unit={data} />}
        {isAdmin && <AlarmReceiversSection unit={data} />}
        <MarkerSection unit={data} />
        <ModeSection unit={data} />
        {showsTheftMode && <TheftModeSection unit={data} />}
        <TimeTillParkedSection unit={data} />
        <FeaturesSection unit={data} />
        <BluetoothSection unit={data} />
        <ObjectDescriptionSection unit={data} />
        <TheftReportSection unit={data} />
        <TrackerSection unit={data} onReplace={() => setReplacing(true)} />
        <TrackerHistory unitId={data.ID} />
        <UnitBookingsSection unitId={data.ID} />
      </div>
      </div>
      <ReplaceTrackerDialog unit={data} isOpen={replacing} onClose={() => setReplacing(false)} />
    </div>
    </UnsavedChangesProvider>
  );
}
