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
 *   --imei-start IMEI    the first IMEI (default 359990000000001: a range of the simulator's own, apart from the
 *                        demo fleet's 350000000000001…, which the portal's demo drives itself)
 *   --register           add the trackers as units of an account first (the configured database: PostgreSQL with
 *                        DATABASE_URL; the embedded one only while the portal is stopped)
 *   --account EMAIL      whose account --register adds them to (default DEMO_EMAIL)
 *
 * The gateway takes positions only from registered units: register the IMEIs once (--register, or as stock with
 * `bun run stock add` and then in the portal). Prints a line of figures every 5 s.
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/bootstrap';
import { registerSimulatedUnits, SIMULATOR_FIRST_IMEI, simulatorImeis } from '../src/demo/simulated';
import { type SimulatedProtocol, startFleet } from '../src/gateway/simulator/fleet';
import { loadConfig } from '../src/lib/config';
import { migrate } from '../src/lib/db/migrate';

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
    'imei-start': { type: 'string', default: SIMULATOR_FIRST_IMEI },
    account: { type: 'string' },
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
const config = loadConfig(process.env);
let imeis: string[];
try {
  imeis = simulatorImeis(count, values['imei-start']);
} catch (error) {
  console.error(`--imei-start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}

if (values.register) {
  const database = await openDatabase(config);
  await migrate(database);
  const platform = { database };
  try {
    const added = await registerSimulatedUnits(platform, imeis, values.account ?? config.DEMO_EMAIL, protocol);
    console.log(`${added} units added to the account of ${values.account ?? config.DEMO_EMAIL} (${imeis.length - added} were there)`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    await database.close();
    process.exit(2);
  }
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
  devices: imeis.map((imei) => ({ imei, protocol })),
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
console.log(`simulating ${count} ${protocol} trackers (IMEI ${imeis[0]}…${imeis.at(-1)}) against ${values.host}; Ctrl-C stops`);
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
