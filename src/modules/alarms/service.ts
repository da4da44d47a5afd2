import type { Querier } from '../../lib/db/client';
import { listen } from '../../lib/db/notify';
import { nearestLocality } from '../../lib/geocoding';
import { notFound } from '../../lib/http';
import { textWithLink } from '../../lib/notify';
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

/** The NOTIFY channel that tells every process an account's alarms changed (payload: the account id). */
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
 * they see and acknowledge them; every process's live sockets are told through NOTIFY.
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

  /** Queues the alarm's messages to every recipient of its unit who takes its class; returns the deliveries written. */
  async function deliver(tx: Querier, facts: AlarmFacts, accountId: number, known?: AlarmRecipient[]): Promise<number> {
    const recipients = known ?? (await directory.recipientsOf(tx, accountId, facts.unitId, alarmClassOf(facts.type)));
    const rows: Array<[number | null, string, string, string, AlarmDeliveryStatus, string | null, number | null]> = [];
    const ref = `${DELIVERY_REF}:${facts.alarmId}`;
    for (const recipient of recipients) {
      const message = alarmMessage(facts, recipient.language, recipient.timeZone);
      const key = `alarm:${facts.alarmId}`;
      if (recipient.email && !recipient.alertNumber) {
        const { jobId } = await notifications.send(tx, { accountId, channel: 'email', to: recipient.email, message, key, ref });
        rows.push([recipient.receiverId, recipient.name, 'email', recipient.email, 'queued', null, jobId]);
      }
      if (recipient.phone) {
        const segments = smsSegments(textWithLink(message, config.PUBLIC_URL));
        if (await directory.takeSmsCredits(tx, accountId, segments)) {
          const { jobId } = await notifications.send(tx, { accountId, channel: 'sms', to: recipient.phone, message, key, ref });
          rows.push([recipient.receiverId, recipient.name, 'sms', recipient.phone, 'queued', null, jobId]);
        } else {
          rows.push([recipient.receiverId, recipient.name, 'sms', recipient.phone, 'refused', NO_SMS_CREDITS, null]);
        }
      }
      if (recipient.push && recipient.userId !== null) {
        const { jobIds } = await notifications.pushToUser(tx, { accountId, userId: recipient.userId, message, key, ref });
        jobIds.forEach((jobId, index) => {
          rows.push([recipient.receiverId, recipient.name, 'push', `${recipient.email ?? recipient.name} · ${index + 1}`, 'queued', null, jobId]);
        });
      }
    }
    if (rows.length > 0) {
      await tx(
        `INSERT INTO alarm_deliveries (account_id, alarm_id, receiver_id, receiver_name, channel, recipient, status, error, job_id)
         SELECT $1, $2, (r->>0)::int, r->>1, r->>2, r->>3, r->>4, r->>5, (r->>6)::bigint FROM jsonb_array_elements($3::jsonb) AS r`,
        [accountId, facts.alarmId, JSON.stringify(rows)],
      );
    }
    return rows.length;
  }

  /**
   * Raises an alarm in `tx` (the transaction of its cause), or continues the unit's episode of that type when its last
   * event lies within the cool-down. A new alarm is queued for delivery in the same transaction.
   */
  async function raise(tx: Querier, input: RaiseInput): Promise<{ alarmId: number; raised: boolean }> {
    // One raiser at a time per unit and type, so two batches never both open an episode.
    await tx('SELECT pg_advisory_xact_lock($1, $2)', [input.unitId, 31_000 + typeIndex(input.type)]);
    const [last] = await tx<{ id: string; last_seen_at: Date | string }>(
      'SELECT id, last_seen_at FROM alarms WHERE unit_id = $1 AND type = $2 ORDER BY last_seen_at DESC LIMIT 1',
      [input.unitId, input.type],
    );
    const at = input.at.getTime();
    if (last && Math.abs(at - new Date(last.last_seen_at).getTime()) <= ALARM_COOL_DOWN_S * 1000) {
      await tx('UPDATE alarms SET occurrences = occurrences + 1, last_seen_at = greatest(last_seen_at, $2) WHERE id = $1', [last.id, input.at.toISOString()]);
      return { alarmId: Number(last.id), raised: false };
    }
    const [unit] = await tx<{ name: string; registration_number: string | null }>(
      'SELECT name, registration_number FROM unit_alarm_settings WHERE unit_id = $1 AND account_id = $2',
      [input.unitId, input.accountId],
    );
    if (!unit) return { alarmId: 0, raised: false }; // the unit left the account (or was deleted) since
    const details = input.details ?? {};
    const address = addressOf(input.latitude, input.longitude);
    const [row] = await tx<{ id: string }>(
      `INSERT INTO alarms (account_id, unit_id, type, class, raised_at, last_seen_at, lat, lon, address, details)
       VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9::jsonb) RETURNING id`,
      [input.accountId, input.unitId, input.type, alarmClassOf(input.type), input.at.toISOString(), input.latitude, input.longitude, address, JSON.stringify(details)],
    );
    const alarmId = Number(row!.id);
    await deliver(
      tx,
      {
        alarmId,
        unitId: input.unitId,
        unitName: unit.name,
        registration: unit.registration_number || null,
        type: input.type,
        at: input.at,
        latitude: input.latitude,
        longitude: input.longitude,
        address,
        details,
      },
      input.accountId,
    );
    await outbox.publish(tx, 'alarm.raised', {
      alarmId,
      accountId: input.accountId,
      unitId: input.unitId,
      type: input.type,
      class: alarmClassOf(input.type),
      at: input.at.toISOString(),
    });
    await tx('SELECT pg_notify($1, $2)', [ALARMS_CHANNEL, String(input.accountId)]);
    return { alarmId, raised: true };
  }

  /**
   * Raises many alarms in `tx` as `raise` raises each (an episode per unit and type, delivery queued with a new alarm),
   * with the episode lookups, inserts and events in a few statements for all of them (a scheduled check of thousands of
   * units). Answers per input, in order. Inputs naming one unit and type twice are raised one by one.
   */
  async function raiseMany(tx: Querier, inputs: readonly RaiseInput[]): Promise<Array<{ alarmId: number; raised: boolean }>> {
    if (inputs.length === 0) return [];
    const keys = inputs.map((input) => `${input.unitId}:${input.type}`);
    if (new Set(keys).size < keys.length || inputs.length === 1) {
      const results: Array<{ alarmId: number; raised: boolean }> = [];
      for (const input of inputs) results.push(await raise(tx, input));
      return results;
    }
    const unitIds = inputs.map((input) => input.unitId);
    const types = inputs.map((input) => input.type);
    // One raiser at a time per unit and type (in a fixed order, so two raisers never wait on each other).
    await tx(
      `SELECT pg_advisory_xact_lock(u, 31000 + t) FROM unnest($1::int[], $2::int[]) AS l(u, t) ORDER BY u, t`,
      [unitIds, types.map(typeIndex)],
    );
    const lasts = await tx<{ unit_id: number; type: string; id: string; last_seen_at: Date | string }>(
      `SELECT DISTINCT ON (a.unit_id, a.type) a.unit_id, a.type, a.id, a.last_seen_at
       FROM alarms a JOIN unnest($1::int[], $2::text[]) AS k(unit_id, type) ON a.unit_id = k.unit_id AND a.type = k.type
       ORDER BY a.unit_id, a.type, a.last_seen_at DESC`,
      [unitIds, types],
    );
    const lastOf = new Map(lasts.map((row) => [`${row.unit_id}:${row.type}`, row]));
    const results: Array<{ alarmId: number; raised: boolean }> = inputs.map(() => ({ alarmId: 0, raised: false }));
    const continued: number[] = [];
    const fresh: number[] = [];
    inputs.forEach((input, index) => {
      const last = lastOf.get(keys[index]!);
      if (last && Math.abs(input.at.getTime() - new Date(last.last_seen_at).getTime()) <= ALARM_COOL_DOWN_S * 1000) {
        results[index] = { alarmId: Number(last.id), raised: false };
        continued.push(index);
      } else fresh.push(index);
    });
    if (continued.length > 0) {
      await tx(
        `UPDATE alarms a SET occurrences = occurrences + 1, last_seen_at = greatest(last_seen_at, c.at)
         FROM unnest($1::bigint[], $2::timestamptz[]) AS c(id, at) WHERE a.id = c.id`,
        [continued.map((index) => results[index]!.alarmId), continued.map((index) => inputs[index]!.at.toISOString())],
      );
    }
    if (fresh.length === 0) return results;
    const units = await tx<{ unit_id: number; account_id: number; name: string; registration_number: string | null }>(
      'SELECT unit_id, account_id, name, registration_number FROM unit_alarm_settings WHERE unit_id = ANY($1::int[])',
      [fresh.map((index) => inputs[index]!.unitId)],
    );
    const unitOf = new Map(units.map((unit) => [unit.unit_id, unit]));
    // A unit that left the account (or was deleted) since gets none.
    const raising = fresh.filter((index) => unitOf.get(inputs[index]!.unitId)?.account_id === inputs[index]!.accountId);
    if (raising.length === 0) return results;
    const addresses = raising.map((index) => addressOf(inputs[index]!.latitude, inputs[index]!.longitude));
    const inserted = await tx<{ id: string; unit_id: number; type: string }>(
      `INSERT INTO alarms (account_id, unit_id, type, class, raised_at, last_seen_at, lat, lon, address, details)
       SELECT account_id, unit_id, type, class, at, at, lat, lon, address, details::jsonb
       FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::timestamptz[], $6::float8[], $7::float8[], $8::text[], $9::text[])
            WITH ORDINALITY AS i(account_id, unit_id, type, class, at, lat, lon, address, details, ord)
       ORDER BY ord
       RETURNING id, unit_id, type`,
      [
        raising.map((index) => inputs[index]!.accountId),
        raising.map((index) => inputs[index]!.unitId),
        raising.map((index) => inputs[index]!.type),
        raising.map((index) => alarmClassOf(inputs[index]!.type)),
        raising.map((index) => inputs[index]!.at.toISOString()),
        raising.map((index) => inputs[index]!.latitude),
        raising.map((index) => inputs[index]!.longitude),
        addresses,
        raising.map((index) => JSON.stringify(inputs[index]!.details ?? {})),
      ],
    );
    const idOf = new Map(inserted.map((row) => [`${row.unit_id}:${row.type}`, Number(row.id)]));
    const events: Parameters<typeof outbox.publishMany>[1][number][] = [];
    // The recipients of all units at once, per account and class.
    const recipientsOf = new Map<string, Map<number, AlarmRecipient[]>>();
    const groups = new Map<string, { accountId: number; alarmClass: AlarmClass; unitIds: number[] }>();
    for (const index of raising) {
      const input = inputs[index]!;
      const key = `${input.accountId}:${alarmClassOf(input.type)}`;
      const group = groups.get(key) ?? { accountId: input.accountId, alarmClass: alarmClassOf(input.type), unitIds: [] };
      group.unitIds.push(input.unitId);
      groups.set(key, group);
    }
    for (const [key, group] of groups) {
      recipientsOf.set(key, await directory.recipientsOfMany(tx, group.accountId, [...new Set(group.unitIds)], group.alarmClass));
    }
    for (const [position, index] of raising.entries()) {
      const input = inputs[index]!;
      const unit = unitOf.get(input.unitId)!;
      const alarmId = idOf.get(keys[index]!)!;
      results[index] = { alarmId, raised: true };
      await deliver(
        tx,
        {
          alarmId,
          unitId: input.unitId,
          unitName: unit.name,
          registration: unit.registration_number || null,
          type: input.type,
          at: input.at,
          latitude: input.latitude,
          longitude: input.longitude,
          address: addresses[position]!,
          details: input.details ?? {},
        },
        input.accountId,
        recipientsOf.get(`${input.accountId}:${alarmClassOf(input.type)}`)!.get(input.unitId) ?? [],
      );
      events.push({
        type: 'alarm.raised',
        payload: { alarmId, accountId: input.accountId, unitId: input.unitId, type: input.type, class: alarmClassOf(input.type), at: input.at.toISOString() },
      });
    }
    await outbox.publishMany(tx, events);
    await tx('SELECT pg_notify($1, a::text) FROM unnest($2::int[]) AS a', [ALARMS_CHANNEL, [...new Set(raising.map((index) => inputs[index]!.accountId))]]);
    return results;
  }

  /** The stored-batch hook: the device rules over a batch's positions, in the batch's transaction. */
  async function onStoredBatch(query: Querier, positions: readonly StoredPosition[]): Promise<void> {
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
    // locked in unit order.
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
      const rows = await query<{ unit_id: number; din2: boolean | null; din3: boolean | null; external_power: boolean | null; service_step: number | null; last_fix_ms: string | number | null }>(
        `INSERT INTO alarm_unit_inputs (unit_id) SELECT u FROM unnest($1::int[]) AS u ORDER BY u
         ON CONFLICT (unit_id) DO UPDATE SET unit_id = EXCLUDED.unit_id
         RETURNING unit_id, din2, din3, external_power, service_step, extract(epoch FROM last_fix) * 1000 AS last_fix_ms`,
        [`{${stateful.join(',')}}`],
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
      if (start) {
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
    raised.sort((a, b) => a.unitId - b.unitId || typeIndex(a.type) - typeIndex(b.type) || a.at.getTime() - b.at.getTime());
    for (const input of raised) await raise(query, input);
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
  const stopListening = await listen(database, ALARMS_CHANNEL, (payload) => {
    const accountId = Number(payload);
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
      await tx('SELECT pg_notify($1, $2)', [ALARMS_CHANNEL, String(actor.accountId)]);
      return tx<AlarmRow>(`${ALARM_SELECT} WHERE a.id = ANY($1::bigint[]) ORDER BY a.id`, [`{${ids.join(',')}}`]);
    });
  }

  return {
    raise,
    raiseMany,
    onStoredBatch,

    /** Outbox subscriber of zone crossings: leaving a theft-mode zone is a security alarm, other crossings function alarms. */
    async onZoneCrossing(crossing: GeofenceCrossing, exited: boolean, tx: Querier): Promise<void> {
      const type: AlarmType = exited ? (crossing.theftMode ? 'theft_zone_exit' : 'zone_exit') : 'zone_enter';
      await raise(tx, {
        accountId: crossing.accountId,
        unitId: crossing.unitId,
        type,
        at: new Date(crossing.at),
        latitude: crossing.latitude,
        longitude: crossing.longitude,
        details: { zone: crossing.geofenceName, geofenceId: crossing.geofenceId },
      });
    },

    /** Outbox subscriber of theft-mode movement: a security alarm (one per episode, the batches fold into it). */
    async onTheftMovement(movement: TheftMovement, tx: Querier): Promise<void> {
      await raise(tx, {
        accountId: movement.accountId,
        unitId: movement.unitId,
        type: 'theft_movement',
        at: new Date(movement.to),
        latitude: movement.latitude,
        longitude: movement.longitude,
        details: { speed: Math.round(movement.maxSpeedKmh), positions: movement.positions },
      });
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
      await stopListening();
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
