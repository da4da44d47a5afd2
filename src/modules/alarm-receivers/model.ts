import { queryText, z } from '../../lib/validation';

/**
 * Alarm receivers (spec §1, §2 /administration/configure-alarm-receiver and /administration/configure-alert-numbers,
 * §3 Alarm receiver and Alarm language/time-zone setting, §5, §6, §7, §8). Schemas and wire types shared with the web
 * app: no server-only imports here. The field names are the spec's §7 names. Routes (administrators only; §7's
 * "admin prefix" is `/api/admin`):
 *
 * - `GET  /api/admin/alarm-receiver/list?q=`               → `AlarmReceiverList` (`alarmReceivers`, `SmsCredits`)
 * - `GET  /api/admin/alarm-receiver/list/gps/:unitId`      → `AlarmReceiverList` (receivers of one GPS unit, with `terminal_id`, `device_type`)
 * - `GET  /api/admin/alarm-receiver/list/ble/:unitId`      → `AlarmReceiverList` (receivers of one BLE unit)
 * - `POST /api/admin/alarm-receiver/add-edit`  AlarmReceiverInput → `{ id }` (id 0 creates)
 * - `GET  /api/admin/alarm-receiver/:id/delete`            → `{ deleted: true }`
 * - `POST /api/admin/alarm-receiver/get-units` ReceiverUnitsQuery → `ReceiverUnits` (`gps`, `ble`)
 * - `POST /api/admin/alarm-receiver/unit/assign` UnitAssignment → `{ id }` (the receiver's whole unit set)
 * - `POST /api/admin/alarm-receiver/alarm-type/toggle` AlarmTypeToggle → `AlarmReceiverView`
 * - `GET  /api/admin/user/list?limit=-1`                   → `{ user: AccountUserItem[] }` (users not yet receivers are marked)
 * - `GET  /api/admin/alertconfig/list`                     → `{ sms_credit: number }`
 * - `GET  /api/admin/alertconfig/language-timezone/get`    → `AlarmLanguageTimeZone`
 * - `POST /api/admin/alertconfig/language-timezone/save`   AlarmLanguageTimeZone → `AlarmLanguageTimeZone`
 * - `GET  /api/admin/alert-numbers`                        → `AlertNumberView[]` (users of the configured parent account only)
 * - `POST /api/admin/alert-numbers`            AlertNumberInput → `AlertNumberView`
 * - `POST /api/admin/alert-numbers/:id`        AlertNumberInput → `AlertNumberView`
 * - `DELETE /api/admin/alert-numbers/:id`                  → `{ deleted: true }`
 *
 * Error message keys (§8), answered as 422 field errors: `alarmReceivers.errors.nameRequired`,
 * `alarmReceivers.errors.contactRequired` (sub-site 0: e-mail or phone), `alarmReceivers.errors.emailRequired`,
 * `alarmReceivers.errors.emailExists`, `alarmReceivers.errors.phoneExists`, `alarmReceivers.errors.selectUnit`,
 * `alarmReceivers.errors.phoneShort`, `alarmReceivers.errors.receiverExists`. The alarm engine asks the public service (`service.ts`, `AlarmRecipientDirectory`).
 */

export const ALARM_LANGUAGES = ['sv', 'en', 'no'] as const;
export type AlarmLanguage = (typeof ALARM_LANGUAGES)[number];
export const ALARM_TIME_ZONES = ['Europe/Stockholm', 'Europe/London', 'Europe/Oslo', 'Europe/Helsinki'] as const;
/** §3: offered only to users of the one configured parent account (config ALERT_NUMBERS_PARENT_ACCOUNT_ID). */
export const ALARM_EXTRA_TIME_ZONE = 'Asia/Kathmandu';
export type AlarmTimeZone = (typeof ALARM_TIME_ZONES)[number] | typeof ALARM_EXTRA_TIME_ZONE;
export const ALARM_DEFAULT_LANGUAGE: AlarmLanguage = 'sv';
export const ALARM_DEFAULT_TIME_ZONE: AlarmTimeZone = 'Europe/Stockholm';
export const ALARM_CLASSES = ['security', 'function'] as const;
export type AlarmClass = (typeof ALARM_CLASSES)[number];
export const DEVICE_TYPES = ['gps', 'ble'] as const;
export type ReceiverDeviceType = (typeof DEVICE_TYPES)[number];
/** §5: a phone, after its dial code and a leading 0 or 46 are removed, has at least this many digits. */
export const PHONE_MIN_DIGITS = 8;
export const RECEIVER_NAME_MAX = 100;

const flag = z.union([z.literal(0), z.literal(1)]);
const dbId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

/** A receiver as the list and the unit edit page show it (§3). */
export interface AlarmReceiverView {
  id: number;
  member_id: number | null;
  name: string;
  email: string | null;
  country_code: string | null;
  phone: string | null;
  push_notification: 0 | 1;
  function_alarm: 0 | 1;
  security_alarm: 0 | 1;
  total_units: number;
  total_ble_units: number;
  /** Only on the lists of one unit (`list/gps/:unitId`, `list/ble/:unitId`). */
  terminal_id?: number;
  device_type?: ReceiverDeviceType;
  language: AlarmLanguage;
  timezone: AlarmTimeZone;
}

