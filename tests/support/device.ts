import type { AvlRecordInput } from '../../src/gateway/teltonika';
import type { DetectorPosition } from '../../src/modules/trips/detector';

/** A fake tracker on a real TCP socket: writes bytes, reads replies, notices when the server hangs up. */
export async function connectDevice(port: number) {
  let received = new Uint8Array(0);
  let closed = false;
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_socket, chunk) {
        const merged = new Uint8Array(received.length + chunk.length);
        merged.set(received);
        merged.set(chunk, received.length);
        received = merged;
        wake();
      },
      close() {
        closed = true;
        wake();
      },
      error() {
        closed = true;
        wake();
      },
    },
  });
  return {
    write(bytes: Uint8Array | string) {
      socket.write(typeof bytes === 'string' ? Buffer.from(bytes.replace(/\s+/g, ''), 'hex') : bytes);
    },
    /** Resolves with exactly `count` bytes, or null if none came within the time. */
    async read(count: number, timeoutMs = 3000): Promise<Uint8Array | null> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (closed || Date.now() > deadline) return null;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      const out = received.slice(0, count);
      received = received.slice(count);
      return out;
    },
    async waitClosed(timeoutMs = 3000): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      return closed;
    },
    get closed() {
      return closed;
    },
    end() {
      socket.end();
    },
  };
}

export const hex = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('hex').toUpperCase() : null);
export const imeiLogin = (imei: string) => `000F${Buffer.from(imei, 'ascii').toString('hex')}`;

/**
 * A scripted drive's positions as Teltonika AVL records (heading east, 9 satellites): ignition (IO 239) as driven,
 * movement (IO 240) while the speed is above zero, and any further IO elements given.
 */
export function driveRecords(positions: readonly Pick<DetectorPosition, 't' | 'lat' | 'lon' | 'speedKmh' | 'ignition'>[], io: Record<number, number> = {}): AvlRecordInput[] {
  return positions.map((p) => ({
    time: new Date(p.t),
    latitude: p.lat,
    longitude: p.lon,
    altitude: 20,
    speedKmh: p.speedKmh,
    course: 90,
    satellites: 9,
    io: { 239: p.ignition ? 1 : 0, 240: p.speedKmh > 0 ? 1 : 0, ...io },
  }));
}
