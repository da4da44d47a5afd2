import { describe, expect, test } from 'bun:test';
import { clamp, contains, padded } from './clusters';

describe('cluster view questions', () => {
  test('a view is asked for with a quarter-view margin on each side, within the world', () => {
    expect(padded([18, 59, 19, 60])).toEqual([17.75, 58.75, 19.25, 60.25]);
    expect(padded([-179, 80, -170, 84])).toEqual([-180, 79, -167.75, 85]);
  });

  test('a pan within the margin is covered; one beyond it, or a view wider than it, is not', () => {
    const asked = padded([18, 59, 19, 60]);
    expect(contains(asked, clamp([18.2, 59.1, 19.2, 60.1]))).toBe(true);
    expect(contains(asked, clamp([18.3, 59, 19.3, 60]))).toBe(false);
    expect(contains(asked, clamp([17.5, 58.5, 19.5, 60.5]))).toBe(false);
    // A view reaching past the antimeridian counts as clamped to the world, like the question.
    expect(contains(padded([170, 0, 181, 10]), clamp([171, 1, 182, 9]))).toBe(true);
  });
});
