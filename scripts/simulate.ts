/**
 * `bun run simulate`: drives N virtual trackers over real sockets against a running portal.
 *
 *   --devices N          how many trackers (default 12, the demo fleet)
 *   --protocol P         teltonika (Codec 8E, default), gt06 or osmand
 *   --interval MS        real milliseconds between two frames of one tracker (default 5000)
 *   --records K          fixes per Teltonika frame (default 1)
 *   --speedup X          simulated seconds per real second (default 1)
 *   --host H             gateway host (default 127.0.0.1)
 *   --teltonika-port, --gt06-port, --osmand-port   gateway ports (defaults from the environment, as the portal)
 *   --register           add the trackers as units of the demo account first (needs DATABASE_URL;
 *                        with the embedded database the portal's demo already registers DEMO_VEHICLES)
 *
 * IMEIs are the demo fleet's: 350000000000001, 350000000000002, … Prints a line of figures every 5 s.
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/bootstrap';
import { demoImei, seedDemo } from '../src/demo/seed';
import { type SimulatedProtocol, startFleet } from '../src/gateway/simulator/fleet';
import { loadConfig } from '../src/lib/config';
import { migrate } from '../src/lib/db/migrate';
import { EventBus } from '../src/lib/events';
import { createLogger } from '../src/lib/log';
import { systemClock } from '../src/lib/clock';
import { JobQueue } from '../src/lib/queue';
import { Outbox } from '../src/lib/outbox';
import { createMailer } from '../src/lib/mail';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '12' },
    protocol: { type: 'string', default: 'teltonika' },
    interval: { type: 'string', default: '5000' },
    records: { type: 'string', default: '1' },
    speedup: { type: 'string', default: '1' },
    host: { type: 'string', default: '127.0.0.1' },
    'teltonika-port': { type: 'string' },
    'gt06-port': { type: 'string' },
    'osmand-port': { type: 'string' },
    register: { type: 'boolean', default: false },
  },
});

function positiveNumber(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name} must be a positive number, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

const protocol = values.protocol as SimulatedProtocol;
if (!['teltonika', 'gt06', 'osmand'].includes(protocol)) {
  console.error(`--protocol must be teltonika, gt06 or osmand, got ${JSON.stringify(values.protocol)}`);
  process.exit(2);
}
const count = Math.floor(positiveNumber('devices', values.devices));
const config = loadConfig({ ...process.env, DEMO_VEHICLES: String(count) });

if (values.register) {
  if (!config.DATABASE_URL) {
    console.error('--register needs DATABASE_URL (the embedded database belongs to the running portal)');
    process.exit(2);
  }
  const log = createLogger('warn');
  const database = await openDatabase(config);
  await migrate(database);
  const events = new EventBus(() => {});
  await seedDemo({
    config,
    database,
    log,
    events,
    outbox: new Outbox({ database, clock: systemClock, log }),
    queue: new JobQueue({ database, clock: systemClock, log }),
    clock: systemClock,
    mailer: createMailer({ from: config.MAIL_FROM, database, log }),
  });
  await database.close();
}

let acked = 0;
let frames = 0;
let errors = 0;
const fleet = startFleet({
  host: values.host ?? '127.0.0.1',
  ports: {
    teltonika: Number(values['teltonika-port'] ?? config.TELTONIKA_PORT),
    gt06: Number(values['gt06-port'] ?? config.GT06_PORT),
    osmand: Number(values['osmand-port'] ?? config.OSMAND_PORT),
  },
  devices: Array.from({ length: count }, (_, index) => ({ imei: demoImei(index), protocol })),
  intervalMs: positiveNumber('interval', values.interval),
  recordsPerFrame: Math.floor(positiveNumber('records', values.records)),
  speedup: positiveNumber('speedup', values.speedup),
  onAck: (records) => {
    acked += records;
    frames += 1;
  },
  onError: (imei, error) => {
    errors += 1;
    if (errors <= 5) console.error(`${imei}: ${error}`);
  },
});
console.log(`simulating ${count} ${protocol} trackers against ${values.host}; Ctrl-C stops`);
const started = Date.now();
const report = setInterval(() => {
  const seconds = (Date.now() - started) / 1000;
  console.log(`${seconds.toFixed(0)} s: ${frames} frames, ${acked} positions acknowledged (${(acked / seconds).toFixed(1)}/s), ${errors} errors`);
}, 5000);
process.on('SIGINT', async () => {
  clearInterval(report);
  await fleet.stop();
  process.exit(0);
});
