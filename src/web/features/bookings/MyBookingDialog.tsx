import { useId, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { addMonths, BOOKING_MESSAGES, HIDDEN_SUBSCRIPTION_TYPE, monthGrid, monthSchema } from '../../../modules/bookings/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { Banner } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag, translateMessage } from '../../lib/i18n';
import { useMonthSchedule } from './api';
import { BookingChips, bookingsOnDay } from './BookingChips';
import type { BookingTarget } from './BookingDialog';
import { accountNow } from './time';

/**
 * Spec §2 My Booking: the caller's bookings in a month calendar of 42 Monday-first days, with a month picker and
 * previous/next month; at most two bookings a day plus "+N more". A day opens New Booking (the vehicle chosen in the
 * form when there are several), a booking its Edit Booking.
 */
export function MyBookingDialog({ timeZone, onClose, onOpen }: { timeZone: string; onClose: () => void; onOpen: (target: BookingTarget) => void }) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const today = accountNow(timeZone).slice(0, 10);
  const [month, setMonth] = useState(today.slice(0, 7));
  const schedule = useMonthSchedule(month, true);
  const pickerId = useId();
  const cells = monthGrid(month);
  const vehicles = useMemo(() => (schedule.data?.BookingSchedules ?? []).filter((vehicle) => vehicle.SubscriptionType !== HIDDEN_SUBSCRIPTION_TYPE), [schedule.data]);
  const bookings = useMemo(
    () => vehicles.flatMap((vehicle) => vehicle.Schedule.filter((booking) => booking.Mine).map((booking) => ({ booking, vehicle }))),
    [vehicles],
  );
  const vehicleOf = useMemo(() => new Map(bookings.map(({ booking, vehicle }) => [booking.ID, vehicle])), [bookings]);
  const tag = localeTag(i18n.language);
  const monthLabel = new Intl.DateTimeFormat(tag, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
  const longDay = new Intl.DateTimeFormat(tag, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  const weekdayNames = cells.slice(0, 7).map((day) => ({
    short: new Intl.DateTimeFormat(tag, { weekday: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`)),
    long: new Intl.DateTimeFormat(tag, { weekday: 'long', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`)),
  }));

  function openDay(day: string) {
    if (day < today) {
      void dialogs.showError(translateMessage(BOOKING_MESSAGES.ErrPastDateMsg));
      return;
    }
    onOpen({ kind: 'new', day, vehicles, imei: vehicles.length === 1 ? vehicles[0]!.Imei : null });
  }

  const weeks = Array.from({ length: 6 }, (_, index) => cells.slice(index * 7, index * 7 + 7));
  const mine = bookings.map(({ booking }) => booking);

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('carSchedule.myBooking.title')} className="my-booking-dialog">
      <div className="dialog-body">
        <fieldset className="my-booking-nav">
          <legend className="visually-hidden">{t('carSchedule.myBooking.monthNav')}</legend>
          <Button className="btn btn-secondary" onPress={() => setMonth(addMonths(month, -1))} data-testid="month-previous">
            <span aria-hidden="true">‹</span> {t('carSchedule.myBooking.previous')}
          </Button>
          <div className="field my-booking-month">
            <label htmlFor={pickerId} className="field-label">
              {t('carSchedule.myBooking.pickMonth')}
            </label>
            <input
              id={pickerId}
              type="month"
              className="field-input"
              value={month}
              onChange={(event) => {
                if (monthSchema.safeParse(event.target.value).success) setMonth(event.target.value);
              }}
              data-testid="month-picker"
            />
          </div>
          <Button className="btn btn-secondary" onPress={() => setMonth(addMonths(month, 1))} data-testid="month-next">
            {t('carSchedule.myBooking.next')} <span aria-hidden="true">›</span>
          </Button>
        </fieldset>
        <h3 className="my-booking-month-label" aria-live="polite" data-testid="month-label">
          {monthLabel}
        </h3>
        {schedule.isError && <Banner kind="error">{errorText(schedule.error)}</Banner>}
        <table className="my-booking-calendar" aria-label={monthLabel} aria-busy={schedule.isFetching} data-testid="my-booking-calendar">
          <thead>
            <tr>
              {weekdayNames.map((name) => (
                <th key={name.long} scope="col" abbr={name.long}>
                  {name.short}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weeks.map((week) => (
              <tr key={week[0]}>
                {week.map((day) => {
                  const inMonth = day.slice(0, 7) === month;
                  const onDay = bookingsOnDay(mine, day);
                  return (
                    <td
                      key={day}
                      className={`my-booking-day${inMonth ? '' : ' is-outside'}${day === today ? ' is-today' : ''}${day < today ? ' is-past' : ''}`}
                      data-testid={`month-cell-${day}`}
                    >
                      <button
                        type="button"
                        className="my-booking-add"
                        onClick={() => openDay(day)}
                        aria-label={t('carSchedule.myBooking.newOn', { day: longDay.format(new Date(`${day}T00:00:00Z`)) })}
                        data-testid={`month-cell-${day}-new`}
                      >
                        <span aria-hidden="true">{Number(day.slice(8))}</span>
                      </button>
                      <div className="my-booking-bookings">
                        <BookingChips
                          bookings={onDay}
                          day={day}
                          testId={`month-cell-${day}`}
                          onOpen={(booking) => {
                            const vehicle = vehicleOf.get(booking.ID) ?? null;
                            onOpen({ kind: 'edit', booking, vehicle });
                          }}
                          describe={(booking, span) =>
                            t('carSchedule.bookingLabel', { span, driver: booking.DriverName, purpose: booking.Purpose, vehicle: vehicleOf.get(booking.ID)?.Name ?? booking.Imei })
                          }
                        />
                      </div>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose} data-testid="my-booking-close">
          {t('carSchedule.form.close')}
        </Button>
      </div>
    </AppDialog>
  );
}
