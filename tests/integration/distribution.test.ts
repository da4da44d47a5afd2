/**
 * The schema stays ready for a distributed PostgreSQL (README, "Growing past one machine"): every table of the migrated
 * catalogue is placed in `src/lib/db/distribution.ts` (a new table that forgets it fails here), a distributed table
 * carries its distribution column NOT NULL, and the lists of what is still missing only shrink.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import {
  ACCOUNT_ID_MISSING,
  FOREIGN_KEYS_TO_REWORK,
  KEY_WITHOUT_DISTRIBUTION_COLUMN,
  POSITIONS_DISTRIBUTION_COLUMN,
  REFERENCE_TABLES,
  TABLE_PLACEMENT,
  UNCONSTRAINED_REFERENCES,
} from '../../src/lib/db/distribution';
import { createTestDatabase, type TestDatabase } from '../support/database';

type Column = {
  table: string;
  column: string;
  notNull: boolean;
};

let database: TestDatabase;
let tables: string[];
let columns: Column[];
/** Each primary key, unique constraint and unique index: its table and its columns. */
let uniqueKeys: { table: string; name: string; columns: string[] }[];
/** Each foreign key: child table and columns, parent table and columns, in matching order. */
let foreignKeys: { child: string; childColumns: string[]; parent: string; parentColumns: string[] }[];

beforeAll(async () => {
  database = await createTestDatabase();
  const tableRows = await database.handle.rows<{ name: string }>(sql`
    select c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
    order by 1`);
  tables = tableRows.map((row) => row.name);
  columns = await database.handle.rows<Column>(sql`
    select c.relname as "table", a.attname as "column", a.attnotnull as "notNull"
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition and a.attnum > 0 and not a.attisdropped`);
  const keyRows = await database.handle.rows<{ table: string; name: string; columns: string[] | string }>(sql`
    select c.relname as "table", i.relname as name,
           array(select a.attname::text from unnest(x.indkey) k join pg_attribute a on a.attrelid = c.oid and a.attnum = k) as columns
    from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition and x.indisunique`);
  uniqueKeys = keyRows.map((row) => ({
    ...row,
    columns: pgArray(row.columns),
  }));
  const foreignRows = await database.handle.rows<{ child: string; childColumns: string[] | string; parent: string; parentColumns: string[] | string }>(sql`
    select c.relname as child, p.relname as parent,
           array(select a.attname::text from unnest(k.conkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as "childColumns",
           array(select a.attname::text from unnest(k.confkey) with ordinality u(n, i) join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i) as "parentColumns"
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = current_schema() and not c.relispartition and k.conparentid = 0`);
  foreignKeys = foreignRows.map((row) => ({ ...row, childColumns: pgArray(row.childColumns), parentColumns: pgArray(row.parentColumns) }));
}, 120_000);

/** PGlite returns a text array as its literal. */
function pgArray(value: string[] | string): string[] {
  return Array.isArray(value) ? value : value.replace(/^\{|\}$/g, '').split(',').filter(Boolean);
}

afterAll(async () => {
  await database?.dispose();
});

const has = (table: string, column: string) => columns.find((row) => row.table === table && row.column === column);

test('every table of the schema is placed: distributed by account, distributed by unit, reference, or coordinator', () => {
  const unplaced = tables.filter((table) => !(table in TABLE_PLACEMENT));
  const unknown = Object.keys(TABLE_PLACEMENT).filter((table) => !tables.includes(table));
  expect({ unplaced, unknown }).toEqual({ unplaced: [], unknown: [] });
});

test('a distributed table carries its distribution column, NOT NULL', () => {
  const problems: string[] = [];
  for (const [table, placement] of Object.entries(TABLE_PLACEMENT)) {
    if (placement === 'account-pending' || (placement.kind !== 'account' && placement.kind !== 'unit')) continue;
    const column = has(table, placement.column);
    if (!column) problems.push(`${table} has no ${placement.column}`);
    else if (!column.notNull) problems.push(`${table}.${placement.column} may be NULL`);
  }
  expect(problems).toEqual([]);
});

test('the positions table is distributed by its chosen column, part of its primary key', () => {
  expect(TABLE_PLACEMENT.positions).toEqual({ kind: 'unit', column: POSITIONS_DISTRIBUTION_COLUMN });
  const primary = uniqueKeys.find((key) => key.table === 'positions' && key.name === 'positions_pkey');
  expect(primary?.columns).toContain(POSITIONS_DISTRIBUTION_COLUMN);
});

test('the per-account tables still without account_id are exactly the listed ones, and each has a parent that carries it', () => {
  const pending = Object.keys(TABLE_PLACEMENT).filter((table) => TABLE_PLACEMENT[table] === 'account-pending');
  expect(pending.filter((table) => has(table, 'account_id'))).toEqual([]); // gained it: move it to `account`
  for (const [table, parent] of Object.entries(ACCOUNT_ID_MISSING)) {
    expect({ table, parentCarriesAccount: Boolean(has(parent, 'account_id')?.notNull) }).toEqual({ table, parentCarriesAccount: true });
  }
});

test('every unique key of a distributed table includes its distribution column, but for the listed ones', () => {
  const without = new Set<string>();
  for (const key of uniqueKeys) {
    const placement = TABLE_PLACEMENT[key.table];
    if (!placement || placement === 'account-pending' || (placement.kind !== 'account' && placement.kind !== 'unit')) continue;
    if (!key.columns.includes(placement.column)) without.add(key.table);
  }
  expect([...without].sort()).toEqual([...KEY_WITHOUT_DISTRIBUTION_COLUMN].sort());
});

test('the reference tables are named', () => {
  expect(REFERENCE_TABLES).toEqual(expect.arrayContaining(['brands', 'tracker_stock', 'benefit_parameters', 'accounts']));
});

/** Whether Citus could keep this foreign key: into a reference table, within the coordinator, or within one co-location group on its column. */
function keepable(key: (typeof foreignKeys)[number]): boolean {
  const child = TABLE_PLACEMENT[key.child];
  const parent = TABLE_PLACEMENT[key.parent];
  if (!child || !parent || child === 'account-pending' || parent === 'account-pending') return false;
  if (parent.kind === 'reference') return true;
  if (parent.kind === 'coordinator') return child.kind === 'coordinator';
  if (child.kind !== parent.kind) return false;
  const at = key.childColumns.indexOf(child.column);
  return at >= 0 && key.parentColumns[at] === parent.column;
}

test('every foreign key stays where Citus can check it, but for the listed ones', () => {
  const rework = foreignKeys.filter((key) => !keepable(key)).map((key) => `${key.child}(${key.childColumns.join(',')})->${key.parent}`);
  expect([...new Set(rework)].sort()).toEqual([...FOREIGN_KEYS_TO_REWORK].sort());
});

test('a reference kept without a foreign key exists and has none', () => {
  const problems: string[] = [];
  for (const reference of Object.keys(UNCONSTRAINED_REFERENCES)) {
    const [table = '', column = ''] = reference.split('.');
    if (!has(table, column)) problems.push(`${reference} does not exist`);
    if (foreignKeys.some((key) => key.child === table && key.childColumns.includes(column))) problems.push(`${reference} still has a foreign key`);
  }
  expect(problems).toEqual([]);
});
