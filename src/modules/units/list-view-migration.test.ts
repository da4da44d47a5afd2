import { afterAll, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, openPglite, openPostgres } from '../../lib/db/client';
import { migrate, readMigrations } from '../../lib/db/migrate';
import { testDatabaseKind } from '../../../tests/support/database';
import postgres from 'postgres';

/** The unit list's saved views move to the shared preferences store (migration 0271): what users saved is kept. */
const MOVE = 271;
let handle: DatabaseHandle | undefined;
let cleanup: () => Promise<void> = async () => {};
afterAll(async () => {
  await handle?.close().catch(() => {});
  await cleanup();
});

/** An empty database of the configured kind (the migration runs on it from the start). */
async function emptyDatabase(): Promise<DatabaseHandle> {
  if (testDatabaseKind() === 'pglite') {
    const dir = join(tmpdir(), `fleet-test-migration-${randomBytes(6).toString('hex')}`);
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
    return openPglite(dir);
  }
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const name = `fleet_test_migration_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanup = async () => {
    const again = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await again.end();
  };
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return openPostgres(url.toString(), 1);
}

test("each user's saved unit-list columns and sort become their view of the unit table; nobody else gets one", async () => {
  handle = await emptyDatabase();
  const migrations = readMigrations();
  await migrate(handle, migrations.filter((migration) => migration.version < MOVE));
  const [account] = await handle.query<{ id: number }>(
    "INSERT INTO accounts (subsite_id, company_name, org_number, country) SELECT min(subsite_id), 'Åkeri AB', '556000-0000', 'SE' FROM brands RETURNING id",
  );
  const user = async (email: string) =>
    (await handle!.query<{ id: number }>("INSERT INTO users (account_id, email, password_hash, first_name, role) VALUES ($1, $2, 'x', 'A', 'user') RETURNING id", [account!.id, email]))[0]!.id;
  const [chose, descending, none] = [await user('chose@example.com'), await user('desc@example.com'), await user('none@example.com')];
  await handle.query(
    `INSERT INTO unit_list_preferences (user_id, columns, sort, sort_order, updated_at) VALUES
       ($1, ARRAY['name', 'odometer', 'tags'], 'name', 'asc', '2026-03-01T10:00:00Z'),
       ($2, ARRAY['nextInspection', 'name', 'imei', 'status', 'lastSeen', 'driver', 'inputs', 'outputs', 'locked', 'carUsage', 'fuelType',
                  'reportFrequency', 'operatingMode', 'operatingHours', 'odometer', 'subscriptionType', 'tags', 'project', 'department',
                  'vehicleType', 'model', 'registrationNumber'], 'lastSeen', 'desc', '2026-03-01T11:00:00Z')`,
    [chose, descending],
  );

  await migrate(handle, migrations);
  const rows = await handle.query<{ user_id: number; key: string; value: unknown; updated_at: Date | string }>(
    'SELECT user_id, key, value, updated_at FROM user_preferences ORDER BY user_id',
  );
  const value = (row: { value: unknown }) => (typeof row.value === 'string' ? JSON.parse(row.value) : row.value);
  expect(rows.map((row) => [row.user_id, row.key])).toEqual([
    [chose, 'table.units'],
    [descending, 'table.units'],
  ]);
  expect(value(rows[0]!)).toEqual({
    sorting: [{ id: 'name', desc: false }],
    hidden: ['registrationNumber', 'imei', 'model', 'vehicleType', 'department', 'project', 'subscriptionType', 'status', 'lastSeen',
             'operatingHours', 'operatingMode', 'reportFrequency', 'fuelType', 'carUsage', 'locked', 'driver', 'outputs', 'inputs', 'nextInspection'],
  });
  expect(new Date(rows[0]!.updated_at).toISOString()).toBe('2026-03-01T10:00:00.000Z');
  // Every column shown: nothing hidden.
  expect(value(rows[1]!)).toEqual({ sorting: [{ id: 'lastSeen', desc: true }], hidden: [] });
  expect(rows.some((row) => row.user_id === none)).toBe(false);
  const [table] = await handle.query<{ name: string | null }>("SELECT to_regclass('unit_list_preferences')::text AS name");
  expect(table!.name).toBeNull();
}, 180_000);
