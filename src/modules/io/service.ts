import type { DatabaseHandle, Querier } from '../../lib/db/client';
import { listen } from '../../lib/db/notify';
import type { EventBus } from '../../lib/events';
import type { Clock } from '../../lib/clock';
import type { JobQueue } from '../../lib/queue';

/** Spec §9: a device that has not answered a command within 90 s is marked no-response. */
export const COMMAND_RESPONSE_TIMEOUT_MS = 90_000;
/** A command for an offline unit waits this long for its next connection. */
export const COMMAND_DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The channel a queued command is announced on: the statement that writes it sends `pg_notify` with the unit's id,
 * which PostgreSQL delivers when the command's transaction commits, to every process listening (the gateway may run
 * in another process than the API or the outbox subscriber that queued it).
 */
export const COMMANDS_CHANNEL = 'device_commands';

/** Jobs of this name were once queued to announce a command after its transaction; any left still run (a no-op now). */
export const ANNOUNCE_JOB = 'commands.announce';

export type CommandKind = 'setdigout' | 'getinfo' | 'setparam' | 'text' | 'relay';

export interface QueuedCommand {
  id: number;
  unitId: number;
  kind: CommandKind;
  payload: string;
}

/**
 * The per-unit command queue that digital outputs, operating modes and sensor pairing use, in the database
 * (`device_commands`): the gateway sends the oldest queued command while its device is connected and idle, one at a
 * time. A gateway learns of a new command from the notification its commit sends (`onQueued`), from the in-process
 * event when it runs in the writer's process, and by asking for its connected units' queued commands now and then,
 * for a notification missed while its listening connection was down.
 */
