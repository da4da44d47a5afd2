import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { type DatabaseHandle, openPglite, openPostgres } from '../../src/lib/db/client';
import { MIGRATIONS_DIR, migrate } from '../../src/lib/db/migrate';
import { slimPostgis } from './postgis-bundle';

/**
 * Test databases: each test file gets its own fresh, migrated database, copied from a template built once
 * (PGlite: a data directory; PostgreSQL: a template database). TEST_DB=postgres selects TEST_DATABASE_URL.
 */
export type TestDatabaseKind = 'pglite' | 'postgres';

export function testDatabaseKind(): TestDatabaseKind {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 12);
}

async function pgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), `fleet-test-pglite-${migrationsHash()}`);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  const building = `${dir}.${randomBytes(4).toString('hex')}`;
  const handle = await openPglite(building);
  await migrate(handle);
  await handle.close();
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another process finished first
  }
  return dir;
}

export interface TestDatabase {
  handle: DatabaseHandle;
  /** Where another process finds the same database: a PGlite directory or a PostgreSQL URL. */
  location: { kind: 'pglite'; dir: string } | { kind: 'postgres'; url: string };
  dispose(): Promise<void>;
}

/**
 * Set by `bun run test` for its whole run (its process id): PostgreSQL copies are named after the run and left
 * standing until the run's end drops them together (`dropRunDatabases`). On PostgreSQL 15 every DROP DATABASE forces
 * an immediate checkpoint, 1–3 s on a busy machine, which also flushes every other running test's pages. A test file
 * run on its own drops its copy as it closes.
 */
const RUN = process.env.TEST_DATABASE_RUN;
const RUN_PREFIX = 'fleet_test_run';

export async function createTestDatabase(kind = testDatabaseKind()): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const template = await pgliteTemplate();
    const dir = join(tmpdir(), `fleet-test-db-${randomBytes(6).toString('hex')}`);
    mkdirSync(dir, { recursive: true });
    cpSync(template, dir, { recursive: true });
    // The template's migrations created the extensions; a copy only loads PostGIS, so the slim bundle serves.
    const handle = await openPglite(dir, { postgis: slimPostgis });
    return {
      handle,
      location: { kind: 'pglite', dir },
      dispose: async () => {
        await handle.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  const template = `fleet_test_tpl_${migrationsHash()}`;
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${template}`;
    if (!exists) {
      // Built under a name of its own and renamed once migrated: a run killed midway leaves no half-migrated template
      // behind, and no other runner copies one still being built.
      const building = `${template}_building_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${building}`);
      const handle = await openPostgres(withDatabase(baseUrl, building), 1);
      await migrate(handle);
      await handle.close();
      // Another runner may have finished the same template first: theirs is kept and this copy dropped.
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${template}`).catch(async () => {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      });
    }
    const name = `${RUN ? `${RUN_PREFIX}${RUN}_` : 'fleet_test_'}${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    const handle = await openPostgres(withDatabase(baseUrl, name), 5);
    return {
      handle,
      location: { kind: 'postgres', url: withDatabase(baseUrl, name) },
      dispose: async () => {
        await handle.close().catch(() => {});
        if (RUN) return;
        const cleanup = postgres(baseUrl, { max: 1, onnotice: () => {} });
        await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await cleanup.end();
      },
    };
  } finally {
    await admin.end();
  }
}

/**
 * Drops the copies of the given run, and those left by runs whose process has gone (a run that was stopped midway).
 * A few at a time: drops that wait on the same checkpoint share it.
 */
export async function dropRunDatabases(baseUrl: string, run: string): Promise<number> {
  const admin = postgres(baseUrl, { max: 4, onnotice: () => {} });
  try {
    const databases = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${RUN_PREFIX}%`}`;
    const finished = databases
      .map(({ datname }) => ({ datname, owner: datname.slice(RUN_PREFIX.length).split('_')[0] ?? '' }))
      .filter(({ owner }) => owner === run || !processAlive(Number(owner)));
    await Promise.all(finished.map(({ datname }) => admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)));
    return finished.length;
  } finally {
    await admin.end();
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
