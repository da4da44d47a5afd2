import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/api';
import { useGeofences } from './api';

export interface GeozonePickerProps {
  selected: readonly number[];
  onChange: (ids: number[]) => void;
  /** At most this many (spec §3: a feature profile holds up to 5 geozones). */
  max: number;
  error?: string | null;
  testId?: string;
}

/**
 * Picks up to `max` of the account's zones (a feature profile's geozones): one checkbox per zone; once `max` are
 * chosen the others wait until one is let go. Self-contained (it loads the zones), so any form can hold it.
 */
export function GeozonePicker({ selected, onChange, max, error, testId = 'geozone-picker' }: GeozonePickerProps) {
  const { t } = useTranslation();
  const zones = useGeofences('');
  const legend = useId();
  const chosen = new Set(selected);
  const full = chosen.size >= max;
  // A chosen zone the list no longer has (deleted meanwhile) stays visible, so it can be let go.
  const missing = selected.filter((id) => !zones.data?.some((zone) => zone.id === id));
  const toggle = (id: number, on: boolean) => onChange(on ? [...selected, id] : selected.filter((other) => other !== id));
  return (
    <fieldset className="geozone-picker" aria-labelledby={legend} data-testid={testId}>
      <legend id={legend} className="field-label">
        {t('geofences.picker.label')}
      </legend>
      <p className="field-description">{t('geofences.picker.count', { count: chosen.size, max })}</p>
      {zones.isPending && <p>{t('common.loading')}</p>}
      {zones.isError && <p className="field-error">{errorText(zones.error)}</p>}
      {zones.data?.length === 0 && <p className="field-description">{t('geofences.picker.none')}</p>}
      <div className="geozone-picker-list" style={{ display: 'flex', flexWrap: 'wrap', gap: '0.25rem 1rem' }}>
        {zones.data?.map((zone) => (
          <label key={zone.id} style={{ display: 'inline-flex', alignItems: 'center', gap: '0.35rem' }}>
            <input
              type="checkbox"
              checked={chosen.has(zone.id)}
              disabled={!chosen.has(zone.id) && full}
              onChange={(event) => toggle(zone.id, event.target.checked)}
              data-testid={`${testId}-${zone.id}`}
            />
            {zone.name}
          </label>
        ))}
        {!zones.isPending &&
          missing.map((id) => (
            <label key={id} style={{ display: 'inline-flex', alignItems: 'center', gap: '0.35rem' }}>
              <input type="checkbox" checked onChange={() => toggle(id, false)} />
              {t('geofences.picker.unknown', { id })}
            </label>
          ))}
      </div>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
