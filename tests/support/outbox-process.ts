/**
 * A process that publishes or dispatches outbox events against a shared database, for the crash and
 * multi-process tests (tests/integration/outbox-processes.test.ts). It uses the product's outbox as is.
 *
 * Environment: OUTBOX_PGLITE_DIR or OUTBOX_POSTGRES_URL; OUTBOX_MODE = publish | dispatch;
 * OUTBOX_COUNT (publish: how many events); OUTBOX_HANG = 1 (dispatch: the first delivery writes its effect
 * and then hangs, so the process can be killed inside the delivery's transaction); OUTBOX_NAME (a label
 * written with each effect); OUTBOX_BATCH (deliveries per transaction).
 * Prints `committed` after publishing, `handled <eventId>` per subscriber call and `hanging` before hanging.
 */
import { systemClock } from '../../src/lib/clock';
import { openPglite, openPostgres } from '../../src/lib/db/client';
import { createLogger } from '../../src/lib/log';
import { Outbox } from '../../src/lib/outbox';

export interface CrashTestEvents {
  'test.happened': { n: number };
}

const env = process.env;
const database = env.OUTBOX_PGLITE_DIR ? await openPglite(env.OUTBOX_PGLITE_DIR) : await openPostgres(env.OUTBOX_POSTGRES_URL!, 4);
const outbox = new Outbox<CrashTestEvents>({
  database,
  clock: systemClock,
  log: createLogger('warn'),
  batchSize: Number(env.OUTBOX_BATCH ?? 500),
  pollMs: 200,
});
const name = env.OUTBOX_NAME ?? String(process.pid);
let hang = env.OUTBOX_HANG === '1';

outbox.subscribe('test.happened', 'test.effect', async (event, tx) => {
  await tx('INSERT INTO test_effects (event_id, n, process) VALUES ($1, $2, $3)', [event.id, event.payload.n, name]);
  process.stdout.write(`handled ${event.id}\n`);
  if (hang) {
    hang = false;
    process.stdout.write('hanging\n');
    await new Promise(() => {}); // killed here, inside the delivery's transaction
  }
});
await outbox.register();

if (env.OUTBOX_MODE === 'publish') {
  const count = Number(env.OUTBOX_COUNT ?? 1);
  await database.transaction(async (tx) => {
    for (let n = 0; n < count; n++) await outbox.publish(tx, 'test.happened', { n });
  });
  process.stdout.write('committed\n');
  await new Promise(() => {}); // never dispatches: killed with the events committed and undelivered
} else {
  await outbox.start();
  process.stdout.write('started\n');
  process.on('SIGTERM', async () => {
    await outbox.stop();
    await database.close();
    process.exit(0);
  });
}
