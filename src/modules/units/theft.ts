import { and, eq, inArray } from 'drizzle-orm';
import type { Querier } from '../../lib/db/client';
import { AppError, fieldError } from '../../lib/http';
import type { Actor } from '../auth/model';
import type { GeofenceCrossing } from '../geofences/events';
import type { UnitCore } from './core';
import type { TheftMovement } from './events';
import { isScoutModel, type OperatingMode, operatingModeCommand, supportsTheftMode, type TheftModeState, type TheftModeView } from './model';
import { type UnitRow, unitTheftMode } from './schema';
import type { SettingQueue } from './settings';

/** The operating mode restored when theft mode ends on a unit that had none confirmed (spec §4: 24 h is recommended). */
export const RESTORE_DEFAULT_MODE: Exclude<OperatingMode, 'theft'> = '24h';
/** Outbox subscriber name (stable across releases: deliveries are recorded under it). */
export const THEFT_SUBSCRIBER = 'units.theft-mode';
/** How long the in-process list of watched units is trusted before it is read again (another process may have switched one). */
const WATCHED_TTL_MS = 5_000;

interface UnitFacts extends Record<string, unknown> {
  id: number;
  account_id: number;
  name: string;
  model: string;
  protocol: string;
  operating_mode: OperatingMode | null;
}

interface TheftRow extends Record<string, unknown> {
  state: TheftModeState;
  previous_mode: Exclude<OperatingMode, 'theft'> | null;
}

type Cause = { kind: 'manual' } | { kind: 'geofence'; geofenceId: number; geofenceName: string };

/**
 * Spec §4 theft mode, a state of the unit: switched on by hand or when the unit leaves a zone with the theft-mode flag
 * (an outbox subscriber of `geofence.exited`), off only by the user, which restores the operating mode the unit had.
 * Each switch reaches the tracker as an operating-mode setting through the command queue and is pending until the
 * tracker confirms it (settings.ts settles the state with the request). On a Scout unit any zone alert sets the
 * report frequency to one hour. While a unit is in theft mode its stored positions are security events
 * (`unit.theft_movement`), published per stored batch.
 */
