import { lazy, Suspense, useCallback, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { GeofenceView } from '../../../modules/geofences/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { geofencePath, PATHS } from '../../lib/paths';
import { type TableView, useTableView } from '../../lib/table-view';
import { useDeleteGeofence, useGeofences, useSetGeofenceActive } from '../../components/geofences/api';
import { GeofenceEventLog } from './GeofenceEventLog';
import './geofences.css';

const GeofencesMap = lazy(() => import('./GeofencesMap'));

const NO_ZONES: GeofenceView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'name', desc: false }], hidden: [] };

/** Spec §2 /user/geofences: the zones on a map beside a table, searched by name or unit; below, the zone event log. */
export function GeofencesPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const [search, setSearch] = useState('');
  const [choosing, setChoosing] = useState(false);
  // "Inside now" changes as units move: the list is read again every half minute.
  const list = useGeofences('', { refetchInterval: 30_000 });
  const remove = useDeleteGeofence();
  const setActive = useSetGeofenceActive();
  const zones = list.data ?? NO_ZONES;
  const view = useTableView('geofences', DEFAULT_VIEW);
  const metres = new Intl.NumberFormat(localeTag(i18n.language));
  const needle = search.trim().toLocaleLowerCase();
  const shownOnMap = needle
    ? zones.filter((zone) => zone.name.toLocaleLowerCase().includes(needle) || zone.units.some((unit) => unit.name.toLocaleLowerCase().includes(needle)))
    : zones;
  const openZone = useCallback((id: number) => navigate(geofencePath(id)), [navigate]);

  async function confirmDelete(zone: GeofenceView) {
    const ok = await dialogs.showMessage({
      title: t('geofences.delete.title'),
      message: t('geofences.delete.confirm', { name: zone.name }),
      cancel: true,
      okLabel: t('geofences.delete.action'),
    });
    if (!ok) return;
    try {
      await remove.mutateAsync(zone.id);
    } catch (error) {
      // Spec §8 "could not delete": the server's own words when it gives them.
      const text = errorText(error);
      await dialogs.showError(text && text !== t('errors.generic') ? text : t('geofences.delete.failed'));
    }
  }

  // The switch shows the new state while the server saves it.
  const [switching, setSwitching] = useState<Record<number, boolean>>({});
  async function toggleActive(zone: GeofenceView, active: boolean) {
    setSwitching((current) => ({ ...current, [zone.id]: active }));
    try {
      await setActive.mutateAsync({ id: zone.id, active });
    } catch (error) {
      await dialogs.showError(errorText(error));
    } finally {
      setSwitching(({ [zone.id]: _done, ...rest }) => rest);
    }
  }

  const columns: DataColumn<GeofenceView>[] = [
    {
      id: 'name',
      header: t('geofences.fields.name'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (zone) => zone.name.toLocaleLowerCase(),
      searchText: (zone) => zone.name,
      cell: (zone) => (
        <Link to={geofencePath(zone.id)} className="geofences-link">
          <span className={`geofences-swatch geofences-swatch--${zone.shape}`} aria-hidden="true" />
          {zone.name}
        </Link>
      ),
    },
    { id: 'shape', header: t('geofences.fields.shape'), minRem: 6, sortValue: (zone) => zone.shape, cell: (zone) => t(`geofences.shapes.${zone.shape}`) },
    {
      id: 'radius',
      header: t('geofences.fields.radius'),
      align: 'end',
      minRem: 6,
      sortValue: (zone) => zone.radiusM ?? -1,
      cell: (zone) => (zone.radiusM === null ? '–' : `${metres.format(zone.radiusM)} m`),
    },
    {
      id: 'units',
      header: t('geofences.fields.units'),
      minRem: 10,
      sortValue: (zone) => zone.units.map((unit) => unit.name).join(', ').toLocaleLowerCase(),
      searchText: (zone) => zone.units.map((unit) => unit.name).join(' '),
      cell: (zone) => zone.units.map((unit) => unit.name).join(', ') || '–',
    },
    {
      id: 'theftMode',
      header: t('geofences.fields.theftMode'),
      minRem: 6,
      sortValue: (zone) => (zone.theftMode ? 1 : 0),
      cell: (zone) => (zone.theftMode ? t('geofences.yes') : t('geofences.no')),
    },
    {
      id: 'active',
      header: t('geofences.fields.active'),
      minRem: 6,
      sortValue: (zone) => (zone.active ? 1 : 0),
      cell: (zone) => (
        <label className="geofences-switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={switching[zone.id] ?? zone.active}
            checked={switching[zone.id] ?? zone.active}
            disabled={!zone.editable || zone.id in switching}
            onChange={(event) => void toggleActive(zone, event.target.checked)}
            aria-label={t('geofences.activeLabelled', { name: zone.name })}
            data-testid={`geofence-active-${zone.id}`}
          />
          <span>{zone.active ? t('geofences.on') : t('geofences.off')}</span>
        </label>
      ),
    },
    {
      id: 'inside',
      header: t('geofences.fields.inside'),
      align: 'end',
      minRem: 6,
      sortValue: (zone) => zone.unitsInside.length,
      cell: (zone) => {
        const names = zone.units.filter((unit) => zone.unitsInside.includes(unit.id)).map((unit) => unit.name);
        return (
          <span title={names.join(', ')} data-testid={`geofence-inside-${zone.id}`}>
            {zone.unitsInside.length}
          </span>
        );
      },
    },
    {
      id: 'actions',
      header: t('geofences.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 12,
      cell: (zone) =>
        zone.editable ? (
          <div className="geofences-row-actions">
            <Link className="btn btn-secondary btn-small" to={geofencePath(zone.id)}>
              {t('geofences.edit')}
            </Link>
            <Button
              className="btn btn-danger btn-small"
              onPress={() => void confirmDelete(zone)}
              aria-label={t('geofences.delete.labelled', { name: zone.name })}
              data-testid={`geofence-delete-${zone.id}`}
            >
              {t('geofences.delete.action')}
            </Button>
          </div>
        ) : (
          <span className="geofences-muted">{t('geofences.readOnly')}</span>
        ),
    },
  ];

  return (
    <div className="page geofences-page">
      <div className="page-heading">
        <h1 className="page-title">{t('geofences.title')}</h1>
        <div className="page-heading-actions">
          <Button className="btn btn-secondary" onPress={() => setChoosing(true)} isDisabled={!view.ready} data-testid="geofence-columns">
            {t('table.columns')}
          </Button>
          <Button className="btn btn-primary" onPress={() => navigate(PATHS.geofenceEdit)} data-testid="geofence-new">
            {t('geofences.new')}
          </Button>
        </div>
      </div>
      <p className="geofences-intro">{t('geofences.intro')}</p>
      <search className="geofences-search" aria-label={t('geofences.search')}>
        <Field type="search" label={t('geofences.search')} value={search} onChange={setSearch} placeholder={t('geofences.searchHint')} testId="geofence-search" />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      <div className="geofences-split">
        <div className="geofences-table-area">
          {list.isPending || !view.ready ? (
            <p className="geofences-count" aria-live="polite">
              {t('common.loading')}
            </p>
          ) : (
            <DataTable
              label={t('geofences.title')}
              rows={zones}
              columns={columns}
              rowId={(zone) => String(zone.id)}
              view={view}
              filter={search}
              rowProps={(zone) => ({ 'data-testid': `geofence-row-${zone.id}` })}
              empty={search.trim() ? t('geofences.noMatch') : t('geofences.empty')}
              count={{ text: (shown) => t('geofences.count', { count: shown }), testId: 'geofence-count', className: 'geofences-count' }}
              testId="geofence-table"
              className="geofences-table"
            />
          )}
        </div>
        <Suspense fallback={<div className="geofences-map geofences-map--loading">{t('common.loading')}</div>}>
          <GeofencesMap zones={shownOnMap} label={t('geofences.mapLabel')} onPick={openZone} />
        </Suspense>
      </div>
      <GeofenceEventLog zones={zones} />
      <ColumnChooser columns={columns} view={view} isOpen={choosing} onClose={() => setChoosing(false)} title={t('table.columns')} />
    </div>
  );
}
