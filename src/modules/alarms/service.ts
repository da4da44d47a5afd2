import type { Querier } from '../../lib/db/client';
import { nearestLocality } from '../../lib/geocoding';
import { notFound } from '../../lib/http';
import { type NotificationMessage, smsText } from '../../lib/notify';
import type { Platform } from '../../lib/platform';
import type { AlarmRecipient, AlarmRecipientDirectory } from '../alarm-receivers/service';
import type { AlarmClass } from '../alarm-receivers/model';
import type { Actor } from '../auth/model';
import { requireRole } from '../auth';
import type { GeofenceCrossing } from '../geofences/events';
import type { NotificationService } from '../notifications/service';
import type { LiveMessage } from '../tracking/model';
import { FLAGS_NOT_A_FIX } from '../tracking/model';
import type { StoredPosition } from '../tracking/service';
import type { TheftMovement } from '../units/events';
import type { UnitService } from '../units/service';
import { type Candidate, judge, type JudgedPosition, mayMatter, NO_INPUTS, type UnitInputs, type UnitSettings } from './engine';
import { type AlarmFacts, alarmMessage, smsSegments } from './messages';
import {
  ALARM_COOL_DOWN_S,
  BLE_OUT_OF_RANGE_MINUTES,
  ALARM_TYPES,
  type AlarmDeliveryStatus,
  type AlarmDeliveryView,
  type AlarmListQuery,
  type AlarmSummary,
  type AlarmType,
  type AlarmView,
  alarmClassOf,
  type deliveryListQuerySchema,
} from './model';
import type { z } from '../../lib/validation';

/** The fan-out topic that tells every instance, once the change commits, that an account's alarms changed (signal: the account id). */
export const ALARMS_CHANNEL = 'alarms';
/** The prefix of the notification references of alarm deliveries (the notifications service hands their outcomes back). */
export const DELIVERY_REF = 'alarms';
/** The refusal recorded when an account has no SMS credits left. */
export const NO_SMS_CREDITS = 'alarms.delivery.noSmsCredits';

export interface RaiseInput {
  accountId: number;
  unitId: number;
  type: AlarmType;
  at: Date;
  latitude: number | null;
  longitude: number | null;
  details?: Record<string, string | number | boolean | null>;
  /** A BLE alarm's device: its episodes are the device's own, and it goes to the receivers who selected that BLE unit. */
  bleDeviceId?: number | null;
}