export interface AlarmReceiverList {
  alarmReceivers: AlarmReceiverView[];
  SmsCredits: number;
}

export const receiverListQuerySchema = z.object({ q: queryText(100) });
export const receiverIdParamsSchema = z.object({ id: dbId() });
export const receiverUnitParamsSchema = z.object({ unitId: dbId() });

/**
 * §7 add-edit: id 0 creates. `member_id` links an existing user of the account (the name and e-mail are then the
 * user's). `terminal_id` with `device_type` (from a unit's edit page) assigns that one unit to a new receiver, which
 * satisfies §5's "at least one unit".
 */
export const alarmReceiverInputSchema = z.object({
  id: z.coerce.number<unknown>().int().min(0).max(2_147_483_647),
  member_id: dbId().nullable().optional(),
  name: z.string().trim().max(RECEIVER_NAME_MAX),
  email: z.string().trim().max(255).nullable().optional(),
  country_code: z.string().trim().max(6).nullable().optional(),
  phone: z.string().trim().max(30).nullable().optional(),
  push_notification: flag.default(0),
  function_alarm: flag.default(1),
  security_alarm: flag.default(1),
  terminal_id: dbId().optional(),
  device_type: z.enum(DEVICE_TYPES).optional(),
});
export type AlarmReceiverInput = z.output<typeof alarmReceiverInputSchema>;

export const receiverUnitsQuerySchema = z.object({ memberId: dbId().nullable().optional(), receiverId: z.coerce.number<unknown>().int().min(0) });

export interface GpsUnitItem {
  ID: number;
  Name: string;
  Imei: string;
  IsSelected: boolean;
  isLocked: boolean;
}
export interface BleUnitItem {
  id: number;
  Name: string;
  SerialNumber: string;
  IsSelected: boolean;
}
export interface ReceiverUnits {
  gps: GpsUnitItem[];
  ble: BleUnitItem[];
}

export const unitAssignmentSchema = z.object({
  receiver_id: dbId(),
  terminals: z.array(z.object({ terminal_id: dbId(), device_type: z.enum(DEVICE_TYPES) })).max(5000),
});
export type UnitAssignment = z.output<typeof unitAssignmentSchema>;

export const alarmTypeToggleSchema = z.object({ receiverId: dbId(), type: z.enum(ALARM_CLASSES), state: flag });
export type AlarmTypeToggle = z.output<typeof alarmTypeToggleSchema>;

export const userListQuerySchema = z.object({ limit: z.coerce.number<unknown>().int().min(-1).max(1000).default(-1) });
export interface AccountUserItem {
  ID: number;
  FirstName: string;
  Email: string;
  /** Already a receiver: the choose-existing-user modal hides these. */
  IsReceiver: boolean;
}

export const languageTimeZoneSchema = z.object({ Language: z.enum(ALARM_LANGUAGES), TimeZone: z.string().trim().max(64) });
export interface AlarmLanguageTimeZone {
  Language: AlarmLanguage;
  TimeZone: AlarmTimeZone;
  /** The zones this account may choose (Kathmandu only for the configured parent account). */
  TimeZones: AlarmTimeZone[];
}

/** /administration/configure-alert-numbers: numbers that get SMS alarms for every unit of the account (§5 phone rules). */
export const alertNumberInputSchema = z.object({
  country_code: z.string().trim().max(6),
  phone: z.string().trim().max(30),
  label: z.string().trim().max(50).optional(),
});
export type AlertNumberInput = z.output<typeof alertNumberInputSchema>;
export const alertNumberIdParamsSchema = z.object({ id: dbId() });
export interface AlertNumberView {
  id: number;
  country_code: string;
  phone: string;
  label: string | null;
  createdAt: string;
}

/**
 * §5's phone rules: the digits of `phone` without its dial code (given with + or 00, or in front of the national
 * number), a leading 0 or the dial code, and every leading zero. `null` for no phone; `{ error }` with the message key
 * when fewer than `PHONE_MIN_DIGITS` remain. The dial code defaults to 46.
 */
export function normalisePhone(
  countryCode: string | null | undefined,
  phone: string | null | undefined,
): { countryCode: string; phone: string } | { error: 'alarmReceivers.errors.phoneShort' } | null {
  const raw = (phone ?? '').trim();
  if (!raw) return null;
  const code = (countryCode ?? '').replace(/\D/g, '').replace(/^0+/, '') || '46';
  const international = raw.startsWith('+') || raw.startsWith('00');
  let digits = raw.replace(/\D/g, '');
  if (raw.startsWith('00')) digits = digits.slice(2);
  if (international) {
    if (digits.startsWith(code)) digits = digits.slice(code.length);
  } else if (!digits.startsWith('0') && digits.startsWith(code)) {
    digits = digits.slice(code.length);
  }
  digits = digits.replace(/^0+/, '');
  if (digits.length < PHONE_MIN_DIGITS || digits.length > 15) return { error: 'alarmReceivers.errors.phoneShort' };
  return { countryCode: code, phone: digits };
}
