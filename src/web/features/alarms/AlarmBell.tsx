import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Popover } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { AlarmView } from '../../../modules/alarms/model';
import { useDialogs } from '../../components/Dialogs';
import { Icon } from '../../components/Icons';
import { useAlarmSummary } from '../../lib/alarms';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { unitEditPath } from '../../lib/paths';
import { useAcknowledge } from './api';
import './alarms.css';

function AlarmItem({ alarm, onAcknowledge, busy }: { alarm: AlarmView; onAcknowledge: () => void; busy: boolean }) {
  const { t, i18n } = useTranslation();
  const when = new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short', timeStyle: 'short' }).format(new Date(alarm.raisedAt));
  const type = t(`alarms.types.${alarm.type}`);
  return (
    <li className={`alarm-item alarm-item--${alarm.class}${alarm.acknowledgedAt ? ' alarm-item--done' : ''}`} data-testid={`bell-alarm-${alarm.id}`}>
      <div className="alarm-item-text">
        <span className="alarm-item-type">{type}</span>
        <Link className="alarm-item-unit" to={unitEditPath(alarm.unitId)}>
          {alarm.unitName}
          {alarm.registration ? ` · ${alarm.registration}` : ''}
        </Link>
        <span className="alarm-muted">
          <time dateTime={alarm.raisedAt}>{when}</time>
          {alarm.occurrences > 1 && ` · ${t('alarms.bell.occurrences', { count: alarm.occurrences })}`}
        </span>
        {alarm.address && <span className="alarm-muted">{alarm.address}</span>}
      </div>
      {alarm.acknowledgedAt ? (
        <span className="alarm-muted">{t('alarms.bell.acknowledged')}</span>
      ) : (
        <Button
          className="btn btn-secondary btn-small"
          onPress={onAcknowledge}
          isDisabled={busy}
          aria-label={t('alarms.bell.acknowledgeOne', { type, unit: alarm.unitName })}
          data-testid={`bell-ack-${alarm.id}`}
        >
          {t('alarms.bell.acknowledge')}
        </Button>
      )}
    </li>
  );
}

/** The header's bell: unacknowledged alarms of the units the user sees, the latest of them, acknowledged here. */
export function AlarmBell() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const summary = useAlarmSummary();
  const acknowledge = useAcknowledge();
  const [open, setOpen] = useState(false);
  const count = summary.data?.unacknowledged ?? 0;
  const latest = summary.data?.latest ?? [];

  async function ack(target: number | 'all') {
    try {
      await acknowledge.mutateAsync(target);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  return (
    <DialogTrigger isOpen={open} onOpenChange={setOpen}>
      <Button className={`icon-button alarm-bell${count > 0 ? ' alarm-bell--on' : ''}`} aria-label={t('alarms.bell.label', { count })} data-testid="alarm-bell">
        <Icon name="bell" />
        {count > 0 && (
          <span className="alarm-bell-count" aria-hidden="true" data-testid="alarm-bell-count">
            {count > 99 ? '99+' : count}
          </span>
        )}
      </Button>
      <Popover className="alarm-popover" placement="bottom end">
        <Dialog className="alarm-popover-dialog" aria-labelledby="alarm-popover-title">
          <div className="alarm-popover-head">
            <Heading slot="title" id="alarm-popover-title" className="alarm-popover-title">
              {t('alarms.bell.title')}
            </Heading>
            {count > 0 && (
              <Button className="btn btn-secondary btn-small" onPress={() => void ack('all')} isDisabled={acknowledge.isPending} data-testid="bell-ack-all">
                {t('alarms.bell.acknowledgeAll', { count })}
              </Button>
            )}
          </div>
          {summary.isError && <p className="field-error">{errorText(summary.error)}</p>}
          {latest.length === 0 ? (
            <p className="alarm-muted" data-testid="bell-empty">
              {summary.isPending ? t('common.loading') : t('alarms.bell.empty')}
            </p>
          ) : (
            <ul className="alarm-list" aria-live="polite">
              {latest.map((alarm) => (
                <AlarmItem key={alarm.id} alarm={alarm} busy={acknowledge.isPending} onAcknowledge={() => void ack(alarm.id)} />
              ))}
            </ul>
          )}
        </Dialog>
      </Popover>
    </DialogTrigger>
  );
}
