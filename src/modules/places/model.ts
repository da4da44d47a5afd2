import { queryText, z } from '../../lib/validation';

/**
 * Places and their rules (spec §1, §2 /user/places, §3 Place, §5). Schemas and wire types, shared with the web
 * app: no server-only imports here.
 */

/** A place is at least a parking lot wide (GPS scatter) and at most the largest zone of spec §9. */
export const PLACE_RADIUS_MIN = 50;
export const PLACE_RADIUS_MAX = 9999;
export const PLACE_RADIUS_DEFAULT = 150;
/** Spec §5/§9: address at most 50 characters. */
export const PLACE_ADDRESS_MAX = 50;
export const PLACE_LABEL_MAX = 100;
export const PLACE_RULES_MAX = 20;
export const PLACE_UNITS_MAX = 1000;

export const PLACE_RULE_KINDS = ['start', 'end', 'between'] as const;
export type PlaceRuleKind = (typeof PLACE_RULE_KINDS)[number];
export const PLACE_CATEGORIES = ['business', 'private'] as const;
export type PlaceCategory = (typeof PLACE_CATEGORIES)[number];
/** Spec §9: day ids 1-6 Monday-Saturday, 0 Sunday; listed Monday first. */
export const WEEK_DAYS = [1, 2, 3, 4, 5, 6, 0] as const;

const TIME = /^(([01]\d|2[0-3]):(00|15|30|45)|24:00)$/;
/** "HH:mm" in 15-minute steps; "24:00" ends a window at midnight. */
const ruleTime = z.string().trim().regex(TIME, 'places.rule.timeStep');

export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
}

export function timeOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const dbId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

/** One rule: a trip that starts at, ends at, or drives between this place and another, on these days and times. */
export const placeRuleSchema = z
  .object({
    kind: z.enum(PLACE_RULE_KINDS),
    /** The other place of a "between" rule. */
    otherPlaceId: dbId().nullish(),
    days: z
      .array(z.number().int().min(0).max(6))
      .min(1, 'places.rule.days')
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'places.rule.days'),
    from: ruleTime,
    to: ruleTime,
    category: z.enum(PLACE_CATEGORIES),
  })
  .superRefine((rule, context) => {
    if (TIME.test(rule.from) && TIME.test(rule.to) && minutesOf(rule.to) <= minutesOf(rule.from)) {
      context.addIssue({ code: 'custom', path: ['to'], message: 'places.rule.timeOrder' });
    }
    if (rule.kind === 'between' && !rule.otherPlaceId) context.addIssue({ code: 'custom', path: ['otherPlaceId'], message: 'places.rule.otherPlace' });
  });
export type PlaceRuleInput = z.output<typeof placeRuleSchema>;

/** A place as created or saved: everything at once (the edit page saves the whole form). */
export const placeInputSchema = z.object({
  label: z
    .string()
    .transform((value) => value.trim())
    .pipe(z.string().min(1, 'places.label.required').max(PLACE_LABEL_MAX)),
  /** Empty: the address is looked up at the coordinates (reverse geocoding). */
  address: z
    .string()
    .transform((value) => value.trim())
    .pipe(z.string().max(PLACE_ADDRESS_MAX, 'places.address.tooLong')),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  radiusM: z.number().int().min(PLACE_RADIUS_MIN, 'places.radius.range').max(PLACE_RADIUS_MAX, 'places.radius.range'),
  /** Spec §5: at least one unit. */
  units: z.array(dbId()).min(1, 'places.units.required').max(PLACE_UNITS_MAX),
  rules: z.array(placeRuleSchema).max(PLACE_RULES_MAX),
});
export type PlaceInput = z.output<typeof placeInputSchema>;

export const placeIdParamsSchema = z.object({ id: dbId() });

export const placeListQuerySchema = z.object({
  /** Label or address contains. */
  q: queryText(100),
});
export type PlaceListQuery = z.output<typeof placeListQuerySchema>;

/** Address look-up: a typed address (forward) or a point (reverse). */
export const placeGeocodeQuerySchema = z.object({
  q: queryText(200),
  lat: z.coerce.number<unknown>().min(-90).max(90).optional(),
  lon: z.coerce.number<unknown>().min(-180).max(180).optional(),
});
export type PlaceGeocodeQuery = z.output<typeof placeGeocodeQuerySchema>;

export interface PlaceGeocodeCandidate {
  /** Shortened to the address limit, ready for the address field. */
  address: string;
  latitude: number;
  longitude: number;
}

/** How precise the address look-up is: town names only (the shipped offline data) or street addresses (a geocoder). */
export interface PlaceGeocoderView {
  precision: 'town' | 'street';
}

export interface PlaceRuleView {
  id: number;
  kind: PlaceRuleKind;
  otherPlaceId: number | null;
  otherPlaceLabel: string | null;
  /** 0 Sunday … 6 Saturday, ascending. */
  days: number[];
  from: string;
  to: string;
  category: PlaceCategory;
}

export interface PlaceView {
  id: number;
  label: string;
  address: string;
  /** WGS 84, 6 decimals. */
  latitude: number;
  longitude: number;
  radiusM: number;
  /** The zone the rules' days and times are read in. */
  timeZone: string;
  units: Array<{ id: number; name: string }>;
  rules: PlaceRuleView[];
  /** Whether the caller may change or delete it (an ordinary user: only places whose units they all see). */
  editable: boolean;
}
