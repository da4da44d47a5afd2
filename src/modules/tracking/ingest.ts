import type { DatabaseHandle, Querier } from '../../lib/db/client';
import type { EventBus } from '../../lib/events';
import type { Logger } from '../../lib/log';
import { Pacer } from '../../lib/pace';
import { type DecodedRecord, ioToJson, type NormalizedIo } from '../../lib/tracker-record';
import { EARLIEST_FIX_MS, FLAG_IMPLAUSIBLE, FLAGS_NOT_A_FIX, recordFlags } from './model';

/** One device's records from one frame, submitted together; resolved once durably stored. */
export interface IngestSubmission {
  unitId: number;
  /** The unit's account as the gateway's device look-up found it: the state writer publishes it without asking again. */
  accountId: number;
  protocol: string;
  deviceId: string;
  records: DecodedRecord[];
  /** The frame as received, kept for support for RAW_FRAME_RETENTION_DAYS. */
  rawFrame?: Uint8Array;
  remote?: string;
  receivedAt: Date;
}

/** Default of `FIX_FUTURE_SKEW_SECONDS`: how far ahead of the server clock a fix time may lie (device clocks drift). */
export const DEFAULT_FUTURE_SKEW_MS = 5 * 60 * 1000;

export interface StoredPosition {
  unitId: number;
  accountId: number;
  time: Date;
  latitude: number;
  longitude: number;
  speedKmh: number;
  course: number | null;
  valid: boolean;
  flags: number;
  ignition: boolean | undefined;
  odometerM: number | undefined;
  normalized: NormalizedIo;
}

/** A unit_state row as the state writer wrote it, with the unit's account. */
export interface WrittenState {
  unitId: number;
  accountId: number;
  time: Date;
  lat: number;
  lon: number;
  speedKmh: number;
  course: number | null;
  valid: boolean;
  ignition: boolean | null;
  odometerM: number | null;
  normalized: NormalizedIo;
  lastSeen: Date;
}

interface Pending {
  submission: IngestSubmission;
  /** When it was submitted (performance.now()). */
  at: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A submission made ready for the batch statement: its rows checked and its positions as the state writer sees them. */
interface Prepared {
  pending: Pending;
  positions: StoredPosition[];
  rows: unknown[][];
}

/**
 * A partial batch is written once its oldest submission has waited this long. Measured with 20,000 trackers sending one
 * record every 10 s: 10 ms gave 76 statements/s and PostgreSQL 39 % of a core, 25 ms 36 statements/s and 30 %, for
 * 10 ms more from frame to commit (p50 22 ms); writing whatever had arrived whenever a batch finished gave 153/s and 50 %.
 */
const BATCH_WINDOW_MS = 25;

/** The state writer starts a pass at most this often (see `Pacer`). */
const STATE_PASS_EVERY_MS = 100;

/** What the state writer has yet to fold in: committed positions and last contacts, with each unit's account. */
interface StateBacklog {
  positions: StoredPosition[];
  lastSeen: Map<number, Date>;
  accounts: Map<number, number>;
}

/**
 * Work another module does with each ingest batch inside the batch's own transaction, given the batch's stored
 * positions (every record with its flags: a hook skips what it does not want, e.g. `FLAGS_NOT_A_FIX`). What a hook
 * writes commits exactly when the positions do, so nothing it derives is lost or doubled by a crash. A hook that fails
 * fails the batch: nothing is stored and the devices send again. Resent records reach a hook again (duplicates are
 * not stored twice, but the hook cannot tell): a hook keeps its own record of what it has seen.
 */
export type StoredBatchHook = (query: Querier, positions: readonly StoredPosition[]) => Promise<void>;

/** The hooks the ingest writer runs per batch; a module registers its hook from its descriptor (tracking's `onStoredBatch`). */
export class StoredBatchHooks {
  private readonly hooks: StoredBatchHook[] = [];

  register(hook: StoredBatchHook): () => void {
    this.hooks.push(hook);
    return () => {
      const at = this.hooks.indexOf(hook);
      if (at >= 0) this.hooks.splice(at, 1);
    };
  }

