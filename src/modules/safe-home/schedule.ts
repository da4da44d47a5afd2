import { zoneOffsetMs } from '../../lib/time';
import type { Schedule } from './model';

/**
 * When a schedule's checks fall due: each listed day and wall-clock time of the record's time zone, in the weeks of the
 * cycle counted (Monday first) from the start date's week every `frequency` weeks, never before the start date.
 */
export interface SchedulePlan {
  schedule: Schedule;
  frequency: number;
  /** `YYYY-MM-DD`. */
  startDate: string;
  timeZone: string;
}

const DAY_MS = 86_400_000;

function dateMs(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day);
}

/** The instant a wall-clock time of the zone names (DST-aware; a time in the spring gap lands just after it). */
export function instantOfLocal(wallMs: number, timeZone: string): number {
  let instant = wallMs - zoneOffsetMs(wallMs, timeZone);
  instant = wallMs - zoneOffsetMs(instant, timeZone);
  return instant;
}

/** Monday 00:00 (naive ms) of the week holding the naive day. */
function mondayOf(dayMs: number): number {
  const weekday = new Date(dayMs).getUTCDay();
  return dayMs - ((weekday + 6) % 7) * DAY_MS;
}

/** Week number 1..frequency of a day in the cycle, or 0 before the start date. */
export function cycleWeek(plan: Pick<SchedulePlan, 'frequency' | 'startDate'>, dayMs: number): number {
  const start = dateMs(plan.startDate);
  if (dayMs < start) return 0;
  const weeks = Math.round((mondayOf(dayMs) - mondayOf(start)) / (7 * DAY_MS));
  return (weeks % plan.frequency) + 1;
}

/** The first due instant strictly after `after`, or null when the schedule has no day (looks at most four cycles ahead). */
export function nextDue(plan: SchedulePlan, after: Date): Date | null {
  if (plan.schedule.every((week) => week.days.length === 0)) return null;
  const afterMs = after.getTime();
  // The zone's calendar day at `after`, one day earlier for safety (a time late on the previous local day).
  const localNow = afterMs + zoneOffsetMs(afterMs, plan.timeZone);
  const firstDay = Math.max(Math.floor(localNow / DAY_MS) * DAY_MS - DAY_MS, dateMs(plan.startDate));
  const byWeek = new Map(plan.schedule.map((week) => [week.week, week.days]));
  for (let offset = 0; offset <= 7 * plan.frequency * 4 + 2; offset++) {
    const dayMs = firstDay + offset * DAY_MS;
    const days = byWeek.get(cycleWeek(plan, dayMs));
    if (!days) continue;
    const weekday = new Date(dayMs).getUTCDay();
    let best: number | null = null;
    for (const entry of days) {
      if (entry.day !== weekday) continue;
      const [hour, minute] = entry.time.split(':').map(Number) as [number, number];
      const due = instantOfLocal(dayMs + hour * 3_600_000 + minute * 60_000, plan.timeZone);
      if (due > afterMs && (best === null || due < best)) best = due;
    }
    if (best !== null) return new Date(best);
  }
  return null;
}
