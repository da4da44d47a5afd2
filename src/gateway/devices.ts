import type { DatabaseHandle } from '../lib/db/client';

export interface KnownDevice {
  unitId: number;
  accountId: number;
  model: string;
  protocol: string;
  timezoneMinutes: number;
}

/**
 * IMEI → unit look-ups for the gateway. Hits are cached briefly, misses too (so a flood of unknown
 * devices cannot hammer the database), and the cache is small enough to hold every unit of a reseller.
 */
export class DeviceDirectory {
  private cache = new Map<string, { device: KnownDevice | null; until: number }>();
  unknownRefused = 0;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly ttlMs = 30_000,
  ) {}

  async find(deviceId: string): Promise<KnownDevice | null> {
    const cached = this.cache.get(deviceId);
    if (cached && cached.until > Date.now()) return cached.device;
    const [row] = await this.database.query<{
      id: number;
      account_id: number;
      model: string;
      protocol: string;
      timezone_minutes: number;
    }>('SELECT id, account_id, model, protocol, timezone_minutes FROM unit_directory WHERE imei = $1', [deviceId]);
    const device = row
      ? { unitId: row.id, accountId: row.account_id, model: row.model, protocol: row.protocol, timezoneMinutes: row.timezone_minutes }
      : null;
    this.cache.set(deviceId, { device, until: Date.now() + (device ? this.ttlMs : 5_000) });
    if (!device) this.unknownRefused += 1;
    return device;
  }

  forget(deviceId: string): void {
    this.cache.delete(deviceId);
  }
}
