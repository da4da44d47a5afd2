import {
  LIVE_CLOSE,
  type LiveMessage,
  type LiveState,
  decodeUnitList,
  type TrackedUnit,
  type TrackedUnitList,
  unitStatus,
} from '../../../modules/tracking/model';
import { publishLiveAlarms } from '../../lib/alarms';
import { api, isApiError, NAVIGATE_EVENT } from '../../lib/api';
import { PATHS } from '../../lib/paths';
import { clearSession, getSession, type SessionUser, updateSessionUser } from '../../lib/session';
import { takePrefetchedUnits } from './prefetch';

export type { TrackedUnit };

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** Reconnect delays after a dropped socket (ms); the last one repeats. */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 20_000];
/** How often statuses are aged on the client (a unit silent for 30 min turns offline between messages). */
const AGE_EVERY_MS = 30_000;
/** Samples of the ingest-to-marker probe kept for a benchmark to read. */
const PROBE_SAMPLES = 100_000;

/**
 * The live fleet of the signed-in account: the list from `GET /api/tracking/units`, kept current by the
 * live socket (`/api/tracking/live`). Lives outside React: every update message is applied in O(units
 * in it) and listeners are told once per message; the map draws at most once per animation frame and the
 * side panel re-reads at most a few times a second, so a browser never falls behind 2,000 positions/s.
 */
