// The grid uses ARIA table roles rather than <table> elements: the virtualiser places rows absolutely, which table rows
// cannot be. Rows are not focus stops themselves; their buttons are.
// biome-ignore-all lint/a11y/useSemanticElements: see above
// biome-ignore-all lint/a11y/useFocusableInteractive: see above
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, useId, useMemo, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import {
  addDays,
  BOOKING_MESSAGES,
  HIDDEN_SUBSCRIPTION_TYPE,
  localDateSchema,
  type VehicleSchedule,
  weekDays,
  weekStart,
} from '../../../modules/bookings/model';
import { useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag, translateMessage } from '../../lib/i18n';
import { useSession } from '../../lib/session';
import { useWeekSchedule } from './api';
import { BookingChips, bookingsOnDay } from './BookingChips';
import { BookingDialog, type BookingTarget } from './BookingDialog';
import { MyBookingDialog } from './MyBookingDialog';
import { accountNow } from './time';
import './bookings.css';

const ROW_HEIGHT = 92;
const NO_VEHICLES: VehicleSchedule[] = [];

type SortColumn = 'name' | 'registrationNumber' | 'model';
const SORT_VALUE: Record<SortColumn, (vehicle: VehicleSchedule) => string> = {
  name: (vehicle) => vehicle.Name,
  registrationNumber: (vehicle) => vehicle.RegistrationNumber,
  model: (vehicle) => vehicle.Model,
};

/**
 * Spec §2 car schedule: the week's grid, vehicles as rows (virtual, for thousands) and Monday to Sunday as columns,
 * with a date picker, previous/next week, a search by name, registration number or tracker id and one sorted column.
 * A day opens New Booking, a booking Edit Booking; My Booking opens the month calendar.
 */
