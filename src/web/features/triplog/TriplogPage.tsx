import { useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { PURPOSE_MAX, NOTE_MAX, TRIP_TYPES, type TripLogEntry, type TripType } from '../../../modules/trips/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import {
  type TripPeriod,
  useBulkType,
  useCheckIn,
  useCheckOut,
  useMergeTrips,
  useSplitTrip,
  useTripDrivers,
  useTripList,
  useTriplogUnits,
  useUpdateTrip,
} from './api';
import './triplog.css';

/** Trips per page; the bulk type applies to the trips of the page shown. */
const PAGE_SIZE = 50;

/** A text cell (purpose, note) saved when it loses focus and changed. */
function TextCell({ label, value, max, onSave, testId }: { label: string; value: string | null; max: number; onSave: (text: string) => void; testId: string }) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  return (
    <input
      className="field-input triplog-text"
      aria-label={label}
      value={text}
      maxLength={max}
      data-testid={testId}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => {
        if (text.trim() !== (value ?? '')) onSave(text);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.currentTarget.blur();
      }}
    />
  );
}

/**
 * Spec §4: check a driver in from a trip (this and later trips; the unit's driver is checked out first), or check
 * the unit's driver out after it. "No driver" is offered and refused by the server with its reason.
 */
function DriverDialog({ trip, when, onClose, attempt }: { trip: TripLogEntry | null; when: string; onClose: () => void; attempt: (work: () => Promise<unknown>) => Promise<boolean> }) {
  const { t } = useTranslation();
  const drivers = useTripDrivers();
  const checkIn = useCheckIn();
  const checkOut = useCheckOut();
  const [driver, setDriver] = useState('');
  useEffect(() => setDriver(trip?.driverUserId ? String(trip.driverUserId) : ''), [trip]);
  const options = [{ value: '', label: t('triplog.noDriver') }, ...(drivers.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))];
  return (
    <AppDialog isOpen={trip !== null} onOpenChange={(open) => !open && onClose()} title={t('triplog.driverOf', { time: when })}>
      <SelectField label={t('triplog.driver')} value={driver} onChange={setDriver} options={options} testId="triplog-driver" />
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.cancel')}
        </Button>
        <Button
          className="btn btn-secondary"
          isDisabled={checkOut.isPending}
          onPress={() => void attempt(() => checkOut.mutateAsync(trip!.id)).then((ok) => ok && onClose())}
        >
          {t('triplog.checkOut')}
        </Button>
        <Button
          className="btn btn-primary"
          isDisabled={checkIn.isPending}
          onPress={() => void attempt(() => checkIn.mutateAsync({ id: trip!.id, driverUserId: driver ? Number(driver) : null })).then((ok) => ok && onClose())}
        >
          {t('triplog.checkIn')}
        </Button>
      </div>
    </AppDialog>
  );
}