  get size(): number {
    return this.hooks.length;
  }

  async run(query: Querier, positions: readonly StoredPosition[]): Promise<void> {
    if (positions.length === 0) return;
    for (const hook of this.hooks) await hook(query, positions);
  }
}

export interface IngestOptions {
  /** Run in each batch's transaction; without any the batch is one statement without BEGIN/COMMIT. */
  hooks?: StoredBatchHooks;
  maxBatchRecords?: number;
  maxDelayMs?: number;
  keepRawFrames?: boolean;
  maxConcurrentBatches?: number;
  /** How far ahead of the server clock a fix time may lie before it is flagged `FLAG_FUTURE`. */
  futureSkewMs?: number;
}

/**
 * The one write path for every protocol. Submissions are gathered for up to `BATCH_WINDOW_MS` (or until a
 * batch is full) and written in one statement: positions (duplicates ignored) and raw frames. Callers
 * acknowledge devices as soon as their promise resolves, i.e. once the records are durable. Each unit's
 * latest state is a projection of the stored positions: one state writer at a time folds everything
 * committed since its last run into unit_state and then publishes the domain events, so the device's
 * acknowledgement never waits for the projection and the projection never races itself.
 *
 * One record never fails a batch: every value is checked before the statement is built (implausible records are
 * flagged, values no column can hold are replaced), and should the database still refuse the batch's data, the
 * batch is written again submission by submission and the refused record alone is stored flagged, without its IO.
 */
export class IngestWriter {
  private queue: Pending[] = [];
  private queuedRecords = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly running = new Set<Promise<void>>();
  private stateBacklog: StateBacklog = emptyBacklog();
  private stateRun: Promise<void> | null = null;
  /** At most ten state passes a second: the live map batches per 250 ms anyway, and a trickle of positions then costs one transaction per pass, not one per ingest batch. */
  private readonly statePace = new Pacer(STATE_PASS_EVERY_MS);
  /** Records stored flagged because the database refused their values (counted for support and the benchmarks). */
  isolatedRecords = 0;
  /** Records stored with `FLAG_IMPLAUSIBLE`. */
  implausibleRecords = 0;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly options: IngestOptions = {},
  ) {}

