import {
  DEFAULT_ALERT_TIME,
  emptyWeek,
  FREQUENCIES,
  type Frequency,
  normalizeSchedule,
  parseSchedule,
  type SafeHomeMessageKey,
  type SafeHomeRecord,
  type Schedule,
} from '../../../modules/safe-home/model';

/**
 * The alert schedule modal's form (spec §2, §5, §9): a week-frequency (every 1, 2 or 3 weeks), a start date and, per
 * week of the cycle, the seven weekdays (Monday first) each with a checkbox and a 15-minute-step time (18:00 unless
 * chosen). All three weeks are kept while the form is open, so going from every 3 weeks to every week and back loses
 * nothing; only the weeks of the chosen frequency are sent.
 */
export interface DayDraft {
  day: number;
  time: string;
  checked: boolean;
}
export interface WeekDraft {
  week: number;
  days: DayDraft[];
}
export interface ScheduleDraft {
  frequency: Frequency;
  startDate: string;
  weeks: WeekDraft[];
}

/** Today in the browser's own calendar, `YYYY-MM-DD`. */
export function localToday(now: Date = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** The form for a vehicle: its saved schedule checked in, every other day unchecked at the default time. */
export function draftOf(record: Pick<SafeHomeRecord, 'schedule' | 'frequency' | 'start_date'>, today: string = localToday()): ScheduleDraft {
  const saved = parseSchedule(record.schedule);
  const frequency = (FREQUENCIES as readonly number[]).includes(record.frequency) ? record.frequency : 1;
  const weeks = FREQUENCIES.map((week) => {
    const draft = emptyWeek(week);
    const days = saved.find((entry) => entry.week === week)?.days ?? [];
    return {
      week,
      days: draft.days.map((day) => {
        const chosen = days.find((entry) => entry.day === day.day);
        return chosen ? { day: day.day, time: chosen.time, checked: true } : { ...day, time: DEFAULT_ALERT_TIME };
      }),
    };
  });
  return { frequency, startDate: record.start_date ?? today, weeks };
}

/**
 * What is sent (spec §5): only checked days with a time, of the weeks the frequency holds, empty weeks dropped.
 * Returns the message key of a broken rule instead (a time off the 15-minute grid).
 */
export function scheduleOf(draft: ScheduleDraft): Schedule | SafeHomeMessageKey {
  return normalizeSchedule(draft.weeks.filter((week) => week.week <= draft.frequency));
}

/** How many alerts a week cycle holds (the table's schedule icon says it). */
export function alertCount(scheduleText: string): number {
  return parseSchedule(scheduleText).reduce((sum, week) => sum + week.days.length, 0);
}

/** Changes one day of one week. */
export function withDay(draft: ScheduleDraft, week: number, day: number, change: Partial<Omit<DayDraft, 'day'>>): ScheduleDraft {
  return {
    ...draft,
    weeks: draft.weeks.map((entry) =>
      entry.week === week ? { ...entry, days: entry.days.map((current) => (current.day === day ? { ...current, ...change } : current)) } : entry,
    ),
  };
}
