import type { DatabaseHandle } from '../../lib/db/client';
import type { EventBus } from '../../lib/events';
import type { Clock } from '../../lib/clock';

/** Spec §9: a device that has not answered a command within 90 s is marked no-response. */
export const COMMAND_RESPONSE_TIMEOUT_MS = 90_000;
/** A command for an offline unit waits this long for its next connection. */
export const COMMAND_DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

export type CommandKind = 'setdigout' | 'getinfo' | 'setparam' | 'text' | 'relay';

export interface QueuedCommand {
  id: number;
  unitId: number;
  kind: CommandKind;
  payload: string;
}

/**
 * The per-unit command queue that digital outputs, operating modes and sensor pairing use.
 * The gateway sends the oldest queued command while its device is connected and idle, one at a time.
 */
export function createCommandService(database: DatabaseHandle, events: EventBus, clock: Clock) {
  return {
    async enqueue(input: { unitId: number; kind: CommandKind; payload: string; requestedBy?: number; ttlMs?: number }): Promise<number> {
      const now = clock.now();
      const [row] = await database.query<{ id: number }>(
        `INSERT INTO device_commands (unit_id, kind, payload, requested_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [input.unitId, input.kind, input.payload, input.requestedBy ?? null, now.toISOString(), new Date(now.getTime() + (input.ttlMs ?? COMMAND_DEFAULT_TTL_MS)).toISOString()],
      );
      await events.emit('command.queued', { commandId: row!.id, unitId: input.unitId });
      return row!.id;
    },

    async hasQueued(unitId: number): Promise<boolean> {
      const rows = await database.query('SELECT 1 FROM device_commands WHERE unit_id = $1 AND status IN ($2, $3) LIMIT 1', [unitId, 'queued', 'sent']);
      return rows.length > 0;
    },

    /** Puts a claimed command back when its session turned out to be busy or gone. */
    async requeue(id: number): Promise<void> {
      await database.query("UPDATE device_commands SET status = 'queued', sent_at = NULL WHERE id = $1 AND status = 'sent'", [id]);
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
