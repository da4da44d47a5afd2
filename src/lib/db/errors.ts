/**
 * Driver-independent reading of PostgreSQL errors (PGlite, postgres.js, and Drizzle's wrapper around either),
 * so that a lost race on a unique index can be answered as a field error instead of a 500.
 */
interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
  constraint_name?: unknown;
  column?: unknown;
  column_name?: unknown;
  cause?: unknown;
}

function* causes(error: unknown): Generator<PgErrorFields> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    yield current as PgErrorFields;
    current = (current as PgErrorFields).cause;
  }
}

/** The violated unique constraint (or index) name when `error` is a unique violation (23505), else null. */
export function uniqueViolation(error: unknown): string | null {
  for (const fields of causes(error)) {
    if (fields.code === '23505') {
      const name = fields.constraint_name ?? fields.constraint;
      return typeof name === 'string' ? name : '';
    }
  }
  return null;
}

/**
 * A rule the database checks itself (a trigger raising check_violation, 23514, with the message key as its CONSTRAINT
 * and the request's field as its COLUMN): the field and key, so the API answers it as a 422 field error; else null.
 */
export function databaseRefusal(error: unknown): { field: string; key: string } | null {
  for (const fields of causes(error)) {
    if (fields.code !== '23514') continue;
    const key = fields.constraint_name ?? fields.constraint;
    const field = fields.column_name ?? fields.column;
    if (typeof key === 'string' && typeof field === 'string' && key.includes('.') && field) return { field, key };
  }
  return null;
}
