import type { Platform } from '../lib/platform';
import type { JobDefinition } from './scheduler';

/** How long delivered events and finished jobs are kept (a job's unique key is free again after that). */
const DONE_RETENTION_DAYS = 30;

/** The platform's own upkeep (the outbox and the job queue); each module brings its own jobs through its descriptor. */
export function platformJobs(platform: Platform): JobDefinition[] {
  return [
    {
      // Delivered events and finished jobs are kept a month for support, then go; dead ones stay until retried or looked at.
      name: 'outbox-and-queue.retention',
      intervalSeconds: 60 * 60,
      run: async () => {
        const cutoff = new Date(platform.clock.now().getTime() - DONE_RETENTION_DAYS * 86_400_000);
        await platform.outbox.prune(cutoff);
        await platform.queue.prune(cutoff);
      },
    },
  ];
}
