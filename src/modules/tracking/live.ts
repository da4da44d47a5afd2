import type { Clock } from '../../lib/clock';
import type { EventBus } from '../../lib/events';
import type { Fanout, FanoutDelivery } from '../../lib/fanout';
import type { Logger } from '../../lib/log';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import { LIVE_BATCH_MS, LIVE_CLOSE, type LiveMessage, type LiveState, OFFLINE_AFTER_MS } from './model';
import type { WrittenState } from './ingest';
import { type AccountState, liveStateOfWritten, type MapVisibility, type TrackingService } from './service';

/** What the hub needs of a WebSocket (Bun's ServerWebSocket fits). */
export interface LiveSocket {
  /** Bun: bytes sent, -1 when queued behind backpressure (a `drain` follows), 0 when dropped. */
  send(data: string): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount?(): number;
}

export interface LiveHubOptions {
  /** Changes are gathered for this long, then each socket gets one message. */
  batchMs?: number;
  /** Every open socket's token is checked this often; a revoked or expired one closes the socket (4401). */
  revalidateMs?: number;
  /** How often units that have just passed 30 minutes without contact are pushed as offline. */
  offlineSweepMs?: number;
  /** The unitId → accountId index forgets an entry after this long (a unit moved to another account). */
  accountIndexTtlMs?: number;
  /** A socket with more than this many bytes still unsent gets no new messages until it drains. */
  maxBufferedBytes?: number;
  /** Catch-up reads from this much before `since`, covering records received before but committed after it. */
  catchUpMarginMs?: number;
}

interface LiveClient {
  socket: LiveSocket;
  actor: Actor;
  token: string;
  /** False until the catch-up is sent: updates wait in `dirty` so nothing older arrives after newer. */
  ready: boolean;
  /**
   * Units changed for this client but not yet sent (during catch-up or while the socket is backlogged), with the
   * newest state the hub had for them; null when it must be read (it had none).
   */
  dirty: Map<number, LiveState | null>;
  /** The last send was queued behind backpressure or dropped; cleared on drain. */
  backlogged: boolean;
  /** Spec §6: which units this user may see now (null: all of the account); refreshed with the token check. */
  visible: MapVisibility | null;
  visibleKey: string;
}

/** The fan-out topic of the unit states an instance has written. */
export const UNIT_STATES_TOPIC = 'unit.states';

const DEFAULTS: Required<LiveHubOptions> = {
  batchMs: LIVE_BATCH_MS,
  revalidateMs: 15_000,
  offlineSweepMs: 60_000,
  accountIndexTtlMs: 10 * 60_000,
  maxBufferedBytes: 1024 * 1024,
  catchUpMarginMs: 10_000,
};

/**
 * Live positions for the map. Every `positions.stored` event marks its unit changed; every `batchMs`
 * the changed units of accounts with an open socket are read in one query (their latest state, with
 * the account taken from the same row, so a unit never reaches another account's socket) and each
 * socket of that account gets one message. A slow socket is not fed more while its buffer is full:
 * its units are remembered and it gets their latest state once it drains, so it never falls behind.
 *
 * Timers run only while sockets are open. One process owns its sockets; with several instances on one database each
 * hub shares the states its process wrote through the fan-out (`UNIT_STATES_TOPIC`) and takes the others': whole over
 * NATS, as unit ids over PostgreSQL NOTIFY (their states are then read like any changed unit's).
 */