  submit(submission: IngestSubmission): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ submission, at: performance.now(), resolve, reject });
      this.queuedRecords += submission.records.length;
      this.scheduleFlush();
    });
  }

  /**
   * A contact without a position (a heartbeat): the unit's `last_seen` moves on through the state writer, the one
   * writer of `unit_state`, with its next pass.
   */
  touch(unitId: number, accountId: number, at: Date): void {
    const seen = this.stateBacklog.lastSeen.get(unitId);
    if (!seen || seen < at) this.stateBacklog.lastSeen.set(unitId, at);
    this.stateBacklog.accounts.set(unitId, accountId);
    this.projectState();
  }

  /**
   * A full batch is written at once; a partial one once its oldest submission has waited `maxDelayMs`. Trackers that
   * send one record per frame (2,000 positions/s from 20,000 units) then share a statement per window
   * instead of a statement per handful of records, each with its own commit and WAL flush.
   */
  private scheduleFlush() {
    const oldest = this.queue[0];
    if (!oldest) return;
    if (this.queuedRecords >= (this.options.maxBatchRecords ?? 2000)) this.flushSoon(0);
    else this.flushSoon(Math.max(0, (this.options.maxDelayMs ?? BATCH_WINDOW_MS) - (performance.now() - oldest.at)));
  }

  private flushSoon(delayMs: number) {
    if (this.timer && delayMs > 0) return;
    if (delayMs <= 0 && this.running.size >= (this.options.maxConcurrentBatches ?? 3)) return; // a finishing batch starts the next
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
  }

  /**
   * Writes the next batch. At most `maxConcurrentBatches` run at once; a finishing batch starts the next one that is
   * due, so under load full batches follow each other back to back and new work accumulates meanwhile.
   */
  async flush(): Promise<void> {
    if (this.queue.length === 0 || this.running.size >= (this.options.maxConcurrentBatches ?? 3)) return;
    // Whole submissions up to the batch cap: bounded batches keep frame-to-commit latency bounded.
    const cap = this.options.maxBatchRecords ?? 2000;
    let taken = 0;
    let records = 0;
    while (taken < this.queue.length && (taken === 0 || records + this.queue[taken]!.submission.records.length <= cap)) {
      records += this.queue[taken]!.submission.records.length;
      taken += 1;
    }
    const batch = this.queue.splice(0, taken);
    this.queuedRecords -= records;
    const run: Promise<void> = this.writeBatch(batch).finally(() => {
      this.running.delete(run);
      this.scheduleFlush();
    });
    this.running.add(run);
    this.scheduleFlush();
    return run;
  }

  /** Waits until everything submitted so far is written, projected into unit_state and published. */
  async drain(): Promise<void> {
    const release = this.statePace.hold();
    try {
      for (;;) {
        if (this.queue.length > 0 && this.running.size < (this.options.maxConcurrentBatches ?? 3)) await this.flush();
        else if (this.running.size > 0) await Promise.race(this.running);
        else if (this.stateRun) await this.stateRun;
        else if (this.queue.length === 0 && this.stateBacklog.positions.length === 0 && this.stateBacklog.lastSeen.size === 0) return;
        else this.projectState();
      }
    } finally {
      release();
    }
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    const now = Date.now();
    const skewMs = this.options.futureSkewMs ?? DEFAULT_FUTURE_SKEW_MS;
    const prepared = batch.map((pending) => prepare(pending, now, skewMs));
    const keepRawFrames = this.options.keepRawFrames !== false;
    let stored: Prepared[];
    try {
      await this.store(prepared, keepRawFrames);
      stored = prepared;
    } catch (error) {
      if (!isDataError(error)) {
        // The database itself failed (gone, full): nothing is stored, every device sends its records again.
        this.log.error('ingest batch failed', { error: String(error), submissions: batch.length });
        for (const pending of batch) pending.reject(error);
        return;
      }
      stored = await this.isolate(prepared, keepRawFrames);
    }
    for (const item of stored) item.pending.resolve();
    for (const item of stored) {
      const { unitId, accountId, receivedAt } = item.pending.submission;
      for (const position of item.positions) {
        if (position.flags & FLAG_IMPLAUSIBLE) this.implausibleRecords += 1;
        this.stateBacklog.positions.push(position);
      }
      const seen = this.stateBacklog.lastSeen.get(unitId);
      if (!seen || seen < receivedAt) this.stateBacklog.lastSeen.set(unitId, receivedAt);
      this.stateBacklog.accounts.set(unitId, accountId);
    }
    this.projectState();
  }

  /**
   * Positions and raw frames in one statement; with stored-batch hooks, that statement and the hooks in one transaction.
   */
  private async store(items: Prepared[], keepRawFrames: boolean): Promise<void> {
    const rows = items.flatMap((item) => item.rows);
    const frames = keepRawFrames ? items.flatMap(frameRow) : [];
    const hooks = this.options.hooks;
    if (!hooks || hooks.size === 0) {
      await insertRows(this.database.query, rows, frames);
      return;
    }
    await this.database.transaction(async (tx) => {
      await insertRows(tx, rows, frames);
      await hooks.run(tx, items.flatMap((item) => item.positions));
    });
  }

  /**
   * The database refused the batch's data although every value was checked: the submissions are written one by one,
   * and within a refused one each record alone, so the rest commits and is acknowledged. A record refused even alone
   * is stored flagged implausible without its IO (its raw frame keeps everything), counted and logged with its device.
   * Returns what is stored; a submission that cannot be stored at all is rejected (its device sends it again).
   */
  private async isolate(prepared: Prepared[], keepRawFrames: boolean): Promise<Prepared[]> {
    const query = this.database.query;
    const stored: Prepared[] = [];
    for (const item of prepared) {
      const { submission } = item.pending;
      try {
        await this.store([item], keepRawFrames);
        stored.push(item);
        continue;
      } catch (error) {
        if (!isDataError(error)) {
          item.pending.reject(error);
          continue;
        }
      }
      try {
        if (keepRawFrames) await insertRows(query, [], frameRow(item));
        const positions: StoredPosition[] = [];
        for (const [i, row] of item.rows.entries()) {
          try {
            await insertRows(query, [row], []);
            positions.push(item.positions[i]!);
          } catch (error) {
            if (!isDataError(error)) throw error;
            this.isolatedRecords += 1;
            this.log.warn('tracker record refused by the database, stored flagged without its IO', {
              protocol: submission.protocol,
              deviceId: submission.deviceId,
              unitId: submission.unitId,
              error: String(error),
            });
            await insertRows(query, [quarantined(row)], []);
          }
        }
        // Record by record the rows commit one at a time; the hooks see the stored ones afterwards in a transaction of their own.
        const hooks = this.options.hooks;
        if (hooks && hooks.size > 0) await this.database.transaction((tx) => hooks.run(tx, positions));
        stored.push({ ...item, positions });
      } catch (error) {
        this.log.error('tracker frame could not be stored', { protocol: submission.protocol, deviceId: submission.deviceId, error: String(error) });
        item.pending.reject(error);
      }
    }
    return stored;
  }

  /** Starts the state writer unless it runs already; a running one picks up the backlog when it finishes. */
  private projectState(): void {
    if (this.stateRun) return;
    this.stateRun = (async () => {
      while (this.stateBacklog.positions.length > 0 || this.stateBacklog.lastSeen.size > 0) {
        await this.statePace.next();
        const backlog = this.stateBacklog;
        this.stateBacklog = emptyBacklog();
        await this.writeState(backlog);
      }
    })().finally(() => {
      this.stateRun = null;
    });
  }

  private async writeState(backlog: StateBacklog): Promise<void> {
    const { positions } = backlog;
    let transitions: Transitions;
    let written: WrittenState[];
    try {
      ({ transitions, written } = await this.database.transaction((query) => updateUnitState(query, backlog)));
    } catch (error) {
      // The positions are stored; the next report of each unit brings its latest state up to date again.
      this.log.error('unit state update failed', { error: String(error), units: backlog.lastSeen.size });
      return;
    }
    // Events go out after the commit, so subscribers read what devices were told is stored.
    if (written.length > 0) await this.events.emit('unit.states', { rows: written });
    const byUnit = new Map<number, StoredPosition[]>();
    for (const position of positions) {
      const list = byUnit.get(position.unitId) ?? [];
      list.push(position);
      byUnit.set(position.unitId, list);
    }
    for (const [unitId, list] of byUnit) {
      list.sort((a, b) => a.time.getTime() - b.time.getTime());
      await this.events.emit('positions.stored', { unitId, positions: list });
      for (const position of list) {
        if (position.flags & FLAG_IMPLAUSIBLE) continue;
        for (const reading of position.normalized.ble ?? []) await this.events.emit('sensor.reading', { unitId, time: position.time, reading });
      }
    }
    for (const transition of transitions.ignition) await this.events.emit('ignition.changed', transition);
    for (const transition of transitions.inputs) await this.events.emit('input.changed', transition);
  }
}

