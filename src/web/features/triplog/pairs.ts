import type { TripLogEntry } from '../../../modules/trips/model';

/**
 * Spec §4 pairwise summaries: the selected trips, oldest first, taken two by two (out and back). An even number of
 * trips is required; each pair gets its distance and driving time totals and the time from leaving to being back.
 */

export interface TripPair {
  out: TripLogEntry;
  back: TripLogEntry;
  distanceM: number;
  /** Driving time of both trips. */
  durationS: number;
  /** From the start of the trip out to the stop of the trip back. */
  elapsedS: number;
}

export type PairwiseSummary =
  | { ok: true; pairs: TripPair[]; distanceM: number; durationS: number }
  | { ok: false; reason: 'none' | 'odd'; count: number };

export function pairwiseSummary(trips: readonly TripLogEntry[]): PairwiseSummary {
  if (trips.length === 0) return { ok: false, reason: 'none', count: 0 };
  if (trips.length % 2 !== 0) return { ok: false, reason: 'odd', count: trips.length };
  const sorted = [...trips].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime) || a.id - b.id);
  const pairs: TripPair[] = [];
  for (let index = 0; index < sorted.length; index += 2) {
    const out = sorted[index]!;
    const back = sorted[index + 1]!;
    pairs.push({
      out,
      back,
      distanceM: out.distanceM + back.distanceM,
      durationS: out.durationS + back.durationS,
      elapsedS: Math.max(0, Math.round((Date.parse(back.stopTime) - Date.parse(out.startTime)) / 1000)),
    });
  }
  return {
    ok: true,
    pairs,
    distanceM: pairs.reduce((sum, pair) => sum + pair.distanceM, 0),
    durationS: pairs.reduce((sum, pair) => sum + pair.durationS, 0),
  };
}
