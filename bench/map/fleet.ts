/**
 * Child process of bench/map.ts: drives the benchmark's trackers against the gateway, each reporting one
 * position every interval. The first `--tcp` devices are Teltonika trackers on their own TCP connection,
 * the rest OsmAnd/Traccar-Client phones over HTTP: a process may hold at most 20,000 open files here, so
 * 20,000 TCP trackers cannot all connect to one gateway process. Prints `started` once running.
 *
 *   bun run bench/map/fleet.ts <count> <tcp> <intervalMs> <teltonikaPort> <osmandPort>
 */
import { demoImei } from '../../src/demo/seed';
import { startFleet } from '../../src/gateway/simulator/fleet';

const [count, tcp, intervalMs, teltonika, osmand] = process.argv.slice(2).map(Number) as [number, number, number, number, number];
let errors = 0;
const fleet = startFleet({
  host: '127.0.0.1',
  ports: { teltonika, gt06: 0, osmand },
  devices: Array.from({ length: count }, (_, index) => ({ imei: demoImei(index), protocol: index < tcp ? ('teltonika' as const) : ('osmand' as const) })),
  intervalMs,
  recordsPerFrame: 1,
  onError: (imei, error) => {
    errors += 1;
    if (errors <= 5) console.error(`${imei}: ${error}`);
  },
});
console.log('started');
process.on('SIGTERM', async () => {
  await fleet.stop();
  process.exit(0);
});
