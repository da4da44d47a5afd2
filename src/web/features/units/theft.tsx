import { Switch } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { UnitDetail } from '../../../modules/units/model';
import { errorText } from '../../lib/api';
import { useSwitchTheftMode, useTheftMode } from './api';
import { formatDateTime, Section } from './ui';

/**
 * Spec §4 theft mode: a switch, on by hand or by leaving a theft zone, off by the user (the previous operating mode
 * returns). Each switch goes to the tracker and shows as pending until it confirms (up to its next report).
 */
export function TheftModeSection({ unit }: { unit: UnitDetail }) {
  const { t, i18n } = useTranslation();
  const theft = useTheftMode(unit.ID);
  const mutation = useSwitchTheftMode(unit.ID);
  const view = theft.data;
  const on = view ? view.state === 'on' || view.state === 'pending-on' : false;
  const pending = view?.state === 'pending-on' || view?.state === 'pending-off';
  return (
    <Section id="theft-mode" title={t('units.theftMode.title')} description={t('units.theftMode.hint')}>
      {view && !view.supported ? (
        <p className="field-description" data-testid="theft-mode-unsupported">
          {t('units.theftMode.unsupported')}
        </p>
      ) : (
        <>
          <Switch
            className="theft-switch"
            isSelected={on}
            isDisabled={!view || mutation.isPending}
            onChange={(next) => mutation.mutate(next)}
            data-testid="theft-mode-switch"
          >
            <span className="theft-switch-track" aria-hidden="true">
              <span className="theft-switch-thumb" />
            </span>
            {t('units.theftMode.switch')}
          </Switch>
          {view && (
            <p data-testid="theft-mode-state" data-state={view.state}>
              <span className={`theft-state theft-state--${view.state}`}>{t(`units.theftMode.state.${view.state}`)}</span>
              {pending && <span className="field-description"> {t('units.theftMode.pendingNote')}</span>}
            </p>
          )}
          {view && view.state !== 'off' && (
            <p className="field-description" data-testid="theft-mode-cause">
              {view.cause?.kind === 'geofence' ? t('units.theftMode.causeZone', { zone: view.cause.geofenceName }) : t('units.theftMode.causeManual')}
              {view.since && ` · ${formatDateTime(view.since, i18n.language)}`}
              {view.previousMode && ` · ${t('units.theftMode.restores', { mode: t(`units.mode.${view.previousMode}`) })}`}
            </p>
          )}
          {view?.failed && (
            <p className="field-error" role="alert" data-testid="theft-mode-failed">
              {t('units.theftMode.failed')}
            </p>
          )}
        </>
      )}
      {mutation.isError && (
        <p className="field-error" role="alert">
          {errorText(mutation.error)}
        </p>
      )}
    </Section>
  );
}