/** Spec §2 /user/create-triplog: a unit's trips in a period, totals per type, type, purpose and note, merge and split. */
export function TriplogPage() {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const units = useTriplogUnits();
  const [unitId, setUnitId] = useState<number | null>(null);
  const [from, setFrom] = useState<string | undefined>();
  const [to, setTo] = useState<string | undefined>();
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [bulkType, setBulkType] = useState<TripType>('business');
  const [driverTrip, setDriverTrip] = useState<TripLogEntry | null>(null);

  useEffect(() => {
    if (unitId === null && units.data?.[0]) setUnitId(units.data[0].ID);
  }, [units.data, unitId]);

  const period: TripPeriod | null = unitId === null ? null : { unitId, from, to };
  const list = useTripList(period);
  const data = list.data;
  const timeZone = data?.timeZone;
  // This month by default: the server answers the period it read; the pickers show it.
  useEffect(() => {
    if (!data || from !== undefined) return;
    const day = (iso: string, shift = 0) => new Date(Date.parse(iso) + shift).toLocaleDateString('sv-SE', { timeZone: data.timeZone });
    setFrom(day(data.from));
    setTo(day(data.to, -1));
  }, [data, from]);

  const update = useUpdateTrip();
  const bulk = useBulkType();
  const merge = useMergeTrips();
  const split = useSplitTrip();

  const trips = data?.trips ?? [];
  const pages = Math.max(1, Math.ceil(trips.length / PAGE_SIZE));
  const shown = useMemo(() => trips.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), [trips, page]);
  useEffect(() => {
    if (page >= pages) setPage(pages - 1);
  }, [page, pages]);

  const locale = localeTag(i18n.language);
  const time = (iso: string) =>
    new Date(iso).toLocaleString(locale, { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
  const km = (metres: number) => (metres / 1000).toLocaleString(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const duration = (seconds: number) => `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;
  const typeOptions = TRIP_TYPES.map((type) => ({ value: type, label: t(`triplog.type.${type}`) }));

  async function attempt(work: () => Promise<unknown>) {
    try {
      await work();
      return true;
    } catch (error) {
      await dialogs.showError(errorText(error));
      return false;
    }
  }

  const toggle = (id: number, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const listError = list.isError ? errorText(list.error) : null;

  return (
    <div className="page triplog-page">
      <div className="page-heading">
        <h1 className="page-title">{t('triplog.title')}</h1>
      </div>

      <div className="triplog-filters">
        <SelectField
          label={t('triplog.unit')}
          value={unitId === null ? '' : String(unitId)}
          onChange={(value) => {
            setUnitId(Number(value));
            setSelected(new Set());
            setPage(0);
          }}
          options={(units.data ?? []).map((unit) => ({ value: String(unit.ID), label: unit.Name }))}
          testId="triplog-unit"
        />
        <div className="field">
          <label className="field-label" htmlFor="triplog-from">
            {t('triplog.from')}
          </label>
          <input id="triplog-from" className="field-input" type="date" value={from ?? ''} onChange={(event) => setFrom(event.target.value || undefined)} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="triplog-to">
            {t('triplog.to')}
          </label>
          <input id="triplog-to" className="field-input" type="date" value={to ?? ''} onChange={(event) => setTo(event.target.value || undefined)} />
        </div>
      </div>

      {units.data && units.data.length === 0 && <p className="triplog-empty">{t('triplog.noUnits')}</p>}
      {listError && (
        <p className="field-error" role="alert">
          {listError}
        </p>
      )}

      {data && (
        <>
          <section aria-label={t('triplog.totals')} className="triplog-totals" data-testid="triplog-totals">
            {(['business', 'private', 'other', 'all'] as const).map((type) => (
              <div key={type} className="triplog-total" data-testid={`triplog-total-${type}`}>
                <span className="triplog-total-label">{type === 'all' ? t('triplog.total') : t(`triplog.type.${type}`)}</span>
                <span>{t('triplog.tripCount', { count: data.totals[type].trips })}</span>
                <span>{km(data.totals[type].distanceM)} km</span>
                <span>{duration(data.totals[type].durationS)} h</span>
              </div>
            ))}
          </section>

          <div className="triplog-actions">
            <SelectField label={t('triplog.bulkType')} value={bulkType} onChange={(value) => setBulkType(value as TripType)} options={typeOptions} testId="triplog-bulk-type" />
            <Button
              className="btn btn-secondary"
              isDisabled={shown.length === 0 || bulk.isPending}
              onPress={() => void attempt(() => bulk.mutateAsync({ tripIds: shown.map((trip) => trip.id), type: bulkType }))}
            >
              {t('triplog.applyToPage')}
            </Button>
            <Button
              className="btn btn-primary"
              isDisabled={selected.size < 2 || merge.isPending}
              onPress={() =>
                void attempt(async () => {
                  await merge.mutateAsync({ tripIds: [...selected] });
                  setSelected(new Set());
                })
              }
            >
              {t('triplog.merge')}
            </Button>
          </div>

          {trips.length === 0 ? (
            <p className="triplog-empty" data-testid="triplog-no-data">
              {t('triplog.noData')}
            </p>
          ) : (
            <div className="triplog-table-wrap">
              <table className="triplog-table">
                <caption className="visually-hidden">{t('triplog.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">
                      <span className="visually-hidden">{t('triplog.select')}</span>
                    </th>
                    <th scope="col">{t('triplog.start')}</th>
                    <th scope="col">{t('triplog.stop')}</th>
                    <th scope="col">{t('triplog.distance')}</th>
                    <th scope="col">{t('triplog.odometer')}</th>
                    <th scope="col">{t('triplog.typeColumn')}</th>
                    <th scope="col">{t('triplog.purpose')}</th>
                    <th scope="col">{t('triplog.note')}</th>
                    <th scope="col">{t('triplog.driver')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('triplog.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((trip: TripLogEntry) => {
                    const when = time(trip.startTime);
                    return (
                      <tr key={trip.id} data-testid={`trip-row-${trip.id}`}>
                        <td>
                          <input
                            type="checkbox"
                            aria-label={t('triplog.selectTrip', { time: when })}
                            checked={selected.has(trip.id)}
                            onChange={(event) => toggle(trip.id, event.target.checked)}
                          />
                        </td>
                        <td>
                          <div>{when}</div>
                          <div className="triplog-address">{trip.startAddress ?? '–'}</div>
                        </td>
                        <td>
                          <div>{time(trip.stopTime)}</div>
                          <div className="triplog-address">{trip.stopAddress ?? '–'}</div>
                        </td>
                        <td>{km(trip.distanceM)} km</td>
                        <td>
                          {km(trip.odometerStartM)} – {km(trip.odometerStopM)}
                        </td>
                        <td>
                          <SelectField
                            hideLabel
                            label={t('triplog.typeOf', { time: when })}
                            value={trip.type}
                            onChange={(value) => void attempt(() => update.mutateAsync({ id: trip.id, type: value as TripType }))}
                            options={typeOptions}
                            testId={`trip-type-${trip.id}`}
                          />
                        </td>
                        <td>
                          <TextCell
                            label={t('triplog.purposeOf', { time: when })}
                            value={trip.purpose}
                            max={PURPOSE_MAX}
                            testId={`trip-purpose-${trip.id}`}
                            onSave={(text) => void attempt(() => update.mutateAsync({ id: trip.id, purpose: text }))}
                          />
                        </td>
                        <td>
                          <TextCell
                            label={t('triplog.noteOf', { time: when })}
                            value={trip.note}
                            max={NOTE_MAX}
                            testId={`trip-note-${trip.id}`}
                            onSave={(text) => void attempt(() => update.mutateAsync({ id: trip.id, note: text }))}
                          />
                        </td>
                        <td>
                          <Button className="btn btn-link" onPress={() => setDriverTrip(trip)} data-testid={`trip-driver-${trip.id}`}>
                            {trip.driverName ?? t('triplog.noDriver')}
                            <span className="visually-hidden"> ({t('triplog.driverOf', { time: when })})</span>
                          </Button>
                        </td>
                        <td>
                          {trip.merged && (
                            <Button className="btn btn-secondary" onPress={() =>
                                void attempt(async () => {
                                  await split.mutateAsync(trip.id);
                                  setSelected(new Set());
                                })
                              } aria-label={t('triplog.splitTrip', { time: when })}>
                              {t('triplog.split')}
                            </Button>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}

          <DriverDialog trip={driverTrip} when={driverTrip ? time(driverTrip.startTime) : ''} onClose={() => setDriverTrip(null)} attempt={attempt} />

          {pages > 1 && (
            <nav className="triplog-pager" aria-label={t('triplog.pages')}>
              <Button className="btn btn-secondary" isDisabled={page === 0} onPress={() => setPage(page - 1)}>
                {t('triplog.previous')}
              </Button>
              <span>{t('triplog.pageOf', { page: page + 1, pages })}</span>
              <Button className="btn btn-secondary" isDisabled={page >= pages - 1} onPress={() => setPage(page + 1)}>
                {t('triplog.next')}
              </Button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}
