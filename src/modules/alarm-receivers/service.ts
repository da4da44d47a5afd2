import type { Querier } from '../../lib/db/client';
import { AppError, fieldError, forbidden, notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import { z } from '../../lib/validation';
import type { Actor } from '../auth/model';
import type { BleDeviceService } from '../io/service';
import type { UnitService } from '../units/service';
import {
  ALARM_DEFAULT_LANGUAGE,
  ALARM_DEFAULT_TIME_ZONE,
  ALARM_EXTRA_TIME_ZONE,
  ALARM_TIME_ZONES,
  type AccountUserItem,
  type AlarmClass,
  type AlarmLanguage,
  type AlarmLanguageTimeZone,
  type AlarmReceiverInput,
  type AlarmReceiverList,
  type AlarmReceiverView,
  type AlarmTimeZone,
  type AlarmTypeToggle,
  type AlertNumberInput,
  type AlertNumberView,
  normalisePhone,
  type ReceiverDeviceType,
  type ReceiverUnits,
  type UnitAssignment,
} from './model';

/**
 * The alarm-receivers module's public service: the §7 receiver screens' operations (added with the module's
 * implementation) and, below, what the alarm engine asks the alarm-receivers module when an alarm is raised (its public service implements
 * this; the engine never reads the receivers' tables).
 */
export interface AlarmRecipient {
  receiverId: number | null;
  /** The linked user (web push goes to every browser this user subscribed), or null. */
  userId: number | null;
  name: string;
  email: string | null;
  /** E.164, e.g. +46701234567, or null. */
  phone: string | null;
  push: boolean;
  language: AlarmLanguage;
  timeZone: AlarmTimeZone;
  /** An alert number of the parent account (SMS only), not a receiver. */
  alertNumber: boolean;
}

export interface AlarmRecipientDirectory {
  /** The receivers of one unit who take alarms of this class, plus the account's alert numbers; opted-out users left out. */
  recipientsOf(querier: Querier, accountId: number, unitId: number, alarmClass: AlarmClass): Promise<AlarmRecipient[]>;
  /** `recipientsOf` for several units of one account at once (a storm of alarms): by unit id, every unit asked present. */
  recipientsOfMany(
    querier: Querier,
    accountId: number,
    unitIds: readonly number[],
    alarmClass: AlarmClass,
    device?: ReceiverDeviceType,
  ): Promise<Map<number, AlarmRecipient[]>>;
  /**
   * Takes `segments` SMS credits from the account in the caller's transaction; false (and nothing taken) when fewer
   * remain. One credit per message segment (§ issue 21).
   */
  takeSmsCredits(querier: Querier, accountId: number, segments: number): Promise<boolean>;
}

// --- The implementation ---

interface ReceiverRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  member_id: number | null;
  name: string;
  email: string | null;
  country_code: string | null;
  phone: string | null;
  push_notification: boolean;
  security_alarm: boolean;
  function_alarm: boolean;
  total_units: number;
  total_ble_units: number;
}

interface SettingRow extends Record<string, unknown> {
  language: AlarmLanguage;
  time_zone: AlarmTimeZone;
  sms_credits: number;
}

/** A receiver as `createReceiver` takes it (already checked against §5 by the caller, or by `save`). */
export interface NewReceiver {
  memberId?: number | null;
  name: string;
  email?: string | null;
  /** Dial code digits, e.g. `46`, with `phone` the national number without leading zeros. */
  countryCode?: string | null;
  phone?: string | null;
  push?: boolean;
  security?: boolean;
  function?: boolean;
  unitIds?: number[];
  bleDeviceIds?: number[];
}

const RECEIVER_COLUMNS = `r.id, r.account_id, r.member_id, r.name, r.email, r.country_code, r.phone, r.push_notification, r.security_alarm, r.function_alarm,
  (SELECT count(*)::int FROM alarm_receiver_units ru WHERE ru.receiver_id = r.id) AS total_units,
  (SELECT count(*)::int FROM alarm_receiver_ble_units rb WHERE rb.receiver_id = r.id) AS total_ble_units`;

const flagOf = (value: boolean): 0 | 1 => (value ? 1 : 0);
const e164 = (countryCode: string | null, phone: string | null) => (countryCode && phone ? `+${countryCode}${phone}` : null);