export function CarSchedulePage() {
  const { t, i18n } = useTranslation();
  const session = useSession();
  const dialogs = useDialogs();
  const [params, setParams] = useSearchParams();
  const timeZone = session?.user.TimeZone || 'Europe/Stockholm';
  const today = accountNow(timeZone).slice(0, 10);
  const requested = params.get('week') ?? '';
  const anchor = localDateSchema.safeParse(requested).success ? requested : today;
  const monday = weekStart(anchor);
  const days = weekDays(monday);
  const schedule = useWeekSchedule(monday);
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ column: SortColumn; desc: boolean }>({ column: 'name', desc: false });
  const [target, setTarget] = useState<BookingTarget | null>(null);
  const [myBooking, setMyBooking] = useState(false);
  const isAdmin = session?.user.IsAdmin === true;
  const collator = useMemo(() => new Intl.Collator(localeTag(i18n.language), { numeric: true, sensitivity: 'base' }), [i18n.language]);
  const countId = useId();

  const all = schedule.data?.BookingSchedules ?? NO_VEHICLES;
  const vehicles = useMemo(() => {
    const needle = search.trim().toLocaleLowerCase();
    const shown = all.filter(
      (vehicle) =>
        vehicle.SubscriptionType !== HIDDEN_SUBSCRIPTION_TYPE &&
        (!needle || [vehicle.Name, vehicle.RegistrationNumber, vehicle.Imei].some((text) => text.toLocaleLowerCase().includes(needle))),
    );
    const value = SORT_VALUE[sort.column];
    const direction = sort.desc ? -1 : 1;
    return shown.sort((a, b) => direction * collator.compare(value(a), value(b)) || collator.compare(a.Name, b.Name));
  }, [all, search, sort, collator]);

  const oldest = schedule.data?.OldestBooking?.slice(0, 10) ?? null;
  // Nothing lies before the oldest booking (or this week): the picker and "previous" stop there.
  const earliest = weekStart(oldest && oldest < today ? oldest : today);
  const goTo = (day: string) => setParams((current) => {
    const next = new URLSearchParams(current);
    next.set('week', weekStart(day));
    return next;
  }, { replace: true });

  const dayFormat = new Intl.DateTimeFormat(localeTag(i18n.language), { weekday: 'short', day: 'numeric', month: 'numeric', timeZone: 'UTC' });
  const longDay = new Intl.DateTimeFormat(localeTag(i18n.language), { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  const rangeFormat = new Intl.DateTimeFormat(localeTag(i18n.language), { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const asDate = (day: string) => new Date(`${day}T00:00:00Z`);
  const weekLabel = t('carSchedule.week', { from: rangeFormat.format(asDate(days[0]!)), to: rangeFormat.format(asDate(days[6]!)), week: isoWeek(monday) });

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: vehicles.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (index) => vehicles[index]!.Imei,
    overscan: 6,
  });

  /** Arrow keys (and Home/End) move between the day cells' New Booking buttons, scrolling rows into view. */
  function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
    const target = event.target as HTMLElement;
    if (!target.matches('.car-schedule-add, .booking-chip')) return;
    const cell = target.closest<HTMLElement>('[data-col]');
    if (!cell) return;
    let row = Number(cell.dataset.row);
    let col = Number(cell.dataset.col);
    if (event.key === 'ArrowLeft') col = Math.max(0, col - 1);
    else if (event.key === 'ArrowRight') col = Math.min(6, col + 1);
    else if (event.key === 'ArrowUp') row = Math.max(0, row - 1);
    else if (event.key === 'ArrowDown') row = Math.min(vehicles.length - 1, row + 1);
    else if (event.key === 'Home') col = 0;
    else if (event.key === 'End') col = 6;
    else return;
    event.preventDefault();
    virtualizer.scrollToIndex(row);
    const focus = (tries: number) => {
      const next = scroller.current?.querySelector<HTMLElement>(`[data-row="${row}"][data-col="${col}"] .car-schedule-add`);
      if (next) next.focus();
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
    };
    focus(5);
  }

  function openDay(vehicle: VehicleSchedule, day: string) {
    if (day < today) {
      void dialogs.showError(translateMessage(BOOKING_MESSAGES.ErrPastDateMsg));
      return;
    }
    setTarget({ kind: 'new', day, vehicles: [vehicle], imei: vehicle.Imei });
  }

  function finished(key: string) {
    setTarget(null);
    void dialogs.showMessage({ title: t('carSchedule.result'), message: <span data-testid="booking-result">{translateMessage(key)}</span> });
  }

  function toggleSort(column: SortColumn) {
    setSort((current) => ({ column, desc: current.column === column ? !current.desc : false }));
  }

  const headers: Array<{ column: SortColumn; label: string; short?: string }> = [
    { column: 'name', label: t('carSchedule.columns.name') },
    { column: 'registrationNumber', label: t('carSchedule.columns.registrationNumber'), short: t('carSchedule.columns.registrationShort') },
    { column: 'model', label: t('carSchedule.columns.model') },
  ];

  return (
    <div className="page car-schedule-page">
      <div className="car-schedule-heading">
        <h1 className="page-title">{t('carSchedule.title')}</h1>
        <Button className="btn btn-primary" onPress={() => setMyBooking(true)} data-testid="my-booking-open">
          {t('carSchedule.myBooking.open')}
        </Button>
      </div>
      <div className="car-schedule-toolbar">
        <div className="car-schedule-week" role="group" aria-label={t('carSchedule.weekNav')}>
          <Button className="btn btn-secondary" onPress={() => goTo(addDays(monday, -7))} isDisabled={monday <= earliest} data-testid="week-previous">
            <span aria-hidden="true">‹</span> {t('carSchedule.previousWeek')}
          </Button>
          <div className="field car-schedule-date">
            <label htmlFor={`${countId}-day`} className="field-label">
              {t('carSchedule.pickDay')}
            </label>
            <input
              id={`${countId}-day`}
              type="date"
              className="field-input"
              value={anchor}
              min={earliest}
              onChange={(event) => {
                if (localDateSchema.safeParse(event.target.value).success) goTo(event.target.value);
              }}
              data-testid="week-day"
            />
          </div>
          <Button className="btn btn-secondary" onPress={() => goTo(addDays(monday, 7))} data-testid="week-next">
            {t('carSchedule.nextWeek')} <span aria-hidden="true">›</span>
          </Button>
          {monday !== weekStart(today) && (
            <Button className="btn btn-link" onPress={() => goTo(today)} data-testid="week-today">
              {t('carSchedule.thisWeek')}
            </Button>
          )}
        </div>
        <search className="car-schedule-search" aria-label={t('carSchedule.search')}>
          <Field type="search" label={t('carSchedule.search')} value={search} onChange={setSearch} placeholder={t('carSchedule.searchHint')} testId="car-schedule-search" />
        </search>
      </div>
      <p className="car-schedule-range" aria-live="polite" data-testid="week-label">
        {weekLabel}
      </p>
      {schedule.isError && <Banner kind="error">{errorText(schedule.error)}</Banner>}
      <p className="car-schedule-count" id={countId} aria-live="polite" data-testid="car-schedule-count">
        {schedule.isPending ? t('common.loading') : t('carSchedule.count', { count: vehicles.length })}
      </p>
      <p className="car-schedule-hint" id={`${countId}-hint`}>
        {t('carSchedule.keyboardHint')}
      </p>
      <div className="car-schedule-scroller" ref={scroller} data-testid="car-schedule-grid">
        <div
          className="car-schedule-table"
          role="table"
          aria-label={t('carSchedule.gridLabel', { week: weekLabel })}
          aria-describedby={`${countId} ${countId}-hint`}
          aria-rowcount={vehicles.length + 1}
          aria-busy={schedule.isFetching}
          onKeyDown={moveFocus}
        >
          <div role="rowgroup" className="car-schedule-head">
            <div role="row" className="car-schedule-row car-schedule-row--head" aria-rowindex={1}>
              {headers.map(({ column, label, short }) => {
                const active = sort.column === column;
                return (
                  <div key={column} role="columnheader" className={`car-schedule-cell car-schedule-cell--${column}`} aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                    <button type="button" className="car-schedule-sort" onClick={() => toggleSort(column)} data-testid={`sort-${column}`} title={short ? label : undefined}>
                      {short ? (
                        <>
                          <span aria-hidden="true">{short}</span>
                          <span className="visually-hidden">{label}</span>
                        </>
                      ) : (
                        label
                      )}
                      <span className="car-schedule-sort-mark" aria-hidden="true">
                        {active ? (sort.desc ? '▼' : '▲') : '↕'}
                      </span>
                    </button>
                  </div>
                );
              })}
              {days.map((day) => (
                <div key={day} role="columnheader" className={`car-schedule-cell car-schedule-day-head${day === today ? ' is-today' : ''}`} data-testid={`day-head-${day}`}>
                  <span aria-hidden="true">{dayFormat.format(asDate(day))}</span>
                  <span className="visually-hidden">{longDay.format(asDate(day))}</span>
                </div>
              ))}
            </div>
          </div>
          <div role="rowgroup" className="car-schedule-body" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const vehicle = vehicles[item.index]!;
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className="car-schedule-row"
                  style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  data-testid={`vehicle-row-${vehicle.Imei}`}
                >
                  <div role="rowheader" className="car-schedule-cell car-schedule-cell--name">
                    <span className="car-schedule-name">{vehicle.Name}</span>
                  </div>
                  <div role="cell" className="car-schedule-cell car-schedule-cell--registrationNumber">
                    {vehicle.RegistrationNumber || '–'}
                  </div>
                  <div role="cell" className="car-schedule-cell car-schedule-cell--model">
                    {vehicle.Model || '–'}
                  </div>
                  {days.map((day, col) => {
                    const bookings = bookingsOnDay(vehicle.Schedule, day);
                    const testId = `cell-${vehicle.Imei}-${day}`;
                    return (
                      <div
                        key={day}
                        role="cell"
                        className={`car-schedule-cell car-schedule-day${day < today ? ' is-past' : ''}${day === today ? ' is-today' : ''}`}
                        data-row={item.index}
                        data-col={col}
                        data-testid={testId}
                      >
                        <button
                          type="button"
                          className="car-schedule-add"
                          onClick={() => openDay(vehicle, day)}
                          aria-label={t('carSchedule.newOn', { vehicle: vehicle.Name, day: longDay.format(asDate(day)) })}
                          data-testid={`${testId}-new`}
                        />
                        <div className="car-schedule-bookings">
                          <BookingChips
                            bookings={bookings}
                            day={day}
                            testId={testId}
                            onOpen={(booking) => setTarget({ kind: 'edit', booking, vehicle })}
                            describe={(booking, span) => t('carSchedule.bookingLabel', { span, driver: booking.DriverName, purpose: booking.Purpose, vehicle: vehicle.Name })}
                          />
                        </div>
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
        {!schedule.isPending && vehicles.length === 0 && <p className="car-schedule-empty">{search.trim() ? t('carSchedule.noMatch') : t('carSchedule.noVehicles')}</p>}
      </div>
      {target && (
        <BookingDialog
          key={target.kind === 'edit' ? `edit-${target.booking.ID}` : `new-${target.day}`}
          target={target}
          timeZone={timeZone}
          isAdmin={isAdmin}
          userId={session?.user.ID ?? 0}
          onClose={() => setTarget(null)}
          onDone={finished}
        />
      )}
      {myBooking && <MyBookingDialog timeZone={timeZone} onClose={() => setMyBooking(false)} onOpen={setTarget} />}
    </div>
  );
}

/** ISO 8601 week number of a Monday. */
export function isoWeek(monday: string): number {
  const thursday = asUtc(addDays(monday, 3));
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - yearStart) / 86_400_000 / 7) + 1;
}

function asUtc(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}
