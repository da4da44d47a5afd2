import { type SQL, sql } from 'drizzle-orm';
import type { Querier } from './client';

/**
 * The `Querier` of a Drizzle transaction, so code written with Drizzle can publish to the outbox (or enqueue a job)
 * in its own transaction: `$n` placeholders become bound parameters of one Drizzle statement.
 */
export function drizzleQuerier(executor: { execute(query: SQL): PromiseLike<unknown> }): Querier {
  return async <T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> => {
    const parts = text.split(/\$(\d+)/);
    const chunks: SQL[] = parts.map((part, index) => (index % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`));
    const result = await executor.execute(sql.join(chunks, sql.raw('')));
    // PGlite answers { rows }, postgres.js the rows themselves.
    return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
  };
}
