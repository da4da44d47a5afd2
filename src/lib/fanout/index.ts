import { createHash, randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { DatabaseHandle, Querier } from '../db/client';
import { listen } from '../db/notify';
import type { Logger } from '../log';

/**
 * What one instance receives of another's live event: the whole message (over NATS), or a compact signal (over
 * PostgreSQL NOTIFY, which carries at most 8000 bytes) from which it reads what changed itself.
 */
export type FanoutDelivery<T> = { message: T; signal?: undefined } | { signal: string; message?: undefined };

/**
 * Live events between the portal instances that share one database: unit states for the map sockets, the alarm bell.
 * Each instance serves the sockets it holds; what happens in one reaches the others through this. Over NATS when
 * `NATS_URL` is set, otherwise over PostgreSQL LISTEN/NOTIFY. An embedded database has one process: nothing to share.
 *
 * Deliveries may be lost (a broker or connection down for a moment): the live map catches up on reconnect and the bell
 * is recounted on each change, so nothing durable travels here (durable work goes through the outbox and job queue).
 */
export interface Fanout {
  readonly kind: 'local' | 'postgres' | 'nats';
  /**
   * Tells the other instances of something this one has already handled (its own subscribers are not called):
   * `message` travels whole where the transport can carry it, else `signal`, a comma-separated list of ids.
   */
  publish<T>(topic: string, message: T, signal: string): void;
  /** Tells every instance, this one included, once the transaction `tx` commits (nothing if it rolls back). */
  signalOnCommit(tx: Querier, topic: string, signal: string): Promise<void>;
  /** Calls `handler` for each delivery on `topic`; returns the function that stops it. */
  subscribe<T>(topic: string, handler: (delivery: FanoutDelivery<T>) => void): () => void;
  stop(): Promise<void>;
}

/** The NOTIFY channel every instance listens on. */
export const FANOUT_CHANNEL = 'fanout';
/** A NOTIFY payload stays below PostgreSQL's 8000-byte limit. */
const MAX_SIGNAL_BYTES = 7000;
/** Messages over NATS are cut into parts of this many entries (the default server limit is 1 MB a message). */
const MAX_NATS_ENTRIES = 500;

type Handler = (delivery: FanoutDelivery<unknown>) => void;

class Subscribers {
  private readonly byTopic = new Map<string, Set<Handler>>();
  constructor(private readonly log: Logger) {}

  add(topic: string, handler: Handler): () => void {
    const set = this.byTopic.get(topic) ?? new Set();
    set.add(handler);
    this.byTopic.set(topic, set);
    return () => set.delete(handler);
  }

  deliver(topic: string, delivery: FanoutDelivery<unknown>): void {
    for (const handler of this.byTopic.get(topic) ?? []) {
      try {
        handler(delivery);
      } catch (error) {
        this.log.error('live event handler failed', { topic, error: String(error) });
      }
    }
  }
}

/** Cuts a comma-separated signal into parts that fit a NOTIFY. */
export function signalParts(signal: string, maxBytes = MAX_SIGNAL_BYTES): string[] {
  if (signal.length <= maxBytes) return [signal];
  const parts: string[] = [];
  let current = '';
  for (const item of signal.split(',')) {
    if (current && current.length + item.length + 1 > maxBytes) {
      parts.push(current);
      current = '';
    }
    current = current ? `${current},${item}` : item;
  }
  if (current) parts.push(current);
  return parts;
}

const newOrigin = () => randomBytes(6).toString('hex');

/**
 * Over PostgreSQL: a NOTIFY on one channel carries `topic|origin|scope|signal` (scope `o`: for the others, `a`: for
 * all). On an embedded database there are no other instances: `publish` does nothing.
 */
async function postgresFanout(database: DatabaseHandle, log: Logger): Promise<Fanout> {
  const origin = newOrigin();
  const subscribers = new Subscribers(log);
  const stopListening = await listen(database, FANOUT_CHANNEL, (payload) => {
    const [topic, from, scope, ...rest] = payload.split('|');
    if (!topic || !from || (scope !== 'a' && from === origin)) return;
    subscribers.deliver(topic, { signal: rest.join('|') });
  });
  const shared = database.kind === 'postgres';
  return {
    kind: shared ? 'postgres' : 'local',
    publish(topic, _message, signal) {
      if (!shared || signal === '') return;
      for (const part of signalParts(signal)) {
        database
          .query('SELECT pg_notify($1, $2)', [FANOUT_CHANNEL, `${topic}|${origin}|o|${part}`])
          .catch((error: unknown) => log.warn('live event not shared', { topic, error: String(error) }));
      }
    },
    async signalOnCommit(tx, topic, signal) {
      for (const part of signalParts(signal)) await tx('SELECT pg_notify($1, $2)', [FANOUT_CHANNEL, `${topic}|${origin}|a|${part}`]);
    },
    subscribe: (topic, handler) => subscribers.add(topic, handler as Handler),
    stop: stopListening,
  };
}

/**
 * The NATS subject prefix of one installation: instances on the same database share it, another installation (or
 * another test database) on the same NATS server does not hear it.
 */
async function installationKey(database: DatabaseHandle): Promise<string> {
  let system = '';
  try {
    const [row] = await database.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()');
    system = row?.id ?? '';
  } catch {
    // not granted to this role: the database's name and address identify it well enough
  }
  const [row] = await database.query<{ db: string; addr: string | null; port: number | null }>(
    'SELECT current_database() AS db, host(inet_server_addr()) AS addr, inet_server_port() AS port',
  );
  return createHash('sha256')
    .update(`${system}/${row?.addr ?? ''}:${row?.port ?? ''}/${row?.db ?? ''}`)
    .digest('hex')
    .slice(0, 16);
}

interface NatsEnvelope {
  /** The publishing instance. */
  o: string;
  m?: unknown;
  s?: string;
}

/**
 * Over NATS: `publish` sends the whole message (cut into parts when it is a long list) on
 * `fleet.<installation>.live.<topic>`; a signal on commit goes through a NOTIFY on this instance's own channel (so it
 * waits for the commit) and from there to NATS and this instance's subscribers.
 */
async function natsFanout(url: string, database: DatabaseHandle, log: Logger): Promise<Fanout> {
  const { connect } = await import('@nats-io/transport-node');
  const origin = newOrigin();
  const prefix = `fleet.${await installationKey(database)}.live.`;
  const subscribers = new Subscribers(log);
  const nc: NatsConnection = await connect({ servers: url, name: `fleet-portal-${origin}`, noEcho: true, maxReconnectAttempts: -1 });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') log.warn('NATS connection', { status: status.type });
    }
  })().catch(() => {});
  const subscription = nc.subscribe(`${prefix}>`, {
    callback: (error, msg) => {
      if (error) {
        log.warn('NATS subscription failed', { error: String(error) });
        return;
      }
      const topic = msg.subject.slice(prefix.length);
      let envelope: NatsEnvelope;
      try {
        envelope = msg.json<NatsEnvelope>();
      } catch {
        return;
      }
      if (envelope.o === origin) return;
      if (typeof envelope.s === 'string') subscribers.deliver(topic, { signal: envelope.s });
      else subscribers.deliver(topic, { message: envelope.m });
    },
  });
  const send = (topic: string, envelope: NatsEnvelope) => {
    try {
      nc.publish(`${prefix}${topic}`, JSON.stringify(envelope));
    } catch (error) {
      log.warn('live event not shared', { topic, error: String(error) });
    }
  };
  const ownChannel = `fanout_${origin}`;
  const stopListening = await listen(database, ownChannel, (payload) => {
    const at = payload.indexOf('|');
    if (at <= 0) return;
    const topic = payload.slice(0, at);
    const signal = payload.slice(at + 1);
    subscribers.deliver(topic, { signal });
    send(topic, { o: origin, s: signal });
  });
  return {
    kind: 'nats',
    publish(topic, message, _signal) {
      if (Array.isArray(message) && message.length > MAX_NATS_ENTRIES) {
        for (let at = 0; at < message.length; at += MAX_NATS_ENTRIES) send(topic, { o: origin, m: message.slice(at, at + MAX_NATS_ENTRIES) });
      } else {
        send(topic, { o: origin, m: message });
      }
    },
    async signalOnCommit(tx, topic, signal) {
      for (const part of signalParts(signal)) await tx('SELECT pg_notify($1, $2)', [ownChannel, `${topic}|${part}`]);
    },
    subscribe: (topic, handler) => subscribers.add(topic, handler as Handler),
    async stop() {
      await stopListening();
      subscription.unsubscribe();
      await nc.drain().catch(() => {});
    },
  };
}

/** The fan-out of this installation: NATS when `natsUrl` is given, else PostgreSQL (nothing on an embedded database). */
export async function openFanout(options: { natsUrl?: string; database: DatabaseHandle; log: Logger }): Promise<Fanout> {
  if (options.natsUrl) return natsFanout(options.natsUrl, options.database, options.log);
  return postgresFanout(options.database, options.log);
}
