import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startSuite, type Suite } from './support';

/**
 * The service worker (/sw.js) as Chromium runs it: a push message delivered to its registration (through the
 * DevTools protocol, as the browser's push service would) is shown as a notification with the pushed title
 * and body, and carries the screen a click opens; a URL of another site is replaced by the app’s start page.
 * (The click itself is the operating system’s; DevTools cannot raise one.)
 */
let suite: Suite;

/** Reads until `done` holds (the service worker handles a push asynchronously), at most 15 s (a loaded CI machine). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}
beforeAll(async () => {
  suite = await startSuite();
}, 60_000);
afterAll(async () => {
  await suite?.close();
});

test('a pushed message is shown as a notification carrying the screen to open, never another site', async () => {
  const context = await suite.browser.newContext({ baseURL: suite.server.url, locale: 'sv-SE', permissions: ['notifications'] });
  try {
    const page = await context.newPage();
    await page.goto('/');
    const cdp = await context.newCDPSession(page);
    const registered = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const mine = registrations.find((one) => one.scopeURL === `${suite.server.url}/` && !one.isDeleted);
        if (mine) resolve(mine.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    const scope = await page.evaluate(async () => {
      await navigator.serviceWorker.register('/sw.js', { scope: '/' });
      const ready = await navigator.serviceWorker.ready;
      // `ready` resolves while the worker may still be activating; a push delivered then can be dropped.
      const worker = ready.active!;
      if (worker.state !== 'activated') {
        await new Promise<void>((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
      }
      return ready.scope;
    });
    expect(scope).toBe(`${suite.server.url}/`);
    const registrationId = await registered;

    const shown = async () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((one) => ({ title: one.title, body: one.body, data: one.data })),
      );
    // A push service delivers again what was not taken: Chromium now and then drops a push delivered through DevTools
    // right after registration, so deliver again (at most four times) until the notification shows.
    const deliver = async (data: object, done: (list: Awaited<ReturnType<typeof shown>>) => boolean) => {
      for (let attempt = 0; attempt < 4; attempt++) {
        await cdp.send('ServiceWorker.deliverPushMessage', { origin: suite.server.url, registrationId, data: JSON.stringify(data) });
        const list = await until(shown, done, 5_000);
        if (done(list)) return list;
      }
      return shown();
    };
    const first = await deliver({ title: 'Larm: Volvo', body: 'Volvon lämnade Hem', url: '/user/places?from=push' }, (list) => list.length > 0);
    expect(first[0]).toEqual({ title: 'Larm: Volvo', body: 'Volvon lämnade Hem', data: { url: '/user/places?from=push' } });

    const elsewhere = await deliver({ title: 'Elsewhere', body: 'A link to another site', url: 'https://evil.example.com/phish' }, (list) =>
      list.some((one) => one.title === 'Elsewhere'),
    );
    expect(elsewhere.find((one) => one.title === 'Elsewhere')!.data).toEqual({ url: '/' });
  } finally {
    await context.close();
  }
}, 60_000);
