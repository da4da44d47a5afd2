import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BookingDeleted, BookingSaved, DriverListAnswer, SaveBookingInput, ScheduleAnswer, UpdateBookingInput } from '../../../modules/bookings/model';
import { api } from '../../lib/api';
import { syncAccountClock } from './time';

/** Server state of the car schedule (spec §7 car schedule calls). */

export const bookingKeys = {
  all: ['car-schedule'] as const,
  week: (day: string) => ['car-schedule', 'week', day] as const,
  month: (month: string, mine: boolean) => ['car-schedule', 'month', month, mine] as const,
  drivers: (imei: string) => ['car-schedule', 'drivers', imei] as const,
};

/** The week holding `day`: every visible vehicle with its bookings (the grid). */
export function useWeekSchedule(day: string) {
  return useQuery({
    queryKey: bookingKeys.week(day),
    queryFn: async ({ signal }) => {
      const answer = await api.get<ScheduleAnswer>('/api/car-schedule/week', { query: { week_day: day, Imeis: '' }, signal });
      syncAccountClock(answer);
      return answer;
    },
    placeholderData: keepPreviousData,
  });
}

/** The 42 days of the month's calendar; `mine` keeps the caller's own bookings (My Booking). */
export function useMonthSchedule(month: string, mine: boolean, enabled = true) {
  return useQuery({
    queryKey: bookingKeys.month(month, mine),
    queryFn: async ({ signal }) => {
      const answer = await api.get<ScheduleAnswer>('/api/car-schedule/month', { query: { month, Imeis: '', mine: mine ? 'true' : undefined }, signal });
      syncAccountClock(answer);
      return answer;
    },
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** The drivers an administrator may book a vehicle for (spec §7 driver list). */
export function useDrivers(imei: string, enabled: boolean) {
  return useQuery({
    queryKey: bookingKeys.drivers(imei),
    queryFn: async () => (await api.post<DriverListAnswer>('/api/car-schedule/drivers', { imei })).members,
    enabled: enabled && imei !== '',
    staleTime: 5 * 60 * 1000,
  });
}

export function useSaveBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: SaveBookingInput | UpdateBookingInput) =>
      'id' in input ? api.post<BookingSaved>('/api/car-schedule/update', input) : api.post<BookingSaved>('/api/car-schedule/save', input),
    onSuccess: () => client.invalidateQueries({ queryKey: bookingKeys.all }),
  });
}

export function useDeleteBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<BookingDeleted>('/api/car-schedule/delete', { id }),
    onSuccess: () => client.invalidateQueries({ queryKey: bookingKeys.all }),
  });
}
