import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from './client';

export const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', '..', 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Migration files are `NNNN_name.sql`; the number is the schema version. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
}

export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `The database schema is at version ${databaseVersion}, newer than this build knows (${codeVersion}). ` +
        'Start a newer release of the product, or restore a backup taken with this one.',
    );
    this.name = 'SchemaTooNewError';
  }
}

export async function currentSchemaVersion(handle: DatabaseHandle): Promise<number> {
  const [row] = await handle.rows<{ version: number | null }>(
    sql`select max(version)::int as version from schema_migrations`,
  );
  return row?.version ?? 0;
}

/**
 * Applies pending migrations, each atomically and under a transaction-scoped advisory lock, so two
 * instances starting at once cannot both apply one. Refuses to start against a newer schema.
 */
export async function migrate(handle: DatabaseHandle, migrations = readMigrations()): Promise<number> {
  const codeVersion = migrations.at(-1)?.version ?? 0;
  await handle.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const databaseVersion = await currentSchemaVersion(handle);
  if (databaseVersion > codeVersion) throw new SchemaTooNewError(databaseVersion, codeVersion);
  for (const migration of migrations) {
    if (migration.version <= databaseVersion) continue;
    const name = migration.name.replaceAll("'", "''");
    try {
      await handle.execAtomically(
        `SELECT pg_advisory_xact_lock(727001);\n${migration.sql}\n;INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, '${name}');`,
      );
    } catch (error) {
      // Another instance may have applied it while this one waited for the lock.
      if ((await currentSchemaVersion(handle)) >= migration.version) continue;
      throw new Error(`Migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`);
    }
  }
  return codeVersion;
}