export function createCommandService(database: DatabaseHandle, events: EventBus, clock: Clock, queue?: JobQueue) {
  queue?.define<{ commandId: number; unitId: number }>(ANNOUNCE_JOB, async () => {});
  return {
    /**
     * Queues a command. Given `tx`, it is written in the caller's transaction (an outbox subscriber queues it once);
     * every gateway hears of it when that commits, whichever process it runs in (a command not yet committed could not
     * be claimed).
     */
    async enqueue(input: { unitId: number; kind: CommandKind; payload: string; requestedBy?: number; ttlMs?: number }, tx?: Querier): Promise<number> {
      const now = clock.now();
      const [row] = await (tx ?? database.query)<{ id: number; notified: boolean }>(
        `WITH c AS (
           INSERT INTO device_commands (unit_id, account_id, kind, payload, requested_by, created_at, expires_at)
           SELECT u.id, u.account_id, $2, $3, $4, $5, $6 FROM unit_directory u WHERE u.id = $1 RETURNING id, unit_id
         )
         SELECT c.id, (SELECT pg_notify('${COMMANDS_CHANNEL}', c.unit_id::text)) IS NOT NULL AS notified FROM c`,
        [input.unitId, input.kind, input.payload, input.requestedBy ?? null, now.toISOString(), new Date(now.getTime() + (input.ttlMs ?? COMMAND_DEFAULT_TTL_MS)).toISOString()],
      );
      if (!row) throw new Error(`no unit ${input.unitId} to queue a command for`);
      if (!tx) await events.emit('command.queued', { commandId: row.id, unitId: input.unitId });
      return row.id;
    },

    /**
     * Calls `handler` with the unit of each command queued by any process, once its transaction has committed; returns
     * the function that stops listening.
     */
    async onQueued(handler: (unitId: number) => void): Promise<() => Promise<void>> {
      return listen(database, COMMANDS_CHANNEL, (payload) => {
        const unitId = Number(payload);
        if (Number.isInteger(unitId) && unitId > 0) handler(unitId);
      });
    },

    /** Of these units, those with a command waiting to be sent. */
    async withQueued(unitIds: number[]): Promise<number[]> {
      if (unitIds.length === 0) return [];
      const rows = await database.query<{ unit_id: number }>(
        "SELECT DISTINCT unit_id FROM device_commands WHERE status = 'queued' AND unit_id = ANY($1::int[]) AND expires_at > $2",
        [unitIds, clock.now().toISOString()],
      );
      return rows.map((row) => Number(row.unit_id));
    },

    /** Tells this process's gateway of a command committed by the caller at once (other processes' gateways hear the commit's notification). */
    async announce(unitId: number, commandId: number): Promise<void> {
      await events.emit('command.queued', { commandId, unitId });
    },

    async hasQueued(unitId: number): Promise<boolean> {
      const rows = await database.query('SELECT 1 FROM device_commands WHERE unit_id = $1 AND status IN ($2, $3) LIMIT 1', [unitId, 'queued', 'sent']);
      return rows.length > 0;
    },

    /** Puts a claimed command back when its session turned out to be busy or gone. */
    async requeue(id: number): Promise<void> {
      await database.query("UPDATE device_commands SET status = 'queued', sent_at = NULL WHERE id = $1 AND status = 'sent'", [id]);
    },

    /**
     * A tracker has just logged in on a new connection: a command still marked sent went out on an earlier connection
     * (perhaps on another instance, since killed) and its answer can no longer come, so it is queued again, ahead of
     * the rest, and sent on this connection; its 90 s start again then. Returns how many were put back.
     */
    async resumeUnanswered(unitId: number): Promise<number> {
      const rows = await database.query(
        "UPDATE device_commands SET status = 'queued', sent_at = NULL WHERE unit_id = $1 AND status = 'sent' RETURNING id",
        [unitId],
      );
      return rows.length;
    },

    /** Units that have work waiting, loaded when the gateway starts. */
    async unitsWithPending(): Promise<number[]> {
      const rows = await database.query<{ unit_id: number }>("SELECT DISTINCT unit_id FROM device_commands WHERE status IN ('queued', 'sent')");
      return rows.map((row) => row.unit_id);
    },

    /** Claims the next command for a connected, idle device; null when none is due or one is still in flight. */
    async claimNext(unitId: number): Promise<QueuedCommand | null> {
      const now = clock.now().toISOString();
      return database.transaction(async (query) => {
        const inFlight = await query('SELECT 1 FROM device_commands WHERE unit_id = $1 AND status = $2 LIMIT 1', [unitId, 'sent']);
        if (inFlight.length > 0) return null;
        const [row] = await query<{ id: number; unit_id: number; kind: CommandKind; payload: string }>(
          `UPDATE device_commands SET status = 'sent', sent_at = $2
           WHERE id = (SELECT id FROM device_commands WHERE unit_id = $1 AND status = 'queued' AND expires_at > $2
                       ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING id, unit_id, kind, payload`,
          [unitId, now],
        );
        return row ? { id: row.id, unitId: row.unit_id, kind: row.kind, payload: row.payload } : null;
      });
    },

    /** A device answered: the response belongs to its oldest command in flight (one at a time). */
    async recordResponse(unitId: number, response: string): Promise<number | null> {
      const [row] = await database.query<{ id: number }>(
        `UPDATE device_commands SET status = 'answered', response = $2, answered_at = $3
         WHERE id = (SELECT id FROM device_commands WHERE unit_id = $1 AND status = 'sent' ORDER BY id LIMIT 1)
         RETURNING id`,
        [unitId, response, clock.now().toISOString()],
      );
      if (row) await events.emit('command.result', { commandId: row.id, unitId, status: 'answered', response });
      return row?.id ?? null;
    },

    /** Marks commands sent more than 90 s ago as no-response, and queued ones past their expiry as expired. */
    async sweep(): Promise<number> {
      const now = clock.now();
      const timedOut = await database.query<{ id: number; unit_id: number }>(
        `UPDATE device_commands SET status = 'no_response' WHERE status = 'sent' AND sent_at < $1 RETURNING id, unit_id`,
        [new Date(now.getTime() - COMMAND_RESPONSE_TIMEOUT_MS).toISOString()],
      );
      const expired = await database.query<{ id: number; unit_id: number }>(
        `UPDATE device_commands SET status = 'expired' WHERE status = 'queued' AND expires_at <= $1 RETURNING id, unit_id`,
        [now.toISOString()],
      );
      for (const row of timedOut) await events.emit('command.result', { commandId: row.id, unitId: row.unit_id, status: 'no_response', response: null });
      for (const row of expired) await events.emit('command.result', { commandId: row.id, unitId: row.unit_id, status: 'expired', response: null });
      return timedOut.length + expired.length;
    },

    async get(id: number) {
      const [row] = await database.query<{ id: number; unit_id: number; kind: string; payload: string; status: string; response: string | null }>(
        'SELECT id, unit_id, kind, payload, status, response FROM device_commands WHERE id = $1',
        [id],
      );
      return row ?? null;
    },
  };
}
export type CommandService = ReturnType<typeof createCommandService>;

