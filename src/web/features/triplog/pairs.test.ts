import { describe, expect, test } from 'bun:test';
import type { TripLogEntry } from '../../../modules/trips/model';
import { pairwiseSummary } from './pairs';
import { rangeProblem } from './range';

const trip = (id: number, start: string, minutes: number, km: number) =>
  ({
    id,
    startTime: start,
    stopTime: new Date(Date.parse(start) + minutes * 60_000).toISOString(),
    durationS: minutes * 60,
    distanceM: km * 1000,
  }) as TripLogEntry;

describe('pairwise summaries (spec §4)', () => {
  test('an even selection pairs the trips oldest first, out and back', () => {
    const back = trip(2, '2026-03-01T16:00:00.000Z', 30, 20);
    const out = trip(1, '2026-03-01T07:30:00.000Z', 30, 21);
    const secondOut = trip(3, '2026-03-02T08:00:00.000Z', 10, 5);
    const secondBack = trip(4, '2026-03-02T09:00:00.000Z', 15, 6);
    const summary = pairwiseSummary([secondBack, back, secondOut, out]);
    expect(summary).toEqual({
      ok: true,
      pairs: [
        { out, back, distanceM: 41_000, durationS: 3600, elapsedS: 9 * 3600 },
        { out: secondOut, back: secondBack, distanceM: 11_000, durationS: 1500, elapsedS: 75 * 60 },
      ],
      distanceM: 52_000,
      durationS: 5100,
    });
  });

  test('an odd or empty selection has no summary', () => {
    expect(pairwiseSummary([trip(1, '2026-03-01T07:30:00.000Z', 30, 1)])).toEqual({ ok: false, reason: 'odd', count: 1 });
    expect(pairwiseSummary([])).toEqual({ ok: false, reason: 'none', count: 0 });
  });
});

describe('trip log date range (spec §5)', () => {
  test('at most 12 months, the upper day not before the lower one', () => {
    expect(rangeProblem(undefined, undefined)).toBeNull();
    expect(rangeProblem('2026-03-01', '2026-03-31')).toBeNull();
    expect(rangeProblem('2026-03-05', '2026-03-05')).toBeNull();
    expect(rangeProblem('2025-03-01', '2026-02-28')).toBeNull();
    expect(rangeProblem('2025-03-01', '2026-03-01')).toBe('tooLong');
    expect(rangeProblem('2025-01-31', '2026-01-30')).toBeNull();
    expect(rangeProblem('2025-01-31', '2026-01-31')).toBe('tooLong');
    expect(rangeProblem('2026-03-02', '2026-03-01')).toBe('order');
    expect(rangeProblem('2026-03-01', undefined)).toBe('format');
    expect(rangeProblem('2026-02-30', '2026-03-01')).toBe('format');
  });
});
