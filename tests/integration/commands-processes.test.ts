import { afterAll, expect, test } from 'bun:test';
import { encodeAvlFrame, encodeCodec12Command, encodeCodec12Response, encodeImeiFrame } from '../../src/gateway/teltonika';
import { systemClock } from '../../src/lib/clock';
import { EventBus } from '../../src/lib/events';
import { createCommandService } from '../../src/modules/io/service';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { connectDevice, hex } from '../support/device';
import { portalEnv, startPortal } from '../support/instances';
import { waitFor } from '../support/wait';

/**
 * Commands reach a gateway in another process: the portal (src/main.ts with its gateway, no jobs) holds the tracker's
 * connection, and this process queues commands as the API or an outbox subscriber in another process does, in its own
 * transaction. The one queued through the command service reaches the tracker when its transaction commits (the
 * commit's notification); one written without a notification (as if the gateway's listening connection had been down)
 * is found by the gateway asking for its connected devices' queued commands. PostgreSQL only: an embedded database
 * belongs to one process.
 */
const IMEI = '356307042449921';
let database: TestDatabase | null = null;
let portal: ReturnType<typeof Bun.spawn> | null = null;

afterAll(async () => {
  portal?.kill('SIGTERM');
  await portal?.exited;
  await database?.dispose();
});

test.skipIf(process.env.TEST_DB !== 'postgres')('a command queued in one process reaches the tracker connected to a gateway in another', async () => {
  database = await createTestDatabase();
  if (database.location.kind !== 'postgres') throw new Error('PostgreSQL only');
  const [account] = await database.handle.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name, country) VALUES (0, 'Command fleet', 'Sweden') RETURNING id`);
  const [unit] = await database.handle.query<{ id: number }>(
    `INSERT INTO units (account_id, imei, name, protocol, model) VALUES ($1, $2, 'Remote car', 'teltonika', 'FMB920') RETURNING id`,
    [account!.id, IMEI],
  );
  const unitId = unit!.id;
  const { teltonikaPort, env } = portalEnv();
  portal = startPortal({ ...env, DATABASE_URL: database.location.url });
  const device = await waitFor(
    "the portal's gateway",
    async () => {
      try {
        return await connectDevice(teltonikaPort);
      } catch {
        return null;
      }
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  device.write(encodeImeiFrame(IMEI));
  expect(hex(await device.read(1, 10_000))).toBe('01');
  const fix = { time: new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000), latitude: 59.33, longitude: 18.06, altitude: 20, speedKmh: 0, course: 0, satellites: 9, io: {} };
  device.write(encodeAvlFrame(0x8e, [fix]));
  expect(hex(await device.read(4, 10_000))).toBe('00000001');

  // Queued here, in a transaction of this process, as an outbox subscriber queues a theft-mode switch.
  const commands = createCommandService(database.handle, new EventBus(() => {}), systemClock);
  const first = await database.handle.transaction((tx) => commands.enqueue({ unitId, kind: 'setparam', payload: 'setparam 10000:60' }, tx));
  const sent = encodeCodec12Command('setparam 10000:60');
  expect(hex(await device.read(sent.length, 30_000))).toBe(hex(sent));
  expect((await commands.get(first))?.status).toBe('sent');
  device.write(encodeCodec12Response('New value 10000:60'));
  await waitFor('the answer stored', async () => (await commands.get(first))?.status === 'answered', { timeoutMs: 30_000 });

  // Written without a notification: the gateway finds it by asking.
  const [row] = await database.handle.query<{ id: number }>(
    `INSERT INTO device_commands (unit_id, account_id, kind, payload, created_at, expires_at)
     SELECT id, account_id, 'text', 'getver', now(), now() + interval '1 hour' FROM units WHERE id = $1 RETURNING id`,
    [unitId],
  );
  const polled = encodeCodec12Command('getver');
  expect(hex(await device.read(polled.length, 60_000))).toBe(hex(polled));
  expect((await commands.get(row!.id))?.status).toBe('sent');
  device.end();
}, 180_000);
