import { useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { GeofenceEventView, GeofenceView } from '../../../modules/geofences/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { Banner, SelectField } from '../../components/Form';
import { PeriodPicker } from '../../components/PeriodPicker';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { type TableView, useTableView } from '../../lib/table-view';
import { useGeofenceEvents } from '../../components/geofences/api';
import { geofenceEventsCsv } from './csv';

const NO_EVENTS: GeofenceEventView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'at', desc: true }], hidden: [] };
const ALL = '';

function localDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** The instant a local day starts. */
function dayStart(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
}

export interface GeofenceEventLogProps {
  /** The zones to choose among; with `geofenceId` the log is that zone's alone. */
  zones: readonly GeofenceView[];
  geofenceId?: number;
}

/**
 * The zone event log (issue: "per zone and per unit, newest first"): the crossings of a period, narrowed to a zone
 * and a unit, downloadable as CSV.
 */
export function GeofenceEventLog({ zones, geofenceId }: GeofenceEventLogProps) {
  const { t, i18n } = useTranslation();
  const today = localDay(new Date());
  const weekAgo = localDay(new Date(Date.now() - 6 * 86_400_000));
  const [period, setPeriod] = useState({ from: weekAgo, to: today });
  const [zone, setZone] = useState(geofenceId === undefined ? ALL : String(geofenceId));
  const [unit, setUnit] = useState(ALL);
  const view = useTableView('geofence-events', DEFAULT_VIEW);
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(period.from) && /^\d{4}-\d{2}-\d{2}$/.test(period.to) && period.from <= period.to;
  const filter = useMemo(() => {
    if (!valid) return null;
    const end = dayStart(period.to);
    end.setDate(end.getDate() + 1);
    return {
      geofenceId: zone ? Number(zone) : undefined,
      unitId: unit ? Number(unit) : undefined,
      from: dayStart(period.from).toISOString(),
      to: end.toISOString(),
      limit: 1000,
    };
  }, [valid, period.from, period.to, zone, unit]);
  const events = useGeofenceEvents(filter ?? {}, filter !== null);
  const rows = events.data ?? NO_EVENTS;
  const time = useMemo(() => new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short', timeStyle: 'medium' }), [i18n.language]);
  const units = useMemo(() => {
    const byId = new Map<number, string>();
    for (const candidate of zones) if (zone === ALL || candidate.id === Number(zone)) for (const member of candidate.units) byId.set(member.id, member.name);
    return [...byId].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name, i18n.language));
  }, [zones, zone, i18n.language]);
  const transitionText = (event: GeofenceEventView) => t(`geofences.log.${event.transition}`);

  const columns: DataColumn<GeofenceEventView>[] = [
    { id: 'at', header: t('geofences.log.time'), canHide: false, minRem: 10, sortValue: (event) => event.at, cell: (event) => time.format(new Date(event.at)) },
    { id: 'zone', header: t('geofences.log.zone'), rowHeader: true, minRem: 10, sortValue: (event) => event.geofenceName.toLocaleLowerCase(), searchText: (event) => event.geofenceName, cell: (event) => event.geofenceName },
    { id: 'unit', header: t('geofences.log.unit'), minRem: 10, sortValue: (event) => event.unitName.toLocaleLowerCase(), searchText: (event) => event.unitName, cell: (event) => event.unitName },
    {
      id: 'transition',
      header: t('geofences.log.event'),
      minRem: 6,
      sortValue: (event) => event.transition,
      cell: (event) => <span className={`geofence-transition geofence-transition--${event.transition}`}>{transitionText(event)}</span>,
    },
    { id: 'position', header: t('geofences.log.position'), minRem: 10, cell: (event) => `${event.latitude.toFixed(5)}, ${event.longitude.toFixed(5)}` },
  ];

  function download() {
    const csv = geofenceEventsCsv(rows, {
      headers: [t('geofences.log.time'), t('geofences.log.zone'), t('geofences.log.unit'), t('geofences.log.event'), t('geofences.log.latitude'), t('geofences.log.longitude')],
      time: (iso) => time.format(new Date(iso)),
      transition: transitionText,
    });
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${t('geofences.log.fileName')}-${period.from}-${period.to}.csv`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  return (
    <section className="geofence-card geofence-log" aria-labelledby="geofence-log-title" data-testid="geofence-log">
      <div className="page-heading">
        <h2 id="geofence-log-title">{t('geofences.log.title')}</h2>
        <Button className="btn btn-secondary" isDisabled={rows.length === 0} onPress={download} data-testid="geofence-log-csv">
          {t('geofences.log.download')}
        </Button>
      </div>
      <div className="geofence-log-filters">
        <PeriodPicker from={period.from} to={period.to} onChange={setPeriod} invalid={!valid} idPrefix="geofence-log" />
        {geofenceId === undefined && (
          <SelectField
            label={t('geofences.log.zone')}
            value={zone}
            onChange={(value) => {
              setZone(value);
              setUnit(ALL);
            }}
            options={[{ value: ALL, label: t('geofences.log.allZones') }, ...zones.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))]}
            testId="geofence-log-zone"
          />
        )}
        <SelectField
          label={t('geofences.log.unit')}
          value={unit}
          onChange={setUnit}
          options={[{ value: ALL, label: t('geofences.log.allUnits') }, ...units.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))]}
          testId="geofence-log-unit"
        />
        <Button className="btn btn-secondary" onPress={() => void events.refetch()} isDisabled={filter === null} data-testid="geofence-log-refresh">
          {t('geofences.log.refresh')}
        </Button>
      </div>
      {!valid && <p className="field-error">{t('geofences.log.badPeriod')}</p>}
      {events.isError && <Banner kind="error">{errorText(events.error)}</Banner>}
      {!view.ready || (filter !== null && events.isPending) ? (
        <p className="geofences-count">{t('common.loading')}</p>
      ) : (
        <DataTable
          label={t('geofences.log.title')}
          rows={rows}
          columns={columns}
          rowId={(event) => String(event.id)}
          view={view}
          rowProps={(event) => ({ 'data-testid': `geofence-event-${event.transition}-${event.geofenceId}-${event.unitId}` })}
          empty={t('geofences.log.empty')}
          count={{ text: (shown) => t('geofences.log.count', { count: shown }), testId: 'geofence-log-count', className: 'geofences-count' }}
          testId="geofence-log-table"
          className="geofence-log-table"
        />
      )}
    </section>
  );
}
