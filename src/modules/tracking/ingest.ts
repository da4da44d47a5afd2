import type { DatabaseHandle, Querier } from '../../lib/db/client';
import type { EventBus } from '../../lib/events';
import type { Logger } from '../../lib/log';
import { Pacer } from '../../lib/pace';
import { type DecodedRecord, ioToJson, type NormalizedIo } from '../../gateway/types';

/** One device's records from one frame, submitted together; resolved once durably stored. */
export interface IngestSubmission {
  unitId: number;
  protocol: string;
  deviceId: string;
  records: DecodedRecord[];
  /** The frame as received, kept for support for RAW_FRAME_RETENTION_DAYS. */
  rawFrame?: Uint8Array;
  remote?: string;
  receivedAt: Date;
}

export const FLAG_INVALID_FIX = 1;
export const FLAG_FUTURE = 2;
/** A fix more than this far ahead of the server clock is flagged as in the future. */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

export interface StoredPosition {
  unitId: number;
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

/**
 * A partial batch is written once its oldest submission has waited this long. Measured with 20,000 trackers sending one
 * record every 10 s: 10 ms gave 76 statements/s and PostgreSQL 39 % of a core, 25 ms 36 statements/s and 30 %, for
 * 10 ms more from frame to commit (p50 22 ms); writing whatever had arrived whenever a batch finished gave 153/s and 50 %.
 */
const BATCH_WINDOW_MS = 25;

/** The state writer starts a pass at most this often (see `Pacer`). */
const STATE_PASS_EVERY_MS = 100;

/**
 * The one write path for every protocol. Submissions are gathered for up to `BATCH_WINDOW_MS` (or until a
 * batch is full) and written in one statement: positions (duplicates ignored) and raw frames. Callers
 * acknowledge devices as soon as their promise resolves, i.e. once the records are durable. Each unit's
 * latest state is a projection of the stored positions: one state writer at a time folds everything
 * committed since its last run into unit_state and then publishes the domain events, so the device's
 * acknowledgement never waits for the projection and the projection never races itself.
 */
export class IngestWriter {
  private queue: Pending[] = [];
  private queuedRecords = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly running = new Set<Promise<void>>();
  /** Committed positions and last contacts waiting for the state writer. */
  private stateBacklog: { positions: StoredPosition[]; lastSeen: Map<number, Date> } = { positions: [], lastSeen: new Map() };
  private stateRun: Promise<void> | null = null;
  /** At most ten state passes a second: the live map batches per 250 ms anyway, and a trickle of positions then costs one transaction per pass, not one per ingest batch. */
  private readonly statePace = new Pacer(STATE_PASS_EVERY_MS);

  constructor(
    private readonly database: DatabaseHandle,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly options: { maxBatchRecords?: number; maxDelayMs?: number; keepRawFrames?: boolean; maxConcurrentBatches?: number } = {},
  ) {}

  submit(submission: IngestSubmission): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ submission, at: performance.now(), resolve, reject });
      this.queuedRecords += submission.records.length;
      this.scheduleFlush();
    });
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
    const submissions = batch.map((p) => p.submission);
    const positions: StoredPosition[] = [];
    for (const submission of submissions) {
      for (const record of submission.records) positions.push(toStored(submission.unitId, record, now));
    }
    try {
      await insertBatch(this.database.query, positions, submissions, this.options.keepRawFrames !== false);
    } catch (error) {
      this.log.error('ingest batch failed', { error: String(error), submissions: batch.length });
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const pending of batch) pending.resolve();
    for (const position of positions) this.stateBacklog.positions.push(position);
    for (const submission of submissions) {
      const seen = this.stateBacklog.lastSeen.get(submission.unitId);
      if (!seen || seen < submission.receivedAt) this.stateBacklog.lastSeen.set(submission.unitId, submission.receivedAt);
    }
    this.projectState();
  }

  /** Starts the state writer unless it runs already; a running one picks up the backlog when it finishes. */
  private projectState(): void {
    if (this.stateRun) return;
    this.stateRun = (async () => {
      while (this.stateBacklog.positions.length > 0 || this.stateBacklog.lastSeen.size > 0) {
        await this.statePace.next();
        const { positions, lastSeen } = this.stateBacklog;
        this.stateBacklog = { positions: [], lastSeen: new Map() };
        await this.writeState(positions, lastSeen);
      }
    })().finally(() => {
      this.stateRun = null;
    });
  }

  private async writeState(positions: StoredPosition[], lastSeen: Map<number, Date>): Promise<void> {
    let transitions: Transitions;
    let written: WrittenState[];
    try {
      ({ transitions, written } = await this.database.transaction((query) => updateUnitState(query, positions, lastSeen)));
    } catch (error) {
      // The positions are stored; the next report of each unit brings its latest state up to date again.
      this.log.error('unit state update failed', { error: String(error), units: lastSeen.size });
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
        for (const reading of position.normalized.ble ?? []) await this.events.emit('sensor.reading', { unitId, time: position.time, reading });
      }
    }
    for (const transition of transitions.ignition) await this.events.emit('ignition.changed', transition);
    for (const transition of transitions.inputs) await this.events.emit('input.changed', transition);
  }
}

