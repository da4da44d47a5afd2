import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import type { TrackedUnit } from './store';

/** At most this many units per request (the server's limit). */
export const ADDRESS_BATCH = 100;

/** A unit's position rounded to about 11 m: a new address is asked for only when the unit moved. */
const keyOf = (unit: TrackedUnit) => (unit.lat === null || unit.lon === null ? null : `${unit.id}@${unit.lat.toFixed(4)},${unit.lon.toFixed(4)}`);

/**
 * Addresses of units' last positions (spec §3: the list and the popup show the last address), looked
 * up by the server's geocoder for the units in view only, in batches, and remembered per position.
 */
export class AddressBook {
  private readonly known = new Map<string, string | null>();
  private readonly wanted = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly listeners = new Set<() => void>();
  version = 0;

  address(unit: TrackedUnit): string | null | undefined {
    const key = keyOf(unit);
    if (key === null) return null;
    if (this.known.has(key)) return this.known.get(key);
    this.wanted.set(key, unit.id);
    this.schedule();
    return undefined;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.fetch(), 250);
  }

  private async fetch(): Promise<void> {
    this.timer = null;
    const batch = [...this.wanted.entries()].slice(0, ADDRESS_BATCH);
    for (const [key] of batch) this.wanted.delete(key);
    if (batch.length === 0) return;
    try {
      const data = await api.get<{ addresses: Array<{ unitId: number; lat: number | null; lon: number | null; address: string | null }> }>(
        '/api/tracking/addresses',
        { query: { unitIds: [...new Set(batch.map(([, id]) => id))].join(',') } },
      );
      const byId = new Map(data.addresses.map((entry) => [entry.unitId, entry]));
      for (const [key, id] of batch) {
        const entry = byId.get(id);
        this.known.set(key, entry?.address ?? null);
        // The server answered for the position it holds now; remember that too.
        if (entry && entry.lat !== null && entry.lon !== null) this.known.set(`${id}@${entry.lat.toFixed(4)},${entry.lon.toFixed(4)}`, entry.address);
      }
    } catch {
      for (const [key] of batch) this.known.set(key, null);
    }
    if (this.known.size > 50_000) this.known.clear();
    this.version += 1;
    for (const listener of this.listeners) listener();
    if (this.wanted.size > 0) this.schedule();
  }
}

/** Re-renders when addresses arrive. */
export function useAddressBook(book: AddressBook): number {
  const [version, setVersion] = useState(book.version);
  useEffect(() => book.subscribe(() => setVersion(book.version)), [book]);
  return version;
}
