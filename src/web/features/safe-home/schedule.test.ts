import { describe, expect, test } from 'bun:test';
import { DEFAULT_ALERT_TIME, type SafeHomeRecord } from '../../../modules/safe-home/model';
import { alertCount, draftOf, localToday, scheduleOf, withDay } from './schedule';

const none: Pick<SafeHomeRecord, 'schedule' | 'frequency' | 'start_date'> = { schedule: '[]', frequency: 1, start_date: null };

describe('the alert schedule form', () => {
  test('a vehicle without a schedule: every 1 week from today, three weeks of unchecked days at 18:00, Monday first', () => {
    const draft = draftOf(none, '2026-11-26');
    expect(draft.frequency).toBe(1);
    expect(draft.startDate).toBe('2026-11-26');
    expect(draft.weeks.map((week) => week.week)).toEqual([1, 2, 3]);
    for (const week of draft.weeks) {
      expect(week.days.map((day) => day.day)).toEqual([1, 2, 3, 4, 5, 6, 0]);
      expect(week.days.every((day) => !day.checked && day.time === DEFAULT_ALERT_TIME)).toBe(true);
    }
    expect(scheduleOf(draft)).toEqual([]);
  });

  test('a saved schedule fills its days; the others stay unchecked', () => {
    const schedule = JSON.stringify([
      { week: 1, days: [{ day: 5, time: '17:30' }] },
      { week: 2, days: [{ day: 0, time: '20:00' }] },
    ]);
    const draft = draftOf({ schedule, frequency: 2, start_date: '2026-03-02' }, '2026-11-26');
    expect(draft.frequency).toBe(2);
    expect(draft.startDate).toBe('2026-03-02');
    expect(draft.weeks[0]!.days.filter((day) => day.checked)).toEqual([{ day: 5, time: '17:30', checked: true }]);
    expect(draft.weeks[1]!.days.filter((day) => day.checked)).toEqual([{ day: 0, time: '20:00', checked: true }]);
    expect(scheduleOf(draft)).toEqual(JSON.parse(schedule));
    expect(alertCount(schedule)).toBe(2);
  });

  test('only checked days with a time are sent, empty weeks dropped, weeks past the frequency left out', () => {
    let draft = draftOf(none, '2026-11-26');
    draft = withDay(draft, 1, 2, { checked: true, time: '18:15' });
    draft = withDay(draft, 1, 3, { time: '09:00' }); // a time without its checkbox
    draft = withDay(draft, 2, 4, { checked: true, time: '' }); // a checkbox without a time
    draft = withDay(draft, 3, 6, { checked: true });
    expect(scheduleOf({ ...draft, frequency: 3 })).toEqual([
      { week: 1, days: [{ day: 2, time: '18:15' }] },
      { week: 3, days: [{ day: 6, time: '18:00' }] },
    ]);
    // Every week: weeks 2 and 3 are not part of the cycle.
    expect(scheduleOf({ ...draft, frequency: 1 })).toEqual([{ week: 1, days: [{ day: 2, time: '18:15' }] }]);
  });

  test('a time off the 15-minute grid is refused with its key', () => {
    const draft = withDay(draftOf(none, '2026-11-26'), 1, 1, { checked: true, time: '18:10' });
    expect(scheduleOf(draft)).toBe('safeHome.TimeStep');
  });

  test('today is the browser calendar date', () => {
    expect(localToday(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });
});