function toStored(unitId: number, record: DecodedRecord, now: number): StoredPosition {
  let flags = 0;
  if (!record.valid) flags |= FLAG_INVALID_FIX;
  if (record.time.getTime() > now + FUTURE_TOLERANCE_MS) flags |= FLAG_FUTURE;
  return {
    unitId,
    time: record.time,
    latitude: record.latitude,
    longitude: record.longitude,
    speedKmh: record.speedKmh,
    course: record.course,
    valid: record.valid,
    flags,
    ignition: record.normalized.ignition,
    odometerM: record.normalized.odometerM,
    normalized: record.normalized,
  };
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
async function insertBatch(query: Querier, positions: StoredPosition[], submissions: IngestSubmission[], keepRawFrames: boolean) {
  if (positions.length === 0 && !keepRawFrames) return;
  const received = new Map<number, number>();
  for (const submission of submissions) received.set(submission.unitId, submission.receivedAt.getTime());
  const records = submissions.flatMap((s) => s.records);
  const rows = positions.map((p, i) => {
    const r = records[i]!;
    return [p.unitId, p.time.getTime(), received.get(p.unitId), p.longitude, p.latitude, r.altitude, p.speedKmh, p.course, r.satellites,
      p.valid, p.flags, p.ignition ?? null, p.odometerM ?? null, r.priority, r.eventId, ioToJson(r.io), p.normalized];
  });
  const frames = keepRawFrames
    ? submissions
        .filter((s) => s.rawFrame)
        .map((f) => [f.receivedAt.getTime(), f.protocol, f.deviceId, f.remote ?? '', Buffer.from(f.rawFrame!).toString('hex')])
    : [];
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

/**
 * Keeps each unit's latest state: the newest valid, non-future fix wins (late records never move a
 * unit backwards); last_seen moves on any contact. Returns ignition changes against the stored state.
 */
async function updateUnitState(
  query: Querier,
  positions: StoredPosition[],
  lastSeen: Map<number, Date>,
): Promise<{ transitions: Transitions; written: WrittenState[] }> {
  const latest = new Map<number, StoredPosition>();
  for (const position of positions) {
    if (position.flags & FLAG_FUTURE) continue;
    const current = latest.get(position.unitId);
    if (!current || position.time > current.time) latest.set(position.unitId, position);
  }
  if (latest.size === 0) return { transitions: { ignition: [], inputs: [] }, written: [] };
  const units = [...latest.values()].sort((a, b) => a.unitId - b.unitId);
  const previous = await query<{ unit_id: number; ignition: boolean | null; time: string | Date; normalized: NormalizedIo | string | null }>(
    // Locked in unit order, so concurrent batches never wait on each other crosswise (no deadlocks).
    'SELECT unit_id, ignition, time, normalized FROM unit_state WHERE unit_id = ANY($1::int[]) ORDER BY unit_id FOR UPDATE',
    [units.map((u) => u.unitId)],
  );
  const before = new Map(previous.map((row) => [row.unit_id, row]));
  const rows = units.map((u) => [u.unitId, u.time.getTime(), u.longitude, u.latitude, u.speedKmh, u.course, u.valid, u.ignition ?? null,
    u.odometerM ?? null, u.normalized, (lastSeen.get(u.unitId) ?? u.time).getTime()]);
  const written = await query<{
    unit_id: number;
    account_id: number;
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
  }>(
    `INSERT INTO unit_state (unit_id, time, geom, speed_kmh, course, valid, ignition, odometer_m, normalized, last_seen)
     SELECT (e->>0)::int, to_timestamp((e->>1)::float8 / 1000), ST_SetSRID(ST_MakePoint((e->>2)::float8, (e->>3)::float8), 4326),
            (e->>4)::real, (e->>5)::real, (e->>6)::boolean, (e->>7)::boolean, (e->>8)::float8, e->9, to_timestamp((e->>10)::float8 / 1000)
     FROM jsonb_array_elements($1::jsonb) AS e
     -- A unit deleted since its frame arrived has nothing left to project into. One index probe per row:
     -- OFFSET 0 keeps the planner from making this a hash join over every unit (4 ms a batch at 20,000 units).
     WHERE EXISTS (SELECT 1 FROM units WHERE units.id = (e->>0)::int OFFSET 0)
     ON CONFLICT (unit_id) DO UPDATE SET
       time = EXCLUDED.time, geom = EXCLUDED.geom, speed_kmh = EXCLUDED.speed_kmh, course = EXCLUDED.course,
       valid = EXCLUDED.valid, ignition = COALESCE(EXCLUDED.ignition, unit_state.ignition),
       odometer_m = COALESCE(EXCLUDED.odometer_m, unit_state.odometer_m), normalized = EXCLUDED.normalized,
       last_seen = GREATEST(unit_state.last_seen, EXCLUDED.last_seen)
     WHERE unit_state.time <= EXCLUDED.time
     RETURNING unit_id, (SELECT account_id FROM units WHERE units.id = unit_state.unit_id) AS account_id, time,
               ST_Y(geom) AS lat, ST_X(geom) AS lon, speed_kmh, course, valid, ignition, odometer_m, normalized, last_seen`,
    [toJson(rows)],
  );
  // Walk every new record in time order, so an on-off-on inside one frame gives every change.
  const transitions: Transitions = { ignition: [], inputs: [] };
  const ordered = positions.filter((p) => !(p.flags & FLAG_FUTURE)).sort((a, b) => a.time.getTime() - b.time.getTime());
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
    written: written.map((row) => ({
      unitId: row.unit_id,
      accountId: row.account_id,
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
