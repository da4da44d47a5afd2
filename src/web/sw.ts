/**
 * The portal's service worker (built to /sw.js by scripts/build-web.ts, scope the whole app): shows the
 * notifications the server pushes (src/lib/notify/push.ts: `{ title, body, url }`) and, on a click, brings
 * the portal forward on the screen the message is about.
 */

// The worker's own globals, declared here: the project's TypeScript lib is the DOM's, not the web worker's.
interface PushMessage {
  json(): unknown;
}
interface ShownNotification {
  data: unknown;
  close(): void;
}
interface WindowClientLike {
  url: string;
  focus(): Promise<WindowClientLike>;
  navigate(url: string): Promise<WindowClientLike | null>;
}
interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface WorkerScope {
  location: Location;
  registration: { showNotification(title: string, options: { body: string; data: unknown; icon?: string; tag?: string }): Promise<void> };
  clients: {
    claim(): Promise<void>;
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<WindowClientLike | null>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEventLike) => void): void;
  addEventListener(type: 'push', listener: (event: ExtendableEventLike & { data: PushMessage | null }) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: ExtendableEventLike & { notification: ShownNotification }) => void): void;
}
const worker = self as unknown as WorkerScope;

/** Only a path of this app is opened: a pushed URL elsewhere is never followed. */
function screenOf(url: unknown): string {
  if (typeof url !== 'string') return '/';
  const target = new URL(url, worker.location.origin);
  return target.origin === worker.location.origin ? target.pathname + target.search + target.hash : '/';
}

worker.addEventListener('install', (event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener('activate', (event) => event.waitUntil(worker.clients.claim()));

worker.addEventListener('push', (event) => {
  let message: { title?: unknown; body?: unknown; url?: unknown } = {};
  try {
    message = (event.data?.json() ?? {}) as typeof message;
  } catch {
    // A payload that is not JSON is shown as a bare notification.
  }
  const title = typeof message.title === 'string' ? message.title : worker.location.hostname;
  const body = typeof message.body === 'string' ? message.body : '';
  const url = screenOf(message.url);
  event.waitUntil(worker.registration.showNotification(title, { body, data: { url }, tag: url }));
});

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = screenOf((event.notification.data as { url?: unknown } | null)?.url);
  event.waitUntil(
    (async () => {
      const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === worker.location.origin);
      if (open) {
        const focused = await open.focus();
        await focused.navigate(url).catch(() => null);
        return;
      }
      await worker.clients.openWindow(url);
    })(),
  );
});

