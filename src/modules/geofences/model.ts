import { queryText, z } from '../../lib/validation';

/**
 * Geofences (security zones) and theft mode (spec §1, §2 /user/geofences, §3 Geofence, §4, §5, §8, §9). Schemas and
 * wire types, shared with the web app: no server-only imports here. The routes live under `/api/geofences`:
 *
 * - `GET    /api/geofences?q=`                      → `GeofenceView[]` (the caller's account; ordinary users: zones of units they see)
 * - `POST   /api/geofences`            GeofenceInput → `GeofenceView`
 * - `GET    /api/geofences/:id`                     → `GeofenceView`
 * - `POST   /api/geofences/:id`        GeofenceInput → `GeofenceView` (the whole form)
 * - `POST   /api/geofences/:id/active` { active }   → `GeofenceView`
 * - `DELETE /api/geofences/:id`                     → `{ deleted: true }` (§8 "could not delete" as a 409 otherwise)
 * - `GET    /api/geofences/events?geofenceId=&unitId=&from=&to=&limit=` → `GeofenceEventView[]` (newest first)
 * - `GET    /api/geofences/settings`                → `GeofenceSettings` (the brand's minimum radius and the limits)
 *
 * Theft mode is a state of the unit: its routes and wire types are the units module's (`TheftModeView`).
 */

/** Spec §5/§9: at most 9999 m; the minimum is a brand setting (the spec's texts say both 300 and 50). */
export const GEOFENCE_RADIUS_MAX = 9999;
export const GEOFENCE_RADIUS_MIN_DEFAULT = 300;
/** The smallest minimum a brand may set. */
export const GEOFENCE_RADIUS_MIN_FLOOR = 50;
/** Spec §5/§9: at most 5 geozones per device. */
export const GEOFENCES_PER_UNIT_MAX = 5;
export const GEOFENCE_NAME_MAX = 50;
export const GEOFENCE_POINTS_MIN = 3;
export const GEOFENCE_POINTS_MAX = 200;
export const GEOFENCE_UNITS_MAX = 1000;
/** Spec §9: theft mode reports every 5 minutes while moving, every 30 minutes while still. */
export const THEFT_REPORT_MOVING_S = 300;
export const THEFT_REPORT_STILL_S = 1800;

export const GEOFENCE_SHAPES = ['circle', 'polygon'] as const;
export type GeofenceShape = (typeof GEOFENCE_SHAPES)[number];

/** Spec §9: day ids 1-6 Monday-Saturday, 0 Sunday. */
const TIME = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const dbId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

export const geofencePointSchema = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});
export type GeofencePoint = z.output<typeof geofencePointSchema>;

/**
 * A window in which the zone is deactivated (no enter or exit is raised), read in the account's time zone. `to`
 * before `from` runs past midnight into the next day.
 */
export const deactivationSchema = z.object({
  days: z
    .array(z.number().int().min(0).max(6))
    .min(1, 'geofences.deactivation.days')
    .max(7)
    .refine((days) => new Set(days).size === days.length, 'geofences.deactivation.days'),
  from: z.string().trim().regex(TIME, 'geofences.deactivation.time'),
  to: z.string().trim().regex(TIME, 'geofences.deactivation.time'),
});
export type Deactivation = z.output<typeof deactivationSchema>;

/**
 * A zone as created or saved: everything at once. A circle has `center` and `radiusM`; a polygon has `points`
 * (at least 3, not closed: the first point is not repeated). The radius minimum depends on the brand, so it is
 * checked by the service (error key `geofences.radius.tooSmall`); the schema checks the fixed limits.
 */
export const geofenceInputSchema = z
  .object({
    name: z
      .string()
      .transform((value) => value.trim())
      .pipe(z.string().min(1, 'geofences.name.required').max(GEOFENCE_NAME_MAX, 'geofences.name.tooLong')),
    shape: z.enum(GEOFENCE_SHAPES),
    center: geofencePointSchema.nullish(),
    radiusM: z.number().int().positive('geofences.radius.required').max(GEOFENCE_RADIUS_MAX, 'geofences.radius.tooLarge').nullish(),
    points: z.array(geofencePointSchema).max(GEOFENCE_POINTS_MAX).nullish(),
    units: z.array(dbId()).max(GEOFENCE_UNITS_MAX),
    deactivations: z.array(deactivationSchema).max(14),
    theftMode: z.boolean(),
    /** Spec §3 "real-time activation": enter and exit are raised as positions arrive (off: only logged for reports). */
    realTime: z.boolean(),
    active: z.boolean(),
  })
  .superRefine((zone, context) => {
    if (zone.shape === 'circle') {
      if (!zone.center) context.addIssue({ code: 'custom', path: ['center'], message: 'geofences.coordinates.empty' });
      if (zone.radiusM == null) context.addIssue({ code: 'custom', path: ['radiusM'], message: 'geofences.radius.required' });
    } else if (!zone.points || zone.points.length < GEOFENCE_POINTS_MIN) {
      context.addIssue({ code: 'custom', path: ['points'], message: 'geofences.coordinates.empty' });
    }
  });
export type GeofenceInput = z.output<typeof geofenceInputSchema>;

export const geofenceIdParamsSchema = z.object({ id: dbId() });
export const geofenceListQuerySchema = z.object({ q: queryText(100) });
export const geofenceActiveSchema = z.object({ active: z.boolean() });
export const geofenceEventQuerySchema = z.object({
  geofenceId: dbId().optional(),
  unitId: dbId().optional(),
  /** ISO instants. */
  from: z.string().datetime({ offset: true }).optional(),
  to: z.string().datetime({ offset: true }).optional(),
  limit: z.coerce.number<unknown>().int().min(1).max(1000).default(200),
});
export type GeofenceEventQuery = z.output<typeof geofenceEventQuerySchema>;

export interface GeofenceView {
  id: number;
  name: string;
  shape: GeofenceShape;
  center: GeofencePoint | null;
  radiusM: number | null;
  points: GeofencePoint[] | null;
  units: Array<{ id: number; name: string }>;
  deactivations: Deactivation[];
  theftMode: boolean;
  realTime: boolean;
  active: boolean;
  /** The zone the deactivation windows are read in (the account's). */
  timeZone: string;
  /** Units inside the zone now. */
  unitsInside: number[];
  editable: boolean;
}

export interface GeofenceSettings {
  radiusMinM: number;
  radiusMaxM: number;
  perUnitMax: number;
}

export type GeofenceTransition = 'entered' | 'exited';

export interface GeofenceEventView {
  id: number;
  geofenceId: number;
  geofenceName: string;
  unitId: number;
  unitName: string;
  transition: GeofenceTransition;
  /** ISO instant of the fix that confirmed the crossing. */
  at: string;
  latitude: number;
  longitude: number;
}
