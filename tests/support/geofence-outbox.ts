/**
 * A process that consumes the portal's `geofence.exited` events through the product's outbox, for the crash test
 * (tests/integration/geofences-crash.test.ts): as the alarm engine will, it subscribes and writes an effect per event.
 *
 * Environment: OUTBOX_PGLITE_DIR or OUTBOX_POSTGRES_URL; OUTBOX_HANG = 1 (dispatch: the first delivery writes its effect and hangs, to be killed inside its
 * transaction); OUTBOX_NAME (written with each effect). Prints `started`, `handled <eventId>`, `hanging`.
 */
import '../../src/modules/geofences/events';
import { systemClock } from '../../src/lib/clock';
import { openPglite, openPostgres } from '../../src/lib/db/client';
import type { EventMap } from '../../src/lib/events';
import { createLogger } from '../../src/lib/log';
import { Outbox } from '../../src/lib/outbox';

const env = process.env;
const database = env.OUTBOX_PGLITE_DIR ? await openPglite(env.OUTBOX_PGLITE_DIR) : await openPostgres(env.OUTBOX_POSTGRES_URL!, 4);
const outbox = new Outbox<EventMap>({ database, clock: systemClock, log: createLogger('warn'), pollMs: 200 });
const name = env.OUTBOX_NAME ?? String(process.pid);
let hang = env.OUTBOX_HANG === '1';

outbox.subscribe('geofence.exited', 'test.geofence-effect', async (event, tx) => {
  await tx('INSERT INTO test_effects (event_id, unit_id, geofence_id, at, process) VALUES ($1, $2, $3, $4, $5)', [
    event.id,
    event.payload.unitId,
    event.payload.geofenceId,
    event.payload.at,
    name,
  ]);
  process.stdout.write(`handled ${event.id}\n`);
  if (hang) {
    hang = false;
    process.stdout.write('hanging\n');
    await new Promise(() => {}); // killed here, inside the delivery's transaction
  }
});
await outbox.register();

await outbox.start();
process.stdout.write('started\n');
process.on('SIGTERM', async () => {
  await outbox.stop();
  await database.close();
  process.exit(0);
});
