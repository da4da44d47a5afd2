import { mkdirSync } from 'node:fs';
import { type Extension, PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { postgis } from '@electric-sql/pglite-postgis';
import { type SQL, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';

export type Database = PgDatabase<PgQueryResultHKT>;
export type DatabaseKind = 'pglite' | 'postgres';

/**
 * One handle over either driver. Feature code uses `db` (Drizzle) and `rows()`;
 * `exec()` runs multi-statement SQL (migrations), `raw` reaches the driver for bulk ingest.
 */
export interface DatabaseHandle {
  kind: DatabaseKind;
  db: Database;
  exec(text: string): Promise<void>;
  /** Runs multi-statement SQL atomically: all of it or, on any error, none of it. */
  execAtomically(text: string): Promise<void>;
  /** Runs a query and returns its rows, whichever driver is underneath. */
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
  raw: { kind: 'pglite'; client: PGlite } | { kind: 'postgres'; client: postgres.Sql };
  /** Parameterised SQL straight to the driver, for hot paths (ingest) that Drizzle would slow down. */
  query<T extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs `work` in one transaction on one connection; any error rolls all of it back. */
  transaction<T>(work: (query: Querier) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type Querier = <T extends Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/**
 * `options.postgis` lets the tests load a smaller PostGIS bundle into the many databases they open (loading the whole
 * bundle is most of an embedded database's start-up).
 */
export async function openPglite(dataDir: string | undefined, options: { postgis?: Extension } = {}): Promise<DatabaseHandle> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // btree_gist: the bookings' exclusion constraint (a unit's bookings never overlap).
  const client = await PGlite.create(dataDir, { extensions: { postgis: options.postgis ?? postgis, btree_gist } });
  await client.exec('CREATE EXTENSION IF NOT EXISTS postgis');
  const db = drizzlePglite(client) as unknown as Database;
  return {
    kind: 'pglite',
    db,
    exec: async (text) => {
      await client.exec(text);
    },
    execAtomically: async (text) => {
      await client.transaction(async (tx) => {
        await tx.exec(text);
      });
    },
    rows: async <T extends Record<string, unknown>>(query: SQL) => {
      const result = (await db.execute(query)) as unknown as { rows: T[] };
      return result.rows;
    },
    raw: { kind: 'pglite', client },
    query: async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
      (await client.query<T>(text, params)).rows,
    transaction: (work) =>
      client.transaction((tx) =>
        work(async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await tx.query<T>(text, params)).rows),
      ),
    close: () => client.close(),
  };
}

export async function openPostgres(url: string, maxConnections = 10): Promise<DatabaseHandle> {
  const client = postgres(url, {
    max: maxConnections,
    onnotice: () => {},
    // Short OLTP queries: JIT compiling costs ~200 ms whenever an estimate passes jit_above_cost (a trip list's
    // place look-up of 10,000 points did), far more than it ever saves here (bench/triplog.ts).
    connection: { jit: 'off' },
  });
  await client.unsafe('CREATE EXTENSION IF NOT EXISTS postgis');
  const db = drizzlePostgres(client) as unknown as Database;
  return {
    kind: 'postgres',
    db,
    exec: async (text) => {
      await client.unsafe(text);
    },
    execAtomically: async (text) => {
      await client.begin(async (tx) => {
        await tx.unsafe(text);
      });
    },
    rows: async <T extends Record<string, unknown>>(query: SQL) => {
      const result = (await db.execute(query)) as unknown as T[];
      return [...result];
    },
    raw: { kind: 'postgres', client },
    query: async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
      [...(await client.unsafe(text, arrayParamsAsLiterals(params)))] as unknown as T[],
    transaction: async (work) =>
      (await client.begin((tx) =>
        work(
          async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
            [...(await tx.unsafe(text, arrayParamsAsLiterals(params)))] as unknown as T[],
        ),
      )) as Awaited<ReturnType<typeof work>>,
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * postgres.js infers an array parameter's type from its first element and gets `[null, true]` or
 * `[false]` wrong (it sends a scalar boolean). Sending arrays as text literals, cast in the SQL
 * (`$1::boolean[]`), is unambiguous for every element type and cheaper to serialise.
 */
function arrayParamsAsLiterals(params: unknown[]): postgres.ParameterOrJSON<never>[] {
  return params.map((param) => (Array.isArray(param) ? pgArrayLiteral(param) : param)) as postgres.ParameterOrJSON<never>[];
}

export function pgArrayLiteral(values: readonly unknown[]): string {
  const items = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'boolean') return value ? 't' : 'f';
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    const text = value instanceof Date ? value.toISOString() : String(value);
    return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/** Checks the connection; used by /api/health. */
export async function ping(handle: DatabaseHandle): Promise<boolean> {
  const [row] = await handle.rows<{ ok: number }>(sql`select 1 as ok`);
  return row?.ok === 1;
}