interface AlarmRow extends Record<string, unknown> {
  id: string | number;
  unit_id: number;
  unit_name: string | null;
  registration_number: string | null;
  type: AlarmType;
  class: AlarmClass;
  raised_at: Date | string;
  last_seen_at: Date | string;
  occurrences: number;
  lat: number | null;
  lon: number | null;
  address: string | null;
  details: Record<string, string | number | boolean | null> | string;
  acknowledged_at: Date | string | null;
  acknowledged_by_name: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function viewOf(row: AlarmRow): AlarmView {
  return {
    id: Number(row.id),
    unitId: row.unit_id,
    unitName: row.unit_name ?? '',
    registration: row.registration_number || null,
    type: row.type,
    class: row.class,
    raisedAt: iso(row.raised_at),
    lastSeenAt: iso(row.last_seen_at),
    occurrences: row.occurrences,
    latitude: row.lat,
    longitude: row.lon,
    address: row.address,
    details: typeof row.details === 'string' ? JSON.parse(row.details) : row.details,
    acknowledgedAt: row.acknowledged_at === null ? null : iso(row.acknowledged_at),
    acknowledgedBy: row.acknowledged_by_name,
  };
}

const ALARM_SELECT = `
  SELECT a.id, a.unit_id, s.name AS unit_name, s.registration_number, a.type, a.class, a.raised_at, a.last_seen_at, a.occurrences,
         a.lat, a.lon, a.address, a.details, a.acknowledged_at, a.acknowledged_by_name
  FROM alarms a LEFT JOIN unit_alarm_settings s ON s.unit_id = a.unit_id`;

/** The address of a point from the offline locality names: in memory, so it costs nothing inside the transaction. */
function addressOf(latitude: number | null, longitude: number | null): string | null {
  if (latitude === null || longitude === null) return null;
  const locality = nearestLocality(latitude, longitude, 30_000);
  return locality ? locality.name : null;
}

/** What the engine needs of the live map's hub (tracking's `LiveHub`): its open sockets of an account, in this process. */
export interface AlarmLive {
  hasAccount(accountId: number): boolean;
  sendToAccount(accountId: number, build: (actor: Actor) => Promise<LiveMessage | null>): Promise<number>;
}

const typeIndex = (type: AlarmType) => ALARM_TYPES.indexOf(type);

/**
 * The alarm engine (issue 21): alarms from the ingest batches' stored positions (device alarms, towing, inputs,
 * overspeed, service by odometer), from durable events (zone crossings, theft movement) and from a daily check (service
 * by date). Each alarm is raised once per episode of its unit and type (`ALARM_COOL_DOWN_S`), and in the same
 * transaction queued for delivery to every recipient of its unit who takes its class (e-mail, SMS within the SMS
 * credits, web push), with a delivery log kept from the notification jobs' outcomes. Users see the alarms of units
 * they see and acknowledge them; every process's live sockets are told through the fan-out.
 */
export async function createAlarmService(
  platform: Platform,
  deps: {
    units: UnitService;
    notifications: NotificationService;
    directory: AlarmRecipientDirectory;
    live: AlarmLive;
  },
) {
  const { database, clock, config, log, outbox } = platform;
  const { units, notifications, directory, live } = deps;

  /**
   * Queues the new alarms' messages to every recipient of their units who takes their class, in `tx`: recipients asked
   * per account and class for all units at once, SMS credits taken for the whole storm in one step when they suffice
   * (else message by message, in alarm order, until they run out), every job queued in one statement and the delivery
   * log written in one.
   */
  async function deliverMany(tx: Querier, alarms: ReadonlyArray<{ facts: AlarmFacts; accountId: number; bleDeviceId: number | null }>): Promise<number> {
    if (alarms.length === 0) return 0;
    // A GPS unit's alarm goes to its receivers; a BLE alarm to the receivers of its BLE unit.
    const recipientKey = (accountId: number, facts: AlarmFacts, bleDeviceId: number | null) =>
      bleDeviceId === null ? `${accountId}:${alarmClassOf(facts.type)}:gps:${facts.unitId}` : `${accountId}:${alarmClassOf(facts.type)}:ble:${bleDeviceId}`;
    const groups = new Map<string, { accountId: number; alarmClass: AlarmClass; device: 'gps' | 'ble'; ids: Set<number> }>();
    for (const { facts, accountId, bleDeviceId } of alarms) {
      const alarmClass = alarmClassOf(facts.type);
      const device = bleDeviceId === null ? 'gps' : 'ble';
      const key = `${accountId}:${alarmClass}:${device}`;
      const group = groups.get(key) ?? { accountId, alarmClass, device, ids: new Set<number>() };
      group.ids.add(bleDeviceId ?? facts.unitId);
      groups.set(key, group);
    }
    const recipientsBy = new Map<string, AlarmRecipient[]>();
    for (const [key, group] of groups) {
      const byId = await directory.recipientsOfMany(tx, group.accountId, [...group.ids], group.alarmClass, group.device);
      for (const [id, recipients] of byId) recipientsBy.set(`${key}:${id}`, recipients);
    }
    type Planned = { accountId: number; alarmId: number; recipient: AlarmRecipient; channel: 'email' | 'sms' | 'push'; message: NotificationMessage; segments: number };
    const planned: Planned[] = [];
    for (const { facts, accountId, bleDeviceId } of alarms) {
      for (const recipient of recipientsBy.get(recipientKey(accountId, facts, bleDeviceId)) ?? []) {
        const message = alarmMessage(facts, recipient.language, recipient.timeZone);
        const base = { accountId, alarmId: facts.alarmId, recipient, message, segments: 0 };
        if (recipient.email && !recipient.alertNumber) planned.push({ ...base, channel: 'email' });
        if (recipient.phone) planned.push({ ...base, channel: 'sms', segments: smsSegments(smsText(message, config.PUBLIC_URL)) });
        if (recipient.push && recipient.userId !== null) planned.push({ ...base, channel: 'push' });
      }
    }
    // SMS credits: the whole storm's segments per account in one guarded update, or one message at a time when short.
    const granted = new Set<Planned>();
    const smsByAccount = new Map<number, Planned[]>();
    for (const item of planned) if (item.channel === 'sms') smsByAccount.set(item.accountId, [...(smsByAccount.get(item.accountId) ?? []), item]);
    for (const [accountId, items] of smsByAccount) {
      const total = items.reduce((sum, item) => sum + item.segments, 0);
      if (await directory.takeSmsCredits(tx, accountId, total)) {
        for (const item of items) granted.add(item);
        continue;
      }
      for (const item of items) if (await directory.takeSmsCredits(tx, accountId, item.segments)) granted.add(item);
    }
    const sendable = planned.filter((item) => item.channel !== 'sms' || granted.has(item));
    const jobIds = await notifications.sendMany(
      tx,
      sendable.map((item) => {
        const common = { accountId: item.accountId, message: item.message, key: `alarm:${item.alarmId}`, ref: `${DELIVERY_REF}:${item.alarmId}` };
        return item.channel === 'push' ? { ...common, channel: 'push' as const, userId: item.recipient.userId! } : { ...common, channel: item.channel, to: item.channel === 'email' ? item.recipient.email! : item.recipient.phone! };
      }),
    );
    const jobsOf = new Map(sendable.map((item, index) => [item, jobIds[index]!]));
    const rows: Array<[number, number, number | null, string, string, string, AlarmDeliveryStatus, string | null, number | null]> = [];
    for (const item of planned) {
      const { recipient } = item;
      const head = [item.accountId, item.alarmId, recipient.receiverId, recipient.name] as const;
      if (item.channel === 'email') rows.push([...head, 'email', recipient.email!, 'queued', null, jobsOf.get(item)![0]!]);
      else if (item.channel === 'sms') {
        if (granted.has(item)) rows.push([...head, 'sms', recipient.phone!, 'queued', null, jobsOf.get(item)![0]!]);
        else rows.push([...head, 'sms', recipient.phone!, 'refused', NO_SMS_CREDITS, null]);
      } else {
        jobsOf.get(item)!.forEach((jobId, index) => {
          rows.push([...head, 'push', `${recipient.email ?? recipient.name} · ${index + 1}`, 'queued', null, jobId]);
        });
      }
    }
    if (rows.length > 0) {
      await tx(
        `INSERT INTO alarm_deliveries (account_id, alarm_id, receiver_id, receiver_name, channel, recipient, status, error, job_id)
         SELECT (r->>0)::int, (r->>1)::bigint, (r->>2)::int, r->>3, r->>4, r->>5, r->>6, r->>7, (r->>8)::bigint
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(r, n) ORDER BY n`,
        [JSON.stringify(rows)],
      );
    }
    return rows.length;
  }

  /**
   * Raises alarms in `tx` (the transaction of their cause): each input opens a new episode of its unit and type, or
   * continues the episode whose last event lies within the cool-down (the inputs among themselves too, in time order).
   * New alarms are queued for delivery in the same transaction. One set of statements for any number of inputs: a
   * transaction-scoped advisory lock per unit and type (taken in order, so two batches never both open an episode nor
   * deadlock), the episodes' last events, one update of continued episodes, one insert of new alarms, their deliveries,
   * their `alarm.raised` events and one signal per account. Returns per input its alarm and whether it was new.
   */
  async function raiseMany(tx: Querier, inputs: readonly RaiseInput[]): Promise<Array<{ alarmId: number; raised: boolean }>> {
    if (inputs.length === 0) return [];
    const order = inputs
      .map((input, index) => ({ input, index }))
      .sort((a, b) => a.input.unitId - b.input.unitId || typeIndex(a.input.type) - typeIndex(b.input.type) || a.input.at.getTime() - b.input.at.getTime());
    // An episode is a unit's and type's, or a BLE device's and type's.
    const keyOf = (input: RaiseInput) => `${input.unitId}:${input.type}:${input.bleDeviceId ?? 0}`;
    const pairs = [...new Map(order.map(({ input }) => [keyOf(input), input])).values()];
    const lockKeys = pairs
      .map((input) => (input.bleDeviceId ? [input.bleDeviceId, 32_000 + typeIndex(input.type)] : [input.unitId, 31_000 + typeIndex(input.type)]) as [number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    await tx(
      `SELECT count(pg_advisory_xact_lock(u, t)) FROM (SELECT u, t FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS x(u, t, n) ORDER BY n OFFSET 0) locks`,
      [`{${lockKeys.map((key) => key[0]).join(',')}}`, `{${lockKeys.map((key) => key[1]).join(',')}}`],
    );
    const unitIds = [...new Set(pairs.map((input) => input.unitId))];
    const [lastRows, unitRows] = [
      await tx<{ id: string; unit_id: number; type: AlarmType; ble: number; last_seen_at: Date | string }>(
        `SELECT DISTINCT ON (unit_id, type, coalesce(ble_device_id, 0)) id, unit_id, type, coalesce(ble_device_id, 0) AS ble, last_seen_at FROM alarms
         WHERE (unit_id, type, coalesce(ble_device_id, 0)) IN (SELECT * FROM unnest($1::int[], $2::text[], $3::int[]))
         ORDER BY unit_id, type, coalesce(ble_device_id, 0), last_seen_at DESC`,
        [
          `{${pairs.map((input) => input.unitId).join(',')}}`,
          `{${pairs.map((input) => input.type).join(',')}}`,
          `{${pairs.map((input) => input.bleDeviceId ?? 0).join(',')}}`,
        ],
      ),
      await tx<{ unit_id: number; account_id: number; name: string; registration_number: string | null }>(
        'SELECT unit_id, account_id, name, registration_number FROM unit_alarm_settings WHERE unit_id = ANY($1::int[])',
        [`{${unitIds.join(',')}}`],
      ),
    ];
    const unitsById = new Map(unitRows.map((row) => [row.unit_id, row]));
    type Episode = { id: number | null; lastSeen: number; occurrences: number; input: RaiseInput; address: string | null };
    const episodes = new Map<string, Episode>();
    for (const row of lastRows) {
      episodes.set(`${row.unit_id}:${row.type}:${Number(row.ble)}`, { id: Number(row.id), lastSeen: new Date(row.last_seen_at).getTime(), occurrences: 0, input: inputs[0]!, address: null });
    }
    const results: Array<{ alarmId: number; raised: boolean }> = inputs.map(() => ({ alarmId: 0, raised: false }));
    const fresh: Episode[] = [];
    const continued: Episode[] = [];
    const outcomeOf = new Map<number, Episode>();
    for (const { input, index } of order) {
      const key = keyOf(input);
      const last = episodes.get(key);
      const at = input.at.getTime();
      if (last && Math.abs(at - last.lastSeen) <= ALARM_COOL_DOWN_S * 1000) {
        if (last.id !== null && last.occurrences === 0) continued.push(last);
        last.occurrences++;
        last.lastSeen = Math.max(last.lastSeen, at);
        outcomeOf.set(index, last);
        continue;
      }
      const unit = unitsById.get(input.unitId);
      if (!unit || unit.account_id !== input.accountId) continue; // the unit left the account (or was deleted) since
      const episode: Episode = { id: null, lastSeen: at, occurrences: 1, input, address: addressOf(input.latitude, input.longitude) };
      episodes.set(key, episode);
      fresh.push(episode);
      outcomeOf.set(index, episode);
    }
    if (continued.length > 0) {
      await tx(
        `UPDATE alarms a SET occurrences = a.occurrences + x.n, last_seen_at = greatest(a.last_seen_at, x.at)
         FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, n int, at timestamptz) WHERE a.id = x.id`,
        [JSON.stringify(continued.map((episode) => ({ id: episode.id, n: episode.occurrences, at: new Date(episode.lastSeen).toISOString() })))],
      );
    }
    if (fresh.length > 0) {
      const inserted = await tx<{ id: string; n: string | number }>(
        `WITH x AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb)
             AS x(n int, account_id int, unit_id int, type text, class text, raised_at timestamptz, last_seen_at timestamptz, occurrences int,
                  lat float8, lon float8, address text, details jsonb, ble_device_id int)
         ),
         ins AS (
           INSERT INTO alarms (account_id, unit_id, type, class, raised_at, last_seen_at, occurrences, lat, lon, address, details, ble_device_id)
           SELECT account_id, unit_id, type, class, raised_at, last_seen_at, occurrences, lat, lon, address, details, ble_device_id FROM x ORDER BY n
           RETURNING id, unit_id, type, raised_at, ble_device_id
         )
         SELECT ins.id, x.n FROM ins JOIN x ON x.unit_id = ins.unit_id AND x.type = ins.type AND x.raised_at = ins.raised_at
           AND coalesce(x.ble_device_id, 0) = coalesce(ins.ble_device_id, 0)`,
        [
          JSON.stringify(
            fresh.map((episode, n) => ({
              n,
              account_id: episode.input.accountId,
              unit_id: episode.input.unitId,
              type: episode.input.type,
              class: alarmClassOf(episode.input.type),
              raised_at: episode.input.at.toISOString(),
              last_seen_at: new Date(episode.lastSeen).toISOString(),
              occurrences: episode.occurrences,
              lat: episode.input.latitude,
              lon: episode.input.longitude,
              address: episode.address,
              details: episode.input.details ?? {},
              ble_device_id: episode.input.bleDeviceId ?? null,
            })),
          ),
        ],
      );
      for (const row of inserted) fresh[Number(row.n)]!.id = Number(row.id);
      await deliverMany(
        tx,
        fresh.map((episode) => {
          const unit = unitsById.get(episode.input.unitId)!;
          return {
            accountId: episode.input.accountId,
            bleDeviceId: episode.input.bleDeviceId ?? null,
            facts: {
              alarmId: episode.id!,
              unitId: episode.input.unitId,
              unitName: unit.name,
              registration: unit.registration_number || null,
              type: episode.input.type,
              at: episode.input.at,
              latitude: episode.input.latitude,
              longitude: episode.input.longitude,
              address: episode.address,
              details: episode.input.details ?? {},
            },
          };
        }),
      );
      await outbox.publishMany(
        tx,
        fresh.map((episode) => ({
          type: 'alarm.raised' as const,
          payload: {
            alarmId: episode.id!,
            accountId: episode.input.accountId,
            unitId: episode.input.unitId,
            type: episode.input.type,
            class: alarmClassOf(episode.input.type),
            at: episode.input.at.toISOString(),
          },
        })),
      );
      const accounts = [...new Set(fresh.map((episode) => String(episode.input.accountId)))];
      for (const account of accounts) await platform.fanout.signalOnCommit(tx, ALARMS_CHANNEL, account);
    }
    const freshSet = new Set(fresh);
    for (const [index, episode] of outcomeOf) {
      // The first input of a new episode raised it; the others (and inputs continuing an older one) added to it.
      const raised = freshSet.has(episode) && episode.input === inputs[index];
      results[index] = { alarmId: episode.id ?? 0, raised };
    }
    return results;
  }

  /** Raises one alarm (see `raiseMany`). */
  async function raise(tx: Querier, input: RaiseInput): Promise<{ alarmId: number; raised: boolean }> {
    return (await raiseMany(tx, [input]))[0]!;
  }

  /** The stored-batch hook: the device rules over a batch's positions, in the batch's transaction. */
  async function onStoredBatch(query: Querier, positions: readonly StoredPosition[]): Promise<void> {
    await recordBleSightings(query, positions);
    const byUnit = new Map<number, { accountId: number; positions: JudgedPosition[] }>();
    for (const position of positions) {
      if ((position.flags & FLAGS_NOT_A_FIX) !== 0) continue;
      const judged: JudgedPosition = {
        time: position.time,
        fix: position.valid && position.flags === 0,
        latitude: position.latitude,
        longitude: position.longitude,
        speedKmh: position.speedKmh,
        ignition: position.ignition,
        odometerM: position.odometerM,
        normalized: position.normalized ?? {},
      };
      if (!mayMatter(judged)) continue;
      let entry = byUnit.get(position.unitId);
      if (!entry) {
        entry = { accountId: position.accountId, positions: [] };
        byUnit.set(position.unitId, entry);
      }
      entry.positions.push(judged);
    }
    if (byUnit.size === 0) return;
    const settingsRows = await query<{ unit_id: number; overspeed_kmh: number | null; service_interval_km: number | null }>(
      'SELECT unit_id, overspeed_kmh, service_interval_km FROM unit_alarm_settings WHERE unit_id = ANY($1::int[])',
      [`{${[...byUnit.keys()].join(',')}}`],
    );
    const settings = new Map<number, UnitSettings>(
      settingsRows.map((row) => [row.unit_id, { overspeedKmh: row.overspeed_kmh, serviceIntervalKm: row.service_interval_km }]),
    );
    // Units whose rules remember something between batches (inputs, power, service step, device alarms): their rows,
    // locked in unit order. A unit seen for the first time gets its row first (an insert that leaves existing rows
    // alone); the rows are then locked and read without being rewritten.
    const stateful = [...byUnit.entries()]
      .filter(([unitId, entry]) => {
        const unit = settings.get(unitId);
        return entry.positions.some((p) => {
          const io = p.normalized;
          return io.alarm !== undefined || io.din2 !== undefined || io.din3 !== undefined || io.externalVoltageV !== undefined || (unit?.serviceIntervalKm != null && (p.odometerM ?? io.odometerM) !== undefined);
        });
      })
      .map(([unitId]) => unitId)
      .sort((a, b) => a - b);
    const remembered = new Map<number, UnitInputs>();
    if (stateful.length > 0) {
      const units = `{${stateful.join(',')}}`;
      await query('INSERT INTO alarm_unit_inputs (unit_id) SELECT u FROM unnest($1::int[]) AS u ORDER BY u ON CONFLICT (unit_id) DO NOTHING', [units]);
      const rows = await query<{ unit_id: number; din2: boolean | null; din3: boolean | null; external_power: boolean | null; service_step: number | null; last_fix_ms: string | number | null }>(
        `SELECT unit_id, din2, din3, external_power, service_step, extract(epoch FROM last_fix) * 1000 AS last_fix_ms
         FROM alarm_unit_inputs WHERE unit_id = ANY($1::int[]) ORDER BY unit_id FOR UPDATE`,
        [units],
      );
      for (const row of rows) {
        remembered.set(row.unit_id, {
          din2: row.din2,
          din3: row.din3,
          externalPower: row.external_power,
          serviceStep: row.service_step,
          lastFix: row.last_fix_ms === null ? null : Number(row.last_fix_ms),
        });
      }
    }
    const written: unknown[] = [];
    const raised: Array<RaiseInput> = [];
    for (const [unitId, entry] of byUnit) {
      const unit = settings.get(unitId);
      if (!unit) continue;
      entry.positions.sort((a, b) => a.time.getTime() - b.time.getTime());
      const start = remembered.get(unitId);
      const { inputs, alarms } = judge(entry.positions, unit, start ?? NO_INPUTS);
      // Compare-and-set: a unit's row is written only when its inputs changed or it raised something, not with every
      // batch (most batches of a unit reporting its external voltage change nothing). The newest fix is kept with
      // those writes: a resent record of a batch that changed or raised something is history. A batch that changed
      // and raised nothing leaves the row as it was: judged again (a resend), its records again change and raise
      // nothing, as the state they are judged from is the same.
      if (
        start &&
        (alarms.length > 0 ||
          inputs.din2 !== start.din2 ||
          inputs.din3 !== start.din3 ||
          inputs.externalPower !== start.externalPower ||
          inputs.serviceStep !== start.serviceStep ||
          (start.lastFix === null && inputs.lastFix !== null))
      ) {
        written.push({ unit_id: unitId, din2: inputs.din2, din3: inputs.din3, external_power: inputs.externalPower, service_step: inputs.serviceStep, ms: inputs.lastFix });
      }
      for (const alarm of alarms) raised.push(candidateInput(entry.accountId, unitId, alarm));
    }
    if (written.length > 0) {
      await query(
        `UPDATE alarm_unit_inputs i SET din2 = x.din2, din3 = x.din3, external_power = x.external_power, service_step = x.service_step,
                last_fix = to_timestamp(x.ms / 1000)
         FROM jsonb_to_recordset($1::jsonb) AS x(unit_id int, din2 boolean, din3 boolean, external_power boolean, service_step int, ms float8)
         WHERE i.unit_id = x.unit_id`,
        [JSON.stringify(written)],
      );
    }
    await raiseMany(query, raised);
  }

  /**
   * BLE devices heard in a batch's positions (their MACs in the records' BLE readings): a device heard by the GPS unit it
   * is paired with is in range at that time; heard again after its out-of-range alarm, a later absence alarms anew.
   */
  async function recordBleSightings(query: Querier, positions: readonly StoredPosition[]): Promise<void> {
    const heard = new Map<string, { unitId: number; mac: string; ms: number }>();
    for (const position of positions) {
      const readings = position.normalized?.ble;
      if (!Array.isArray(readings)) continue;
      for (const reading of readings) {
        if (typeof reading.mac !== 'string') continue;
        const key = `${position.unitId}:${reading.mac}`;
        const ms = position.time.getTime();
        if ((heard.get(key)?.ms ?? -1) < ms) heard.set(key, { unitId: position.unitId, mac: reading.mac, ms });
      }
    }
    if (heard.size === 0) return;
    await query(
      // A sighting is kept per tag and unit (distributed by unit); a tag heard by the unit it was re-paired with drops
      // its old unit's row, so each tag has one sighting, by its GPS unit.
      `WITH heard AS (
         SELECT d.id, d.paired_unit_id, max(to_timestamp(h.ms / 1000.0)) AS last_seen
         FROM jsonb_to_recordset($1::jsonb) AS h(unit_id int, mac text, ms float8)
         JOIN ble_device_directory d ON d.mac = h.mac AND d.paired_unit_id = h.unit_id
         GROUP BY d.id, d.paired_unit_id
       ),
       moved AS (
         DELETE FROM alarm_ble_sightings s USING heard WHERE s.ble_device_id = heard.id AND s.unit_id <> heard.paired_unit_id
       )
       INSERT INTO alarm_ble_sightings (ble_device_id, unit_id, last_seen)
       SELECT id, paired_unit_id, last_seen FROM heard
       ORDER BY id
       ON CONFLICT (ble_device_id, unit_id) DO UPDATE SET last_seen = EXCLUDED.last_seen, alarmed_at = NULL
         WHERE EXCLUDED.last_seen > alarm_ble_sightings.last_seen`,
      [JSON.stringify([...heard.values()].map((entry) => ({ unit_id: entry.unitId, mac: entry.mac, ms: entry.ms })))],
    );
  }

  /**
   * The out-of-range check (every minute): a paired BLE device last heard more than `BLE_OUT_OF_RANGE_MINUTES` ago by
   * its GPS unit, which has reported since then for that long (so the unit is alive and the tag is what went quiet),
   * raises a security alarm `ble_out_of_range` for the unit, naming the device, to the receivers of that BLE unit; once
   * per absence (the sighting is marked in the same transaction, so two processes never both raise it).
   */
  async function checkBleRange(): Promise<number> {
    const now = clock.now();
    return database.transaction(async (tx) => {
      const due = await tx<{ ble_device_id: number; unit_id: number; account_id: number; name: string; mac: string; last_seen: Date | string; lat: number; lon: number; valid: boolean }>(
        `WITH due AS (
           SELECT s.ble_device_id, s.unit_id FROM alarm_ble_sightings s
           JOIN ble_device_directory d ON d.id = s.ble_device_id AND d.paired_unit_id = s.unit_id
           JOIN unit_latest_fix f ON f.unit_id = s.unit_id
           WHERE s.alarmed_at IS NULL AND s.last_seen < $1::timestamptz - make_interval(mins => $2)
             AND f.time >= s.last_seen + make_interval(mins => $2)
           ORDER BY s.ble_device_id LIMIT 1000
           FOR UPDATE OF s SKIP LOCKED
         ),
         marked AS (
           UPDATE alarm_ble_sightings s SET alarmed_at = $1 FROM due WHERE s.ble_device_id = due.ble_device_id AND s.unit_id = due.unit_id
           RETURNING s.ble_device_id, s.unit_id, s.last_seen
         )
         SELECT m.ble_device_id, m.unit_id, d.account_id, d.name, d.mac, m.last_seen, ST_Y(f.geom) AS lat, ST_X(f.geom) AS lon, f.valid
         FROM marked m JOIN ble_device_directory d ON d.id = m.ble_device_id JOIN unit_latest_fix f ON f.unit_id = m.unit_id
         ORDER BY m.ble_device_id`,
        [now.toISOString(), BLE_OUT_OF_RANGE_MINUTES],
      );
      const results = await raiseMany(
        tx,
        due.map((row) => ({
          accountId: row.account_id,
          unitId: row.unit_id,
          type: 'ble_out_of_range' as const,
          at: now,
          latitude: row.valid ? row.lat : null,
          longitude: row.valid ? row.lon : null,
          details: { tag: row.name, mac: row.mac, minutes: Math.floor((now.getTime() - new Date(row.last_seen).getTime()) / 60_000) },
          bleDeviceId: row.ble_device_id,
        })),
      );
      return results.filter((result) => result.raised).length;
    });
  }

  function candidateInput(accountId: number, unitId: number, alarm: Candidate): RaiseInput {
    return { accountId, unitId, type: alarm.type, at: alarm.at, latitude: alarm.latitude, longitude: alarm.longitude, details: alarm.details };
  }

  /** Visible units of the caller as an array literal for `= ANY`, or null (every unit of the account). */
  async function visibleFilter(actor: Actor): Promise<string | null> {
    const visible = await units.visibleUnitIds(actor);
    return visible === null ? null : `{${[...visible].join(',')}}`;
  }

  async function summaryOf(actor: Actor): Promise<AlarmSummary> {
    const visible = await visibleFilter(actor);
    const [counts] = await database.query<{ n: number; security: number[] | string | null }>(
      `SELECT count(*)::int AS n, array_agg(DISTINCT unit_id) FILTER (WHERE class = 'security') AS security
       FROM alarms WHERE account_id = $1 AND acknowledged_at IS NULL AND ($2::int[] IS NULL OR unit_id = ANY($2::int[]))`,
      [actor.accountId, visible],
    );
    const latest = await database.query<AlarmRow>(
      `${ALARM_SELECT} WHERE a.account_id = $1 AND a.acknowledged_at IS NULL AND ($2::int[] IS NULL OR a.unit_id = ANY($2::int[]))
       ORDER BY a.id DESC LIMIT 10`,
      [actor.accountId, visible],
    );
    return { unacknowledged: counts?.n ?? 0, latest: latest.map(viewOf), security: intArray(counts?.security ?? null).sort((a, b) => a - b) };
  }

  /** Tells the account's open sockets in this process their users' new alarm counts. */
  async function announce(accountId: number): Promise<void> {
    if (!live.hasAccount(accountId)) return;
    await live.sendToAccount(accountId, async (actor) => {
      const summary = await summaryOf(actor);
      return { type: 'alarms', serverTime: clock.now().toISOString(), unacknowledged: summary.unacknowledged, security: summary.security };
    });
  }

  // Every process hears every account's changes and tells the sockets it holds.
  const stopFanout = platform.fanout.subscribe(ALARMS_CHANNEL, ({ signal }) => {
    const accountId = Number(signal);
    if (Number.isInteger(accountId) && accountId > 0) void announce(accountId).catch((error) => log.error('alarm announcement failed', { error: String(error) }));
  });

  // The delivery log follows each attempt of the notification jobs, in the attempt's own transaction.
  notifications.onAttempt(DELIVERY_REF, async (tx, outcome) => {
    const status: AlarmDeliveryStatus = outcome.status === 'sent' || outcome.status === 'recorded' ? 'sent' : outcome.status;
    await tx(
      `UPDATE alarm_deliveries SET status = $2, attempts = greatest(attempts, $3), provider_id = coalesce($4, provider_id), error = $5, updated_at = now()
       WHERE job_id = $1`,
      [outcome.jobId, status, outcome.attempt, outcome.providerId, status === 'sent' ? null : outcome.error],
    );
  });

  async function acknowledgeWhere(actor: Actor, ids: number[]): Promise<AlarmRow[]> {
    const visible = await visibleFilter(actor);
    const [user] = await database.query<{ first_name: string; last_name: string }>('SELECT first_name, last_name FROM user_directory WHERE id = $1', [actor.userId]);
    const name = user ? `${user.first_name} ${user.last_name}`.trim() : '';
    return database.transaction(async (tx) => {
      const found = await tx<{ id: string }>(
        `SELECT id FROM alarms WHERE id = ANY($1::bigint[]) AND account_id = $2 AND ($3::int[] IS NULL OR unit_id = ANY($3::int[])) ORDER BY id FOR UPDATE`,
        [`{${ids.join(',')}}`, actor.accountId, visible],
      );
      if (found.length !== new Set(ids).size) throw notFound('alarms.notFound');
      await tx(
        `UPDATE alarms SET acknowledged_at = $2, acknowledged_by = $3, acknowledged_by_name = $4 WHERE id = ANY($1::bigint[]) AND acknowledged_at IS NULL`,
        [`{${ids.join(',')}}`, clock.now().toISOString(), actor.userId, name],
      );
      await platform.fanout.signalOnCommit(tx, ALARMS_CHANNEL, String(actor.accountId));
      return tx<AlarmRow>(`${ALARM_SELECT} WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`, [`{${ids.join(',')}}`]);
    });
  }

  return {
    raise,
    onStoredBatch,

    raiseMany,
    checkBleRange,

    /**
     * Outbox subscriber of zone crossings, a dispatch pass's crossings at once: leaving a theft-mode zone is a security
     * alarm, other crossings function alarms.
     */
    async onZoneCrossings(crossings: ReadonlyArray<{ crossing: GeofenceCrossing; exited: boolean }>, tx: Querier): Promise<void> {
      await raiseMany(
        tx,
        crossings.map(({ crossing, exited }) => ({
          accountId: crossing.accountId,
          unitId: crossing.unitId,
          type: exited ? (crossing.theftMode ? 'theft_zone_exit' : 'zone_exit') : 'zone_enter',
          at: new Date(crossing.at),
          latitude: crossing.latitude,
          longitude: crossing.longitude,
          details: { zone: crossing.geofenceName, geofenceId: crossing.geofenceId },
        })),
      );
    },

    /** One zone crossing (see `onZoneCrossings`). */
    async onZoneCrossing(crossing: GeofenceCrossing, exited: boolean, tx: Querier): Promise<void> {
      await this.onZoneCrossings([{ crossing, exited }], tx);
    },

    /** Outbox subscriber of theft-mode movement: a security alarm (one per episode, the batches fold into it). */
    async onTheftMovements(movements: readonly TheftMovement[], tx: Querier): Promise<void> {
      await raiseMany(
        tx,
        movements.map((movement) => ({
          accountId: movement.accountId,
          unitId: movement.unitId,
          type: 'theft_movement' as const,
          at: new Date(movement.to),
          latitude: movement.latitude,
          longitude: movement.longitude,
          details: { speed: Math.round(movement.maxSpeedKmh), positions: movement.positions },
        })),
      );
    },

    async onTheftMovement(movement: TheftMovement, tx: Querier): Promise<void> {
      await this.onTheftMovements([movement], tx);
    },

    /**
     * Service due by date (the daily job): a unit whose next inspection date has come, once per date. Returns the
     * alarms raised.
     */
    async checkServiceDates(): Promise<number> {
      const today = clock.now().toISOString().slice(0, 10);
      const due = await database.query<{ unit_id: number; account_id: number; next_inspection: string | Date }>(
        `SELECT s.unit_id, s.account_id, s.next_inspection::text AS next_inspection FROM unit_alarm_settings s
         WHERE s.next_inspection IS NOT NULL AND s.next_inspection <= $1::date
           AND NOT EXISTS (SELECT 1 FROM alarms a WHERE a.unit_id = s.unit_id AND a.type = 'service_due'
                           AND a.details->>'due' = s.next_inspection::text)
         ORDER BY s.unit_id LIMIT 1000`,
        [today],
      );
      let raised = 0;
      for (const unit of due) {
        const dueDate = String(unit.next_inspection).slice(0, 10);
        const result = await database.transaction((tx) =>
          raise(tx, { accountId: unit.account_id, unitId: unit.unit_id, type: 'service_due', at: clock.now(), latitude: null, longitude: null, details: { reason: 'date', due: dueDate } }),
        );
        if (result.raised) raised++;
      }
      return raised;
    },

    async list(actor: Actor, query: AlarmListQuery): Promise<AlarmView[]> {
      const visible = await visibleFilter(actor);
      if (query.unitId !== undefined) {
        // A unit of another account, or one the caller does not see, is 404 like a missing one.
        const [unit] = await database.query('SELECT 1 FROM unit_alarm_settings WHERE unit_id = $1 AND account_id = $2 AND ($3::int[] IS NULL OR unit_id = ANY($3::int[]))', [
          query.unitId,
          actor.accountId,
          visible,
        ]);
        if (!unit) throw notFound('errors.unitNotFound');
      }
      const rows = await database.query<AlarmRow>(
        `${ALARM_SELECT}
         WHERE a.account_id = $1 AND ($2::int[] IS NULL OR a.unit_id = ANY($2::int[]))
           AND ($3::text = 'all' OR ($3 = 'open') = (a.acknowledged_at IS NULL))
           AND ($4::int IS NULL OR a.unit_id = $4) AND ($5::text IS NULL OR a.class = $5) AND ($6::bigint IS NULL OR a.id < $6)
         ORDER BY a.id DESC LIMIT $7`,
        [actor.accountId, visible, query.state, query.unitId ?? null, query.class ?? null, query.before ?? null, query.limit],
      );
      return rows.map(viewOf);
    },

    summary: summaryOf,

    async acknowledge(actor: Actor, id: number): Promise<AlarmView> {
      const [row] = await acknowledgeWhere(actor, [id]);
      return viewOf(row!);
    },

    async acknowledgeMany(actor: Actor, ids: number[]): Promise<{ acknowledged: number }> {
      const rows = await acknowledgeWhere(actor, [...new Set(ids)]);
      return { acknowledged: rows.length };
    },

    /** The delivery log (administrators and support): newest first, of the caller's account. */
    async deliveries(actor: Actor, query: z.output<typeof deliveryListQuerySchema>): Promise<AlarmDeliveryView[]> {
      requireRole(actor, 'admin', 'support');
      if (query.alarmId !== undefined) {
        const [alarm] = await database.query('SELECT 1 FROM alarms WHERE id = $1 AND account_id = $2', [query.alarmId, actor.accountId]);
        if (!alarm) throw notFound('alarms.notFound');
      }
      const rows = await database.query<{
        id: string;
        alarm_id: string;
        type: AlarmType;
        unit_name: string | null;
        receiver_name: string;
        channel: 'email' | 'sms' | 'push';
        recipient: string;
        status: AlarmDeliveryStatus;
        attempts: number;
        provider_id: string | null;
        error: string | null;
        updated_at: Date | string;
      }>(
        `SELECT d.id, d.alarm_id, a.type, s.name AS unit_name, d.receiver_name, d.channel, d.recipient, d.status, d.attempts, d.provider_id, d.error, d.updated_at
         FROM alarm_deliveries d JOIN alarms a ON a.id = d.alarm_id LEFT JOIN unit_alarm_settings s ON s.unit_id = a.unit_id
         WHERE d.account_id = $1 AND ($2::bigint IS NULL OR d.alarm_id = $2) AND ($3::text IS NULL OR d.channel = $3) AND ($4::text IS NULL OR d.status = $4)
         ORDER BY d.id DESC LIMIT $5`,
        [actor.accountId, query.alarmId ?? null, query.channel ?? null, query.status ?? null, query.limit],
      );
      return rows.map((row) => ({
        id: Number(row.id),
        alarmId: Number(row.alarm_id),
        alarmType: row.type,
        unitName: row.unit_name ?? '',
        receiver: row.receiver_name,
        channel: row.channel,
        recipient: row.recipient,
        status: row.status,
        attempts: row.attempts,
        providerId: row.provider_id,
        error: row.error,
        updatedAt: iso(row.updated_at),
      }));
    },

    /** Tells this process's sockets of the account now (tests; NOTIFY does it for every process). */
    announce,

    async stop(): Promise<void> {
      stopFanout();
    },
  };
}
export type AlarmService = Awaited<ReturnType<typeof createAlarmService>>;

/** int[] as the drivers hand it over: an array, or PostgreSQL's text form. */
function intArray(value: number[] | string | null): number[] {
  if (value === null) return [];
  if (Array.isArray(value)) return value.map(Number);
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',').map(Number) : [];
}