/** A BLE beacon or sensor of an account (spec §3 BLE unit items). */
export interface BleDevice {
  id: number;
  accountId: number;
  /** 12 upper-case hex digits. */
  mac: string;
  name: string;
  serialNumber: string;
  kind: 'sensor' | 'beacon';
  pairedUnitId: number | null;
}

interface BleDeviceRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  mac: string;
  name: string;
  serial_number: string;
  kind: 'sensor' | 'beacon';
  paired_unit_id: number | null;
}

const bleDevice = (row: BleDeviceRow): BleDevice => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  mac: row.mac,
  name: row.name,
  serialNumber: row.serial_number,
  kind: row.kind,
  pairedUnitId: row.paired_unit_id === null ? null : Number(row.paired_unit_id),
});

/** The BLE beacons and sensors accounts own (the alarm receivers' BLE tab lists and links them). */
export function createBleDeviceService(database: DatabaseHandle) {
  return {
    /** An account's BLE devices by name; in the caller's transaction when given `tx`. */
    async list(accountId: number, tx?: Querier): Promise<BleDevice[]> {
      const rows = await (tx ?? database.query)<BleDeviceRow>(
        `SELECT id, account_id, mac, name, serial_number, kind, paired_unit_id FROM ble_devices WHERE account_id = $1 ORDER BY lower(name), id`,
        [accountId],
      );
      return rows.map(bleDevice);
    },

    /** Those of `ids` that belong to the account. */
    async owned(accountId: number, ids: number[], tx?: Querier): Promise<BleDevice[]> {
      if (ids.length === 0) return [];
      const rows = await (tx ?? database.query)<BleDeviceRow>(
        `SELECT id, account_id, mac, name, serial_number, kind, paired_unit_id FROM ble_devices WHERE account_id = $1 AND id = ANY($2::int[]) ORDER BY id`,
        [accountId, ids],
      );
      return rows.map(bleDevice);
    },

    /** Adds a device (MAC with or without separators, any case); in the caller's transaction when given `tx`. */
    async add(
      accountId: number,
      input: { mac: string; name: string; serialNumber?: string; kind: 'sensor' | 'beacon'; pairedUnitId?: number | null },
      tx?: Querier,
    ): Promise<BleDevice> {
      const mac = input.mac.replace(/[^0-9a-f]/gi, '').toUpperCase();
      if (!/^[0-9A-F]{12}$/.test(mac)) throw new Error(`not a BLE MAC address: ${input.mac}`);
      const insert = async (query: Querier) => {
        // A MAC is registered once over every account (the unique index carries the account, as a distributed
        // PostgreSQL asks): the MAC's lock makes two registrations of it take turns, and the second finds the first.
        await query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ble-mac:${mac}`]);
        const [taken] = await query('SELECT 1 FROM ble_devices WHERE mac = $1', [mac]);
        if (taken) throw new Error(`BLE MAC address already registered: ${mac}`);
        const [row] = await query<BleDeviceRow>(
          `INSERT INTO ble_devices (account_id, mac, name, serial_number, kind, paired_unit_id) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, account_id, mac, name, serial_number, kind, paired_unit_id`,
          [accountId, mac, input.name, input.serialNumber ?? '', input.kind, input.pairedUnitId ?? null],
        );
        return bleDevice(row!);
      };
      return tx ? insert(tx) : database.transaction(insert);
    },
  };
}
export type BleDeviceService = ReturnType<typeof createBleDeviceService>;
