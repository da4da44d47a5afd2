import { zoneOffsetMs } from '../../lib/time';
import type { PlaceCategory, PlaceRuleKind } from './model';

/**
 * Which rule categorizes a trip (pure; the service finds the places a trip starts and stops in with PostGIS).
 *
 * - start: the trip starts inside the rule's place, at a day and time of the rule;
 * - end: the trip stops inside the place, the stop time on a day and time of the rule;
 * - between: the trip goes from the place to the other place or back, the start time on a day and time of the rule.
 *
 * Days and times are read in the place's time zone; a window is [from, to). When several rules match, the most
 * specific wins (between, then end, then start), then the one listed first (lowest id).
 */
export interface RuleForMatch {
  id: number;
  placeId: number;
  kind: PlaceRuleKind;
  otherPlaceId: number | null;
  days: number[];
  fromMinute: number;
  toMinute: number;
  category: PlaceCategory;
  timeZone: string;
}

export interface TripForMatch {
  startMs: number;
  stopMs: number;
  /** Places (of the account) the start and the stop lie in. */
  startPlaces: ReadonlySet<number>;
  stopPlaces: ReadonlySet<number>;
}

const SPECIFICITY: Record<PlaceRuleKind, number> = { between: 3, end: 2, start: 1 };

/** Day of week (0 Sunday) and minute of the day of an instant in a zone. */
export function localDayMinute(instant: number, timeZone: string): { day: number; minute: number } {
  const wall = new Date(instant + zoneOffsetMs(instant, timeZone));
  return { day: wall.getUTCDay(), minute: wall.getUTCHours() * 60 + wall.getUTCMinutes() };
}

function inWindow(rule: RuleForMatch, instant: number): boolean {
  const { day, minute } = localDayMinute(instant, rule.timeZone);
  return rule.days.includes(day) && minute >= rule.fromMinute && minute < rule.toMinute;
}

export function ruleMatches(rule: RuleForMatch, trip: TripForMatch): boolean {
  switch (rule.kind) {
    case 'start':
      return trip.startPlaces.has(rule.placeId) && inWindow(rule, trip.startMs);
    case 'end':
      return trip.stopPlaces.has(rule.placeId) && inWindow(rule, trip.stopMs);
    case 'between': {
      const other = rule.otherPlaceId;
      if (other === null) return false;
      const there = trip.startPlaces.has(rule.placeId) && trip.stopPlaces.has(other);
      const back = trip.startPlaces.has(other) && trip.stopPlaces.has(rule.placeId);
      return (there || back) && inWindow(rule, trip.startMs);
    }
  }
}

/** The rule that categorizes the trip, or null. `rules` are the rules of the places assigned to the trip's unit. */
export function matchingRule(rules: readonly RuleForMatch[], trip: TripForMatch): RuleForMatch | null {
  let best: RuleForMatch | null = null;
  for (const rule of rules) {
    if (!ruleMatches(rule, trip)) continue;
    if (!best || SPECIFICITY[rule.kind] > SPECIFICITY[best.kind] || (SPECIFICITY[rule.kind] === SPECIFICITY[best.kind] && rule.id < best.id)) {
      best = rule;
    }
  }
  return best;
}
