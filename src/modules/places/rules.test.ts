import { describe, expect, test } from 'bun:test';
import { localDayMinute, matchingRule, type RuleForMatch } from './rules';

const rule = (overrides: Partial<RuleForMatch>): RuleForMatch => ({
  id: 1,
  placeId: 10,
  kind: 'start',
  otherPlaceId: null,
  days: [1, 2, 3, 4, 5],
  fromMinute: 6 * 60,
  toMinute: 10 * 60,
  category: 'private',
  timeZone: 'Europe/Stockholm',
  ...overrides,
});

/** Monday 16 February 2026, 07:30 UTC = 08:30 in Stockholm; the trip lasts 20 minutes. */
const trip = (start: number[], stop: number[], startMs = Date.parse('2026-02-16T07:30:00Z')) => ({
  startMs,
  stopMs: startMs + 20 * 60_000,
  startPlaces: new Set(start),
  stopPlaces: new Set(stop),
});

describe('place rules', () => {
  test('local day and minute follow the zone, with summer time', () => {
    expect(localDayMinute(Date.parse('2026-02-16T07:30:00Z'), 'Europe/Stockholm')).toEqual({ day: 1, minute: 8 * 60 + 30 });
    expect(localDayMinute(Date.parse('2026-06-14T22:30:00Z'), 'Europe/Stockholm')).toEqual({ day: 1, minute: 30 });
    expect(localDayMinute(Date.parse('2026-06-14T22:30:00Z'), 'Europe/London')).toEqual({ day: 0, minute: 23 * 60 + 30 });
  });

  test('start, end and between each look at their own end of the trip', () => {
    expect(matchingRule([rule({ kind: 'start' })], trip([10], []))?.id).toBe(1);
    expect(matchingRule([rule({ kind: 'start' })], trip([], [10]))).toBeNull();
    expect(matchingRule([rule({ kind: 'end' })], trip([], [10]))?.id).toBe(1);
    expect(matchingRule([rule({ kind: 'end' })], trip([10], []))).toBeNull();
    const between = rule({ kind: 'between', otherPlaceId: 20 });
    expect(matchingRule([between], trip([10], [20]))?.id).toBe(1);
    expect(matchingRule([between], trip([20], [10]))?.id).toBe(1);
    expect(matchingRule([between], trip([10], [10]))).toBeNull();
    expect(matchingRule([between], trip([10], [30]))).toBeNull();
  });

  test('days and the [from, to) window in the place zone', () => {
    const saturday = Date.parse('2026-02-21T07:30:00Z');
    expect(matchingRule([rule({})], trip([10], [], saturday))).toBeNull();
    expect(matchingRule([rule({ days: [6] })], trip([10], [], saturday))?.id).toBe(1);
    // 08:30 local: not in [08:45, 10:00); in [08:30, 08:45); not in [08:00, 08:30).
    expect(matchingRule([rule({ fromMinute: 525 })], trip([10], []))).toBeNull();
    expect(matchingRule([rule({ fromMinute: 510, toMinute: 525 })], trip([10], []))?.id).toBe(1);
    expect(matchingRule([rule({ fromMinute: 480, toMinute: 510 })], trip([10], []))).toBeNull();
    // The end rule reads the stop time: 08:50.
    expect(matchingRule([rule({ kind: 'end', fromMinute: 525, toMinute: 540 })], trip([], [10]))?.id).toBe(1);
    // In London the same instant is 07:30.
    expect(matchingRule([rule({ fromMinute: 450, toMinute: 465, timeZone: 'Europe/London' })], trip([10], []))?.id).toBe(1);
  });

  test('the most specific rule wins, then the first', () => {
    const rules = [
      rule({ id: 5, kind: 'start', category: 'business' }),
      rule({ id: 6, kind: 'end', placeId: 20, category: 'private' }),
      rule({ id: 7, kind: 'between', otherPlaceId: 20, category: 'business' }),
    ];
    expect(matchingRule(rules, trip([10], [20]))?.id).toBe(7);
    expect(matchingRule(rules.slice(0, 2), trip([10], [20]))?.id).toBe(6);
    expect(matchingRule([rule({ id: 9 }), rule({ id: 3, category: 'business' })], trip([10], []))?.category).toBe('business');
  });
});
