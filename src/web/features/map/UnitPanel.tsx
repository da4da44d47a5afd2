import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { UNIT_STATUSES, type UnitStatus } from '../../../modules/tracking/model';
import { useSecurityUnits } from '../../lib/alarms';
import type { AddressBook } from './addresses';
import type { Formatters } from './format';
import type { TrackedUnit } from './store';
import { VirtualList } from './VirtualList';

export const ROW_HEIGHT = 76;

export interface UnitFilter {
  search: string;
  statuses: ReadonlySet<UnitStatus>;
  vehicleType: string;
  /** Department id as text ('' = all). */
  department: string;
  /** Tag name ('' = all). */
  tag: string;
}

export const EMPTY_FILTER: UnitFilter = { search: '', statuses: new Set(UNIT_STATUSES), vehicleType: '', department: '', tag: '' };

/** The departments and tags present among the units, for the filter choices. */
export interface FilterChoices {
  vehicleTypes: string[];
  departments: Array<{ id: string; name: string }>;
  tags: string[];
}

export function normalizeSearch(text: string): string {
  return text.trim().toLocaleLowerCase().replace(/[\s-]+/g, '');
}

/** The filter as a predicate: name, registration number, IMEI or driver contain the search; status, type, department and tag match. */
export function unitMatcher(filter: UnitFilter): (unit: TrackedUnit) => boolean {
  const needle = normalizeSearch(filter.search);
  const allStatuses = filter.statuses.size === UNIT_STATUSES.length;
  return (unit) =>
    (allStatuses || filter.statuses.has(unit.status)) &&
    (filter.vehicleType === '' || unit.vehicleType === filter.vehicleType) &&
    (filter.department === '' || String(unit.departmentId ?? '') === filter.department) &&
    (filter.tag === '' || (unit.tags ?? []).includes(filter.tag)) &&
    (needle === '' ||
      normalizeSearch(unit.name).includes(needle) ||
      normalizeSearch(unit.registrationNumber).includes(needle) ||
      unit.imei.includes(needle) ||
      (unit.driverName !== null && unit.driverName !== undefined && normalizeSearch(unit.driverName).includes(needle)));
}

export interface UnitPanelProps {
  units: readonly TrackedUnit[];
  total: number;
  counts: Record<UnitStatus, number>;
  choices: FilterChoices;
  filter: UnitFilter;
  onFilter: (filter: UnitFilter) => void;
  selectedId: number | null;
  onPick: (id: number) => void;
  addresses: AddressBook;
  f: Formatters;
  now: number;
}

