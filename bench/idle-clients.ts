/**
 * Child process of bench/idle-connections.ts: opens N Teltonika connections, logs each in with its IMEI
 * and then holds them idle. Prints `ready <accepted> <refused>` once all handshakes are answered.
 */
import { encodeImeiFrame } from '../src/gateway/teltonika';
import { demoImei } from '../src/demo/seed';

const [portText, countText] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
let accepted = 0;
let refused = 0;
const sockets: Array<{ end(): void }> = [];
const concurrency = 500;
let next = 0;

async function openOne(index: number) {
  await new Promise<void>((resolve) => {
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(socket) {
          socket.write(encodeImeiFrame(demoImei(index)));
        },
        data(socket, chunk) {
          if (chunk[0] === 1) accepted += 1;
          else refused += 1;
          sockets.push(socket);
          resolve();
        },
        close() {
          resolve();
        },
        error() {
          refused += 1;
          resolve();
        },
      },
    }).catch(() => {
      refused += 1;
      resolve();
    });
  });
}

await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const index = next++;
      await openOne(index);
    }
  }),
);
console.log(`ready ${accepted} ${refused}`);
// Hold the connections until the parent kills this process.
setInterval(() => {}, 60_000);
