import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { GeofenceEventView, GeofenceView } from '../../../modules/geofences/model';
import { localeTag } from '../../lib/i18n';
import { geofencePath } from '../../lib/paths';
import css from './live-map.css' with { type: 'text' };

let cssInjected = false;
/** The live map injects its styles as text (its code is loaded on demand); these parts do the same. */
function injectCss() {
  if (cssInjected || typeof document === 'undefined') return;
  const style = document.createElement('style');
  style.dataset.source = 'geofences-live-map';
  style.textContent = css;
  document.head.appendChild(style);
  cssInjected = true;
}

const STORAGE_KEY = 'portal.map.geofences';

/** Whether the live map shows the zones (kept in the browser between visits; on at first). */
export function readZonesShown(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) !== '0';
  } catch {
    return true;
  }
}

export function writeZonesShown(shown: boolean): void {
  try {
    localStorage.setItem(STORAGE_KEY, shown ? '1' : '0');
  } catch {
    // Private mode: the choice lasts for the page.
  }
}

/** The layer toggle over the map. */
export function GeofenceToggle({ shown, onChange }: { shown: boolean; onChange: (shown: boolean) => void }) {
  const { t } = useTranslation();
  injectCss();
  return (
    <label className="geofence-toggle">
      <input type="checkbox" checked={shown} onChange={(event) => onChange(event.target.checked)} data-testid="map-geofences-toggle" />
      {t('geofences.live.toggle')}
    </label>
  );
}

/** A clicked zone's units, those inside it now marked. */
export function ZoneUnitsPanel({ zone, onClose }: { zone: GeofenceView; onClose: () => void }) {
  const { t } = useTranslation();
  injectCss();
  const inside = new Set(zone.unitsInside);
  return (
    <section className="geofence-zone-panel" aria-label={t('geofences.live.zoneUnits', { name: zone.name })} data-testid="map-geofence-panel">
      <header>
        <h2>{zone.name}</h2>
        <button type="button" className="icon-button" aria-label={t('geofences.live.close')} onClick={onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <p className="geofence-zone-meta">
        {t(`geofences.shapes.${zone.shape}`)}
        {zone.active ? '' : ` · ${t('geofences.live.inactive')}`}
        {zone.theftMode ? ` · ${t('geofences.fields.theftMode')}` : ''}
      </p>
      {zone.units.length === 0 ? (
        <p>{t('geofences.live.noUnits')}</p>
      ) : (
        <ul data-testid="map-geofence-units">
          {zone.units.map((unit) => (
            <li key={unit.id}>
              {unit.name}
              {inside.has(unit.id) && <span className="geofence-inside">{t('geofences.live.inside')}</span>}
            </li>
          ))}
        </ul>
      )}
      <Link to={geofencePath(zone.id)}>{t('geofences.live.open')}</Link>
    </section>
  );
}

/** A unit's zone entries and exits of the day shown in the history, oldest first (as the day reads). */
export function HistoryZoneEvents({ events, loading }: { events: readonly GeofenceEventView[]; loading: boolean }) {
  const { t, i18n } = useTranslation();
  injectCss();
  const time = useMemo(() => new Intl.DateTimeFormat(localeTag(i18n.language), { timeStyle: 'short' }), [i18n.language]);
  const ordered = useMemo(() => [...events].sort((a, b) => a.at.localeCompare(b.at)), [events]);
  return (
    <section className="geofence-day-events" aria-label={t('geofences.live.dayEvents')} data-testid="history-geofence-events">
      <h3>{t('geofences.live.dayEvents')}</h3>
      {loading ? (
        <p>{t('common.loading')}</p>
      ) : ordered.length === 0 ? (
        <p>{t('geofences.live.noDayEvents')}</p>
      ) : (
        <ul>
          {ordered.map((event) => (
            <li key={event.id} data-testid={`history-geofence-${event.transition}`}>
              <span className={`geofence-dot geofence-dot--${event.transition}`} aria-hidden="true" />
              {time.format(new Date(event.at))} {t(`geofences.log.${event.transition}`)}: {event.geofenceName}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
