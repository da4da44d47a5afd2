import { useTranslation } from 'react-i18next';
import { NavLink, useLocation } from 'react-router';
import { PATHS, reportsPath } from '../lib/paths';
import { useSession } from '../lib/session';
import './triplog-tabs.css';

/** The trip log's views (spec §2): its trips, the congestion-tax report and the reports, as tabs on each of their pages. */
export function TriplogTabs() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const basicOnly = useSession()?.user.userHasOnlyBasSubscription ?? false;
  return (
    <nav className="triplog-tabs" aria-label={t('triplog.views')}>
      <NavLink to={PATHS.triplog} end className="triplog-tab">
        {t('triplog.tabs.trips')}
      </NavLink>
      <NavLink to={PATHS.congestionReport} className="triplog-tab">
        {t('triplog.tabs.congestion')}
      </NavLink>
      {!basicOnly && (
        <NavLink to={reportsPath('summary')} className={({ isActive }) => `triplog-tab${isActive || pathname.startsWith(PATHS.reports) ? ' active' : ''}`}>
          {t('triplog.tabs.reports')}
        </NavLink>
      )}
    </nav>
  );
}
