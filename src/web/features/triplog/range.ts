import { isCalendarDate, MAX_RANGE_MONTHS } from '../../../modules/trips/model';

/**
 * Spec §5 date ranges of the trip log: the upper day not before the lower one and at most 12 months in all (the last
 * day inclusive: 1 March to the last day of February next year is the longest). The server checks the same.
 */
export type RangeProblem = 'format' | 'order' | 'tooLong' | null;

function addMonths(day: string, months: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date, last));
  return target.toISOString().slice(0, 10);
}

export function rangeProblem(from: string | undefined, to: string | undefined): RangeProblem {
  if (from === undefined && to === undefined) return null;
  if (!from || !to || !isCalendarDate(from) || !isCalendarDate(to)) return 'format';
  if (to < from) return 'order';
  // The day after `to` (exclusive end) may be at most 12 months after `from`.
  const end = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (end > addMonths(from, MAX_RANGE_MONTHS)) return 'tooLong';
  return null;
}

/** The month (YYYY-MM) a day belongs to. */
export const monthOf = (day: string): string => day.slice(0, 7);