function emptyBacklog(): StateBacklog {
  return { positions: [], lastSeen: new Map(), accounts: new Map() };
}

/** Class 22 (data exception: out of range, bad encoding) and 23 (a constraint): the data, not the database, failed. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** A finite number within ±limit, else the fallback: a value its column cannot hold must not fail the batch. */
function bounded<T>(value: number | null, limit: number, fallback: T): number | T {
  return value !== null && Number.isFinite(value) && Math.abs(value) <= limit ? value : fallback;
}

/** An integer column's value (smallint, integer), else the fallback. */
function integer<T>(value: number | null, min: number, max: number, fallback: T): number | T {
  return value !== null && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

const REAL_LIMIT = 1e30;
const SMALLINT_MAX = 32_767;
const INTEGER_MAX = 2_147_483_647;

/**
 * A submission's rows for the batch statement. An implausible record is stored at (about) its arrival time when its own
 * time is unusable, with coordinates 0 when they are not numbers, and never as valid; values a column cannot hold are replaced.
 */
function prepare(pending: Pending, now: number, futureSkewMs: number): Prepared {
  const { submission } = pending;
  const { unitId, accountId } = submission;
  const received = submission.receivedAt.getTime();
  const positions: StoredPosition[] = [];
  const rows: unknown[][] = [];
  for (const [index, record] of submission.records.entries()) {
    const flags = recordFlags(record, now, futureSkewMs);
    // An unusable time becomes the arrival time, a millisecond apart per record, so such records of one frame are all kept.
    const time = record.time.getTime() >= EARLIEST_FIX_MS ? record.time : new Date(received + index);
    const { latitude, longitude } = record;
    const implausible = (flags & FLAG_IMPLAUSIBLE) !== 0;
    const position: StoredPosition = {
      unitId,
      accountId,
      time,
      latitude: bounded(latitude, REAL_LIMIT, 0),
      longitude: bounded(longitude, REAL_LIMIT, 0),
      speedKmh: bounded(record.speedKmh, REAL_LIMIT, 0),
      course: bounded(record.course, REAL_LIMIT, null),
      valid: record.valid && !implausible,
      flags,
      ignition: record.normalized.ignition,
      odometerM: bounded(record.normalized.odometerM ?? null, Number.MAX_VALUE, undefined),
      normalized: record.normalized,
    };
    positions.push(position);
    rows.push([unitId, time.getTime(), received, position.longitude, position.latitude, bounded(record.altitude, REAL_LIMIT, null),
      position.speedKmh, position.course, integer(record.satellites, 0, SMALLINT_MAX, null), position.valid, flags,
      position.ignition ?? null, position.odometerM ?? null, integer(record.priority, -SMALLINT_MAX, SMALLINT_MAX, 0),
      integer(record.eventId, -INTEGER_MAX, INTEGER_MAX, null), ioToJson(record.io), position.normalized]);
  }
  return { pending, positions, rows };
}

/** A record the database refused even alone: its place and time, flagged implausible and not valid, without IO. */
function quarantined(row: unknown[]): unknown[] {
  const [unitId, time, received, lon, lat] = row;
  return [unitId, time, received, lon, lat, null, 0, null, null, false, Number(row[10]) | FLAG_IMPLAUSIBLE, null, null, 0, null, {}, {}];
}

function frameRow(item: Prepared): unknown[][] {
  const f = item.pending.submission;
  return f.rawFrame ? [[f.receivedAt.getTime(), f.protocol, f.deviceId, f.remote ?? '', Buffer.from(f.rawFrame).toString('hex')]] : [];
}

/**
 * Rows are JSON-safe by construction (raw IO through ioToJson, the normalised view holds no bigint), so the
 * native stringify runs without a replacer: a replacer is called for every value and was the gateway's
 * largest CPU cost under load.
 */
function toJson(rows: unknown[][]): string {
  return JSON.stringify(rows);
}

/**
 * Positions and raw frames of a batch in ONE statement (a data-modifying CTE): atomic without BEGIN/COMMIT,
 * one round trip, and no connection left idle in a transaction while this process is busy decoding frames.
 * Each part is one JSON document of row tuples: one native stringify here, one parse in the server, no
 * per-value escaping, and the io/normalized objects go in without being encoded twice.
 */
async function insertRows(query: Querier, rows: unknown[][], frames: unknown[][]) {
  if (rows.length === 0 && frames.length === 0) return;
  await query(
    `WITH stored AS (
       INSERT INTO positions (unit_id, time, received_at, geom, altitude, speed_kmh, course, satellites, valid, flags,
                              ignition, odometer_m, priority, event_id, io, normalized)
       SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), to_timestamp((e->>2)::float8 / 1000),
              ST_SetSRID(ST_MakePoint((e->>3)::float8, (e->>4)::float8), 4326), (e->>5)::real, (e->>6)::real, (e->>7)::real,
              (e->>8)::smallint, (e->>9)::boolean, (e->>10)::smallint, (e->>11)::boolean, (e->>12)::float8, (e->>13)::smallint,
              (e->>14)::int, e->15, e->16
       FROM jsonb_array_elements($1::jsonb) AS e
       ON CONFLICT (unit_id, time) DO NOTHING
       RETURNING 1
     )
     INSERT INTO raw_frames (received_at, protocol, device_id, remote, payload)
     SELECT to_timestamp((f->>0)::float8 / 1000), f->>1, f->>2, f->>3, decode(f->>4, 'hex')
     FROM jsonb_array_elements($2::jsonb) AS f`,
    [toJson(rows), JSON.stringify(frames)],
  );
}

const INPUTS = ['din1', 'din2', 'din3'] as const;
interface Transitions {
  ignition: Array<{ unitId: number; time: Date; ignition: boolean }>;
  inputs: Array<{ unitId: number; time: Date; input: (typeof INPUTS)[number]; value: boolean }>;
}

type WrittenRow = {
  unit_id: number;
  time: Date | string;
  lat: number;
  lon: number;
  speed_kmh: number;
  course: number | null;
  valid: boolean;
  ignition: boolean | null;
  odometer_m: number | null;
  normalized: NormalizedIo | string;
  last_seen: Date | string;
};

const WRITTEN_COLUMNS = 'unit_id, time, ST_Y(geom) AS lat, ST_X(geom) AS lon, speed_kmh, course, valid, ignition, odometer_m, normalized, last_seen';

/**
 * Keeps each unit's latest state: the newest fix that is neither in the future nor implausible wins (late records never
 * move a unit backwards); last_seen moves on any contact, a heartbeat included. Returns ignition changes against the
 * stored state.
 */
async function updateUnitState(query: Querier, backlog: StateBacklog): Promise<{ transitions: Transitions; written: WrittenState[] }> {
  const { positions, lastSeen, accounts } = backlog;
  const latest = new Map<number, StoredPosition>();
  for (const position of positions) {
    if (position.flags & FLAGS_NOT_A_FIX) continue;
    const current = latest.get(position.unitId);
    if (!current || position.time > current.time) latest.set(position.unitId, position);
  }
  const touched = [...lastSeen.keys()].filter((unitId) => !latest.has(unitId)).sort((a, b) => a - b);
  if (latest.size === 0 && touched.length === 0) return { transitions: { ignition: [], inputs: [] }, written: [] };
  const units = [...latest.values()].sort((a, b) => a.unitId - b.unitId);
  const previous = await query<{ unit_id: number; ignition: boolean | null; time: string | Date; normalized: NormalizedIo | string | null }>(
    // Locked in unit order, so concurrent batches never wait on each other crosswise (no deadlocks).
    'SELECT unit_id, ignition, time, normalized FROM unit_state WHERE unit_id = ANY($1::int[]) ORDER BY unit_id FOR UPDATE',
    [[...units.map((u) => u.unitId), ...touched].sort((a, b) => a - b)],
  );
  const before = new Map(previous.filter((row) => latest.has(row.unit_id)).map((row) => [row.unit_id, row]));
  const rows = units.map((u) => [u.unitId, u.time.getTime(), u.longitude, u.latitude, u.speedKmh, u.course, u.valid, u.ignition ?? null,
    u.odometerM ?? null, u.normalized, (lastSeen.get(u.unitId) ?? u.time).getTime()]);
  const written =
    rows.length === 0
      ? []
      : await query<WrittenRow>(
          `INSERT INTO unit_state (unit_id, time, geom, speed_kmh, course, valid, ignition, odometer_m, normalized, last_seen)
     SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), ST_SetSRID(ST_MakePoint((e->>2)::float8, (e->>3)::float8), 4326),
            (e->>4)::real, (e->>5)::real, (e->>6)::boolean, (e->>7)::boolean, (e->>8)::float8, e->9, to_timestamp((e->>10)::float8 / 1000)
     FROM jsonb_array_elements($1::jsonb) AS e
     -- A unit deleted since its frame arrived has nothing left to project into. One index probe per row:
     -- OFFSET 0 keeps the planner from making this a hash join over every unit (4 ms a batch at 20,000 units).
     WHERE EXISTS (SELECT 1 FROM unit_directory u WHERE u.id = (e->>0)::int OFFSET 0)
     ON CONFLICT (unit_id) DO UPDATE SET
       time = EXCLUDED.time, geom = EXCLUDED.geom, speed_kmh = EXCLUDED.speed_kmh, course = EXCLUDED.course,
       valid = EXCLUDED.valid, ignition = COALESCE(EXCLUDED.ignition, unit_state.ignition),
       odometer_m = COALESCE(EXCLUDED.odometer_m, unit_state.odometer_m), normalized = EXCLUDED.normalized,
       last_seen = GREATEST(unit_state.last_seen, EXCLUDED.last_seen)
     WHERE unit_state.time <= EXCLUDED.time
     RETURNING ${WRITTEN_COLUMNS}`,
          [toJson(rows)],
        );
  // Contacts without a fix (heartbeats, only implausible records): the last contact moves on, the position stays.
  const contacts =
    touched.length === 0
      ? []
      : await query<WrittenRow>(
          `UPDATE unit_state SET last_seen = to_timestamp(c.seen_ms / 1000)
           FROM unnest($1::int[], $2::float8[]) AS c(id, seen_ms)
           WHERE unit_state.unit_id = c.id AND unit_state.last_seen < to_timestamp(c.seen_ms / 1000)
           RETURNING ${WRITTEN_COLUMNS}`,
          [touched, touched.map((unitId) => lastSeen.get(unitId)!.getTime())],
        );
  // Walk every new record in time order, so an on-off-on inside one frame gives every change.
  const transitions: Transitions = { ignition: [], inputs: [] };
  const ordered = positions.filter((p) => !(p.flags & FLAGS_NOT_A_FIX)).sort((a, b) => a.time.getTime() - b.time.getTime());
  const state = new Map<number, { time: Date | null; ignition: boolean | null; inputs: Partial<Record<(typeof INPUTS)[number], boolean>> }>();
  for (const [unitId, row] of before) {
    const normalized: NormalizedIo = typeof row.normalized === 'string' ? JSON.parse(row.normalized) : (row.normalized ?? {});
    state.set(unitId, { time: new Date(row.time), ignition: row.ignition, inputs: { din1: normalized.din1, din2: normalized.din2, din3: normalized.din3 } });
  }
  for (const position of ordered) {
    let current = state.get(position.unitId);
    if (!current) {
      current = { time: null, ignition: null, inputs: {} };
      state.set(position.unitId, current);
    }
    if (current.time && position.time <= current.time) continue; // late record: history, not a change
    current.time = position.time;
    if (position.ignition !== undefined && current.ignition !== position.ignition) {
      transitions.ignition.push({ unitId: position.unitId, time: position.time, ignition: position.ignition });
      current.ignition = position.ignition;
    }
    for (const input of INPUTS) {
      const value = position.normalized[input];
      if (value === undefined) continue;
      const prior = current.inputs[input];
      if (prior !== undefined && prior !== value) transitions.inputs.push({ unitId: position.unitId, time: position.time, input, value });
      current.inputs[input] = value;
    }
  }
  return {
    transitions,
    written: [...written, ...contacts].map((row) => ({
      unitId: row.unit_id,
      accountId: accounts.get(row.unit_id)!,
      time: new Date(row.time),
      lat: Number(row.lat),
      lon: Number(row.lon),
      speedKmh: Number(row.speed_kmh),
      course: row.course === null ? null : Number(row.course),
      valid: row.valid,
      ignition: row.ignition,
      odometerM: row.odometer_m === null ? null : Number(row.odometer_m),
      normalized: typeof row.normalized === 'string' ? (JSON.parse(row.normalized) as NormalizedIo) : row.normalized,
      lastSeen: new Date(row.last_seen),
    })),
  };
}
