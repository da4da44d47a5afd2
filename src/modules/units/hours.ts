import { asc, desc, inArray, sql } from 'drizzle-orm';
import { pgArrayLiteral } from '../../lib/db/client';
import { Pacer } from '../../lib/pace';
import { INSERT_SLICE, type UnitCore, type UnitLiveState } from './core';
import { unitEngineHours, unitMeterCalibrations, units } from './schema';

export const MAX_ENGINE_GAP_S = 30 * 60;

/** Operating hours (spec §3): counted from every stored record in paced passes, and the meters read with their calibrations. */
export function createUnitHours(core: UnitCore) {
  const { db, platform, now } = core;

  /** Newest calibration per unit and kind. */
  async function latestCalibrations(ids: number[]) {
    const result = new Map<string, { value: number; sourceValue: number | null }>();
    if (ids.length === 0) return result;
    const rows = await db
      .select()
      .from(unitMeterCalibrations)
      .where(inArray(unitMeterCalibrations.unitId, ids))
      .orderBy(desc(unitMeterCalibrations.setAt), desc(unitMeterCalibrations.id));
    for (const row of rows) {
      const key = `${row.unitId}:${row.kind}`;
      if (!result.has(key)) result.set(key, { value: row.value, sourceValue: row.sourceValue });
    }
    return result;
  }

  /** The operating-hours counter per unit in seconds: the tracker's own engine-hours IO when it reports one, else counted ignition-on time. */
  async function engineCounters(ids: number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await db.select().from(unitEngineHours).where(inArray(unitEngineHours.unitId, ids));
    return new Map(rows.map((row) => [row.unitId, row.trackerS ?? row.countedS]));
  }

  /** Operating hours (seconds): the newest calibration plus what was counted since; without one, the counter. */
  function operatingSeconds(calibration: { value: number; sourceValue: number | null } | undefined, counter: number | undefined): number | null {
    if (!calibration) return counter ?? null;
    if (calibration.sourceValue !== null && counter !== undefined) return calibration.value + Math.max(0, counter - calibration.sourceValue);
    return calibration.value;
  }

  type EnginePosition = { time: Date; ignition: boolean | undefined; normalized: { ignition?: boolean; engineSeconds?: number } };

  const engineBacklog = new Map<number, EnginePosition[]>();

  let engineRun: Promise<void> | null = null;

  /** Operating hours are counted in a pass at most every 2 s (see `Pacer`). */
  const enginePace = new Pacer(2000);

  /**
   * Counts ignition-on time from stored records (spec §3 operating hours): the time from a record with the
   * ignition on to the next one, each gap at most MAX_ENGINE_GAP_S; records older than the newest counted
   * are left out. Keeps the tracker's own engine-hours counter where its model reports one. One transaction
   * for every unit of a batch.
   */
  async function countEngineHours(batch: Map<number, EnginePosition[]>): Promise<void> {
    // Slices keep a fleet-wide batch within the drivers' parameter limits.
    const all = [...batch.keys()];
    for (let start = 0; start < all.length; start += INSERT_SLICE) await countEngineSlice(batch, all.slice(start, start + INSERT_SLICE));
  }

  async function countEngineSlice(batch: Map<number, EnginePosition[]>, slice: number[]): Promise<void> {
    // Every statement here has the same text whatever the slice's size (ids as one array parameter, rows through
    // unnest): the database plans each once, instead of parsing and planning thousands of parameters every pass.
    await db.transaction(async (tx) => {
      const existing = await tx.select({ id: units.id }).from(units).where(sql`${units.id} = ANY(${pgArrayLiteral(slice)}::int[])`);
      const ids = existing.map((row) => row.id).sort((a, b) => a - b);
      if (ids.length === 0) return;
      // Locked in unit order, so that two instances counting overlapping batches never deadlock.
      const rows = await tx
        .select()
        .from(unitEngineHours)
        .where(sql`${unitEngineHours.unitId} = ANY(${pgArrayLiteral(ids)}::int[])`)
        .orderBy(asc(unitEngineHours.unitId))
        .for('update');
      const byUnit = new Map(rows.map((row) => [row.unitId, row]));
      const values = ids.map((unitId) => {
        const row = byUnit.get(unitId);
        let countedS = row?.countedS ?? 0;
        let lastTime = row?.lastTime ?? null;
        let lastIgnition = row?.lastIgnition ?? null;
        let trackerS = row?.trackerS ?? null;
        for (const position of [...batch.get(unitId)!].sort((a, b) => a.time.getTime() - b.time.getTime())) {
          if (lastTime && position.time.getTime() <= lastTime.getTime()) continue;
          if (lastTime && lastIgnition === true) countedS += Math.min((position.time.getTime() - lastTime.getTime()) / 1000, MAX_ENGINE_GAP_S);
          lastTime = position.time;
          const ignition = position.ignition ?? position.normalized.ignition;
          if (ignition !== undefined) lastIgnition = ignition;
          if (position.normalized.engineSeconds !== undefined && position.normalized.engineSeconds >= 0) trackerS = position.normalized.engineSeconds;
        }
        return { unitId, countedS, lastTime, lastIgnition, trackerS };
      });
      const column = <T>(of: (value: (typeof values)[number]) => T) => pgArrayLiteral(values.map(of));
      await tx
        .insert(unitEngineHours)
        .select(
          sql`SELECT unit_id, counted_s, last_time, last_ignition, tracker_s, ${now().toISOString()}::timestamptz
              FROM unnest(${column((v) => v.unitId)}::int[], ${column((v) => v.countedS)}::float8[], ${column((v) => v.lastTime)}::timestamptz[],
                          ${column((v) => v.lastIgnition)}::boolean[], ${column((v) => v.trackerS)}::float8[])
                AS x(unit_id, counted_s, last_time, last_ignition, tracker_s)`,
        )
        .onConflictDoUpdate({
          target: unitEngineHours.unitId,
          set: {
            countedS: sql`excluded.counted_s`,
            lastTime: sql`excluded.last_time`,
            lastIgnition: sql`excluded.last_ignition`,
            trackerS: sql`excluded.tracker_s`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    });
  }

  /** Takes stored positions off the ingest path at once; one runner counts them in batches behind it. */
  function queueEngineHours(unitId: number, positions: EnginePosition[]): void {
    const list = engineBacklog.get(unitId) ?? [];
    for (const position of positions) list.push(position);
    engineBacklog.set(unitId, list);
    if (engineRun) return;
    engineRun = (async () => {
      while (engineBacklog.size > 0) {
        await enginePace.next();
        const batch = new Map(engineBacklog);
        engineBacklog.clear();
        try {
          await countEngineHours(batch);
        } catch (error) {
          platform?.log.error('operating hours count failed', { units: batch.size, error: String(error) });
        }
      }
    })().finally(() => {
      engineRun = null;
    });
  }

  /** Odometer: the newest calibration plus what the tracker counted since; without one, the tracker's own counter. */
  function odometerM(calibration: { value: number; sourceValue: number | null } | undefined, live: UnitLiveState | undefined): number | null {
    const counter = live?.odometerM ?? null;
    if (!calibration) return counter;
    if (calibration.sourceValue !== null && counter !== null) return calibration.value + Math.max(0, counter - calibration.sourceValue);
    return calibration.value;
  }

  // Spec §3 operating hours: counted from every stored record.
  platform?.events.on('positions.stored', ({ unitId, positions }) => {
    queueEngineHours(unitId, positions);
  });

  const methods = {
    /** Resolves once the operating hours of every position stored so far are counted (tests, shutdown). */
    async engineHoursSettled(): Promise<void> {
      const release = enginePace.hold();
      try {
        while (engineRun) await engineRun;
      } finally {
        release();
      }
    },
  };
  return { latestCalibrations, engineCounters, operatingSeconds, odometerM, methods };
}

export type UnitHours = ReturnType<typeof createUnitHours>;
