import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import {
  type BulkTask,
  type BulkTaskKind,
  type CarInfoPending,
  BULK_TASKS,
  DEFAULT_LIST_COLUMNS,
  OPERATING_MODES,
  REPORT_FREQUENCIES_S,
  SORTABLE_COLUMNS,
  type SortColumn,
  UNIT_LIST_COLUMNS,
  UNIT_STATUSES,
  type UnitListColumn,
  type UnitListQuery,
  type UnitView,
  unitSortValue,
  VEHICLE_TYPES,
} from '../../../modules/units/model';
import type { AccountUserRef } from '../../../modules/accounts/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { AppDialog } from '../../components/Dialogs';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { useSecurityUnits } from '../../lib/alarms';
import { api, errorText } from '../../lib/api';
import { unitEditPath } from '../../lib/paths';
import { useSession } from '../../lib/session';
import { type TableView, type TableViewState, useTableView } from '../../lib/table-view';
import { bulkJob, runBulk, startBulkJob, useUnitList, useUnitOptions } from './api';
import { CarInfoDialog, carInfoKey } from './CarInfoDialog';
import { CatalogDialog } from './catalog';
import { formatDateTime, formatNumber } from './ui';

/** Units per bulk request of an ordinary user: the progress bar moves slice by slice. */
const BULK_SLICE = 10;
/** How often an administrator's bulk job is asked for its progress. */
const BULK_POLL_MS = 500;

/** The unit list's view until the user chooses one (kept in the shared preferences store as `units`): by name, the default columns. */
const DEFAULT_VIEW: TableView = {
  sorting: [{ id: 'name', desc: false }],
  hidden: UNIT_LIST_COLUMNS.filter((column) => !DEFAULT_LIST_COLUMNS.includes(column)),
};

const isSortColumn = (id: string): id is SortColumn => (SORTABLE_COLUMNS as readonly string[]).includes(id);

function useColumnLabels(): Record<UnitListColumn, string> {
  const { t } = useTranslation();
  return Object.fromEntries(UNIT_LIST_COLUMNS.map((column) => [column, t(`units.columns.${column}`)])) as Record<UnitListColumn, string>;
}

function yesNo(value: boolean | null, t: (key: string) => string): string {
  return value === null ? '–' : value ? t('units.on') : t('units.off');
}

function cellContent(unit: UnitView, column: UnitListColumn, language: string, t: (key: string) => string, security: ReadonlySet<number>): ReactNode {
  switch (column) {
    case 'name':
      return (
        <Link className="unit-link" to={unitEditPath(unit.ID)}>
          <span className="unit-swatch" style={{ backgroundColor: unit.Color }} aria-hidden="true" />
          {unit.Name}
          {unit.TheftMode !== 'off' && (
            <span className={`theft-badge theft-badge--${unit.TheftMode}`} data-testid="theft-badge">
              {t(`units.theftMode.badge.${unit.TheftMode}`)}
            </span>
          )}
          {security.has(unit.ID) && (
            <span className="theft-badge theft-badge--on" data-testid="security-alarm-badge">
              {t('alarms.securityBadge')}
            </span>
          )}
        </Link>
      );
    case 'registrationNumber':
      return unit.RegistrationNumber || '–';
    case 'imei':
      return unit.Imei;
    case 'model':
      return unit.Model || '–';
    case 'vehicleType':
      return t(`units.vehicleType.${unit.VehicleType}`);
    case 'department':
      return unit.Department?.name ?? '–';
    case 'project':
      return unit.Project?.name ?? '–';
    case 'tags':
      return unit.Tags.length ? unit.Tags.map((tag) => tag.name).join(', ') : '–';
    case 'subscriptionType':
      return unit.SubscriptionType;
    case 'status':
      // Spec §6: a locked car without access shows no whereabouts, not even whether it moves.
      if (!unit.HasAccess) return <span className="unit-locked-note">{t('units.access.noAccess')}</span>;
      return <span className={`status-pill status-pill--${unit.Status}`}>{t(`unitStatus.${unit.Status}`)}</span>;
    case 'lastSeen':
      return formatDateTime(unit.LastSeen, language);
    case 'odometer':
      return unit.OdometerKm === null ? '–' : `${formatNumber(unit.OdometerKm, language)} km`;
    case 'operatingHours':
      return unit.OperatingHours === null ? '–' : `${formatNumber(unit.OperatingHours, language)} h`;
    case 'operatingMode':
      return unit.OperatingMode ? t(`units.mode.${unit.OperatingMode}`) : '–';
    case 'reportFrequency':
      return unit.ReportFrequencyS === null ? '–' : `${unit.ReportFrequencyS} s`;
    case 'fuelType':
      return unit.FuelType ? t(`units.fuelType.${unit.FuelType}`) : '–';
    case 'carUsage':
      return t(`units.carUsage.${unit.CarUsage}`);
    case 'locked':
      return unit.isLocked ? t('units.lock.locked') : t('units.lock.unlocked');
    case 'driver':
      return unit.CheckedInDriver?.name ?? '–';
    case 'outputs':
      return `DOUT1 ${yesNo(unit.Outputs.dout1, t)} · DOUT2 ${yesNo(unit.Outputs.dout2, t)} · DOUT3 ${yesNo(unit.Outputs.dout3, t)}`;
    case 'inputs':
      return `DIN2 ${yesNo(unit.Inputs.din2, t)} · DIN3 ${yesNo(unit.Inputs.din3, t)}`;
    case 'nextInspection':
      return unit.NextInspection ?? '–';
  }
}

