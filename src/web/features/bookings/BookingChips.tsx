import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { addDays, BOOKINGS_PER_CELL, type BookingEntry, MORE_LIST_SCROLL_ABOVE } from '../../../modules/bookings/model';

type ScheduleBooking = BookingEntry;


/** The bookings of a vehicle that touch a day (a booking over midnight shows on both days), by start. */
export function bookingsOnDay(schedule: readonly BookingEntry[], day: string): BookingEntry[] {
  const from = `${day}T00:00:00`;
  const to = `${addDays(day, 1)}T00:00:00`;
  return schedule.filter((booking) => booking.StartDate < to && booking.EndDate > from).sort((a, b) => (a.StartDate < b.StartDate ? -1 : 1));
}

/** The start - end of a booking as seen on one day: a booking running past midnight shows 00:00 or 24:00 there. */
export function spanOnDay(booking: ScheduleBooking, day: string): string {
  const startDay = booking.StartDate.slice(0, 10);
  const endDay = booking.EndDate.slice(0, 10);
  const from = startDay < day ? '00:00' : booking.StartDate.slice(11, 16);
  const to = endDay > day ? '24:00' : booking.EndDate.slice(11, 16);
  return `${from} - ${to}`;
}

/**
 * A cell's bookings (a grid day or a calendar day): the first two as buttons, the others in a "+N more" list that
 * opens on hover, focus or press and scrolls above four entries. Every booking opens its Edit Booking.
 */
export function BookingChips({
  bookings,
  day,
  onOpen,
  describe,
  testId,
}: {
  bookings: readonly ScheduleBooking[];
  day: string;
  onOpen: (booking: ScheduleBooking) => void;
  /** The accessible name of a booking's button (who, what, when). */
  describe: (booking: ScheduleBooking, span: string) => string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const shown = bookings.slice(0, BOOKINGS_PER_CELL);
  const more = bookings.slice(BOOKINGS_PER_CELL);
  return (
    <>
      {shown.map((booking) => {
        const span = spanOnDay(booking, day);
        return (
          <button
            key={booking.ID}
            type="button"
            className={`booking-chip${booking.Mine ? ' booking-chip--mine' : ''}`}
            onClick={(event) => {
              event.stopPropagation();
              onOpen(booking);
            }}
            aria-label={describe(booking, span)}
            title={`${span} ${booking.DriverName} · ${booking.Purpose}`}
            data-testid={testId ? `${testId}-booking-${booking.ID}` : `booking-${booking.ID}`}
          >
            {span}
          </button>
        );
      })}
      {more.length > 0 && (
        <MoreList label={t('carSchedule.more', { count: more.length })} bookings={more} day={day} onOpen={onOpen} describe={describe} testId={testId} />
      )}
    </>
  );
}

function MoreList({
  label,
  bookings,
  day,
  onOpen,
  describe,
  testId,
}: {
  label: string;
  bookings: readonly ScheduleBooking[];
  day: string;
  onOpen: (booking: ScheduleBooking) => void;
  describe: (booking: ScheduleBooking, span: string) => string;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; left: number; above: boolean } | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const closeTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const id = useId();

  /** The list is fixed to the viewport so the grid's scrolling box does not clip it; it opens upwards near the bottom. */
  function placeList() {
    const box = trigger.current?.getBoundingClientRect();
    if (!box) return;
    const above = box.bottom + 200 > window.innerHeight;
    setPlace({ top: above ? box.top : box.bottom, left: Math.max(0, Math.min(box.left, window.innerWidth - 220)), above });
  }
  function show() {
    if (closeTimer.current) clearTimeout(closeTimer.current);
    placeList();
    setOpen(true);
  }
  function hideSoon() {
    if (closeTimer.current) clearTimeout(closeTimer.current);
    closeTimer.current = setTimeout(() => setOpen(false), 200);
  }
  useEffect(() => () => {
    if (closeTimer.current) clearTimeout(closeTimer.current);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: placeList reads only refs and the window
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        trigger.current?.focus();
      }
    };
    // The grid scrolled under the list: the list follows its button.
    const onScroll = (event: Event) => {
      if (!list.current?.contains(event.target as Node)) placeList();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('scroll', onScroll, true);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('scroll', onScroll, true);
    };
  }, [open]);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: hovering the box opens the list; its button is the control
    <div
      className="booking-more"
      onMouseEnter={show}
      onMouseLeave={hideSoon}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) hideSoon();
      }}
    >
      <button
        ref={trigger}
        type="button"
        className="booking-more-button"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={(event) => {
          event.stopPropagation();
          if (open) setOpen(false);
          else show();
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            show();
            requestAnimationFrame(() => list.current?.querySelector('button')?.focus());
          }
        }}
        data-testid={testId ? `${testId}-more` : 'booking-more'}
      >
        {label}
      </button>
      {open && place && (
        <div
          ref={list}
          id={id}
          className={`booking-more-list${bookings.length > MORE_LIST_SCROLL_ABOVE ? ' booking-more-list--scroll' : ''}`}
          style={{ top: place.top, left: place.left, transform: place.above ? 'translateY(-100%)' : undefined }}
          data-testid={testId ? `${testId}-more-list` : 'booking-more-list'}
        >
          <ul>
            {bookings.map((booking) => {
              const span = spanOnDay(booking, day);
              return (
                <li key={booking.ID}>
                  <button
                    type="button"
                    className="booking-more-item"
                    onClick={(event) => {
                      event.stopPropagation();
                      setOpen(false);
                      onOpen(booking);
                    }}
                    aria-label={describe(booking, span)}
                    data-testid={testId ? `${testId}-booking-${booking.ID}` : `booking-${booking.ID}`}
                  >
                    <span className="booking-more-time">{span}</span> <span className="booking-more-who">{booking.DriverName}</span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
