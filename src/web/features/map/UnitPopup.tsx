import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { BleValue } from '../../../modules/tracking/model';
import type { Formatters } from './format';
import type { TrackedUnit } from './store';

function onOff(value: boolean | null, t: TFunction): string {
  return value === null ? '–' : value ? t('map.on') : t('map.off');
}

function bleText(reading: BleValue, f: Formatters, t: TFunction): string {
  const parts: string[] = [];
  if (typeof reading.temperatureC === 'number') parts.push(f.temperature(reading.temperatureC));
  if (typeof reading.humidityPct === 'number') parts.push(`${t('map.popup.humidity')} ${f.percent(reading.humidityPct)}`);
  if (typeof reading.magnet === 'boolean') parts.push(reading.magnet ? t('map.popup.doorClosed') : t('map.popup.doorOpen'));
  if (typeof reading.batteryPct === 'number') parts.push(`${t('map.popup.battery')} ${f.percent(reading.batteryPct)}`);
  else if (typeof reading.batteryMv === 'number') parts.push(`${t('map.popup.battery')} ${f.voltage(reading.batteryMv / 1000)}`);
  if (reading.lowBattery) parts.push(t('map.popup.lowBattery'));
  if (parts.length === 0 && typeof reading.rssi === 'number') parts.push(`RSSI ${reading.rssi} dBm`);
  return parts.join(', ') || '–';
}

function bleName(reading: BleValue, index: number, t: TFunction): string {
  return reading.name ?? reading.mac ?? reading.beaconId ?? t('map.popup.sensor', { n: reading.slot ?? index + 1 });
}

/** Spec §3/issue: the popup of a unit: ignition, speed, odometer, voltage, DIN/DOUT, BLE values, driver, last address. */
export function UnitPopup({
  unit,
  address,
  f,
  now,
  onClose,
  onHistory,
}: {
  unit: TrackedUnit;
  address: string | null | undefined;
  f: Formatters;
  now: number;
  onClose: () => void;
  onHistory: () => void;
}) {
  const { t } = useTranslation();
  const rows: Array<[string, string, string?]> = [
    [t('map.popup.lastSeen'), f.lastSeen(unit.lastSeen, now)],
    [t('map.popup.ignition'), onOff(unit.ignition, t), 'ignition'],
    [t('map.popup.speed'), f.speed(unit.speed), 'speed'],
    [t('map.popup.odometer'), f.odometer(unit.odometerM)],
    [t('map.popup.voltage'), f.voltage(unit.externalVoltageV)],
    [t('map.popup.inputs'), `DIN1 ${onOff(unit.din1, t)} · DIN2 ${onOff(unit.din2, t)} · DIN3 ${onOff(unit.din3, t)}`],
    [t('map.popup.outputs'), `DOUT1 ${onOff(unit.dout1, t)} · DOUT2 ${onOff(unit.dout2, t)} · DOUT3 ${onOff(unit.dout3, t)}`],
    [t('map.popup.driver'), unit.driverName ?? unit.driverId ?? t('map.popup.noDriver'), 'driver'],
    [t('map.popup.operatingMode'), unit.operatingMode ? t(`map.operatingMode.${unit.operatingMode}`) : '–', 'operating-mode'],
    [t('map.popup.address'), address === undefined ? t('common.loading') : (address ?? '–'), 'address'],
  ];
  return (
    <section className="unit-popup" aria-label={unit.name} data-testid="unit-popup" data-unit-id={unit.id}>
      <header className="unit-popup-head">
        <div>
          <h3 className="unit-popup-title">{unit.name}</h3>
          <p className="unit-popup-sub">
            {unit.registrationNumber && <span>{unit.registrationNumber} · </span>}
            <span className={`status-text status-${unit.status}`}>{t(`unitStatus.${unit.status}`)}</span>
          </p>
        </div>
        <button type="button" className="icon-button popup-close" aria-label={t('map.popup.close')} onClick={onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <dl className="unit-popup-facts">
        {rows.map(([label, value, id]) => (
          <div key={label} className="fact" data-fact={id}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        {unit.ble.map((reading, index) => (
          <div key={`${reading.mac ?? reading.beaconId ?? index}`} className="fact">
            <dt>{bleName(reading, index, t)}</dt>
            <dd>{bleText(reading, f, t)}</dd>
          </div>
        ))}
      </dl>
      <div className="unit-popup-actions">
        <button type="button" className="btn btn-secondary btn-small" onClick={onHistory}>
          {t('map.history.open')}
        </button>
      </div>
    </section>
  );
}
