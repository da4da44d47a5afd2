import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { PATHS } from '../lib/paths';
import './triplog-tabs.css';

/** The trip log's views (spec §2): its trips and the congestion-tax report, as tabs on both pages. */
export function TriplogTabs() {
  const { t } = useTranslation();
  return (
    <nav className="triplog-tabs" aria-label={t('triplog.views')}>
      <NavLink to={PATHS.triplog} end className="triplog-tab">
        {t('triplog.tabs.trips')}
      </NavLink>
      <NavLink to={PATHS.congestionReport} className="triplog-tab">
        {t('triplog.tabs.congestion')}
      </NavLink>
    </nav>
  );
}
