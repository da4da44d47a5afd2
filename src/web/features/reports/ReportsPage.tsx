import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, useParams } from 'react-router';
import { useDialogs } from '../../components/Dialogs';
import { DownloadProgress, useDownload } from '../../components/DownloadProgress';
import { SelectField } from '../../components/Form';
import { PeriodPicker } from '../../components/PeriodPicker';
import { TriplogTabs } from '../../components/TriplogTabs';
import { UnitPicker } from '../../components/UnitPicker';
import { NotFoundPage } from '../../components/NotFoundPage';
import { errorText, isApiError } from '../../lib/api';
import { useAddressState } from '../../lib/address-state';
import { PATHS, reportsPath } from '../../lib/paths';
import { landingPath, useSession } from '../../lib/session';
import { useReport, useReportDrivers, useReportUnits } from './api';
import { reportFormats } from './format';
import {
  EXPORT_FORMATS,
  filtersFromSearch,
  filtersToSearch,
  GROUPED_REPORTS,
  isReportKind,
  isScheduledKind,
  LOCKED_CAR_REPORTS,
  REPORT_KINDS,
  type ReportFilters,
  type ReportKind,
  reportExportPath,
  reportFallbackName,
} from './reports';
import { ReportBody } from './ReportBody';
import { ScheduleDialog } from './ScheduleDialog';
import './reports.css';

const ALL = '';

/**
 * Spec §1 reports, at /user/reports/:report: summary, benefit value and reimbursement, eco driving, fuel, CO2 and the
 * environmental report (congestion tax has its screen under the trip log and is linked from here). One vehicle,
 * several or the whole fleet (no vehicle chosen), narrowed to a department or a driver, over a period of at most
 * 12 months, per vehicle or per driver; exported as PDF, XLSX or CSV and scheduled by e-mail.
 *
 * Spec §6: for a locked benefit or private car the user has no access to, only benefit value and summary are
 * offered; should the server still refuse a report (403), its message is shown in place of the report.
 */
export function ReportsPage() {
  const { report: segment } = useParams();
  const session = useSession();
  // The basic subscription has the log only (as the sidebar shows).
  if (session?.user.userHasOnlyBasSubscription) return <Navigate to={landingPath(session.user)} replace />;
  if (!isReportKind(segment)) return <NotFoundPage />;
  return <ReportsScreen kind={segment} />;
}

