/**
 * `bun run bench:idle [--connections 10000]`: holds N concurrent idle Teltonika connections (logged in with
 * registered IMEIs, from a separate client process) and prints the gateway process's RSS before and with
 * them, and the memory per connection. Target: 10,000 connections with RSS under 1 GiB.
 */
import { startGateway } from '../src/gateway';
import { createCommandService } from '../src/modules/io/service';
import { argument, benchPlatform, openBenchDatabase, seedUnits } from './support';

const connections = Number(argument('connections', '10000'));
const kind = argument('db', 'pglite') as 'pglite' | 'postgres';
const { database, label } = await openBenchDatabase(kind);
const platform = await benchPlatform(database);
await seedUnits(database, connections);
const gateway = await startGateway(platform, createCommandService(database, platform.events, platform.clock), {
  teltonika: 0,
  gt06: 0,
  osmand: 0,
});
Bun.gc(true);
const rssBefore = process.memoryUsage.rss();
const started = performance.now();
const clients = Bun.spawn(['bun', 'run', 'bench/idle-clients.ts', String(gateway.ports.teltonika), String(connections)], {
  stdout: 'pipe',
  stderr: 'inherit',
});
const reader = clients.stdout.getReader();
let output = '';
while (!output.includes('\n')) {
  const { value, done } = await reader.read();
  if (done) break;
  output += new TextDecoder().decode(value);
}
const [, accepted = '0', refused = '0'] = output.trim().split(' ');
const handshakeSeconds = (performance.now() - started) / 1000;
await Bun.sleep(3000); // idle: only the sockets remain
Bun.gc(true);
const open = gateway.context.metrics.connectionsOpen;
const rssWith = process.memoryUsage.rss();
clients.kill();
await clients.exited;
await gateway.stop();
await database.close();

const mib = (bytes: number) => (bytes / 1048576).toFixed(0);
console.log(`database                  ${label}`);
console.log(`connections held open     ${open} (accepted ${accepted}, refused ${refused}) in ${handshakeSeconds.toFixed(1)} s`);
console.log(`gateway RSS before        ${mib(rssBefore)} MiB`);
console.log(`gateway RSS with them     ${mib(rssWith)} MiB  (target < 1024 MiB)`);
console.log(`per connection            ${(((rssWith - rssBefore) / Math.max(1, open)) / 1024).toFixed(1)} KiB`);
process.exit(0);
