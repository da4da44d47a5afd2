import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Querier } from '../../lib/db/client';
import { AppError, fieldError, forbidden } from '../../lib/http';
import { userDirectory } from '../accounts/views';
import type { Actor } from '../auth/model';
import { iso, type UnitCore } from './core';
import type { UnitListing } from './listing';
import { bluetoothCommand, type OperatingMode, operatingModeCommand, reportFrequencyCommand, type SettingRequestView, supportsTheftMode, type UnitDetail } from './model';
import { reportFrequencyDenials, type UnitRow, unitSettingRequests, unitTheftMode, units } from './schema';

export type Setting = 'operating_mode' | 'report_frequency' | 'bluetooth';

/** Tracker settings (operating mode, report frequency, Bluetooth) queued to the tracker as commands, pending until it answers. */
export function createSettingQueue(core: UnitCore) {
  const { db, platform, commands, now } = core;

  async function isFrequencyDenied(userId: number): Promise<boolean> {
    const [row] = await db.select({ userId: reportFrequencyDenials.userId }).from(reportFrequencyDenials).where(eq(reportFrequencyDenials.userId, userId));
    return Boolean(row);
  }

  /** Spec §6: some users may not change report frequency, and a unit's frequency can be locked. */
  async function assertMayChangeFrequency(actor: Actor, unit: UnitRow): Promise<void> {
    if (actor.role === 'support') return;
    if (await isFrequencyDenied(actor.userId)) throw forbidden('units.frequency.denied');
    if (unit.reportFrequencyLocked) throw new AppError(409, 'units.frequency.locked');
  }

  async function applySetting(requestId: number, outcome: 'confirmed' | 'failed'): Promise<void> {
    await db.transaction(async (tx) => {
      const [request] = await tx
        .update(unitSettingRequests)
        .set({ status: outcome, resolvedAt: now() })
        .where(and(eq(unitSettingRequests.id, requestId), eq(unitSettingRequests.status, 'pending')))
        .returning();
      if (!request) return;
      // A theft-mode switch carried by this request settles with it: on or off once confirmed, back where it was if not.
      const confirmed = outcome === 'confirmed';
      await tx
        .update(unitTheftMode)
        .set({
          state: sql`CASE WHEN (${unitTheftMode.state} = 'pending-on') = ${confirmed}::boolean THEN 'on' ELSE 'off' END`,
          failed: !confirmed,
          updatedAt: now(),
        })
        .where(and(eq(unitTheftMode.requestId, request.id), inArray(unitTheftMode.state, ['pending-on', 'pending-off'])));
      if (!confirmed) return;
      const values: Partial<typeof units.$inferInsert> =
        request.setting === 'operating_mode'
          ? { operatingMode: request.value as OperatingMode }
          : request.setting === 'report_frequency'
            ? { reportFrequencyS: Number(request.value) }
            : { bluetoothEnabled: request.value === '1' };
      await tx.update(units).set(values).where(eq(units.id, request.unitId));
    });
  }

  /** A device's answer to `setparam` names the new values; anything that reads as an error fails the change. */
  function answerConfirms(response: string | null): boolean {
    return !/invalid|error|fail|unknown/i.test(response ?? '');
  }

  async function resolveByCommand(commandId: number, status: string, response: string | null): Promise<void> {
    const [request] = await db
      .select({ id: unitSettingRequests.id })
      .from(unitSettingRequests)
      .where(and(eq(unitSettingRequests.commandId, commandId), eq(unitSettingRequests.status, 'pending')));
    if (!request) return;
    if (status === 'answered') await applySetting(request.id, answerConfirms(response) ? 'confirmed' : 'failed');
    else if (status === 'no_response' || status === 'expired') await applySetting(request.id, 'failed');
  }

  platform?.events.on('command.result', async ({ commandId, status, response }) => {
    await resolveByCommand(commandId, status, response);
  });

  /**
   * Queues a setting in the caller's transaction (`tx`): the command, the pending request and the end of an older
   * pending one of the same setting, all or nothing. The gateway hears of the command once the transaction commits.
   */
  async function queueSettingIn(
    tx: Querier,
    unit: { id: number; protocol: string },
    setting: Setting,
    value: string,
    command: string,
    requestedBy: number | null,
  ): Promise<{ requestId: number; commandId: number }> {
    if (!commands) throw new Error('the unit service was built without the command queue');
    if (unit.protocol !== 'teltonika') throw fieldError(setting === 'bluetooth' ? 'enabled' : 'mode', 'units.mode.unsupportedProtocol');
    const commandId = await commands.enqueue({ unitId: unit.id, kind: 'setparam', payload: command, requestedBy: requestedBy ?? undefined }, tx);
    const at = now().toISOString();
    await tx(`UPDATE unit_setting_requests SET status = 'superseded', resolved_at = $3 WHERE unit_id = $1 AND setting = $2 AND status = 'pending'`, [unit.id, setting, at]);
    const [row] = await tx<{ id: number }>(
      `INSERT INTO unit_setting_requests (unit_id, account_id, setting, value, command_id, requested_by, requested_at)
       SELECT u.id, u.account_id, $2, $3, $4, $5, $6 FROM units u WHERE u.id = $1 RETURNING id`,
      [unit.id, setting, value, commandId, requestedBy, at],
    );
    return { requestId: row!.id, commandId };
  }

  /** Theft mode is a state of its own (theft.ts): the operating-mode section hands `theft` to it and leaves a unit in it alone. */
  const theft: { switchOn?: (actor: Actor, unit: UnitRow) => Promise<void>; active?: (unitId: number) => Promise<boolean> } = {};

  async function queueSetting(actor: Actor, unit: UnitRow, setting: Setting, value: string, command: string): Promise<void> {
    if (!commands) throw new Error('the unit service was built without the command queue');
    if (unit.protocol !== 'teltonika') throw fieldError(setting === 'bluetooth' ? 'enabled' : 'mode', 'units.mode.unsupportedProtocol');
    const commandId = await commands.enqueue({ unitId: unit.id, kind: 'setparam', payload: command, requestedBy: actor.userId });
    await db.transaction(async (tx) => {
      await tx
        .update(unitSettingRequests)
        .set({ status: 'superseded', resolvedAt: now() })
        .where(and(eq(unitSettingRequests.unitId, unit.id), eq(unitSettingRequests.setting, setting), eq(unitSettingRequests.status, 'pending')));
      await tx.insert(unitSettingRequests).values({ unitId: unit.id, accountId: unit.accountId, setting, value, commandId, requestedBy: actor.userId, requestedAt: now() });
    });
  }

  /** Pending (or last failed) settings; a pending one whose command already ended is settled here too. */
  async function pendingSettings(unitId: number): Promise<UnitDetail['PendingSettings']> {
    const rows = await db
      .select()
      .from(unitSettingRequests)
      .where(and(eq(unitSettingRequests.unitId, unitId), inArray(unitSettingRequests.status, ['pending', 'failed'])))
      .orderBy(desc(unitSettingRequests.requestedAt), desc(unitSettingRequests.id));
    const result: UnitDetail['PendingSettings'] = {};
    for (const row of rows) {
      if (result[row.setting]) continue;
      let status = row.status;
      if (status === 'pending' && row.commandId !== null && commands) {
        const command = await commands.get(row.commandId);
        if (command && command.status !== 'queued' && command.status !== 'sent') {
          await resolveByCommand(row.commandId, command.status, command.response);
          const [fresh] = await db.select({ status: unitSettingRequests.status }).from(unitSettingRequests).where(eq(unitSettingRequests.id, row.id));
          status = fresh?.status ?? status;
        }
      }
      if (status === 'confirmed' || status === 'superseded') continue;
      const view: SettingRequestView = { value: row.value, status, requestedAt: row.requestedAt.toISOString(), resolvedAt: iso(row.resolvedAt) };
      result[row.setting] = view;
    }
    return result;
  }

  async function setOperatingMode(actor: Actor, unit: UnitRow, mode: OperatingMode): Promise<void> {
    if (unit.deviceKind !== 'battery') throw fieldError('mode', 'units.mode.batteryOnly');
    if (mode === 'theft' && !supportsTheftMode(unit.model)) throw fieldError('mode', 'units.mode.theftScoutOnly');
    await assertMayChangeFrequency(actor, unit);
    if (mode === 'theft' && theft.switchOn) return theft.switchOn(actor, unit);
    if (await theft.active?.(unit.id)) throw new AppError(409, 'units.theft.active');
    await queueSetting(actor, unit, 'operating_mode', mode, operatingModeCommand(mode));
  }

  async function setReportFrequency(actor: Actor, unit: UnitRow, seconds: number): Promise<void> {
    if (unit.deviceKind !== 'triplog') throw fieldError('seconds', 'units.frequency.triplogOnly');
    await assertMayChangeFrequency(actor, unit);
    await queueSetting(actor, unit, 'report_frequency', String(seconds), reportFrequencyCommand(seconds));
  }

  return { isFrequencyDenied, assertMayChangeFrequency, queueSetting, queueSettingIn, theft, pendingSettings, setOperatingMode, setReportFrequency };
}

