import { describe, expect, test } from 'bun:test';
import { ECO_CAPS, ECO_THRESHOLDS, ecoScore, weekOf } from './eco';

/** Eco scores at and around the thresholds of each sensitivity (domain.md §6, caps summing to 100). */
const base = { distanceKm: 100, harshAcceleration: 0, harshBraking: 0, harshCornering: 0, drivingS: 3600, idleS: 0, overspeedS: 0 };

describe('ecoScore', () => {
  test('a clean drive scores 100', () => {
    expect(ecoScore(base, ECO_THRESHOLDS.normal).score).toBe(100);
    expect(Object.values(ECO_CAPS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  test('each category costs its whole cap exactly at the threshold, and no more beyond it', () => {
    for (const sensitivity of ['sensitive', 'normal', 'insensitive'] as const) {
      const t = ECO_THRESHOLDS[sensitivity];
      expect(ecoScore({ ...base, harshAcceleration: t.accelerationPer100Km }, t).score).toBe(100 - ECO_CAPS.acceleration);
      expect(ecoScore({ ...base, harshBraking: t.brakingPer100Km }, t).score).toBe(100 - ECO_CAPS.braking);
      expect(ecoScore({ ...base, harshCornering: t.corneringPer100Km }, t).score).toBe(100 - ECO_CAPS.cornering);
      expect(ecoScore({ ...base, harshCornering: t.corneringPer100Km * 3 }, t).score).toBe(100 - ECO_CAPS.cornering);
      expect(ecoScore({ ...base, overspeedS: 3600 * t.overspeedShare }, t).score).toBe(100 - ECO_CAPS.speeding);
      expect(ecoScore({ ...base, idleS: 3600 * t.idleShare }, t).deductions.idling).toBe(ECO_CAPS.idling);
    }
  });

  test('half the threshold costs half the cap; everything at once scores 0', () => {
    const t = ECO_THRESHOLDS.normal;
    expect(ecoScore({ ...base, harshBraking: t.brakingPer100Km / 2 }, t).score).toBe(100 - ECO_CAPS.braking / 2);
    const worst = ecoScore({ ...base, harshAcceleration: 99, harshBraking: 99, harshCornering: 99, idleS: 3000, overspeedS: 600 }, t);
    expect(worst.score).toBe(0);
  });

  test('the same driving costs more with a sensitive profile than a normal or insensitive one', () => {
    const drive = { ...base, harshBraking: 4, overspeedS: 300 };
    const sensitive = ecoScore(drive, ECO_THRESHOLDS.sensitive).score;
    const normal = ecoScore(drive, ECO_THRESHOLDS.normal).score;
    const insensitive = ecoScore(drive, ECO_THRESHOLDS.insensitive).score;
    expect(sensitive).toBeLessThan(normal);
    expect(normal).toBeLessThan(insensitive);
    // 4 per 100 km of the normal 10: 0.4 × 20; 300 s of 3,600 s moving = 8.3 % of 20 %: 30 × 0.4167.
    expect(normal).toBe(Math.round((100 - 0.4 * ECO_CAPS.braking - (ECO_CAPS.speeding * (300 / 3600)) / 0.2) * 10) / 10);
  });

  test('without distance no event rate is deducted', () => {
    expect(ecoScore({ ...base, distanceKm: 0, harshBraking: 5 }, ECO_THRESHOLDS.normal).score).toBe(100);
  });

  test('ISO weeks start on Monday', () => {
    expect(weekOf('2026-03-01')).toBe('2026-02-23');
    expect(weekOf('2026-03-02')).toBe('2026-03-02');
  });
});