export class LiveHub {
  private readonly options: Required<LiveHubOptions>;
  private readonly byAccount = new Map<number, Set<LiveClient>>();
  private readonly bySocket = new Map<LiveSocket, LiveClient>();
  private readonly accountIndex = new Map<number, { accountId: number | null; at: number }>();
  /** Units whose state must be read (a catch-up, an offline sweep, a fix without position). */
  private changed = new Set<number>();
  /** States as the state writer wrote them: sent without reading them back. */
  private fresh = new Map<number, AccountState>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private revalidateTimer: ReturnType<typeof setInterval> | null = null;
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private lastSweep: Date | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: { tracking: TrackingService; auth: AuthService; events: EventBus; clock: Clock; log: Logger; fanout?: Fanout },
    options: LiveHubOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    const fanout = deps.fanout;
    const offLocal = deps.events.on('unit.states', ({ rows }) => {
      this.accept(rows);
      if (fanout && fanout.kind !== 'local') fanout.publish(UNIT_STATES_TOPIC, rows, rows.map((row) => row.unitId).join(','));
    });
    const offRemote = fanout?.subscribe<WrittenState[]>(UNIT_STATES_TOPIC, (delivery) => this.acceptRemote(delivery)) ?? (() => {});
    this.unsubscribe = () => {
      offLocal();
      offRemote();
    };
  }

  /** States another instance wrote: as they are (NATS), or their units' ids to read (PostgreSQL NOTIFY). */
  private acceptRemote(delivery: FanoutDelivery<WrittenState[]>): void {
    if (this.bySocket.size === 0) return;
    if (delivery.message) {
      this.accept(delivery.message.map((row) => ({ ...row, time: new Date(row.time), lastSeen: new Date(row.lastSeen) })));
      return;
    }
    const unitIds = delivery.signal
      .split(',')
      .map(Number)
      .filter((id) => Number.isInteger(id) && id > 0);
    if (unitIds.length > 0) this.markChanged(unitIds);
  }

  /** Open sockets. */
  get size(): number {
    return this.bySocket.size;
  }

  /** Registers an authenticated socket; with `since`, first sends the units changed since then. */
  async open(socket: LiveSocket, actor: Actor, token: string, since: Date | null): Promise<void> {
    const client: LiveClient = { socket, actor, token, ready: false, dirty: new Map(), backlogged: false, visible: null, visibleKey: '' };
    this.bySocket.set(socket, client);
    let clients = this.byAccount.get(actor.accountId);
    if (!clients) {
      clients = new Set();
      this.byAccount.set(actor.accountId, clients);
    }
    clients.add(client);
    this.startTimers();
    const now = this.deps.clock.now();
    this.send(client, { type: 'hello', serverTime: now.toISOString(), batchMs: this.options.batchMs, offlineAfterMs: OFFLINE_AFTER_MS });
    try {
      client.visible = await this.deps.tracking.visibility(actor);
      client.visibleKey = client.visible?.key(now) ?? '';
      if (since) {
        const units = await this.deps.tracking.changedSince(
          actor.accountId,
          new Date(since.getTime() - this.options.catchUpMarginMs),
          client.visible,
        );
        if (!this.bySocket.has(socket)) return;
        // Units marked dirty meanwhile stay dirty: their newer state follows right after the catch-up.
        this.send(client, { type: 'catchup', serverTime: now.toISOString(), since: since.toISOString(), units });
      }
    } catch (error) {
      this.deps.log.error('live catch-up failed', { error: String(error) });
      this.closeClient(client, 1011, 'catch-up failed');
      return;
    }
    client.ready = true;
    if (client.dirty.size > 0) this.scheduleFlush();
  }

  /** Forgets a socket (on close). */
  close(socket: LiveSocket): void {
    const client = this.bySocket.get(socket);
    if (!client) return;
    this.bySocket.delete(socket);
    const clients = this.byAccount.get(client.actor.accountId);
    clients?.delete(client);
    if (clients && clients.size === 0) this.byAccount.delete(client.actor.accountId);
    if (this.bySocket.size === 0) this.stopTimers();
  }

  /** The socket's buffer emptied: send what it missed meanwhile. */
  drained(socket: LiveSocket): void {
    const client = this.bySocket.get(socket);
    if (!client) return;
    client.backlogged = false;
    if (client.dirty.size > 0) this.scheduleFlush();
  }

  /** Answers a client's `{ "type": "ping" }` (keeps proxies from closing an idle socket, gives server time). */
  message(socket: LiveSocket, message: unknown): void {
    const client = this.bySocket.get(socket);
    if (client && typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ping') {
      this.send(client, { type: 'pong', serverTime: this.deps.clock.now().toISOString() });
    }
  }

  /**
   * States the state writer has just written go out with the next batch as they are; a unit whose newest
   * record had no fix is read instead (its position is an earlier record's).
   */
  accept(rows: WrittenState[]): void {
    if (this.bySocket.size === 0) return;
    const now = this.deps.clock.now();
    const at = Date.now();
    for (const row of rows) {
      this.accountIndex.set(row.unitId, { accountId: row.accountId, at });
      if (!this.byAccount.has(row.accountId)) continue;
      if (row.valid) this.fresh.set(row.unitId, liveStateOfWritten(row, now));
      else this.changed.add(row.unitId);
    }
    this.scheduleFlush();
  }

  /** Marks units changed; they go out with the next batch. Nothing happens while no socket is open. */
  markChanged(unitIds: Iterable<number>): void {
    if (this.bySocket.size === 0) return;
    for (const unitId of unitIds) this.changed.add(unitId);
    this.scheduleFlush();
  }

  /** Whether any socket of the account is open in this process. */
  hasAccount(accountId: number): boolean {
    return this.byAccount.has(accountId);
  }

  /**
   * Sends a message built per user to every ready socket of an account in this process (the alarm bell): `build` is
   * called once per user (several tabs of one user share it) and may answer null to send nothing. A module whose
   * change happens in another process tells every process through PostgreSQL NOTIFY and calls this from its listener.
   */
  async sendToAccount(accountId: number, build: (actor: Actor) => Promise<LiveMessage | null>): Promise<number> {
    const clients = this.byAccount.get(accountId);
    if (!clients || clients.size === 0) return 0;
    const byUser = new Map<number, { actor: Actor; clients: LiveClient[] }>();
    for (const client of clients) {
      const entry = byUser.get(client.actor.userId) ?? { actor: client.actor, clients: [] };
      entry.clients.push(client);
      byUser.set(client.actor.userId, entry);
    }
    let sent = 0;
    for (const { actor, clients: userClients } of byUser.values()) {
      let message: LiveMessage | null;
      try {
        message = await build(actor);
      } catch (error) {
        this.deps.log.error('live account message failed', { error: String(error) });
        continue;
      }
      if (!message) continue;
      for (const client of userClients) {
        if (!this.bySocket.has(client.socket)) continue;
        this.send(client, message);
        sent++;
      }
    }
    return sent;
  }

  /** Closes every socket (server going away) and stops listening. */
  stop(): void {
    for (const client of [...this.bySocket.values()]) this.closeClient(client, 1001, 'server shutting down');
    this.stopTimers();
    this.unsubscribe();
  }

  /** Runs the pending batch now and waits for it (tests, shutdown). */
  async flushNow(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
      this.flushing = this.flushing.then(() => this.flush());
    }
    await this.flushing;
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      // One batch at a time, so an older read never goes out after a newer one.
      this.flushing = this.flushing.then(() => this.flush());
    }, this.options.batchMs);
    this.flushTimer.unref?.();
  }

  private async flush(): Promise<void> {
    try {
      await this.flushBatch();
    } catch (error) {
      this.deps.log.error('live update batch failed', { error: String(error) });
    }
  }

  private async flushBatch(): Promise<void> {
    const fresh = this.fresh;
    this.fresh = new Map();
    const toRead = this.changed;
    this.changed = new Set();
    if (this.bySocket.size === 0) return;
    for (const unitId of fresh.keys()) toRead.delete(unitId);
    const changed = new Set([...toRead, ...fresh.keys()]);
    const accountOf = await this.resolveAccounts(toRead);
    // Changed units that some open socket may show, plus missed units whose state was not kept, for sockets that can
    // take them now. A socket that can take what it missed is served even when nothing changed meanwhile.
    const wanted = new Set<number>();
    for (const unitId of toRead) {
      const accountId = accountOf.get(unitId);
      if (accountId !== undefined && accountId !== null && this.byAccount.has(accountId)) wanted.add(unitId);
    }
    let missedToSend = false;
    for (const client of this.bySocket.values()) {
      if (client.dirty.size === 0 || !this.canSend(client)) continue;
      missedToSend = true;
      for (const [unitId, kept] of client.dirty) if (kept === null && !fresh.has(unitId)) wanted.add(unitId);
    }
    if (wanted.size === 0 && fresh.size === 0 && !missedToSend) return;
    const states = [...fresh.values(), ...(wanted.size > 0 ? await this.deps.tracking.liveStates([...wanted]) : [])];
    const now = Date.now();
    const byAccount = new Map<number, Map<number, LiveState>>();
    for (const { accountId, ...state } of states) {
      // The account comes from the same row as the state: authoritative, and it refreshes the index.
      this.accountIndex.set(state.id, { accountId, at: now });
      let group = byAccount.get(accountId);
      if (!group) {
        group = new Map();
        byAccount.set(accountId, group);
      }
      group.set(state.id, state);
    }
    const sentAt = this.deps.clock.now();
    const serverTime = sentAt.toISOString();
    /** Per account: its changed states, and the message every socket without a backlog or §6 filter gets. */
    const changedOf = new Map<number, { states: LiveState[]; shared: string | null }>();
    for (const [accountId, group] of byAccount) {
      changedOf.set(accountId, { states: [...group.values()].filter((state) => changed.has(state.id)), shared: null });
    }
    for (const client of this.bySocket.values()) {
      const group = byAccount.get(client.actor.accountId);
      const here = changedOf.get(client.actor.accountId);
      const changedHere = here?.states ?? [];
      if (!this.canSend(client)) {
        // Kept with their state: once the socket drains they go out as they are, without reading them again.
        for (const state of changedHere) client.dirty.set(state.id, state);
        continue;
      }
      let units = changedHere;
      if (client.dirty.size > 0) {
        units = [...changedHere];
        for (const [unitId, kept] of client.dirty) {
          if (changed.has(unitId)) continue; // the newer state is in this batch
          // A unit no longer in this account (deleted or moved) has no state here: nothing to send.
          const state = kept ?? group?.get(unitId);
          if (state) units.push(state);
        }
        client.dirty.clear();
      }
      if (client.visible) {
        // Spec §6: this user may not see every unit of the account; a message of their own.
        const visible = client.visible;
        const mine = units.filter((state) => visible(state.id, sentAt));
        if (mine.length > 0) this.send(client, { type: 'update', serverTime, units: mine });
        continue;
      }
      if (units.length === 0) continue;
      if (units === changedHere && here) {
        here.shared ??= JSON.stringify({ type: 'update', serverTime, units: changedHere } satisfies LiveMessage);
        this.sendRaw(client, here.shared, changedHere);
        continue;
      }
      this.send(client, { type: 'update', serverTime, units });
    }
  }

  /** unitId → accountId from the index; misses and stale entries are read in one query. */
  private async resolveAccounts(unitIds: Set<number>): Promise<Map<number, number | null>> {
    const now = Date.now();
    const result = new Map<number, number | null>();
    const misses: number[] = [];
    for (const unitId of unitIds) {
      const entry = this.accountIndex.get(unitId);
      if (entry && now - entry.at < this.options.accountIndexTtlMs) result.set(unitId, entry.accountId);
      else misses.push(unitId);
    }
    if (misses.length > 0) {
      const found = await this.deps.tracking.accountsOf(misses);
      for (const unitId of misses) {
        const accountId = found.get(unitId) ?? null;
        this.accountIndex.set(unitId, { accountId, at: now });
        result.set(unitId, accountId);
      }
    }
    return result;
  }

  private canSend(client: LiveClient): boolean {
    if (!client.ready) return false;
    if (client.backlogged && (client.socket.getBufferedAmount?.() ?? 0) > 0) return false;
    client.backlogged = false;
    return (client.socket.getBufferedAmount?.() ?? 0) <= this.options.maxBufferedBytes;
  }

  private send(client: LiveClient, message: LiveMessage): void {
    this.sendRaw(client, JSON.stringify(message), 'units' in message ? message.units : []);
  }

  /** Sends one message; if the socket dropped it, its units are sent again after the drain. */
  private sendRaw(client: LiveClient, text: string, units: LiveState[]): void {
    try {
      const result = client.socket.send(text);
      // -1: queued behind backpressure; 0: dropped at the buffer limit. Either way wait for the drain.
      if (result <= 0) client.backlogged = true;
      if (result === 0) for (const unit of units) client.dirty.set(unit.id, unit);
    } catch {
      this.close(client.socket); // already closed underneath
    }
  }

  private closeClient(client: LiveClient, code: number, reason: string): void {
    this.close(client.socket);
    try {
      client.socket.close(code, reason);
    } catch {
      // already closed
    }
  }

  private startTimers(): void {
    if (!this.revalidateTimer) {
      this.revalidateTimer = setInterval(() => void this.revalidate(), this.options.revalidateMs);
      this.revalidateTimer.unref?.();
    }
    if (!this.sweepTimer) {
      this.lastSweep = this.deps.clock.now();
      this.sweepTimer = setInterval(() => void this.sweepOffline(), this.options.offlineSweepMs);
      this.sweepTimer.unref?.();
    }
  }

  private stopTimers(): void {
    this.fresh.clear();
    if (this.revalidateTimer) clearInterval(this.revalidateTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.revalidateTimer = null;
    this.sweepTimer = null;
    this.flushTimer = null;
    this.changed.clear();
  }

  /** Re-checks every open socket's token (logout, expiry, password reset) and map permission. */
  async revalidate(): Promise<void> {
    const byToken = new Map<string, LiveClient[]>();
    for (const client of this.bySocket.values()) {
      const list = byToken.get(client.token) ?? [];
      list.push(client);
      byToken.set(client.token, list);
    }
    for (const [token, clients] of byToken) {
      try {
        const actor = await this.deps.auth.authenticate(`Bearer ${token}`);
        if (!actor || actor.accountId !== clients[0]!.actor.accountId) {
          for (const client of clients) this.closeClient(client, LIVE_CLOSE.unauthenticated, 'Unauthenticated.');
        } else if (!this.deps.tracking.mapEnabled(actor)) {
          for (const client of clients) this.closeClient(client, LIVE_CLOSE.mapDisabled, 'map disabled');
        } else {
          // Spec §6: working hours began or ended, or a lock or access changed: the map reads its list again.
          const visible = await this.deps.tracking.visibility(actor);
          const now = this.deps.clock.now();
          const key = visible?.key(now) ?? '';
          for (const client of clients) {
            const changedVisibility = client.visibleKey !== key || (client.visible === null) !== (visible === null);
            client.visible = visible;
            client.visibleKey = key;
            if (changedVisibility && client.ready) this.send(client, { type: 'reload', serverTime: now.toISOString() });
          }
        }
      } catch (error) {
        this.deps.log.warn('live socket revalidation failed', { error: String(error) });
      }
    }
  }

  /** Pushes units whose last contact has just become 30 minutes old, so their markers turn offline. */
  async sweepOffline(): Promise<void> {
    const now = this.deps.clock.now();
    const previous = this.lastSweep ?? now;
    this.lastSweep = now;
    if (this.byAccount.size === 0 || now <= previous) return;
    try {
      const unitIds = await this.deps.tracking.lastSeenBetween(
        [...this.byAccount.keys()],
        new Date(previous.getTime() - OFFLINE_AFTER_MS),
        new Date(now.getTime() - OFFLINE_AFTER_MS),
      );
      this.markChanged(unitIds);
    } catch (error) {
      this.deps.log.warn('live offline sweep failed', { error: String(error) });
    }
  }
}
