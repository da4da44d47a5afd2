import type { Socket, TCPSocketListener } from 'bun';

/**
 * Portal instances as separate processes (`bun src/main.ts`) on one PostgreSQL database, and a TCP proxy that spreads
 * trackers over their gateways the way a TCP load balancer does. Used by the scale-out test and the two-instance
 * benchmark.
 */

const ROOT = new URL('../../', import.meta.url).pathname;

/** A free loopback TCP port: bound and released at once (the process listens on it right after). */
export function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

export interface InstanceOptions {
  /** The PostgreSQL database every instance shares. */
  databaseUrl: string;
  /** Broker for live events between instances; without it they go through PostgreSQL LISTEN/NOTIFY. */
  natsUrl?: string;
  /** Whether this instance runs the scheduled jobs, the outbox and the job queue (default on). */
  jobs?: boolean;
  /** Whether this instance runs the tracker gateway (default on). */
  gateway?: boolean;
  /** Default `warn`. */
  logLevel?: string;
  /** Shown in the instance's log lines and errors. */
  name?: string;
  /** Further environment (SMTP_URL, AUTH_SECRET, …). */
  env?: Record<string, string>;
  /** How long to wait for the API and the gateway to answer (default 90 s). */
  readyTimeoutMs?: number;
  /** Where the process's stdout/stderr go (default: stderr inherited, stdout ignored). */
  stdout?: 'inherit' | 'ignore';
}

export interface Instance {
  name: string;
  url: string;
  port: number;
  gateway: { teltonika: number; gt06: number; osmand: number };
  pid: number;
  /** Resolves with the exit code when the process has ended. */
  exited: Promise<number>;
  /** Ends the process at once (SIGKILL: no drain, no clean shutdown). */
  kill(): Promise<void>;
  /** Asks the process to shut down cleanly (SIGTERM) and waits for it. */
  stop(): Promise<void>;
}

/** A shared secret, so a token issued by one instance is accepted by every other. */
export const SHARED_AUTH_SECRET = 'instances-share-this-secret-of-at-least-32-chars';