export const DEFAULT_SETTING = { language: ALARM_DEFAULT_LANGUAGE, timeZone: ALARM_DEFAULT_TIME_ZONE, smsCredits: 0 };

/** The account's alarm language, time zone and SMS credits (defaults when never saved). */
export async function alarmSettingOf(query: Querier, accountId: number): Promise<{ language: AlarmLanguage; timeZone: AlarmTimeZone; smsCredits: number }> {
  const [row] = await query<SettingRow>('SELECT language, time_zone, sms_credits FROM alarm_account_settings WHERE account_id = $1', [accountId]);
  return row ? { language: row.language, timeZone: row.time_zone, smsCredits: Number(row.sms_credits) } : DEFAULT_SETTING;
}

function receiverView(row: ReceiverRow, setting: { language: AlarmLanguage; timeZone: AlarmTimeZone }): AlarmReceiverView {
  return {
    id: Number(row.id),
    member_id: row.member_id === null ? null : Number(row.member_id),
    name: row.name,
    email: row.email,
    country_code: row.country_code,
    phone: row.phone,
    push_notification: flagOf(row.push_notification),
    function_alarm: flagOf(row.function_alarm),
    security_alarm: flagOf(row.security_alarm),
    total_units: Number(row.total_units),
    total_ble_units: Number(row.total_ble_units),
    language: setting.language,
    timezone: setting.timeZone,
  };
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
const receiverNotFound = () => notFound('alarmReceivers.notFound');

export function createAlarmReceiverService(platform: Platform, units: UnitService, ble: BleDeviceService) {
  const { database, config } = platform;
  const parentAccountId = config.ALERT_NUMBERS_PARENT_ACCOUNT_ID;

  /** Users of the configured parent account (it, or an account below it). */
  const ofParentAccount = (actor: Actor) =>
    parentAccountId !== undefined && (actor.accountId === parentAccountId || actor.parentAccountId === parentAccountId);

  /** Spec §6: support and resellers inside a customer's account read only (a GET that deletes included). */
  const requireWriter = (actor: Actor) => {
    if (actor.acting) throw forbidden('errors.readOnlyAccount');
    return actor;
  };

  /** The zones this caller's account may choose (Kathmandu only for the configured parent account's users). */
  function timeZonesFor(actor: Actor): AlarmTimeZone[] {
    return ofParentAccount(actor) ? [...ALARM_TIME_ZONES, ALARM_EXTRA_TIME_ZONE] : [...ALARM_TIME_ZONES];
  }

  /** /administration/configure-alert-numbers is for users of the configured parent account only. */
  function requireAlertNumbers(actor: Actor): Actor {
    if (!ofParentAccount(actor)) throw forbidden('errors.forbidden');
    return actor;
  }

  async function subsiteOf(query: Querier, accountId: number): Promise<number> {
    const [row] = await query<{ subsite_id: number }>('SELECT subsite_id FROM account_directory WHERE id = $1', [accountId]);
    return Number(row?.subsite_id ?? 0);
  }

  async function receiverRows(query: Querier, accountId: number, filter: { id?: number; q?: string; unitId?: number; bleId?: number; lock?: boolean } = {}) {
    const params: unknown[] = [accountId];
    const where = ['r.account_id = $1'];
    if (filter.id !== undefined) {
      params.push(filter.id);
      where.push(`r.id = $${params.length}`);
    }
    if (filter.q) {
      params.push(likePattern(filter.q));
      // Phones are searched only by a query that looks like a number (digits with +, spaces, dashes or brackets): the digits
      // of an e-mail address or a name would otherwise match any phone that contains them.
      const digits = /^[+\d\s()-]+$/.test(filter.q) ? filter.q.replace(/\D/g, '') : '';
      const phoneClause = digits ? ` OR r.phone LIKE $${params.length + 1} OR ('+' || r.country_code || r.phone) LIKE $${params.length + 1}` : '';
      if (digits) params.push(`%${digits.replace(/^0+/, '')}%`);
      where.push(`(r.name ILIKE $${params.length - (digits ? 1 : 0)} OR r.email ILIKE $${params.length - (digits ? 1 : 0)}${phoneClause})`);
    }
    if (filter.unitId !== undefined) {
      params.push(filter.unitId);
      where.push(`EXISTS (SELECT 1 FROM alarm_receiver_units ru WHERE ru.receiver_id = r.id AND ru.unit_id = $${params.length})`);
    }
    if (filter.bleId !== undefined) {
      params.push(filter.bleId);
      where.push(`EXISTS (SELECT 1 FROM alarm_receiver_ble_units rb WHERE rb.receiver_id = r.id AND rb.ble_device_id = $${params.length})`);
    }
    return query<ReceiverRow>(
      `SELECT ${RECEIVER_COLUMNS} FROM alarm_receivers r WHERE ${where.join(' AND ')} ORDER BY lower(r.name), r.id${filter.lock ? ' FOR UPDATE OF r' : ''}`,
      params,
    );
  }

  async function ownReceiver(query: Querier, accountId: number, id: number, lock = false): Promise<ReceiverRow> {
    const [row] = await receiverRows(query, accountId, { id, lock });
    if (!row) throw receiverNotFound();
    return row;
  }

  /** The GPS units of `ids` that are the account's; any other answers 404. */
  async function requireOwnUnits(query: Querier, accountId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const unique = [...new Set(ids)];
    const rows = await query<{ id: number }>('SELECT id FROM unit_directory WHERE account_id = $1 AND id = ANY($2::int[])', [accountId, unique]);
    if (rows.length !== unique.length) throw notFound('alarmReceivers.unitNotFound');
  }

  async function requireOwnBle(query: Querier, accountId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const unique = [...new Set(ids)];
    if ((await ble.owned(accountId, unique, query)).length !== unique.length) throw notFound('alarmReceivers.unitNotFound');
  }

  async function linkUnits(query: Querier, receiverId: number, unitIds: number[], bleIds: number[]): Promise<void> {
    if (unitIds.length > 0) {
      await query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT r.id, u, r.account_id FROM alarm_receivers r, unnest($2::int[]) AS u WHERE r.id = $1 ON CONFLICT DO NOTHING', [
        receiverId,
        [...new Set(unitIds)],
      ]);
    }
    if (bleIds.length > 0) {
      await query('INSERT INTO alarm_receiver_ble_units (receiver_id, ble_device_id, account_id) SELECT r.id, b, r.account_id FROM alarm_receivers r, unnest($2::int[]) AS b WHERE r.id = $1 ON CONFLICT DO NOTHING', [
        receiverId,
        [...new Set(bleIds)],
      ]);
    }
  }

  /**
   * §5 for one receiver of the account (`id` 0 for a new one): the user chosen, name, e-mail or phone by sub-site,
   * the phone's digits, and no other receiver with the same user, e-mail or phone. Answers what to store.
   */
  async function checked(query: Querier, accountId: number, input: AlarmReceiverInput): Promise<Required<Omit<NewReceiver, 'unitIds' | 'bleDeviceIds'>>> {
    const fields: Record<string, string[]> = {};
    const fail = (field: string, key: string) => {
      fields[field] = [...(fields[field] ?? []), key];
    };
    let name = input.name.trim();
    let email = input.email?.trim().toLowerCase() || null;
    const memberId = input.member_id ?? null;
    if (memberId !== null) {
      const [user] = await query<{ id: number; email: string; first_name: string; last_name: string }>(
        'SELECT id, email, first_name, last_name FROM user_directory WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL',
        [memberId, accountId],
      );
      if (!user) throw notFound('alarmReceivers.userNotFound');
      name = `${user.first_name} ${user.last_name}`.trim() || user.email;
      email = user.email.toLowerCase();
      const [taken] = await query('SELECT 1 FROM alarm_receivers WHERE member_id = $1 AND id <> $2', [memberId, input.id]);
      if (taken) throw new AppError(422, 'alarmReceivers.errors.receiverExists', { fields: { member_id: ['alarmReceivers.errors.receiverExists'] } });
    }
    if (!name) fail('name', 'alarmReceivers.errors.nameRequired');
    const subsite = await subsiteOf(query, accountId);
    // The phone column exists only on sub-site 0 (§2): elsewhere receivers are reached by e-mail and push.
    const phone = subsite === 0 ? normalisePhone(input.country_code, input.phone) : null;
    if (phone && 'error' in phone) fail('phone', phone.error);
    if (email && !z.email().safeParse(email).success) fail('email', 'validation.email');
    if (subsite === 0 ? !email && !phone : !email) {
      if (subsite === 0) fail('email', 'alarmReceivers.errors.contactRequired');
      else fail('email', 'alarmReceivers.errors.emailRequired');
    }
    if (email && !fields.email) {
      const [taken] = await query('SELECT 1 FROM alarm_receivers WHERE account_id = $1 AND email = $2 AND id <> $3', [accountId, email, input.id]);
      if (taken) fail('email', 'alarmReceivers.errors.emailExists');
    }
    if (phone && !('error' in phone)) {
      const [taken] = await query('SELECT 1 FROM alarm_receivers WHERE account_id = $1 AND country_code = $2 AND phone = $3 AND id <> $4', [
        accountId,
        phone.countryCode,
        phone.phone,
        input.id,
      ]);
      if (taken) fail('phone', 'alarmReceivers.errors.phoneExists');
    }
    const firstKey = Object.values(fields)[0]?.[0];
    if (firstKey) throw new AppError(422, firstKey, { fields });
    const number = phone && !('error' in phone) ? phone : null;
    return {
      memberId,
      name,
      email,
      countryCode: number?.countryCode ?? null,
      phone: number?.phone ?? null,
      push: input.push_notification === 1,
      security: input.security_alarm === 1,
      function: input.function_alarm === 1,
    };
  }

  /** Inserts a receiver and its units; the duplicate indexes answer §5's errors should a concurrent save win. */
  async function insertReceiver(query: Querier, accountId: number, receiver: NewReceiver): Promise<number> {
    try {
      const [row] = await query<{ id: number }>(
        `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification, security_alarm, function_alarm)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [
          accountId,
          receiver.memberId ?? null,
          receiver.name,
          receiver.email?.toLowerCase() ?? null,
          receiver.phone ? (receiver.countryCode ?? '46') : null,
          receiver.phone ?? null,
          receiver.push ?? false,
          receiver.security ?? true,
          receiver.function ?? true,
        ],
      );
      const id = Number(row!.id);
      await linkUnits(query, id, receiver.unitIds ?? [], receiver.bleDeviceIds ?? []);
      return id;
    } catch (error) {
      throw duplicateError(error) ?? error;
    }
  }

  function duplicateError(error: unknown): AppError | null {
    const text = String((error as { constraint_name?: string; constraint?: string; message?: string })?.message ?? '');
    const constraint = (error as { constraint_name?: string; constraint?: string }).constraint_name ?? (error as { constraint?: string }).constraint ?? text;
    const map: Array<[string, string, string]> = [
      ['alarm_receivers_email', 'email', 'alarmReceivers.errors.emailExists'],
      ['alarm_receivers_phone', 'phone', 'alarmReceivers.errors.phoneExists'],
      ['alarm_receivers_member', 'member_id', 'alarmReceivers.errors.receiverExists'],
      ['alert_numbers_phone', 'phone', 'alarmReceivers.errors.phoneExists'],
    ];
    for (const [name, field, key] of map) {
      if (constraint.includes(name) || text.includes(name)) return new AppError(422, key, { fields: { [field]: [key] } });
    }
    return null;
  }

  const directory: AlarmRecipientDirectory = {
    async recipientsOf(query, accountId, unitId, alarmClass) {
      return (await directory.recipientsOfMany(query, accountId, [unitId], alarmClass)).get(unitId) ?? [];
    },

    async recipientsOfMany(query, accountId, unitIds, alarmClass, device = 'gps') {
      // GPS units' receivers, or (device 'ble') the receivers who selected those BLE units in the picker's BLE tab.
      const [links, unitColumn] = device === 'ble' ? ['alarm_receiver_ble_units', 'ble_device_id'] : ['alarm_receiver_units', 'unit_id'];
      const byUnit = new Map<number, AlarmRecipient[]>(unitIds.map((unitId) => [unitId, []]));
      if (unitIds.length === 0) return byUnit;
      const [setting, subsite] = await Promise.all([alarmSettingOf(query, accountId), subsiteOf(query, accountId)]);
      const classColumn = alarmClass === 'security' ? 'r.security_alarm' : 'r.function_alarm';
      // A receiver is left out when its user, or the user with its e-mail, opted out of alerts (§6 /user/alerts), or its user was deleted;
      // push is left out when that user opted out of push.
      const rows = await query<ReceiverRow & { unit_id: number; alerts_opt_out: boolean; push_opt_out: boolean; member_present: boolean }>(
        `WITH r AS (
           SELECT r.id, r.member_id, r.name, r.email, r.country_code, r.phone, r.push_notification,
                  coalesce(bool_or(ud.alerts_opt_out), false) AS alerts_opt_out, coalesce(bool_or(ud.push_opt_out), false) AS push_opt_out,
                  coalesce(bool_or(ud.id = r.member_id), false) AS member_present
           FROM alarm_receivers r
           LEFT JOIN user_directory ud ON ud.id = r.member_id OR (r.email IS NOT NULL AND ud.email = r.email)
           WHERE r.account_id = $1 AND ${classColumn}
             AND EXISTS (SELECT 1 FROM ${links} ru WHERE ru.receiver_id = r.id AND ru.${unitColumn} = ANY($2::int[]))
           GROUP BY r.id, r.account_id
         )
         SELECT r.*, ru.${unitColumn} AS unit_id FROM r JOIN ${links} ru ON ru.receiver_id = r.id AND ru.${unitColumn} = ANY($2::int[])
         ORDER BY ru.${unitColumn}, r.id`,
        [accountId, `{${unitIds.join(',')}}`],
      );
      for (const row of rows) {
        // A deleted user's receiver stays listed for the administrators but gets nothing (the directory lists existing users only).
        if (row.alerts_opt_out || (row.member_id !== null && !row.member_present)) continue;
        byUnit.get(row.unit_id)?.push({
          receiverId: Number(row.id),
          userId: row.member_id === null ? null : Number(row.member_id),
          name: row.name,
          email: row.email,
          // SMS only on sub-site 0 (the phone column exists only there).
          phone: subsite === 0 ? e164(row.country_code, row.phone) : null,
          push: row.push_notification && !row.push_opt_out && row.member_id !== null,
          language: setting.language,
          timeZone: setting.timeZone,
          alertNumber: false,
        });
      }
      if (subsite === 0) {
        const numbers = await query<{ id: number; country_code: string; phone: string; label: string | null }>(
          'SELECT id, country_code, phone, label FROM alert_numbers WHERE account_id = $1 ORDER BY id',
          [accountId],
        );
        for (const recipients of byUnit.values()) {
        const phones = new Set(recipients.map((recipient) => recipient.phone).filter(Boolean));
        for (const number of numbers) {
          const phone = e164(number.country_code, number.phone);
          if (!phone || phones.has(phone)) continue;
          phones.add(phone);
          recipients.push({
            receiverId: null,
            userId: null,
            name: number.label ?? phone,
            email: null,
            phone,
            push: false,
            language: setting.language,
            timeZone: setting.timeZone,
            alertNumber: true,
          });
        }
        }
      }
      return byUnit;
    },

    async takeSmsCredits(query, accountId, segments) {
      if (!Number.isInteger(segments) || segments <= 0) return segments === 0;
      const rows = await query(
        'UPDATE alarm_account_settings SET sms_credits = sms_credits - $2, updated_at = now() WHERE account_id = $1 AND sms_credits >= $2 RETURNING sms_credits',
        [accountId, segments],
      );
      return rows.length === 1;
    },
  };

  return {
    ...directory,

    /**
     * Creates a receiver of the account with its units, in the caller's transaction (demo data, tests, other modules):
     * unit ids must be the account's; §5's duplicate rules hold through the unique indexes.
     */
    async createReceiver(query: Querier, accountId: number, receiver: NewReceiver): Promise<number> {
      await requireOwnUnits(query, accountId, receiver.unitIds ?? []);
      await requireOwnBle(query, accountId, receiver.bleDeviceIds ?? []);
      return insertReceiver(query, accountId, receiver);
    },

    /** Sets the account's SMS credits (the operator's top-up; demo data and tests). */
    async setSmsCredits(query: Querier, accountId: number, credits: number): Promise<void> {
      await query(
        `INSERT INTO alarm_account_settings (account_id, sms_credits) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET sms_credits = EXCLUDED.sms_credits, updated_at = now()`,
        [accountId, Math.max(0, Math.trunc(credits))],
      );
    },

    /** §7 GET alarm-receiver/list: the account's receivers searched by name, e-mail or phone, and the SMS credits left. */
    async list(actor: Actor, q?: string): Promise<AlarmReceiverList> {
      const setting = await alarmSettingOf(database.query, actor.accountId);
      const rows = await receiverRows(database.query, actor.accountId, { q: q?.trim() || undefined });
      return { alarmReceivers: rows.map((row) => receiverView(row, setting)), SmsCredits: setting.smsCredits };
    },

    /** §7 list/gps/:unitId and list/ble/:unitId: the receivers of one unit of the account, with the unit named. */
    async listOfUnit(actor: Actor, deviceType: ReceiverDeviceType, unitId: number): Promise<AlarmReceiverList> {
      if (deviceType === 'gps') await requireOwnUnits(database.query, actor.accountId, [unitId]);
      else await requireOwnBle(database.query, actor.accountId, [unitId]);
      const setting = await alarmSettingOf(database.query, actor.accountId);
      const rows = await receiverRows(database.query, actor.accountId, deviceType === 'gps' ? { unitId } : { bleId: unitId });
      return {
        alarmReceivers: rows.map((row) => ({ ...receiverView(row, setting), terminal_id: unitId, device_type: deviceType })),
        SmsCredits: setting.smsCredits,
      };
    },

    /** §7 add-edit: id 0 creates (with the one unit `terminal_id`/`device_type` names, from a unit's page); else edits. */
    async save(actorOrNull: Actor, input: AlarmReceiverInput): Promise<{ id: number }> {
      const actor = requireWriter(actorOrNull);
      return database.transaction(async (query) => {
        if (input.id > 0) await ownReceiver(query, actor.accountId, input.id, true);
        const terminal = input.terminal_id !== undefined ? { id: input.terminal_id, type: input.device_type ?? 'gps' } : null;
        if (terminal) {
          if (terminal.type === 'gps') await requireOwnUnits(query, actor.accountId, [terminal.id]);
          else await requireOwnBle(query, actor.accountId, [terminal.id]);
        }
        const receiver = await checked(query, actor.accountId, input);
        if (input.id === 0) {
          const id = await insertReceiver(query, actor.accountId, {
            ...receiver,
            unitIds: terminal?.type === 'gps' ? [terminal.id] : [],
            bleDeviceIds: terminal?.type === 'ble' ? [terminal.id] : [],
          });
          return { id };
        }
        try {
          await query(
            `UPDATE alarm_receivers SET member_id = $3, name = $4, email = $5, country_code = $6, phone = $7, push_notification = $8,
               security_alarm = $9, function_alarm = $10, updated_at = now()
             WHERE id = $1 AND account_id = $2`,
            [
              input.id,
              actor.accountId,
              receiver.memberId,
              receiver.name,
              receiver.email,
              receiver.countryCode,
              receiver.phone,
              receiver.push,
              receiver.security,
              receiver.function,
            ],
          );
        } catch (error) {
          throw duplicateError(error) ?? error;
        }
        if (terminal) await linkUnits(query, input.id, terminal.type === 'gps' ? [terminal.id] : [], terminal.type === 'ble' ? [terminal.id] : []);
        return { id: input.id };
      });
    },

    /** §7 GET alarm-receiver/:id/delete. */
    async remove(actorOrNull: Actor, id: number): Promise<{ deleted: true }> {
      const actor = requireWriter(actorOrNull);
      const rows = await database.query('DELETE FROM alarm_receivers WHERE id = $1 AND account_id = $2 RETURNING id', [id, actor.accountId]);
      if (rows.length === 0) throw receiverNotFound();
      return { deleted: true };
    },

    /** §7 get-units: the account's GPS and BLE units, those of the receiver (or of the user's receiver) selected. */
    async units(actor: Actor, receiverId: number, memberId?: number | null): Promise<ReceiverUnits> {
      let receiver: ReceiverRow | undefined;
      if (receiverId > 0) receiver = await ownReceiver(database.query, actor.accountId, receiverId);
      else if (memberId) {
        const [user] = await database.query('SELECT 1 FROM user_directory WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL', [memberId, actor.accountId]);
        if (!user) throw notFound('alarmReceivers.userNotFound');
        [receiver] = await database.query<ReceiverRow>('SELECT id FROM alarm_receivers WHERE account_id = $1 AND member_id = $2', [actor.accountId, memberId]);
      }
      const [gpsUnits, bleUnits, gpsLinks, bleLinks] = await Promise.all([
        units.list(actor),
        ble.list(actor.accountId),
        receiver
          ? database.query<{ unit_id: number }>('SELECT unit_id FROM alarm_receiver_units WHERE receiver_id = $1', [receiver.id])
          : Promise.resolve([]),
        receiver
          ? database.query<{ ble_device_id: number }>('SELECT ble_device_id FROM alarm_receiver_ble_units WHERE receiver_id = $1', [receiver.id])
          : Promise.resolve([]),
      ]);
      const gpsSelected = new Set(gpsLinks.map((row) => Number(row.unit_id)));
      const bleSelected = new Set(bleLinks.map((row) => Number(row.ble_device_id)));
      return {
        gps: gpsUnits.map((unit) => ({ ID: unit.ID, Name: unit.Name, Imei: unit.Imei, IsSelected: gpsSelected.has(unit.ID), isLocked: unit.isLocked })),
        ble: bleUnits.map((device) => ({ id: device.id, Name: device.name, SerialNumber: device.serialNumber || device.mac, IsSelected: bleSelected.has(device.id) })),
      };
    },

    /** §7 unit/assign: the receiver's whole unit set (§5: at least one unit). */
    async assign(actorOrNull: Actor, input: UnitAssignment): Promise<{ id: number }> {
      const actor = requireWriter(actorOrNull);
      return database.transaction(async (query) => {
        await ownReceiver(query, actor.accountId, input.receiver_id, true);
        if (input.terminals.length === 0) {
          throw new AppError(422, 'alarmReceivers.errors.selectUnit', { fields: { terminals: ['alarmReceivers.errors.selectUnit'] } });
        }
        const gps = input.terminals.filter((terminal) => terminal.device_type === 'gps').map((terminal) => terminal.terminal_id);
        const bleIds = input.terminals.filter((terminal) => terminal.device_type === 'ble').map((terminal) => terminal.terminal_id);
        await requireOwnUnits(query, actor.accountId, gps);
        await requireOwnBle(query, actor.accountId, bleIds);
        await query('DELETE FROM alarm_receiver_units WHERE receiver_id = $1', [input.receiver_id]);
        await query('DELETE FROM alarm_receiver_ble_units WHERE receiver_id = $1', [input.receiver_id]);
        await linkUnits(query, input.receiver_id, gps, bleIds);
        await query('UPDATE alarm_receivers SET updated_at = now() WHERE id = $1', [input.receiver_id]);
        return { id: input.receiver_id };
      });
    },

    /** §7 alarm-type/toggle: one class on or off. */
    async toggle(actorOrNull: Actor, input: AlarmTypeToggle): Promise<AlarmReceiverView> {
      const actor = requireWriter(actorOrNull);
      const column = input.type === 'security' ? 'security_alarm' : 'function_alarm';
      const updated = await database.query(
        `UPDATE alarm_receivers SET ${column} = $3, updated_at = now() WHERE id = $1 AND account_id = $2 RETURNING id`,
        [input.receiverId, actor.accountId, input.state === 1],
      );
      if (updated.length === 0) throw receiverNotFound();
      const setting = await alarmSettingOf(database.query, actor.accountId);
      return receiverView(await ownReceiver(database.query, actor.accountId, input.receiverId), setting);
    },

    /** §7 user/list: the account's users, those already receivers marked. */
    async users(actor: Actor, limit: number): Promise<{ user: AccountUserItem[] }> {
      const rows = await database.query<{ id: number; first_name: string; last_name: string; email: string; is_receiver: boolean }>(
        `SELECT ud.id, ud.first_name, ud.last_name, ud.email,
                EXISTS (SELECT 1 FROM alarm_receivers r WHERE r.member_id = ud.id) AS is_receiver
         FROM user_directory ud
         WHERE ud.account_id = $1 AND ud.deleted_at IS NULL AND ud.role IN ('admin', 'user')
         ORDER BY lower(ud.first_name), lower(ud.last_name), ud.id
         ${limit > 0 ? `LIMIT ${limit}` : ''}`,
        [actor.accountId],
      );
      return {
        user: rows.map((row) => ({
          ID: Number(row.id),
          FirstName: `${row.first_name} ${row.last_name}`.trim(),
          Email: row.email,
          IsReceiver: Boolean(row.is_receiver),
        })),
      };
    },

    /** §7 alertconfig/list. */
    async smsCredit(actor: Actor): Promise<{ sms_credit: number }> {
      return { sms_credit: (await alarmSettingOf(database.query, actor.accountId)).smsCredits };
    },

    timeZonesFor,

    /** §7 alertconfig/language-timezone/get. */
    async languageTimeZone(actor: Actor): Promise<AlarmLanguageTimeZone> {
      const setting = await alarmSettingOf(database.query, actor.accountId);
      return { Language: setting.language, TimeZone: setting.timeZone, TimeZones: timeZonesFor(actor) };
    },

    /** §7 alertconfig/language-timezone/save. */
    async saveLanguageTimeZone(actorOrNull: Actor, input: { Language: AlarmLanguage; TimeZone: string }): Promise<AlarmLanguageTimeZone> {
      const actor = requireWriter(actorOrNull);
      const zones = timeZonesFor(actor);
      if (!(zones as string[]).includes(input.TimeZone)) throw fieldError('TimeZone', 'alarmReceivers.errors.timeZone');
      await database.query(
        `INSERT INTO alarm_account_settings (account_id, language, time_zone) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET language = EXCLUDED.language, time_zone = EXCLUDED.time_zone, updated_at = now()`,
        [actor.accountId, input.Language, input.TimeZone],
      );
      return { Language: input.Language, TimeZone: input.TimeZone as AlarmTimeZone, TimeZones: zones };
    },

    // --- /administration/configure-alert-numbers (users of the configured parent account) ---

    requireAlertNumbers,

    async alertNumbers(actor: Actor): Promise<AlertNumberView[]> {
      requireAlertNumbers(actor);
      const rows = await database.query<AlertNumberRow>(
        'SELECT id, country_code, phone, label, created_at FROM alert_numbers WHERE account_id = $1 ORDER BY id',
        [actor.accountId],
      );
      return rows.map(alertNumberView);
    },

    async saveAlertNumber(actorOrNull: Actor, id: number | null, input: AlertNumberInput): Promise<AlertNumberView> {
      const actor = requireWriter(requireAlertNumbers(actorOrNull));
      const phone = normalisePhone(input.country_code, input.phone);
      if (!phone) throw fieldError('phone', 'alarmReceivers.errors.phoneRequired');
      if ('error' in phone) throw fieldError('phone', phone.error);
      return database.transaction(async (query) => {
        const [taken] = await query('SELECT 1 FROM alert_numbers WHERE account_id = $1 AND country_code = $2 AND phone = $3 AND id <> $4', [
          actor.accountId,
          phone.countryCode,
          phone.phone,
          id ?? 0,
        ]);
        if (taken) throw fieldError('phone', 'alarmReceivers.errors.phoneExists');
        try {
          const [row] =
            id === null
              ? await query<AlertNumberRow>(
                  `INSERT INTO alert_numbers (account_id, country_code, phone, label) VALUES ($1, $2, $3, $4)
                   RETURNING id, country_code, phone, label, created_at`,
                  [actor.accountId, phone.countryCode, phone.phone, input.label?.trim() || null],
                )
              : await query<AlertNumberRow>(
                  `UPDATE alert_numbers SET country_code = $3, phone = $4, label = $5 WHERE id = $1 AND account_id = $2
                   RETURNING id, country_code, phone, label, created_at`,
                  [id, actor.accountId, phone.countryCode, phone.phone, input.label?.trim() || null],
                );
          if (!row) throw notFound('alarmReceivers.alertNumberNotFound');
          return alertNumberView(row);
        } catch (error) {
          throw duplicateError(error) ?? error;
        }
      });
    },

    async removeAlertNumber(actorOrNull: Actor, id: number): Promise<{ deleted: true }> {
      const actor = requireWriter(requireAlertNumbers(actorOrNull));
      const rows = await database.query('DELETE FROM alert_numbers WHERE id = $1 AND account_id = $2 RETURNING id', [id, actor.accountId]);
      if (rows.length === 0) throw notFound('alarmReceivers.alertNumberNotFound');
      return { deleted: true };
    },
  };
}

interface AlertNumberRow extends Record<string, unknown> {
  id: number;
  country_code: string;
  phone: string;
  label: string | null;
  created_at: string | Date;
}

const alertNumberView = (row: AlertNumberRow): AlertNumberView => ({
  id: Number(row.id),
  country_code: row.country_code,
  phone: row.phone,
  label: row.label,
  createdAt: new Date(row.created_at).toISOString(),
});

export type AlarmReceiverService = ReturnType<typeof createAlarmReceiverService>;
