import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { lazyPreloaded } from './lazy-preloaded';

/** The live map and its libraries (MapLibre, deck.gl) load on demand: the login bundle stays small. */
const LiveMap = lazyPreloaded('LiveMap', () => import('./LiveMap'));

/** The map route (spec §2): the landing page after login when the map is enabled for the user. */
export function MapPage() {
  const { t } = useTranslation();
  return (
    <div className="page map-page">
      <h1 className="page-title visually-hidden">{t('map.title')}</h1>
      <Suspense fallback={<p aria-live="polite">{t('common.loading')}</p>}>
        <LiveMap />
      </Suspense>
    </div>
  );
}