/** Spec §3 and the issue: the searchable, virtualised list of the user's units with filters. */
export function UnitPanel(props: UnitPanelProps) {
  const { t } = useTranslation();
  const security = useSecurityUnits();
  const searchId = useId();
  const typeId = useId();
  const departmentId = useId();
  const tagId = useId();
  const { choices } = props;
  const { filter, f, now } = props;
  const selectedIndex = props.selectedId === null ? -1 : props.units.findIndex((unit) => unit.id === props.selectedId);

  return (
    <section className="unit-panel" aria-labelledby="units-title">
      <h2 id="units-title" className="panel-title">
        {t('map.units')}
      </h2>
      <div className="panel-filters">
        <label htmlFor={searchId} className="visually-hidden">
          {t('map.search')}
        </label>
        <input
          id={searchId}
          type="search"
          className="panel-search"
          placeholder={t('map.searchPlaceholder')}
          value={filter.search}
          onChange={(event) => props.onFilter({ ...filter, search: event.target.value })}
          data-testid="unit-search"
          autoComplete="off"
        />
        <fieldset className="status-filters">
          <legend className="visually-hidden">{t('map.statusFilter')}</legend>
          {UNIT_STATUSES.map((status) => (
            <label key={status} className={`status-chip status-${status}`}>
              <input
                type="checkbox"
                checked={filter.statuses.has(status)}
                onChange={(event) => {
                  const statuses = new Set(filter.statuses);
                  if (event.target.checked) statuses.add(status);
                  else statuses.delete(status);
                  props.onFilter({ ...filter, statuses });
                }}
              />
              <span className="status-dot" aria-hidden="true" />
              {t(`unitStatus.${status}`)} <span className="chip-count">{props.counts[status]}</span>
            </label>
          ))}
        </fieldset>
        <div className="select-filters">
          {choices.vehicleTypes.length > 1 && (
            <div className="type-filter">
              <label htmlFor={typeId}>{t('map.vehicleTypeFilter')}</label>
              <select id={typeId} value={filter.vehicleType} onChange={(event) => props.onFilter({ ...filter, vehicleType: event.target.value })}>
                <option value="">{t('map.allVehicleTypes')}</option>
                {choices.vehicleTypes.map((type) => (
                  <option key={type} value={type}>
                    {t(`map.vehicleType.${type}`, { defaultValue: type })}
                  </option>
                ))}
              </select>
            </div>
          )}
          {choices.departments.length > 0 && (
            <div className="type-filter">
              <label htmlFor={departmentId}>{t('map.departmentFilter')}</label>
              <select
                id={departmentId}
                value={filter.department}
                onChange={(event) => props.onFilter({ ...filter, department: event.target.value })}
                data-testid="department-filter"
              >
                <option value="">{t('map.allDepartments')}</option>
                {choices.departments.map((department) => (
                  <option key={department.id} value={department.id}>
                    {department.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          {choices.tags.length > 0 && (
            <div className="type-filter">
              <label htmlFor={tagId}>{t('map.tagFilter')}</label>
              <select id={tagId} value={filter.tag} onChange={(event) => props.onFilter({ ...filter, tag: event.target.value })} data-testid="tag-filter">
                <option value="">{t('map.allTags')}</option>
                {choices.tags.map((tag) => (
                  <option key={tag} value={tag}>
                    {tag}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
      </div>
      <p className="panel-count" aria-live="polite" data-testid="unit-count">
        {t('map.shown', { shown: props.units.length, total: props.total })}
      </p>
      {props.total === 0 ? (
        <p className="empty">{t('map.noUnits')}</p>
      ) : props.units.length === 0 ? (
        <p className="empty">{t('map.noMatches')}</p>
      ) : (
        <VirtualList
          items={props.units}
          rowHeight={ROW_HEIGHT}
          itemKey={(unit) => unit.id}
          label={t('map.units')}
          testId="unit-list"
          scrollToIndex={selectedIndex}
          renderRow={(unit) => {
            const address = props.addresses.address(unit);
            return (
              <button
                type="button"
                className={`unit-row${unit.id === props.selectedId ? ' selected' : ''}${unit.operatingMode === 'theft' || security.includes(unit.id) ? ' theft' : ''}`}
                aria-pressed={unit.id === props.selectedId}
                onClick={() => props.onPick(unit.id)}
                data-unit-id={unit.id}
                data-status={unit.status}
              >
                <span className="unit-row-top">
                  <span className="unit-name">
                    {unit.name}
                    {unit.operatingMode === 'theft' && (
                      <span className="theft-mark" data-testid="theft-mark">
                        {t('map.operatingMode.theft')}
                      </span>
                    )}
                    {security.includes(unit.id) && (
                      <span className="theft-mark" data-testid="security-alarm-mark">
                        {t('alarms.securityBadge')}
                      </span>
                    )}
                  </span>
                  <span className={`status-text status-${unit.status}`}>
                    <span className="status-dot" aria-hidden="true" />
                    {t(`unitStatus.${unit.status}`)}
                  </span>
                </span>
                <span className="unit-meta">
                  {unit.registrationNumber || unit.imei} · <span data-field="speed">{f.speed(unit.speed)}</span> ·{' '}
                  <span data-field="last-seen">{f.lastSeen(unit.lastSeen, now)}</span>
                  {unit.driverName && (
                    <>
                      {' · '}
                      <span data-field="driver">{unit.driverName}</span>
                    </>
                  )}
                </span>
                <span className="unit-address">{address === undefined ? '…' : (address ?? '')}</span>
              </button>
            );
          }}
        />
      )}
    </section>
  );
}
