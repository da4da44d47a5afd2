import { expect, test } from 'bun:test';
import type { BookingEntry } from '../../../modules/bookings/model';
import { bookingsOnDay, spanOnDay } from './BookingChips';

const booking = (id: number, start: string, end: string): BookingEntry => ({
  ID: id,
  Imei: '358100000230001',
  StartDate: start,
  EndDate: end,
  StartTime: start.slice(11, 16),
  EndTime: end.slice(11, 16),
  Purpose: 'Kundbesök',
  DriverId: 1,
  DriverName: 'Anna',
  BookedBy: 1,
  Mine: true,
  Editable: true,
  Started: false,
});

test('a cell holds the bookings touching its day, by start; one over midnight shows on both days', () => {
  const late = booking(1, '2026-12-02T22:00:00', '2026-12-03T02:00:00');
  const morning = booking(2, '2026-12-02T08:00:00', '2026-12-02T09:00:00');
  const next = booking(3, '2026-12-03T00:00:00', '2026-12-03T01:00:00');
  const all = [late, next, morning];
  expect(bookingsOnDay(all, '2026-12-02').map((b) => b.ID)).toEqual([2, 1]);
  expect(bookingsOnDay(all, '2026-12-03').map((b) => b.ID)).toEqual([1, 3]);
  expect(bookingsOnDay(all, '2026-12-04')).toEqual([]);
  expect(spanOnDay(late, '2026-12-02')).toBe('22:00 - 24:00');
  expect(spanOnDay(late, '2026-12-03')).toBe('00:00 - 02:00');
  expect(spanOnDay(morning, '2026-12-02')).toBe('08:00 - 09:00');
});

test('a booking ending at midnight is not on the next day', () => {
  const evening = booking(4, '2026-12-02T20:00:00', '2026-12-03T00:00:00');
  expect(bookingsOnDay([evening], '2026-12-03')).toEqual([]);
  expect(spanOnDay(evening, '2026-12-02')).toBe('20:00 - 24:00');
});
