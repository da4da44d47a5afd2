import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite, openPostgres } from '../../src/lib/db/client';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { connectDevice, hex, imeiLogin } from '../support/device';
import { portalEnv, startPortal, waitForPort } from '../support/instances';

/**
 * The real portal process is killed with SIGKILL around a frame and started again on the same database:
 * the device resends what it has no ACK for, and every record ends up stored exactly once.
 */
const IMEI = '356307042441013';
// Two records (Codec 8, wiki example 3) and one more (example 1) with a different time.
const TWO_RECORDS =
  '000000000000004308020000016B40D57B480100000000000000000000000000000001010101000000000000016B40D5C198010000000000000000000000000000000101010101000000020000252C';
const ONE_RECORD =
  '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';

let database: TestDatabase;
let dataRoot: string | null = null;
let env: Record<string, string>;

async function countPositions(): Promise<number> {
  const handle = database.location.kind === 'pglite' ? await openPglite(join(dataRoot!, 'pglite')) : await openPostgres(database.location.url, 1);
  try {
    const [row] = await handle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM positions p JOIN units u ON u.id = p.unit_id WHERE u.imei = $1',
      [IMEI],
    );
    return row!.n;
  } finally {
    await handle.close();
  }
}

afterAll(async () => {
  await database?.dispose();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

test('killing the process around a frame loses nothing and stores nothing twice', async () => {
  database = await createTestDatabase();
  const [account] = await database.handle.query<{ id: number }>(`INSERT INTO accounts (subsite_id, company_name) VALUES (0, 'Crash test') RETURNING id`);
  await database.handle.query(`INSERT INTO units (account_id, imei, name) VALUES ($1, $2, 'Crash unit')`, [account!.id, IMEI]);
  const { teltonikaPort, env: portalSettings } = portalEnv();
  env = portalSettings;
  if (database.location.kind === 'pglite') {
    // The portal keeps its embedded database in DATA_DIR/pglite.
    await database.handle.close();
    dataRoot = mkdtempSync(join(tmpdir(), 'fleet-crash-'));
    renameSync(database.location.dir, join(dataRoot, 'pglite'));
    env.DATA_DIR = dataRoot;
  } else {
    env.DATABASE_URL = database.location.url;
  }

  // 1. The frame reaches the machine but the process never handles it: frozen, then killed.
  let portal = startPortal(env);
  await waitForPort(teltonikaPort);
  let device = await connectDevice(teltonikaPort);
  device.write(imeiLogin(IMEI));
  expect(hex(await device.read(1))).toBe('01');
  process.kill(portal.pid, 'SIGSTOP');
  device.write(TWO_RECORDS);
  await Bun.sleep(200);
  process.kill(portal.pid, 'SIGKILL');
  await portal.exited;
  expect(await device.read(4, 500)).toBeNull(); // no ACK: the device keeps the records
  expect(await countPositions()).toBe(0);

  // 2. After a restart the device resends; this time the records are committed and acknowledged,
  //    and the process is killed right after — as if the ACK had been lost on the way.
  portal = startPortal(env);
  await waitForPort(teltonikaPort);
  device = await connectDevice(teltonikaPort);
  device.write(imeiLogin(IMEI));
  expect(hex(await device.read(1))).toBe('01');
  device.write(TWO_RECORDS);
  expect(hex(await device.read(4, 10_000))).toBe('00000002');
  process.kill(portal.pid, 'SIGKILL');
  await portal.exited;
  expect(await countPositions()).toBe(2);

  // 3. The device, not having seen that ACK, resends once more: acknowledged, not stored twice.
  portal = startPortal(env);
  await waitForPort(teltonikaPort);
  device = await connectDevice(teltonikaPort);
  device.write(imeiLogin(IMEI));
  expect(hex(await device.read(1))).toBe('01');
  device.write(TWO_RECORDS);
  expect(hex(await device.read(4, 10_000))).toBe('00000002');
  device.write(ONE_RECORD);
  expect(hex(await device.read(4, 10_000))).toBe('00000001');
  device.end();
  portal.kill('SIGTERM');
  await portal.exited;
  expect(await countPositions()).toBe(3);
}, 180_000);
