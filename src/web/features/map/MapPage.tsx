import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { UnitView } from '../../../modules/units/model';
import { Banner } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';

/**
 * The map route (spec §2). The map itself (MapLibre + deck.gl island) arrives with the tracking issue;
 * until then the page lists the account's units as the server reports them, and nothing else.
 */
export function MapPage() {
  const { t } = useTranslation();
  const units = useQuery({
    queryKey: ['units'],
    queryFn: () => api.get<UnitView[]>('/api/units'),
  });
  // A server without the units module answers 404: that is "no list yet", not an error.
  const missing = isApiError(units.error) && units.error.status === 404;
  return (
    <div className="page map-page">
      <h1 className="page-title">{t('map.title')}</h1>
      <div className="map-layout">
        <section className="unit-panel" aria-labelledby="units-title">
          <h2 id="units-title" className="panel-title">
            {t('map.units')}
          </h2>
          {units.isPending && <p aria-live="polite">{t('common.loading')}</p>}
          {units.isError && !missing && <Banner kind="error">{errorText(units.error)}</Banner>}
          {(missing || (units.data && units.data.length === 0)) && <p className="empty">{t('map.noUnits')}</p>}
          {units.data && units.data.length > 0 && (
            <ul className="unit-list" data-testid="unit-list">
              {units.data.map((unit) => (
                <li key={unit.ID} className="unit-item">
                  <span className="unit-name">{unit.Name}</span>
                  <span className="unit-meta">{unit.RegistrationNumber || unit.Imei}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section className="map-canvas" aria-label={t('map.canvas')} data-testid="map-canvas">
          <p>{t('map.pending')}</p>
        </section>
      </div>
    </div>
  );
}
