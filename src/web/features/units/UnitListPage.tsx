import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import {
  Button,
  Cell,
  Checkbox,
  Column,
  type Key,
  Row,
  type Selection,
  type SortDescriptor,
  Table,
  TableBody,
  TableHeader,
} from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import {
  type BulkTask,
  type BulkTaskKind,
  BULK_TASKS,
  OPERATING_MODES,
  REPORT_FREQUENCIES_S,
  SORTABLE_COLUMNS,
  type SortColumn,
  UNIT_LIST_COLUMNS,
  UNIT_STATUSES,
  type UnitListColumn,
  type UnitListQuery,
  type UnitView,
  VEHICLE_TYPES,
} from '../../../modules/units/model';
import { AppDialog } from '../../components/Dialogs';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { unitEditPath } from '../../lib/paths';
import { useSession } from '../../lib/session';
import { runBulk, useListPreferences, useSaveListPreferences, useUnitList, useUnitOptions } from './api';
import { CatalogDialog } from './catalog';
import { formatDateTime, formatNumber } from './ui';

/** Units per bulk request: the progress bar moves slice by slice. */
const BULK_SLICE = 10;

function CheckMark({ selected }: { selected: boolean }) {
  return (
    <span className="checkbox-box" aria-hidden="true" data-selected={selected || undefined}>
      <svg viewBox="0 0 18 18" aria-hidden="true" focusable="false">
        <polyline points="3.5 9.5 7.5 13.5 14.5 5" />
      </svg>
    </span>
  );
}

function useColumnLabels(): Record<UnitListColumn, string> {
  const { t } = useTranslation();
  return Object.fromEntries(UNIT_LIST_COLUMNS.map((column) => [column, t(`units.columns.${column}`)])) as Record<UnitListColumn, string>;
}

function yesNo(value: boolean | null, t: (key: string) => string): string {
  return value === null ? '–' : value ? t('units.on') : t('units.off');
}