export class FleetStore {
  /** Units in list order (by name, as the server sends them); entries are replaced, never mutated. */
  units: TrackedUnit[] = [];
  private readonly indexById = new Map<number, number>();
  /** Bumps on every applied change. */
  version = 0;
  /** Bumps when the set of units changes (a reload), not on position updates. */
  listVersion = 0;
  /** Ids changed since the map last took them (`takeChanged`). */
  private changed = new Set<number>();
  /** Units with an open security alarm (they stand out on the map). */
  security: ReadonlySet<number> = new Set();
  loadState: 'loading' | 'ready' | 'error' = 'loading';
  loadError: unknown = null;
  connection: ConnectionState = 'connecting';
  /** Server time of the newest message: the `since` of a reconnect. */
  private since: string | null = null;
  private socket: WebSocket | null = null;
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private ageTimer: ReturnType<typeof setInterval> | null = null;
  private reloadTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly listeners = new Set<() => void>();
  /** When the page received each unit's newest live state (epoch ms): the latency probe's split. */
  private readonly receivedAt = new Map<number, number>();
  /**
   * Ingest-to-marker samples: [ingest time (the state's lastSeen), the page's receipt of that state, the draw that
   * set it in the layers, the render that drew it] (epoch ms; see `recordDrawn`).
   */
  readonly probe = {
    drawn: [] as Array<[number, number, number, number]>,
    firstDrawAt: 0,
    loadedAt: 0,
    messages: 0,
    unitsReceived: 0,
    /** Moments of the map's start (performance.now()): where a slow first draw went. */
    marks: {} as Record<string, number>,
    /** Per update message: [server send time, browser receive time, oldest lastSeen in it, newest lastSeen] (ms). */
    updates: [] as Array<[number, number, number, number]>,
  };

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: number): TrackedUnit | undefined {
    const at = this.indexById.get(id);
    return at === undefined ? undefined : this.units[at];
  }

  indexOf(id: number): number | undefined {
    return this.indexById.get(id);
  }

  /** The ids changed since the last call (the map's partial redraw). */
  takeChanged(): Set<number> {
    const taken = this.changed;
    this.changed = new Set();
    return taken;
  }

  /** The units with an open security alarm now: those that gain or lose one are drawn again. */
  setSecurity(ids: readonly number[]): void {
    const next = new Set(ids);
    const flipped = [...next].filter((id) => !this.security.has(id)).concat([...this.security].filter((id) => !next.has(id)));
    if (flipped.length === 0) return;
    for (const id of flipped) this.changed.add(id);
    this.security = next;
    this.emit();
  }

  /** Loads the list, then opens the live socket with `since` = the list's server time. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.load();
    if (this.stopped || this.loadState !== 'ready') return;
    this.connect();
    this.ageTimer = setInterval(() => this.age(), AGE_EVERY_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    if (this.ageTimer) clearInterval(this.ageTimer);
    this.reconnectTimer = null;
    this.reloadTimer = null;
    this.ageTimer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.onerror = null;
      socket.close(1000, 'page left');
    }
    this.listeners.clear();
  }

  private emit(): void {
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  private async load(): Promise<void> {
    try {
      const data = decodeUnitList(await (takePrefetchedUnits() ?? api.get<TrackedUnitList>('/api/tracking/units')));
      if (this.stopped) return;
      this.replaceAll(data.units);
      this.since = data.serverTime;
      this.loadState = 'ready';
      this.loadError = null;
      this.probe.loadedAt = performance.now();
    } catch (error) {
      if (this.stopped) return;
      this.loadState = 'error';
      this.loadError = error;
      if (isApiError(error) && error.status === 403) void this.refreshUser();
    }
    this.emit();
  }

  private replaceAll(units: TrackedUnit[]): void {
    this.units = units;
    this.indexById.clear();
    for (let at = 0; at < this.units.length; at++) this.indexById.set(this.units[at]!.id, at);
    this.listVersion += 1;
    this.changed = new Set(this.indexById.keys());
    this.receivedAt.clear();
  }

  /** Replaces the states of the units in a message; an unknown id means a unit was added: reload the list. */
  apply(states: LiveState[]): void {
    let unknown = false;
    const now = Date.now();
    for (const state of states) {
      const at = this.indexById.get(state.id);
      if (at === undefined) {
        unknown = true;
        continue;
      }
      const previous = this.units[at]!;
      // The live state replaces the old one; what only the list carries (name, marker, tags…) stays.
      this.units[at] = { ...previous, ...state };
      this.changed.add(state.id);
      this.receivedAt.set(state.id, now);
    }
    this.probe.unitsReceived += states.length;
    if (unknown) this.scheduleReload();
    if (states.length > 0) this.emit();
  }

  private scheduleReload(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(async () => {
      this.reloadTimer = null;
      try {
        const data = decodeUnitList(await api.get<TrackedUnitList>('/api/tracking/units'));
        if (this.stopped) return;
        this.replaceAll(data.units);
        this.emit();
      } catch {
        // The next unknown id tries again.
      }
    }, 1000);
  }

  /** Ages statuses between messages with the server's own rule. */
  private age(): void {
    const now = Date.now();
    let any = false;
    this.units.forEach((unit, at) => {
      const status = unitStatus(unit, now);
      if (status !== unit.status) {
        this.units[at] = { ...unit, status };
        this.changed.add(unit.id);
        any = true;
      }
    });
    if (any) this.emit();
  }

  private connect(): void {
    const session = getSession();
    if (!session || this.stopped) return;
    const url = new URL('/api/tracking/live', window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    if (this.since) url.searchParams.set('since', this.since);
    let opened = false;
    const socket = new WebSocket(url, ['bearer', session.user.token]);
    this.socket = socket;
    this.connection = this.attempt === 0 ? 'connecting' : 'reconnecting';
    socket.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.connection = 'live';
      this.emit();
      // Alarms raised while the socket was closed sent no message: the bell reads its summary again.
      publishLiveAlarms(null);
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let message: LiveMessage;
      try {
        message = JSON.parse(event.data) as LiveMessage;
      } catch {
        return;
      }
      this.probe.messages += 1;
      this.since = message.serverTime ?? this.since;
      if (message.type === 'update') this.recordUpdate(message.serverTime, message.units);
      if (message.type === 'catchup' || message.type === 'update') this.apply(message.units);
      else if (message.type === 'reload') this.scheduleReload();
      else if (message.type === 'alarms') {
        this.setSecurity(message.security);
        publishLiveAlarms(message);
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (event.code === LIVE_CLOSE.unauthenticated) {
        this.connection = 'closed';
        clearSession();
        return;
      }
      if (event.code === LIVE_CLOSE.mapDisabled) {
        this.connection = 'closed';
        void this.refreshUser();
        return;
      }
      this.connection = 'reconnecting';
      this.emit();
      // Refused before opening: the session may have ended or the map been turned off; ask the server.
      if (!opened) void this.refreshUser().then((ok) => ok && this.scheduleReconnect());
      else this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)]!;
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }

  /** Re-reads the user: false when the session ended (the API client clears it) or the map is off for them. */
  private async refreshUser(): Promise<boolean> {
    try {
      const { user } = await api.get<{ user: SessionUser }>('/api/me');
      if (!user.RealTimeMap) {
        await updateSessionUser(user);
        this.mapDisabled();
        return false;
      }
      return true;
    } catch (error) {
      // 401 cleared the session already; anything else (network) is retried with backoff.
      return !(isApiError(error) && error.status === 401);
    }
  }

  private mapDisabled(): void {
    this.connection = 'closed';
    window.dispatchEvent(new CustomEvent(NAVIGATE_EVENT, { detail: PATHS.triplog }));
  }

  /** Where the time of an update went: ingest to send (server), send to receive (socket and page). */
  private recordUpdate(serverTime: string, states: LiveState[]): void {
    let oldest = Number.POSITIVE_INFINITY;
    let newest = 0;
    for (const state of states) {
      if (!state.lastSeen) continue;
      const seen = Date.parse(state.lastSeen);
      if (seen < oldest) oldest = seen;
      if (seen > newest) newest = seen;
    }
    if (newest === 0) return;
    if (this.probe.updates.length >= PROBE_SAMPLES) this.probe.updates.shift();
    this.probe.updates.push([Date.parse(serverTime), Date.now(), oldest, newest]);
  }

  /**
   * The map drew these units' newest states: the ingest-to-marker probe, from `lastSeen` (the server's
   * receive time of the newest record, i.e. ingest) to the frame that drew it.
   */
  recordDrawn(drawn: Iterable<[id: number, layersSetAt: number]>, drawnAt: number): void {
    const samples = this.probe.drawn;
    for (const [id, layersSetAt] of drawn) {
      const unit = this.get(id);
      if (!unit?.lastSeen) continue;
      if (samples.length >= PROBE_SAMPLES) samples.shift();
      samples.push([Date.parse(unit.lastSeen), this.receivedAt.get(id) ?? layersSetAt, layersSetAt, drawnAt]);
    }
  }
}
