import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { errorText } from '../../lib/api';
import { PATHS, placePath } from '../../lib/paths';
import { useDeletePlace, usePlaces } from './api';
import './places.css';

/** Spec §2 /user/places: the places the user sees, searched by label or address; each opens its edit page. */
export function PlacesPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const list = usePlaces(debounced);
  const remove = useDeletePlace();
  const places = list.data ?? [];
  const metres = new Intl.NumberFormat(i18n.language === 'no' ? 'nb-NO' : i18n.language === 'en' ? 'en-GB' : 'sv-SE');

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

  return (
    <div className="page places-page">
      <div className="places-heading">
        <h1 className="page-title">{t('places.title')}</h1>
        <Button className="btn btn-primary" onPress={() => navigate(PATHS.placeEdit)} data-testid="place-new">
          {t('places.new')}
        </Button>
      </div>
      <p className="places-intro">{t('places.intro')}</p>
      <search className="places-search" aria-label={t('places.search')}>
        <Field type="search" label={t('places.search')} value={search} onChange={setSearch} placeholder={t('places.searchHint')} testId="place-search" />
      </search>
      {list.isError && <Banner kind="error">{errorText(list.error)}</Banner>}
      <p className="places-count" aria-live="polite" data-testid="place-count">
        {list.isPending ? t('common.loading') : t('places.count', { count: places.length })}
      </p>
      <div className="places-table-scroll">
        <table className="places-table" data-testid="place-table">
          <caption className="visually-hidden">{t('places.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('places.fields.label')}</th>
              <th scope="col">{t('places.fields.address')}</th>
              <th scope="col" className="num">
                {t('places.fields.radius')}
              </th>
              <th scope="col">{t('places.fields.units')}</th>
              <th scope="col" className="num">
                {t('places.fields.rules')}
              </th>
              <th scope="col">
                <span className="visually-hidden">{t('places.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {places.length === 0 && !list.isPending && (
              <tr>
                <td colSpan={6} className="places-empty">
                  {debounced ? t('places.noMatch') : t('places.empty')}
                </td>
              </tr>
            )}
            {places.map((place) => (
              <tr key={place.id} data-testid={`place-row-${place.id}`}>
                <th scope="row">
                  <Link to={placePath(place.id)} className="places-link">
                    <span className="places-pin" aria-hidden="true" />
                    {place.label}
                  </Link>
                </th>
                <td>{place.address || '–'}</td>
                <td className="num">{metres.format(place.radiusM)} m</td>
                <td>{place.units.map((unit) => unit.name).join(', ') || '–'}</td>
                <td className="num">{place.rules.length}</td>
                <td>
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
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