interface BulkOutcome {
  unitId: number;
  name: string;
  ok: boolean;
  error: string | null;
  pending?: boolean;
}

function BulkDialog({ units, isOpen, onClose }: { units: UnitView[]; isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const options = useUnitOptions();
  const isAdmin = useSession()?.user.IsAdmin === true;
  const [kind, setKind] = useState<BulkTaskKind>('department');
  const [value, setValue] = useState('');
  const [tagMode, setTagMode] = useState<'add' | 'remove' | 'replace'>('add');
  const [done, setDone] = useState(0);
  const [running, setRunning] = useState(false);
  const [results, setResults] = useState<BulkOutcome[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // Working hours: the days (Monday 1 … Sunday 7) and one time span for each.
  const [days, setDays] = useState<Set<number>>(() => new Set([1, 2, 3, 4, 5]));
  const [dayStart, setDayStart] = useState('08:00');
  const [dayEnd, setDayEnd] = useState('17:00');
  const [accessMode, setAccessMode] = useState<'add' | 'remove'>('add');
  const accountUsers = useQuery({
    queryKey: ['account-users'],
    queryFn: () => api.get<AccountUserRef[]>('/api/admin/account-users'),
    enabled: isOpen && kind === 'access',
  });

  useEffect(() => {
    if (isOpen) {
      setResults(null);
      setDone(0);
      setFailure(null);
    }
  }, [isOpen]);

  const nullableId = (text: string) => (text === '' ? null : Number(text));
  function task(): BulkTask | null {
    switch (kind) {
      case 'department':
        return { kind, departmentId: nullableId(value) };
      case 'project':
        return { kind, projectId: nullableId(value) };
      case 'featureProfile':
        return { kind, featureProfileId: nullableId(value) };
      case 'tags':
        return value === '' ? null : { kind, tagIds: [Number(value)], mode: tagMode };
      case 'operatingMode':
        return value === '' ? null : { kind, mode: value as (typeof OPERATING_MODES)[number] };
      case 'reportFrequency':
        return value === '' ? null : { kind, seconds: Number(value) };
      case 'workingHours':
        // Spec §5: at least one working day (the server says so too).
        return days.size === 0 ? null : { kind, enabled: true, days: [...days].sort().map((day) => ({ day, start: dayStart, end: dayEnd })) };
      case 'access':
        return value === '' ? null : { kind, userIds: [Number(value)], mode: accessMode };
    }
  }

  async function run() {
    const chosen = task();
    if (!chosen || units.length === 0) return;
    setRunning(true);
    setFailure(null);
    setDone(0);
    const outcomes: BulkOutcome[] = [];
    const names = new Map(units.map((unit) => [unit.ID, unit.Name]));
    try {
      if (isAdmin) {
        // Administrators' tasks run on the server as a queued job, which keeps the progress this polls.
        let job = await startBulkJob(units.map((unit) => unit.ID), chosen);
        for (;;) {
          setDone(job.done);
          setResults(job.results.map((result) => ({ unitId: result.id, ok: result.ok, error: result.error, pending: result.pending, name: names.get(result.id) ?? String(result.id) })));
          if (job.status === 'done' || job.status === 'failed') {
            if (job.error) setFailure(job.error);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, BULK_POLL_MS));
          job = await bulkJob(job.id);
        }
        return;
      }
      for (let start = 0; start < units.length; start += BULK_SLICE) {
        const slice = units.slice(start, start + BULK_SLICE).map((unit) => unit.ID);
        const { results: sliceResults } = await runBulk(slice, chosen);
        outcomes.push(...sliceResults.map((result) => ({ ...result, name: names.get(result.unitId) ?? String(result.unitId) })));
        setDone(Math.min(units.length, start + slice.length));
        setResults([...outcomes]);
      }
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setRunning(false);
      await client.invalidateQueries({ queryKey: ['units'] });
    }
  }

  const optionList = (items: Array<{ id: number; name: string }> | undefined, noneLabel: string) => [
    { value: '', label: noneLabel },
    ...(items ?? []).map((item) => ({ value: String(item.id), label: item.name })),
  ];
  const valueOptions =
    kind === 'department'
      ? optionList(options.data?.departments, t('units.none'))
      : kind === 'project'
        ? optionList(options.data?.projects, t('units.none'))
        : kind === 'featureProfile'
          ? optionList(options.data?.featureProfiles, t('units.none'))
          : kind === 'tags'
            ? optionList(options.data?.tags, t('units.choose'))
            : kind === 'operatingMode'
              ? [{ value: '', label: t('units.choose') }, ...OPERATING_MODES.map((mode) => ({ value: mode, label: t(`units.mode.${mode}`) }))]
              : kind === 'access'
                ? optionList(accountUsers.data?.map((user) => ({ id: user.id, name: `${user.name} (${user.email})` })), t('units.choose'))
                : [{ value: '', label: t('units.choose') }, ...REPORT_FREQUENCIES_S.map((seconds) => ({ value: String(seconds), label: t('units.frequency.seconds', { count: seconds }) }))];
  const progress = units.length === 0 ? 0 : Math.round((done / units.length) * 100);
  const failed = results?.filter((result) => !result.ok).length ?? 0;

  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && !running && onClose()} title={t('units.bulk.title', { count: units.length })} className="modal--wide">
      <div className="dialog-body">
        <SelectField
          label={t('units.bulk.task')}
          value={kind}
          onChange={(next) => {
            setKind(next as BulkTaskKind);
            setValue('');
            setResults(null);
          }}
          options={BULK_TASKS.map((task) => ({ value: task, label: t(`units.bulk.tasks.${task}`) }))}
          testId="bulk-task"
        />
        {kind === 'workingHours' ? (
          <fieldset className="bulk-days" data-testid="bulk-days">
            <legend>{t('units.bulk.workingDays')}</legend>
            {[1, 2, 3, 4, 5, 6, 7].map((day) => (
              <CheckboxField
                key={day}
                isSelected={days.has(day)}
                onChange={(on) =>
                  setDays((current) => {
                    const next = new Set(current);
                    if (on) next.add(day);
                    else next.delete(day);
                    return next;
                  })
                }
              >
                {t(`units.weekday.${day}`)}
              </CheckboxField>
            ))}
            <Field label={t('units.bulk.dayStart')} value={dayStart} onChange={setDayStart} placeholder="08:00" testId="bulk-day-start" />
            <Field label={t('units.bulk.dayEnd')} value={dayEnd} onChange={setDayEnd} placeholder="17:00" testId="bulk-day-end" />
            {days.size === 0 && <p className="field-error">{t('units.bulk.oneDay')}</p>}
          </fieldset>
        ) : (
          <SelectField label={kind === 'access' ? t('units.bulk.user') : t('units.bulk.value')} value={value} onChange={setValue} options={valueOptions} testId="bulk-value" />
        )}
        {kind === 'access' && (
          <SelectField
            label={t('units.bulk.accessMode')}
            value={accessMode}
            onChange={(next) => setAccessMode(next as typeof accessMode)}
            options={(['add', 'remove'] as const).map((mode) => ({ value: mode, label: t(`units.bulk.accessModes.${mode}`) }))}
          />
        )}
        {kind === 'tags' && (
          <SelectField
            label={t('units.bulk.tagMode')}
            value={tagMode}
            onChange={(next) => setTagMode(next as typeof tagMode)}
            options={(['add', 'remove', 'replace'] as const).map((mode) => ({ value: mode, label: t(`units.bulk.tagModes.${mode}`) }))}
          />
        )}
        {(running || results) && (
          <div className="bulk-progress">
            <progress max={100} value={progress} aria-label={t('units.bulk.progress')} data-testid="bulk-progress" />
            <span aria-live="polite">{t('units.bulk.done', { done, total: units.length })}</span>
          </div>
        )}
        {failure && <Banner kind="error">{failure}</Banner>}
        {results && !running && (
          <p role="status" data-testid="bulk-summary">
            {failed === 0 ? t('units.bulk.allOk') : t('units.bulk.someFailed', { count: failed })}
          </p>
        )}
        {results && (
          <ul className="bulk-results" data-testid="bulk-results">
            {results.map((result) => (
              <li key={result.unitId} className={result.ok ? 'bulk-ok' : 'bulk-failed'}>
                <strong>{result.name}</strong>: {result.ok ? (result.pending ? t('units.bulk.queued') : t('units.bulk.ok')) : result.error}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose} isDisabled={running}>
          {t('units.close')}
        </Button>
        <Button className="btn btn-primary" onPress={() => void run()} isDisabled={running || task() === null || units.length === 0}>
          {t('units.bulk.run')}
        </Button>
      </div>
    </AppDialog>
  );
}

/** Spec §2 /user/edit-terminal-list: customizable columns (kept per user), filters, search, sorting and bulk tasks. */
export function UnitListPage() {
  const { t, i18n } = useTranslation();
  const labels = useColumnLabels();
  const stored = useTableView('units', DEFAULT_VIEW);
  const options = useUnitOptions();
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  const [filters, setFilters] = useState<{ departmentId: string; projectId: string; tagId: string; vehicleType: string; subscription: string; status: string }>({
    departmentId: '',
    projectId: '',
    tagId: '',
    vehicleType: '',
    subscription: '',
    status: '',
  });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [choosing, setChoosing] = useState(false);
  const [bulkOpen, setBulkOpen] = useState(false);
  // A link may open the catalogues here at once (?catalog=open).
  const [searchParams] = useSearchParams();
  const [catalogOpen, setCatalogOpen] = useState(() => searchParams.get('catalog') === 'open');
  // Car info onboarding: the units still waiting for it (skipped ones too), resumable from here.
  const [carInfoOpen, setCarInfoOpen] = useState(false);
  const isAdmin = useSession()?.user.IsAdmin === true;
  const securityUnits = useSecurityUnits();
  const securitySet = useMemo(() => new Set(securityUnits), [securityUnits]);
  const carInfo = useQuery({ queryKey: carInfoKey, queryFn: () => api.get<CarInfoPending[]>('/api/units/car-info'), enabled: isAdmin && !carInfoOpen });

  useEffect(() => {
    const timer = setTimeout(() => setDebounced(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);

  const columns = UNIT_LIST_COLUMNS.filter((column) => !stored.hidden.includes(column));
  // The server sorts by one column: the view's first, when it is one the server sorts by.
  const first = stored.sorting[0];
  const sort: SortColumn = first && isSortColumn(first.id) ? first.id : 'name';
  const order = first && isSortColumn(first.id) && first.desc ? 'desc' : 'asc';
  const query = useMemo<Partial<UnitListQuery>>(() => {
    const result: Partial<UnitListQuery> = { sort, order };
    if (debounced) result.q = debounced;
    if (filters.departmentId) result.departmentId = Number(filters.departmentId);
    if (filters.projectId) result.projectId = Number(filters.projectId);
    if (filters.tagId) result.tagId = Number(filters.tagId);
    if (filters.vehicleType) result.vehicleType = filters.vehicleType as UnitListQuery['vehicleType'];
    if (filters.subscription) result.subscription = filters.subscription;
    if (filters.status) result.status = filters.status as UnitListQuery['status'];
    return result;
  }, [debounced, filters, sort, order]);
  const list = useUnitList(query);
  const units = list.data ?? [];
  const selectedUnits = units.filter((unit) => selected.has(String(unit.ID)));

  const view: TableViewState = {
    ...stored,
    sorting: [{ id: sort, desc: order === 'desc' }],
    setSorting: (next) => {
      const chosen = next[0];
      if (chosen && isSortColumn(chosen.id)) stored.setSorting([chosen]);
    },
  };
  const tableColumns: DataColumn<UnitView>[] = UNIT_LIST_COLUMNS.map((column) => ({
    id: column,
    header: labels[column],
    cell: (unit) => cellContent(unit, column, i18n.language, t, securitySet),
    sortValue: isSortColumn(column) ? (unit) => unitSortValue(unit, column) : undefined,
    rowHeader: column === 'name',
    minRem: column === 'outputs' || column === 'inputs' ? 14 : column === 'name' ? 11 : column === 'imei' || column === 'lastSeen' ? 10 : 8,
  }));
  const setFilter = (name: keyof typeof filters) => (value: string) => {
    setFilters((current) => ({ ...current, [name]: value }));
    setSelected(new Set());
  };
  const catalogOptions = (items: Array<{ id: number; name: string }> | undefined) => [
    { value: '', label: t('units.filters.all') },
    ...(items ?? []).map((item) => ({ value: String(item.id), label: item.name })),
  ];

  return (
    <div className="page unit-list-page">
      <div className="page-heading">
        <h1 className="page-title">{t('units.list.title')}</h1>
        <div className="page-heading-actions">
          {isAdmin && (carInfo.data?.length ?? 0) > 0 && (
            <Button className="btn btn-secondary" onPress={() => setCarInfoOpen(true)} data-testid="car-info-open">
              {t('units.carInfo.open', { count: carInfo.data?.length ?? 0 })}
            </Button>
          )}
          {isAdmin && (
            <Button className="btn btn-secondary" onPress={() => setCatalogOpen(true)}>
              {t('units.list.catalog')}
            </Button>
          )}
          <Button className="btn btn-secondary" onPress={() => setChoosing(true)} isDisabled={!view.ready}>
            {t('units.list.columns')}
          </Button>
          <Button className="btn btn-primary" onPress={() => setBulkOpen(true)} isDisabled={selectedUnits.length === 0}>
            {t('units.list.bulk', { count: selectedUnits.length })}
          </Button>
        </div>
      </div>
      <search className="unit-filters" aria-label={t('units.filters.label')}>
        <Field type="search" label={t('units.filters.search')} value={search} onChange={setSearch} placeholder={t('units.filters.searchHint')} testId="unit-search" />
        <SelectField label={t('units.columns.department')} value={filters.departmentId} onChange={setFilter('departmentId')} options={catalogOptions(options.data?.departments)} testId="filter-department" />
        <SelectField label={t('units.columns.project')} value={filters.projectId} onChange={setFilter('projectId')} options={catalogOptions(options.data?.projects)} testId="filter-project" />
        <SelectField label={t('units.columns.tags')} value={filters.tagId} onChange={setFilter('tagId')} options={catalogOptions(options.data?.tags)} testId="filter-tag" />
        <SelectField
          label={t('units.columns.vehicleType')}
          value={filters.vehicleType}
          onChange={setFilter('vehicleType')}
          options={[{ value: '', label: t('units.filters.all') }, ...VEHICLE_TYPES.map((type) => ({ value: type, label: t(`units.vehicleType.${type}`) }))]}
          testId="filter-vehicle-type"
        />
        <SelectField
          label={t('units.columns.subscriptionType')}
          value={filters.subscription}
          onChange={setFilter('subscription')}
          options={[{ value: '', label: t('units.filters.all') }, ...(options.data?.subscriptions ?? []).map((value) => ({ value, label: value }))]}
          testId="filter-subscription"
        />
        <SelectField
          label={t('units.columns.status')}
          value={filters.status}
          onChange={setFilter('status')}
          options={[{ value: '', label: t('units.filters.all') }, ...UNIT_STATUSES.map((status) => ({ value: status, label: t(`unitStatus.${status}`) }))]}
          testId="filter-status"
        />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      <p className="unit-count" aria-live="polite" data-testid="unit-count">
        {list.isPending ? t('common.loading') : t('units.list.count', { count: units.length })}
      </p>
      {view.ready && columns.length > 0 && (
        <DataTable
          label={t('units.list.title')}
          rows={units}
          columns={tableColumns}
          rowId={(unit) => String(unit.ID)}
          view={view}
          manualSorting
          selection={{ selected, onChange: setSelected, rowLabel: (unit) => t('units.list.select', { name: unit.Name }) }}
          rowProps={(unit) => ({ 'data-testid': `unit-row-${unit.ID}`, className: 'unit-row' })}
          empty={list.isPending ? t('common.loading') : t('units.list.empty')}
          testId="unit-table"
          className="unit-table"
        />
      )}
      <ColumnChooser columns={tableColumns} view={view} isOpen={choosing} onClose={() => setChoosing(false)} title={t('units.list.columns')} />
      <BulkDialog units={selectedUnits} isOpen={bulkOpen} onClose={() => setBulkOpen(false)} />
      {isAdmin && <CatalogDialog isOpen={catalogOpen} onClose={() => setCatalogOpen(false)} />}
      {isAdmin && <CarInfoDialog units={carInfo.data ?? []} isOpen={carInfoOpen} onClose={() => setCarInfoOpen(false)} />}
    </div>
  );
}