export function createTheftMode(core: UnitCore, queue: SettingQueue) {
  const { db, platform, commands, now, ownUnit } = core;
  const { queueSettingIn, pendingSettings } = queue;

  /** The unit, locked for the switch, when it is still the account's (an event may outlive a unit or its account). */
  async function lockUnit(tx: Querier, unitId: number, accountId: number): Promise<UnitFacts | null> {
    const [unit] = await tx<UnitFacts>('SELECT id, account_id, name, model, protocol, operating_mode FROM units WHERE id = $1 AND account_id = $2 FOR UPDATE', [
      unitId,
      accountId,
    ]);
    return unit ?? null;
  }

  async function theftRow(tx: Querier, unitId: number): Promise<TheftRow | null> {
    const [row] = await tx<TheftRow>('SELECT state, previous_mode FROM unit_theft_mode WHERE unit_id = $1', [unitId]);
    return row ?? null;
  }

  /** The audit log's entry for a switch, in the switch's transaction (spec §6: administrators trace who changed what). */
  async function audit(tx: Querier, unit: UnitFacts, on: boolean, userId: number | null, cause: string): Promise<void> {
    await platform?.outbox.publish(tx, 'audit.entry', {
      accountId: unit.account_id,
      actorUserId: userId,
      action: on ? 'unit.theft_mode_on' : 'unit.theft_mode_off',
      target: { kind: 'unit', id: unit.id, label: unit.name },
      changes: { theftMode: { from: on ? 'off' : 'on', to: on ? 'on' : 'off' }, cause: { from: null, to: cause } },
      at: now().toISOString(),
    });
  }

  /** Switches theft mode on (pending until the tracker confirms); nothing when it is on or going on already. Returns the command queued. */
  async function switchOn(tx: Querier, unit: UnitFacts, cause: Cause, userId: number | null): Promise<number | null> {
    const row = await theftRow(tx, unit.id);
    if (row && (row.state === 'on' || row.state === 'pending-on')) return null;
    // Switched on again before the tracker confirmed "off": the mode to restore is still the one from before.
    const previous = row?.state === 'pending-off' ? row.previous_mode : unit.operating_mode === 'theft' ? (row?.previous_mode ?? null) : unit.operating_mode;
    const { requestId, commandId } = await queueSettingIn(tx, unit, 'operating_mode', 'theft', operatingModeCommand('theft'), userId);
    const at = now().toISOString();
    await tx(
      `INSERT INTO unit_theft_mode (unit_id, account_id, state, previous_mode, cause, geofence_id, geofence_name, since, request_id, failed, watched_until, switched_by, updated_at)
       VALUES ($1, $2, 'pending-on', $3, $4, $5, $6, $7, $8, false, $7, $9, $7)
       ON CONFLICT (unit_id, account_id) DO UPDATE SET state = 'pending-on', previous_mode = $3, cause = $4, geofence_id = $5, geofence_name = $6, since = $7,
         request_id = $8, failed = false, watched_until = $7, switched_by = $9, updated_at = $7`,
      [
        unit.id,
        unit.account_id,
        previous,
        cause.kind,
        cause.kind === 'geofence' ? cause.geofenceId : null,
        cause.kind === 'geofence' ? cause.geofenceName : null,
        at,
        requestId,
        userId,
      ],
    );
    await audit(tx, unit, true, userId, cause.kind === 'geofence' ? `geofence:${cause.geofenceId}` : 'manual');
    return commandId;
  }

  /** Switches theft mode off: the operating mode from before goes to the tracker; pending until it confirms. */
  async function switchOff(tx: Querier, unit: UnitFacts, userId: number): Promise<number | null> {
    const row = await theftRow(tx, unit.id);
    if (!row || row.state === 'off' || row.state === 'pending-off') return null;
    const restore = row.previous_mode ?? RESTORE_DEFAULT_MODE;
    const { requestId, commandId } = await queueSettingIn(tx, unit, 'operating_mode', restore, operatingModeCommand(restore), userId);
    await tx(`UPDATE unit_theft_mode SET state = 'pending-off', request_id = $2, failed = false, switched_by = $3, updated_at = $4 WHERE unit_id = $1`, [
      unit.id,
      requestId,
      userId,
      now().toISOString(),
    ]);
    await audit(tx, unit, false, userId, 'manual');
    return commandId;
  }

  /**
   * Spec §4: a zone alert on a Scout unit sets its report frequency to one hour, to be changed back by hand. Theft
   * mode reports far more often and wins: a unit in (or going into) theft mode is left as it is; one whose theft mode
   * is being switched off gets the hour instead of the mode it had (the hour's confirmation ends theft mode).
   */
  async function oneHourOnZoneAlert(tx: Querier, unit: UnitFacts): Promise<void> {
    if (!isScoutModel(unit.model) || unit.protocol !== 'teltonika') return;
    const row = await theftRow(tx, unit.id);
    if (row && (row.state === 'on' || row.state === 'pending-on')) return;
    const [pending] = await tx<{ value: string }>(
      `SELECT value FROM unit_setting_requests WHERE unit_id = $1 AND setting = 'operating_mode' AND status = 'pending' ORDER BY id DESC LIMIT 1`,
      [unit.id],
    );
    // Already at one hour, or on its way there: nothing to send.
    if (pending ? pending.value === '1h' : unit.operating_mode === '1h') return;
    const { requestId } = await queueSettingIn(tx, unit, 'operating_mode', '1h', operatingModeCommand('1h'), null);
    if (row?.state === 'pending-off') {
      await tx('UPDATE unit_theft_mode SET previous_mode = $2, request_id = $3, updated_at = $4 WHERE unit_id = $1', [unit.id, '1h', requestId, now().toISOString()]);
    }
  }

  /** The outbox subscriber: runs in the delivery's transaction, so its effect (state, request, command) happens once. */
  async function onCrossing(crossing: GeofenceCrossing, exited: boolean, tx: Querier): Promise<void> {
    const unit = await lockUnit(tx, crossing.unitId, crossing.accountId);
    if (!unit) return;
    if (exited && crossing.theftMode && unit.protocol === 'teltonika' && supportsTheftMode(unit.model)) {
      await switchOn(tx, unit, { kind: 'geofence', geofenceId: crossing.geofenceId, geofenceName: crossing.geofenceName }, null);
      watched.ids.add(unit.id);
      return;
    }
    // A theft zone left by a model without theft mode: no switch (it could not report as one), only the Scout rule.
    await oneHourOnZoneAlert(tx, unit);
  }


  // -------------------------------------------------------------------------------------------
  // Security events: each stored batch of a unit in theft mode.
  // -------------------------------------------------------------------------------------------

  const watched = { ids: new Set<number>(), loadedAt: 0, loading: null as Promise<void> | null };
  const dueUnits = new Set<number>();
  let run: Promise<void> | null = null;

  async function loadWatched(): Promise<void> {
    const rows = await db.select({ unitId: unitTheftMode.unitId }).from(unitTheftMode).where(inArray(unitTheftMode.state, ['pending-on', 'on']));
    watched.ids = new Set(rows.map((row) => row.unitId));
    watched.loadedAt = Date.now();
  }

  function refreshWatched(): Promise<void> {
    watched.loading ??= loadWatched()
      .catch((error: unknown) => platform?.log.error('theft-mode watch list could not be read', { error: String(error) }))
      .finally(() => {
        watched.loading = null;
      });
    return watched.loading;
  }

  /**
   * Publishes `unit.theft_movement` for the valid fixes stored since the last one of each watched unit (all of them
   * when `unitIds` is absent), and moves the mark in the same transaction: a crash before the commit publishes the
   * same batch again later, never twice. Reads the stored track through tracking's published view.
   */
  async function publishMovements(unitIds?: number[]): Promise<number> {
    if (!platform) return 0;
    const { outbox, database } = platform;
    return database.transaction(async (tx) => {
      const rows = await tx<{ unit_id: number; account_id: number; watched_until: Date | string; since: Date | string; cause: 'manual' | 'geofence'; geofence_id: number | null }>(
        `SELECT unit_id, account_id, watched_until, since, cause, geofence_id FROM unit_theft_mode
         WHERE state IN ('pending-on', 'on') ${unitIds ? 'AND unit_id = ANY($1::int[])' : ''}
         ORDER BY unit_id FOR UPDATE SKIP LOCKED`,
        unitIds ? [unitIds] : [],
      );
      if (rows.length === 0) return 0;
      const found = await tx<{ unit_id: number; n: number; first: Date | string; last: Date | string; max_speed: number; lat: number; lon: number; speed: number }>(
        `SELECT w.unit_id, agg.n, agg.first, agg.last, agg.max_speed, newest.lat, newest.lon, newest.speed
         FROM unnest($1::int[], $2::timestamptz[]) AS w(unit_id, after)
         CROSS JOIN LATERAL (
           SELECT count(*)::int AS n, min(p.time) AS first, max(p.time) AS last, max(p.speed_kmh)::float8 AS max_speed
           FROM position_history p WHERE p.unit_id = w.unit_id AND p.time > w.after AND p.flags = 0
         ) agg
         CROSS JOIN LATERAL (
           SELECT ST_Y(p.geom) AS lat, ST_X(p.geom) AS lon, p.speed_kmh::float8 AS speed
           FROM position_history p WHERE p.unit_id = w.unit_id AND p.time > w.after AND p.flags = 0
           ORDER BY p.time DESC LIMIT 1
         ) newest
         WHERE agg.n > 0`,
        [rows.map((row) => row.unit_id), rows.map((row) => new Date(row.watched_until).toISOString())],
      );
      if (found.length === 0) return 0;
      const byUnit = new Map(rows.map((row) => [row.unit_id, row]));
      const events = found.map((batch) => {
        const episode = byUnit.get(batch.unit_id)!;
        const payload: TheftMovement = {
          accountId: episode.account_id,
          unitId: batch.unit_id,
          since: new Date(episode.since).toISOString(),
          cause: episode.cause,
          geofenceId: episode.geofence_id,
          positions: batch.n,
          from: new Date(batch.first).toISOString(),
          to: new Date(batch.last).toISOString(),
          latitude: Math.round(batch.lat * 1e6) / 1e6,
          longitude: Math.round(batch.lon * 1e6) / 1e6,
          speedKmh: Math.round(batch.speed * 10) / 10,
          maxSpeedKmh: Math.round(batch.max_speed * 10) / 10,
        };
        return { type: 'unit.theft_movement' as const, payload };
      });
      await outbox.publishMany(tx, events);
      await tx(
        `UPDATE unit_theft_mode t SET watched_until = m.last FROM unnest($1::int[], $2::timestamptz[]) AS m(unit_id, last) WHERE t.unit_id = m.unit_id`,
        [found.map((batch) => batch.unit_id), found.map((batch) => new Date(batch.last).toISOString())],
      );
      return events.length;
    });
  }

  /** One run at a time takes every unit that became due meanwhile. */
  function schedulePass(): void {
    if (run) return;
    run = (async () => {
      while (dueUnits.size > 0) {
        const ids = [...dueUnits];
        dueUnits.clear();
        try {
          await publishMovements(ids);
        } catch (error) {
          // The mark did not move: the interval job (or the unit's next batch) publishes these positions.
          platform?.log.error('theft movement could not be published', { units: ids.length, error: String(error) });
        }
      }
    })().finally(() => {
      run = null;
    });
  }

  platform?.events.on('positions.stored', ({ unitId }) => {
    if (Date.now() - watched.loadedAt > WATCHED_TTL_MS) void refreshWatched();
    if (!watched.ids.has(unitId)) return;
    dueUnits.add(unitId);
    schedulePass();
  });

  // -------------------------------------------------------------------------------------------
  // The API
  // -------------------------------------------------------------------------------------------

  async function viewOf(unit: UnitRow): Promise<TheftModeView> {
    // Settles a switch whose command has ended meanwhile (the same lazy settling the edit page's settings get).
    await pendingSettings(unit.id);
    const [row] = await db.select().from(unitTheftMode).where(eq(unitTheftMode.unitId, unit.id));
    const state: TheftModeState = row?.state ?? 'off';
    return {
      unitId: unit.id,
      state,
      supported: supportsTheftMode(unit.model) && unit.protocol === 'teltonika',
      cause:
        !row || state === 'off' || !row.cause
          ? null
          : row.cause === 'geofence'
            ? { kind: 'geofence', geofenceId: row.geofenceId ?? 0, geofenceName: row.geofenceName ?? '' }
            : { kind: 'manual' },
      since: row && state !== 'off' ? (row.since?.toISOString() ?? null) : null,
      failed: row?.failed ?? false,
      previousMode: row && state !== 'off' ? (row.previousMode ?? RESTORE_DEFAULT_MODE) : null,
    };
  }

  /** Switches by hand in one transaction; the gateway is told at once after the commit. */
  async function switchByHand(actor: Actor, unit: UnitRow, on: boolean): Promise<void> {
    if (!platform || !commands) throw new Error('the unit service was built without the platform');
    if (on && !supportsTheftMode(unit.model)) throw fieldError('on', 'units.mode.theftScoutOnly');
    if (on && unit.protocol !== 'teltonika') throw fieldError('on', 'units.mode.unsupportedProtocol');
    const commandId = await platform.database.transaction(async (tx) => {
      const locked = await lockUnit(tx, unit.id, unit.accountId);
      if (!locked) throw new AppError(404, 'errors.unitNotFound');
      return on ? switchOn(tx, locked, { kind: 'manual' }, actor.userId) : switchOff(tx, locked, actor.userId);
    });
    if (commandId !== null) {
      if (on) watched.ids.add(unit.id);
      await commands.announce(unit.id, commandId);
    }
  }

  queue.theft.switchOn = (actor, unit) => switchByHand(actor, unit, true);
  queue.theft.active = async (unitId) => {
    const [row] = await db
      .select({ state: unitTheftMode.state })
      .from(unitTheftMode)
      .where(and(eq(unitTheftMode.unitId, unitId), inArray(unitTheftMode.state, ['pending-on', 'on', 'pending-off'])));
    return Boolean(row);
  };

  /** Theft-mode states of these units (the unit list marks them). */
  async function statesOf(unitIds: number[]): Promise<Map<number, TheftModeState>> {
    if (unitIds.length === 0) return new Map();
    const rows = await db.select({ unitId: unitTheftMode.unitId, state: unitTheftMode.state }).from(unitTheftMode).where(inArray(unitTheftMode.unitId, unitIds));
    return new Map(rows.map((row) => [row.unitId, row.state]));
  }

  const methods = {
    /** The outbox subscriber of zone crossings (`THEFT_SUBSCRIBER`), run in the delivery's transaction. */
    onZoneCrossing: onCrossing,

    async theftMode(actor: Actor, id: number): Promise<TheftModeView> {
      return viewOf(await ownUnit(actor, id));
    },

    /** Spec §4: on by hand (supported models only), off by the user; both go to the tracker and are pending until it confirms. */
    async setTheftMode(actor: Actor, id: number, on: boolean): Promise<TheftModeView> {
      const unit = await ownUnit(actor, id);
      await switchByHand(actor, unit, on);
      return viewOf(unit);
    },

    /** Publishes the security events of every watched unit not yet published (the interval job; tests). */
    async publishTheftMovements(): Promise<number> {
      await refreshWatched();
      return publishMovements();
    },

    /** Resolves once the positions stored so far of watched units are published (tests, shutdown). */
    async theftMovementsSettled(): Promise<void> {
      while (run) await run;
    },
  };

  return { statesOf, methods };
}

export type TheftMode = ReturnType<typeof createTheftMode>;
