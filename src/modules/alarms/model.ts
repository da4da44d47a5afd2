import { z } from '../../lib/validation';
import type { AlarmClass } from '../alarm-receivers/model';

/**
 * Alarms (issue: alarm engine, receivers and delivery). Schemas and wire types shared with the web app: no server-only
 * imports here. An alarm is a stored row raised once per episode of a unit and type (not once per position), with a
 * cool-down per unit and type, acknowledged by a user. Routes:
 *
 * - `GET  /api/alarms?state=open|acknowledged|all&unitId=&class=&limit=&before=` → `AlarmView[]` (newest first; units the caller sees)
 * - `GET  /api/alarms/summary`                → `AlarmSummary` (the bell: count of unacknowledged and the latest ten)
 * - `POST /api/alarms/:id/acknowledge`        → `AlarmView`
 * - `POST /api/alarms/acknowledge`  { ids }   → `{ acknowledged: number }` (several at once; ids of other accounts are 404)
 * - `GET  /api/alarms/deliveries?alarmId=&channel=&status=&limit=` → `AlarmDeliveryView[]` (administrators: the delivery log)
 *
 * Live: the tracking socket sends `{ type: 'alarms', unacknowledged, security }` when the caller's alarms change.
 */

export const SECURITY_ALARMS = ['theft_movement', 'theft_zone_exit', 'power_cut', 'tamper', 'towing', 'sos', 'ble_out_of_range'] as const;
export const FUNCTION_ALARMS = ['zone_enter', 'zone_exit', 'low_battery', 'din2', 'din3', 'overspeed', 'service_due', 'not_home'] as const;
export const ALARM_TYPES = [...SECURITY_ALARMS, ...FUNCTION_ALARMS] as const;
export type AlarmType = (typeof ALARM_TYPES)[number];

export function alarmClassOf(type: AlarmType): AlarmClass {
  return (SECURITY_ALARMS as readonly string[]).includes(type) ? 'security' : 'function';
}

/** A new alarm of the same unit and type within this time continues the episode instead of raising another. */
export const ALARM_COOL_DOWN_S = 15 * 60;

/** A paired BLE device its GPS unit has not heard for this long, while the unit kept reporting, is out of range. */
export const BLE_OUT_OF_RANGE_MINUTES = 10;

export const ALARM_STATES = ['open', 'acknowledged', 'all'] as const;
const dbId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

export const alarmListQuerySchema = z.object({
  state: z.enum(ALARM_STATES).default('all'),
  unitId: dbId().optional(),
  class: z.enum(['security', 'function']).optional(),
  limit: z.coerce.number<unknown>().int().min(1).max(500).default(100),
  /** Keyset paging: alarms raised before this id. */
  before: dbId().optional(),
});
export type AlarmListQuery = z.output<typeof alarmListQuerySchema>;
export const alarmIdParamsSchema = z.object({ id: dbId() });
export const alarmAcknowledgeManySchema = z.object({ ids: z.array(dbId()).min(1).max(500) });

export interface AlarmView {
  id: number;
  unitId: number;
  unitName: string;
  registration: string | null;
  type: AlarmType;
  class: AlarmClass;
  /** ISO instant of the fix or event that raised it. */
  raisedAt: string;
  /** ISO instant of the newest event of the episode. */
  lastSeenAt: string;
  /** Events folded into this episode. */
  occurrences: number;
  latitude: number | null;
  longitude: number | null;
  address: string | null;
  /** Type-specific facts: zone name, speed and threshold, voltage, input and value, odometer... */
  details: Record<string, string | number | boolean | null>;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
}

export interface AlarmSummary {
  unacknowledged: number;
  latest: AlarmView[];
  /** Units with an open security alarm. */
  security: number[];
}

export const DELIVERY_STATUSES = ['queued', 'sent', 'retrying', 'failed', 'refused'] as const;
export type AlarmDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliveryListQuerySchema = z.object({
  alarmId: dbId().optional(),
  channel: z.enum(['email', 'sms', 'push']).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number<unknown>().int().min(1).max(500).default(100),
});

/** The delivery log for administrators: one row per alarm, receiver and channel. */
export interface AlarmDeliveryView {
  id: number;
  alarmId: number;
  alarmType: AlarmType;
  unitName: string;
  receiver: string;
  channel: 'email' | 'sms' | 'push';
  recipient: string;
  status: AlarmDeliveryStatus;
  attempts: number;
  providerId: string | null;
  /** Why it was refused or failed (e.g. `alarms.delivery.noSmsCredits`), a message key or the provider's text. */
  error: string | null;
  updatedAt: string;
}