export type SettingQueue = ReturnType<typeof createSettingQueue>;

/** The tracker-settings sections of the edit page and the frequency permissions (spec §6). */
export function createSettingMethods(core: UnitCore, queue: SettingQueue, listing: UnitListing) {
  const { db, now, ownUnit, accountUser, reachableUnit, touch } = core;
  const { queueSetting, setOperatingMode, setReportFrequency } = queue;
  const { detailOf } = listing;
  const { detail } = listing.methods;

  const methods = {
    /** Spec §4: queued to the tracker; it reaches the unit on its next report and shows as pending until then. */
    async setOperatingMode(actor: Actor, id: number, mode: OperatingMode): Promise<UnitDetail> {
      await setOperatingMode(actor, await ownUnit(actor, id), mode);
      return detail(actor, id);
    },

    async setReportFrequency(actor: Actor, id: number, seconds: number): Promise<UnitDetail> {
      await setReportFrequency(actor, await ownUnit(actor, id), seconds);
      return detail(actor, id);
    },

    /** Spec §6: report frequency can be locked (administrators of the account, or support). */
    async lockReportFrequency(actor: Actor, id: number, locked: boolean): Promise<UnitDetail> {
      if (actor.role !== 'admin' && actor.role !== 'support') throw forbidden();
      const unit = await reachableUnit(actor, id);
      await touch(unit.id, { reportFrequencyLocked: locked });
      return detailOf(actor, { ...unit, reportFrequencyLocked: locked });
    },

    /** Spec §6: an administrator denies (or allows again) a user of the account changing report frequency. */
    async setFrequencyPermission(actor: Actor, userId: number, denied: boolean): Promise<{ userId: number; denied: boolean }> {
      if (actor.role !== 'admin') throw forbidden();
      await accountUser(actor, userId);
      if (denied) {
        await db.insert(reportFrequencyDenials).values({ userId, accountId: actor.accountId, deniedBy: actor.userId, deniedAt: now() }).onConflictDoNothing();
      } else {
        await db.delete(reportFrequencyDenials).where(eq(reportFrequencyDenials.userId, userId));
      }
      return { userId, denied };
    },

    /** Spec §6: the users of the caller's account denied changing report frequency (administrators; account settings). */
    async frequencyDenials(actor: Actor): Promise<number[]> {
      if (actor.role !== 'admin') throw forbidden();
      const rows = await db
        .select({ userId: reportFrequencyDenials.userId })
        .from(reportFrequencyDenials)
        .innerJoin(userDirectory, eq(userDirectory.id, reportFrequencyDenials.userId))
        .where(eq(userDirectory.accountId, actor.accountId));
      return rows.map((row) => row.userId);
    },

    async setBluetooth(actor: Actor, id: number, enabled: boolean): Promise<UnitDetail> {
      const unit = await ownUnit(actor, id);
      await queueSetting(actor, unit, 'bluetooth', enabled ? '1' : '0', bluetoothCommand(enabled));
      return detail(actor, id);
    },
  };
  return { methods };
}

export type SettingMethods = ReturnType<typeof createSettingMethods>;
