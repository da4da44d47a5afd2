import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { PlaceView } from '../../../modules/places/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { PATHS, placePath } from '../../lib/paths';
import { type TableView, useTableView } from '../../lib/table-view';
import { useDeletePlace, usePlaces } from './api';
import './places.css';

const NO_PLACES: PlaceView[] = [];
const DEFAULT_VIEW: TableView = { sorting: [{ id: 'label', desc: false }], hidden: [] };

/** Spec §2 /user/places: the places the user sees, searched by label or address; each opens its edit page. */
export function PlacesPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const [search, setSearch] = useState('');
  const [choosing, setChoosing] = useState(false);
  // Every place the user sees is loaded once; the table filters and sorts them as the user types.
  const list = usePlaces();
  const remove = useDeletePlace();
  const places = list.data ?? NO_PLACES;
  const view = useTableView('places', DEFAULT_VIEW);
  const metres = new Intl.NumberFormat(localeTag(i18n.language));

  async function confirmDelete(id: number, label: string) {
    const ok = await dialogs.showMessage({
      title: t('places.delete.title'),
      message: t('places.delete.confirm', { label }),
      cancel: true,
      okLabel: t('places.delete.action'),
    });
    if (!ok) return;
    try {
      await remove.mutateAsync(id);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  const columns: DataColumn<PlaceView>[] = [
    {
      id: 'label',
      header: t('places.fields.label'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (place) => place.label.toLocaleLowerCase(),
      searchText: (place) => place.label,
      cell: (place) => (
        <Link to={placePath(place.id)} className="places-link">
          <span className="places-pin" aria-hidden="true" />
          {place.label}
        </Link>
      ),
    },
    {
      id: 'address',
      header: t('places.fields.address'),
      minRem: 12,
      sortValue: (place) => place.address.toLocaleLowerCase(),
      searchText: (place) => place.address,
      cell: (place) => place.address || '–',
    },
    { id: 'radius', header: t('places.fields.radius'), align: 'end', minRem: 6, sortValue: (place) => place.radiusM, cell: (place) => `${metres.format(place.radiusM)} m` },
    {
      id: 'units',
      header: t('places.fields.units'),
      minRem: 10,
      sortValue: (place) => place.units.map((unit) => unit.name).join(', ').toLocaleLowerCase(),
      cell: (place) => place.units.map((unit) => unit.name).join(', ') || '–',
    },
    { id: 'rules', header: t('places.fields.rules'), align: 'end', minRem: 5, sortValue: (place) => place.rules.length, cell: (place) => place.rules.length },
    {
      id: 'actions',
      header: t('places.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 12,
      cell: (place) => (
        <div className="places-row-actions">
          {place.editable ? (
            <>
              <Link className="btn btn-secondary btn-small" to={placePath(place.id)}>
                {t('places.edit')}
              </Link>
              <Button
                className="btn btn-danger btn-small"
                onPress={() => confirmDelete(place.id, place.label)}
                aria-label={t('places.delete.labelled', { label: place.label })}
                data-testid={`place-delete-${place.id}`}
              >
                {t('places.delete.action')}
              </Button>
            </>
          ) : (
            <span className="places-readonly">{t('places.readOnly')}</span>
          )}
        </div>
      ),
    },
  ];

  return (
    <div className="page places-page">
      <div className="page-heading">
        <h1 className="page-title">{t('places.title')}</h1>
        <div className="page-heading-actions">
          <Button className="btn btn-secondary" onPress={() => setChoosing(true)} isDisabled={!view.ready} data-testid="place-columns">
            {t('table.columns')}
          </Button>
          <Button className="btn btn-primary" onPress={() => navigate(PATHS.placeEdit)} data-testid="place-new">
            {t('places.new')}
          </Button>
        </div>
      </div>
      <p className="places-intro">{t('places.intro')}</p>
      <search className="places-search" aria-label={t('places.search')}>
        <Field type="search" label={t('places.search')} value={search} onChange={setSearch} placeholder={t('places.searchHint')} testId="place-search" />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      {list.isPending || !view.ready ? (
        <p className="places-count" aria-live="polite">
          {t('common.loading')}
        </p>
      ) : (
        <DataTable
          label={t('places.title')}
          rows={places}
          columns={columns}
          rowId={(place) => String(place.id)}
          view={view}
          filter={search}
          rowProps={(place) => ({ 'data-testid': `place-row-${place.id}` })}
          empty={search.trim() ? t('places.noMatch') : t('places.empty')}
          count={{ text: (shown) => t('places.count', { count: shown }), testId: 'place-count', className: 'places-count' }}
          testId="place-table"
          className="places-table"
        />
      )}
      <ColumnChooser columns={columns} view={view} isOpen={choosing} onClose={() => setChoosing(false)} title={t('table.columns')} />
    </div>
  );
}