/** Starts `bun src/main.ts` on free ports (DEMO off) and waits until its API and gateway answer. */
export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const name = options.name ?? 'instance';
  const port = freePort();
  const gateway = { teltonika: freePort(), gt06: freePort(), osmand: freePort() };
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    DATABASE_URL: options.databaseUrl,
    TELTONIKA_PORT: String(gateway.teltonika),
    GT06_PORT: String(gateway.gt06),
    OSMAND_PORT: String(gateway.osmand),
    DEMO: '0',
    JOBS: options.jobs === false ? '0' : '1',
    GATEWAY: options.gateway === false ? '0' : '1',
    LOG_LEVEL: options.logLevel ?? 'warn',
    AUTH_SECRET: SHARED_AUTH_SECRET,
    ...options.env,
  };
  delete env.NATS_URL;
  if (options.natsUrl) env.NATS_URL = options.natsUrl;
  const child = Bun.spawn(['bun', 'src/main.ts'], { cwd: ROOT, env, stdout: options.stdout ?? 'ignore', stderr: 'inherit' });
  const exited = child.exited;
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  for (;;) {
    if (ended) throw new Error(`${name} exited with code ${await exited} before it was ready`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within ${options.readyTimeoutMs ?? 90_000} ms`);
    }
    const apiUp = await fetch(`${url}/api/health`)
      .then((response) => response.ok)
      .catch(() => false);
    const gatewayUp = options.gateway === false || (apiUp && (await canConnect(gateway.teltonika)));
    if (apiUp && gatewayUp) break;
    await Bun.sleep(200);
  }
  return {
    name,
    url,
    port,
    gateway,
    pid: child.pid,
    exited,
    async kill() {
      if (!ended) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!ended) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The environment of a portal process started by a test on its own free ports, the outbox and jobs off (DEMO off);
 * the test adds where its database is. `teltonikaPort` is where its devices connect.
 */
export function portalEnv(): { teltonikaPort: number; env: Record<string, string> } {
  const teltonikaPort = freePort();
  return {
    teltonikaPort,
    env: {
      PORT: String(freePort()),
      TELTONIKA_PORT: String(teltonikaPort),
      GT06_PORT: String(freePort()),
      OSMAND_PORT: String(freePort()),
      DEMO: '0',
      JOBS: '0',
      LOG_LEVEL: 'warn',
    },
  };
}

/** `bun src/main.ts` with the given environment over this one's; its output is dropped, its errors shown. */
export function startPortal(env: Record<string, string>) {
  return Bun.spawn(['bun', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'inherit' });
}

/** Waits until something listens on the loopback port (a portal's gateway), at most 60 s. */
export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await canConnect(port)) return;
    await Bun.sleep(100);
  }
  throw new Error(`nothing listened on port ${port} within 60 s`);
}

/** The lines a child process prints, collected as they come; `reading` ends with its output. */
export function collectLines(stdout: ReadableStream<Uint8Array>): { lines: string[]; reading: Promise<void> } {
  const lines: string[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
    }
  })();
  return { lines, reading };
}

async function canConnect(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

interface ProxyPair {
  id: number;
  client: Socket<ProxySide>;
  backend: Socket<ProxySide> | null;
  target: number;
  /** Client bytes that arrived before the backend connection was up. */
  early: Uint8Array[];
  closed: boolean;
}

interface ProxySide {
  pair: ProxyPair;
  /** Bytes the socket could not take yet; written on drain. */
  pending: Uint8Array[];
}

export interface TcpProxy {
  port: number;
  /** Open connections by the backend port they go to. */
  connections(): Map<number, number>;
  /** Every connection so far by the backend port it went to, closed ones included. */
  served(): Map<number, number>;
  /** The backend port the connection from this client port goes to (undefined while it has none). */
  targetOf(clientPort: number): number | undefined;
  /** Backends new connections go to, in turn from the first (a removed one gets no new connections; its open ones stay). */
  setTargets(ports: number[]): void;
  /** Cuts `count` open connections (the trackers reconnect and are sent, in turn, to the targets). */
  cut(count: number, filter?: (target: number) => boolean): number;
  stop(): void;
}

/**
 * A TCP balancer of its own: each new connection goes to the next backend in turn (one that refuses it is skipped), and
 * bytes are copied both ways unchanged. Cutting a connection closes both sides, as a balancer does when a backend goes
 * away, so the tracker reconnects and may land on another instance.
 */
export function startTcpProxy(initialTargets: number[]): TcpProxy {
  let targets = [...initialTargets];
  let turn = 0;
  let nextId = 1;
  const pairs = new Set<ProxyPair>();
  const served = new Map<number, number>();

  const write = (socket: Socket<ProxySide>, bytes: Uint8Array) => {
    const side = socket.data;
    if (side.pending.length > 0) {
      side.pending.push(bytes);
      return;
    }
    const written = socket.write(bytes);
    if (written < bytes.length) side.pending.push(bytes.subarray(Math.max(0, written)));
  };
  const flush = (socket: Socket<ProxySide>) => {
    const side = socket.data;
    while (side.pending.length > 0) {
      const chunk = side.pending[0]!;
      const written = socket.write(chunk);
      if (written < chunk.length) {
        side.pending[0] = chunk.subarray(Math.max(0, written));
        return;
      }
      side.pending.shift();
    }
  };
  const closePair = (pair: ProxyPair) => {
    if (pair.closed) return;
    pair.closed = true;
    pairs.delete(pair);
    try {
      pair.client.end();
    } catch {}
    try {
      pair.backend?.end();
    } catch {}
  };

  const connectBackend = async (pair: ProxyPair) => {
    for (let attempt = 0; attempt < Math.max(1, targets.length); attempt++) {
      if (targets.length === 0) break;
      const target = targets[turn++ % targets.length]!;
      try {
        const backend = await Bun.connect<ProxySide>({
          hostname: '127.0.0.1',
          port: target,
          data: { pair, pending: [] },
          socket: {
            data(socket, chunk) {
              if (!socket.data.pair.closed) write(socket.data.pair.client, chunk);
            },
            drain: flush,
            close(socket) {
              closePair(socket.data.pair);
            },
            error(socket) {
              closePair(socket.data.pair);
            },
          },
        });
        if (pair.closed) {
          backend.end();
          return;
        }
        pair.backend = backend;
        pair.target = target;
        served.set(target, (served.get(target) ?? 0) + 1);
        for (const chunk of pair.early.splice(0)) write(backend, chunk);
        return;
      } catch {
        // refused: the next backend
      }
    }
    closePair(pair);
  };

  const listener: TCPSocketListener<ProxySide> = Bun.listen<ProxySide>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        const pair: ProxyPair = { id: nextId++, client: socket, backend: null, target: 0, early: [], closed: false };
        socket.data = { pair, pending: [] };
        pairs.add(pair);
        void connectBackend(pair);
      },
      data(socket, chunk) {
        const pair = socket.data.pair;
        if (pair.closed) return;
        if (pair.backend) write(pair.backend, chunk);
        else pair.early.push(new Uint8Array(chunk));
      },
      drain: flush,
      close(socket) {
        closePair(socket.data.pair);
      },
      error(socket) {
        closePair(socket.data.pair);
      },
    },
  });

  return {
    port: listener.port,
    connections() {
      const counts = new Map<number, number>();
      for (const pair of pairs) if (pair.backend) counts.set(pair.target, (counts.get(pair.target) ?? 0) + 1);
      return counts;
    },
    served() {
      return new Map(served);
    },
    targetOf(clientPort) {
      for (const pair of pairs) if (pair.backend && pair.client.remotePort === clientPort) return pair.target;
      return undefined;
    },
    setTargets(ports) {
      targets = [...ports];
      turn = 0;
    },
    cut(count, filter) {
      let cut = 0;
      for (const pair of [...pairs]) {
        if (cut >= count) break;
        if (!pair.backend || (filter && !filter(pair.target))) continue;
        closePair(pair);
        cut++;
      }
      return cut;
    },
    stop() {
      for (const pair of [...pairs]) closePair(pair);
      listener.stop(true);
    },
  };
}
