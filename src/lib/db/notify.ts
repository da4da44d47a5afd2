import type { DatabaseHandle } from './client';

/**
 * LISTEN on a channel with either driver; returns a function that stops listening. On PostgreSQL the
 * driver keeps one dedicated connection for it (and listens again after a reconnect); PGlite delivers
 * NOTIFYs committed in its own instance, which is every writer of an embedded database. `onNotify` gets the NOTIFY's payload.
 */
export async function listen(handle: DatabaseHandle, channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
  if (handle.raw.kind === 'pglite') {
    const unlisten = await handle.raw.client.listen(channel, (payload: string) => onNotify(payload ?? ''));
    return async () => {
      await unlisten().catch(() => {});
    };
  }
  const { unlisten } = await handle.raw.client.listen(channel, (payload: string) => onNotify(payload ?? ''));
  return async () => {
    await unlisten().catch(() => {});
  };
}