function ReportsScreen({ kind }: { kind: ReportKind }) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const download = useDownload();
  const units = useReportUnits();
  const drivers = useReportDrivers();
  // The filters live in the address too, so a reload or a shared link shows the same report.
  const [filters, setFilters] = useAddressState<ReportFilters>(filtersFromSearch, filtersToSearch);
  const search = filtersToSearch(filters).toString();
  const [scheduling, setScheduling] = useState(false);
  const formats = useMemo(() => reportFormats(i18n.language), [i18n.language]);

  const allUnits = units.data ?? [];
  const chosen = allUnits.filter((unit) => filters.unitIds.includes(unit.ID));
  const lockedChosen = chosen.filter((unit) => !unit.HasAccess);
  // Spec §6: a locked car without access narrows the reports offered to benefit value and summary.
  const offered = lockedChosen.length > 0 ? LOCKED_CAR_REPORTS : REPORT_KINDS;
  const allowed = offered.includes(kind);
  const departments = useMemo(() => {
    const byId = new Map<number, string>();
    for (const unit of allUnits) if (unit.Department) byId.set(unit.Department.id, unit.Department.name);
    return [...byId].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
  }, [allUnits]);

  const rangeError = filters.from && filters.to && filters.to < filters.from ? t('reports.rangeOrder') : null;
  const query = useReport<unknown>(kind, filters, allowed && rangeError === null && units.isSuccess);
  const data = query.data as { from?: string; to?: string; excludedLockedUnits?: number } | undefined;
  // The server's default period is shown in the pickers once it has answered.
  useEffect(() => {
    if (!data?.from || !data.to || filters.from !== undefined) return;
    setFilters((current) => ({ ...current, from: data.from, to: data.to }));
  }, [data, filters.from, setFilters]);

  const set = (patch: Partial<ReportFilters>) => setFilters((current) => ({ ...current, ...patch }));
  const scope =
    filters.unitIds.length > 0
      ? t('reports.scope.vehicles', { count: filters.unitIds.length })
      : filters.departmentId !== null
        ? t('reports.scope.department', { name: departments.find((d) => d.id === filters.departmentId)?.name ?? '' })
        : t('reports.scope.fleet');
  const forbidden = query.isError && isApiError(query.error) && query.error.status === 403;

  async function exportAs(format: (typeof EXPORT_FORMATS)[number]) {
    try {
      await download.start(reportExportPath(kind, filters, format, i18n.language), reportFallbackName(kind, filters, format));
    } catch (error) {
      await dialogs.showError(errorText(error), t('reports.exportFailed'));
    }
  }

  let body: ReactNode = null;
  if (!allowed) {
    body = <LockedMessage names={lockedChosen.map((unit) => unit.Name)} />;
  } else if (rangeError) {
    body = null;
  } else if (forbidden) {
    body = <LockedMessage names={lockedChosen.map((unit) => unit.Name)} serverMessage={errorText(query.error)} />;
  } else if (query.isError) {
    body = (
      <p className="field-error" role="alert" data-testid="report-error">
        {errorText(query.error)}
      </p>
    );
  } else if (query.isPending) {
    body = <p aria-live="polite">{t('common.loading')}</p>;
  } else if (query.data) {
    body = <ReportBody kind={kind} data={query.data} formats={formats} />;
  }

  return (
    <div className="page reports-page" data-report={kind}>
      <h1 className="page-title">{t('reports.title')}</h1>
      <TriplogTabs />

      <nav className="report-tabs" aria-label={t('reports.kinds')} data-testid="report-tabs">
        {offered.map((candidate) => (
          <NavLink key={candidate} to={`${reportsPath(candidate)}${search ? `?${search}` : ''}`} className="report-tab" data-testid={`report-tab-${candidate}`}>
            {t(`reports.kind.${candidate}`)}
          </NavLink>
        ))}
        {lockedChosen.length === 0 && (
          <Link to={PATHS.congestionReport} className="report-tab report-tab--link">
            {t('reports.kind.congestion')}
          </Link>
        )}
      </nav>

      <div className="report-filters" data-testid="report-filters">
        <UnitPicker
          label={t('reports.vehicles')}
          units={allUnits}
          selectionMode="multiple"
          selected={filters.unitIds}
          onChange={(unitIds) => set({ unitIds })}
          noneLabel={t('reports.scope.fleet')}
          testId="report-units"
        />
        {departments.length > 0 && (
          <SelectField
            label={t('reports.department')}
            value={filters.departmentId === null ? ALL : String(filters.departmentId)}
            onChange={(value) => set({ departmentId: value === ALL ? null : Number(value) })}
            options={[{ value: ALL, label: t('reports.allDepartments') }, ...departments.map((d) => ({ value: String(d.id), label: d.name }))]}
            testId="report-department"
          />
        )}
        {(drivers.data?.length ?? 0) > 0 && (
          <SelectField
            label={t('reports.driver')}
            value={filters.driverId === null ? ALL : String(filters.driverId)}
            onChange={(value) => set({ driverId: value === ALL ? null : Number(value) })}
            options={[{ value: ALL, label: t('reports.allDrivers') }, ...(drivers.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))]}
            testId="report-driver"
          />
        )}
        <PeriodPicker
          from={filters.from}
          to={filters.to}
          idPrefix="report"
          invalid={rangeError !== null}
          errorId="report-range-error"
          onChange={(period) => {
            if (period.from) set({ from: period.from });
            if (period.to) set({ to: period.to });
          }}
        />
        {GROUPED_REPORTS.includes(kind) && (
          <SelectField
            label={t('reports.groupBy')}
            value={filters.groupBy}
            onChange={(value) => set({ groupBy: value === 'driver' ? 'driver' : 'vehicle' })}
            options={[
              { value: 'vehicle', label: t('reports.perVehicle') },
              { value: 'driver', label: t('reports.perDriver') },
            ]}
            testId="report-group"
          />
        )}
      </div>
      {rangeError && (
        <p className="field-error" role="alert" id="report-range-error">
          {rangeError}
        </p>
      )}

      <div className="report-actions">
        <p className="report-scope" data-testid="report-scope">
          {scope}
          {data?.from && data.to ? ` · ${data.from} – ${data.to}` : ''}
        </p>
        <fieldset className="report-exports">
          <legend className="visually-hidden">{t('reports.export')}</legend>
          {EXPORT_FORMATS.map((format) => (
            <Button key={format} className="btn btn-secondary" isDisabled={!allowed || !query.data || download.running !== null} onPress={() => void exportAs(format)} data-testid={`report-export-${format}`}>
              {t(`reports.exportAs.${format}`)}
            </Button>
          ))}
        </fieldset>
        {isScheduledKind(kind) && (
          <Button className="btn btn-secondary" isDisabled={!allowed} onPress={() => setScheduling(true)} data-testid="report-schedule">
            {t('reports.schedule.button')}
          </Button>
        )}
      </div>
      <DownloadProgress download={download} />
      {allowed && (data?.excludedLockedUnits ?? 0) > 0 && (
        <p className="report-hint" data-testid="report-excluded">
          {t('reports.excludedLocked', { count: data?.excludedLockedUnits ?? 0 })}
        </p>
      )}

      <div className="report-body" data-testid="report-body">
        {body}
      </div>

      {isScheduledKind(kind) && <ScheduleDialog kind={kind} filters={filters} isOpen={scheduling} onClose={() => setScheduling(false)} />}
    </div>
  );
}

function LockedMessage({ names, serverMessage }: { names: string[]; serverMessage?: string }) {
  const { t } = useTranslation();
  return (
    <div className="report-locked" role="status" data-testid="report-locked">
      <p className="report-locked-title">{t('reports.lockedTitle')}</p>
      <p>{names.length > 0 ? t('reports.lockedText', { names: names.join(', ') }) : (serverMessage ?? t('reports.lockedGeneric'))}</p>
    </div>
  );
}
