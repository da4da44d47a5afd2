import { useCallback, useEffect, useState } from 'react';
import type { PushSubscriptionView } from '../../modules/notifications/model';
import { api, request } from './api';

/**
 * Browser push for the signed-in user: registers the service worker (/sw.js), asks for permission,
 * subscribes with the server's VAPID key and hands the subscription to the server
 * (`/api/notifications/push/...`). The server sends; the service worker shows and opens the screen.
 */
export type PushState = 'unsupported' | 'denied' | 'off' | 'on';

const SERVICE_WORKER = '/sw.js';

export function pushSupported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** The VAPID public key (base64url) as the bytes PushManager.subscribe wants. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replaceAll('-', '+').replaceAll('_', '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function registration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register(SERVICE_WORKER, { scope: '/' });
  return navigator.serviceWorker.ready;
}

/** This browser's state: subscribed here and known to the server ('on'), not yet ('off'), or why not. */
export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  const existing = await (await navigator.serviceWorker.getRegistration(SERVICE_WORKER))?.pushManager.getSubscription();
  if (!existing) return 'off';
  const known = await api.get<PushSubscriptionView[]>('/api/notifications/push/subscriptions');
  return known.some((one) => one.endpoint === existing.endpoint) ? 'on' : 'off';
}

/** Subscribes this browser (asks for permission first); answers the resulting state. */
export async function subscribePush(): Promise<PushState> {
  if (!pushSupported()) return 'unsupported';
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  const worker = await registration();
  const { publicKey } = await api.get<{ publicKey: string; enabled: boolean }>('/api/notifications/push/key');
  let subscription = await worker.pushManager.getSubscription();
  // A subscription made with another key (a restored database, a new installation) cannot receive our pushes.
  const applicationServerKey = keyBytes(publicKey);
  const current = subscription?.options.applicationServerKey;
  if (subscription && current && !sameBytes(new Uint8Array(current), applicationServerKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  await api.post<PushSubscriptionView>('/api/notifications/push/subscriptions', subscription.toJSON());
  return 'on';
}

/** Stops pushes to this browser, on the server and in the browser. */
export async function unsubscribePush(): Promise<PushState> {
  if (!pushSupported()) return 'unsupported';
  const subscription = await (await navigator.serviceWorker.getRegistration(SERVICE_WORKER))?.pushManager.getSubscription();
  if (subscription) {
    const known = await api.get<PushSubscriptionView[]>('/api/notifications/push/subscriptions');
    const mine = known.find((one) => one.endpoint === subscription.endpoint);
    if (mine) await request('DELETE', `/api/notifications/push/subscriptions/${mine.id}`);
    await subscription.unsubscribe();
  }
  return 'off';
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The push switch of a settings screen: the state, and turning it on or off (`busy` meanwhile). */
export function usePushNotifications() {
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    pushState()
      .then((found) => live && setState(found))
      .catch(() => live && setState('off'));
    return () => {
      live = false;
    };
  }, []);
  const change = useCallback(async (on: boolean) => {
    setBusy(true);
    try {
      setState(await (on ? subscribePush() : unsubscribePush()));
    } finally {
      setBusy(false);
    }
  }, []);
  return { state, busy, subscribe: () => change(true), unsubscribe: () => change(false) };
}
