import type { Platform } from '../../lib/platform';
import type { JobDefinition } from '../../jobs/scheduler';

/** Keeps monthly position partitions ready from last month to two months ahead. */
export async function ensurePositionPartitions(platform: Platform): Promise<void> {
  const now = platform.clock.now();
  for (let offset = -1; offset <= 2; offset++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
    try {
      await platform.database.transaction(async (tx) => {
        // Instances starting together would race to create the same partition ("already exists"): one at a time.
        await tx("SELECT pg_advisory_xact_lock(hashtext('positions.partitions'))");
        await tx('SELECT ensure_position_partition($1::date)', [month.toISOString().slice(0, 10)]);
      });
    } catch (error) {
      // Rows already in the default partition for that month block it; they stay queryable there.
      platform.log.warn('position partition not created', { month: month.toISOString().slice(0, 7), error: String(error) });
    }
  }
}

/** Tracking's scheduled upkeep: position partitions ahead of time, raw frames deleted after their retention. */
export function trackingJobs(platform: Platform): JobDefinition[] {
  return [
    { name: 'positions.partitions', intervalSeconds: 6 * 60 * 60, run: () => ensurePositionPartitions(platform) },
    {
      name: 'raw-frames.retention',
      intervalSeconds: 60 * 60,
      run: async () => {
        const cutoff = new Date(platform.clock.now().getTime() - platform.config.RAW_FRAME_RETENTION_DAYS * 86_400_000);
        await platform.database.query('DELETE FROM raw_frames WHERE received_at < $1', [cutoff.toISOString()]);
      },
    },
  ];
}