function cellContent(unit: UnitView, column: UnitListColumn, language: string, t: (key: string) => string): ReactNode {
  switch (column) {
    case 'name':
      return (
        <Link className="unit-link" to={unitEditPath(unit.ID)}>
          <span className="unit-swatch" style={{ backgroundColor: unit.Color }} aria-hidden="true" />
          {unit.Name}
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
      return <span className={`status-pill status-pill--${unit.Status}`}>{t(`units.status.${unit.Status}`)}</span>;
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

function ColumnChooser({ columns, onSave, onClose, isOpen }: { columns: UnitListColumn[]; onSave: (columns: UnitListColumn[]) => void; onClose: () => void; isOpen: boolean }) {
  const { t } = useTranslation();
  const labels = useColumnLabels();
  const [chosen, setChosen] = useState<UnitListColumn[]>(columns);
  useEffect(() => setChosen(columns), [columns]);
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={t('units.list.columns')}>
      <div className="dialog-body column-chooser" data-testid="column-chooser">
        {UNIT_LIST_COLUMNS.map((column) => (
          <CheckboxField
            key={column}
            isSelected={chosen.includes(column)}
            onChange={(selected) =>
              setChosen((current) => (selected ? UNIT_LIST_COLUMNS.filter((c) => c === column || current.includes(c)) : current.filter((c) => c !== column)))
            }
          >
            {labels[column]}
          </CheckboxField>
        ))}
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.cancel')}
        </Button>
        <Button
          className="btn btn-primary"
          isDisabled={chosen.length === 0}
          onPress={() => {
            onSave(chosen);
            onClose();
          }}
        >
          {t('common.save')}
        </Button>
      </div>
    </AppDialog>
  );
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
  const [kind, setKind] = useState<BulkTaskKind>('department');
  const [value, setValue] = useState('');
  const [tagMode, setTagMode] = useState<'add' | 'remove' | 'replace'>('add');
  const [done, setDone] = useState(0);
  const [running, setRunning] = useState(false);
  const [results, setResults] = useState<BulkOutcome[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

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
        <SelectField label={t('units.bulk.value')} value={value} onChange={setValue} options={valueOptions} testId="bulk-value" />
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
  const preferences = useListPreferences();
  const savePreferences = useSaveListPreferences();
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
  const [selected, setSelected] = useState<Selection>(new Set());
  const [choosing, setChoosing] = useState(false);
  const [bulkOpen, setBulkOpen] = useState(false);
  const [catalogOpen, setCatalogOpen] = useState(false);
  const isAdmin = useSession()?.user.IsAdmin === true;

  useEffect(() => {
    const timer = setTimeout(() => setDebounced(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);

  const columns = preferences.data?.columns ?? [];
  const sort: SortColumn = preferences.data?.sort ?? 'name';
  const order = preferences.data?.order ?? 'asc';
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
  const selectedUnits = selected === 'all' ? units : units.filter((unit) => selected.has(unit.ID));

  function savePrefs(next: Partial<{ columns: UnitListColumn[]; sort: SortColumn; order: 'asc' | 'desc' }>) {
    if (!preferences.data) return;
    savePreferences.mutate({ columns: preferences.data.columns, sort: preferences.data.sort, order: preferences.data.order, ...next });
  }

  const sortDescriptor: SortDescriptor = { column: sort, direction: order === 'asc' ? 'ascending' : 'descending' };
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
          {isAdmin && (
            <Button className="btn btn-secondary" onPress={() => setCatalogOpen(true)}>
              {t('units.list.catalog')}
            </Button>
          )}
          <Button className="btn btn-secondary" onPress={() => setChoosing(true)} isDisabled={!preferences.data}>
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
          options={[{ value: '', label: t('units.filters.all') }, ...UNIT_STATUSES.map((status) => ({ value: status, label: t(`units.status.${status}`) }))]}
          testId="filter-status"
        />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      <p className="unit-count" aria-live="polite" data-testid="unit-count">
        {list.isPending ? t('common.loading') : t('units.list.count', { count: units.length })}
      </p>
      {columns.length > 0 && (
        <div className="table-scroll">
          <Table
            aria-label={t('units.list.title')}
            className="unit-table"
            selectionMode="multiple"
            selectionBehavior="toggle"
            selectedKeys={selected}
            onSelectionChange={setSelected}
            sortDescriptor={sortDescriptor}
            onSortChange={(descriptor) => savePrefs({ sort: descriptor.column as SortColumn, order: descriptor.direction === 'descending' ? 'desc' : 'asc' })}
            data-testid="unit-table"
          >
            <TableHeader>
              <Column className="select-column" minWidth={44}>
                <Checkbox slot="selection" className="checkbox" aria-label={t('units.list.selectAll')}>
                  {({ isSelected }) => <CheckMark selected={isSelected} />}
                </Checkbox>
              </Column>
              {columns.map((column) => {
                const sortable = (SORTABLE_COLUMNS as readonly string[]).includes(column);
                return (
                  <Column key={column} id={column} isRowHeader={column === 'name'} allowsSorting={sortable}>
                    {({ sortDirection }) => (
                      <span className="column-label">
                        {labels[column]}
                        {sortable && (
                          <span aria-hidden="true" className="sort-indicator">
                            {sortDirection === 'ascending' ? '▲' : sortDirection === 'descending' ? '▼' : ''}
                          </span>
                        )}
                      </span>
                    )}
                  </Column>
                );
              })}
            </TableHeader>
            <TableBody
              items={units}
              dependencies={[columns, i18n.language]}
              renderEmptyState={() => <p className="empty">{list.isPending ? t('common.loading') : t('units.list.empty')}</p>}
            >
              {(unit) => (
                <Row id={unit.ID as Key} className="unit-row" data-testid={`unit-row-${unit.ID}`}>
                  <Cell>
                    <Checkbox slot="selection" className="checkbox" aria-label={t('units.list.select', { name: unit.Name })}>
                      {({ isSelected }) => <CheckMark selected={isSelected} />}
                    </Checkbox>
                  </Cell>
                  {columns.map((column) => (
                    <Cell key={column}>{cellContent(unit, column, i18n.language, t)}</Cell>
                  ))}
                </Row>
              )}
            </TableBody>
          </Table>
        </div>
      )}
      {preferences.data && (
        <ColumnChooser columns={preferences.data.columns} isOpen={choosing} onClose={() => setChoosing(false)} onSave={(next) => savePrefs({ columns: next })} />
      )}
      <BulkDialog units={selectedUnits} isOpen={bulkOpen} onClose={() => setBulkOpen(false)} />
      {isAdmin && <CatalogDialog isOpen={catalogOpen} onClose={() => setCatalogOpen(false)} />}
    </div>
  );
}
