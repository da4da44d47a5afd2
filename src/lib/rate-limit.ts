import { RedisClient } from 'bun';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from './db/client';

/** A counter's state after a hit: how many hits in its window, and when the window (or the lock) ends. */
export interface Counter {
  count: number;
  resetAt: Date;
}

export interface HitOptions {
  windowMs: number;
  /** When the count reaches `lockAt`, the window is stretched to `lockMs` from now (a lockout). */
  lockAt?: number;
  lockMs?: number;
}

/**
 * Fixed-window counters shared by every instance (in the database, or in Redis when configured). Each hit is one
 * atomic step, so parallel requests cannot slip past a limit the way a read-then-write count did.
 */
export interface RateLimitStore {
  hit(key: string, now: Date, options: HitOptions): Promise<Counter>;
  peek(key: string, now: Date): Promise<Counter | null>;
  clear(key: string): Promise<void>;
  /** Closes what the store holds open (the Redis connection); the store is not used after it. */
  close(): void;
}

function windowEnds(now: Date, options: HitOptions) {
  return {
    windowEnd: new Date(now.getTime() + options.windowMs),
    lockEnd: new Date(now.getTime() + (options.lockMs ?? options.windowMs)),
    lockAt: options.lockAt ?? 0,
  };
}

/** Expired counters are swept now and then by whichever instance is counting. */
const SWEEP_EVERY_HITS = 1000;

export function databaseRateLimits(database: DatabaseHandle): RateLimitStore {
  let hits = 0;
  return {
    async hit(key, now, options) {
      const { windowEnd, lockEnd, lockAt } = windowEnds(now, options);
      if (++hits % SWEEP_EVERY_HITS === 0) await database.rows(sql`delete from rate_limits where reset_at < ${now.toISOString()}::timestamptz`);
      const [row] = await database.rows<{ count: number; reset_at: string | Date }>(sql`
        insert into rate_limits as r (key, count, reset_at) values (${key}, 1, ${windowEnd.toISOString()}::timestamptz)
        on conflict (key) do update set
          count = case when r.reset_at <= ${now.toISOString()}::timestamptz then 1 else r.count + 1 end,
          reset_at = case
            when r.reset_at <= ${now.toISOString()}::timestamptz then ${windowEnd.toISOString()}::timestamptz
            when r.count + 1 = ${lockAt} then greatest(r.reset_at, ${lockEnd.toISOString()}::timestamptz)
            else r.reset_at end
        returning count, reset_at`);
      return { count: Number(row!.count), resetAt: new Date(row!.reset_at) };
    },
    async peek(key, now) {
      const [row] = await database.rows<{ count: number; reset_at: string | Date }>(sql`
        select count, reset_at from rate_limits where key = ${key} and reset_at > ${now.toISOString()}::timestamptz`);
      return row ? { count: Number(row.count), resetAt: new Date(row.reset_at) } : null;
    },
    async clear(key) {
      await database.rows(sql`delete from rate_limits where key = ${key}`);
    },
    // The database handle belongs to the platform, which closes it.
    close() {},
  };
}

/** The same counter as one Lua script (atomic in Redis); times come from the portal's clock, like the database's. */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local count = tonumber(redis.call('HGET', KEYS[1], 'count'))
local reset = tonumber(redis.call('HGET', KEYS[1], 'reset'))
if not count or reset <= now then
  count = 1
  reset = tonumber(ARGV[2])
else
  count = count + 1
  if count == tonumber(ARGV[4]) and tonumber(ARGV[3]) > reset then reset = tonumber(ARGV[3]) end
end
redis.call('HSET', KEYS[1], 'count', count, 'reset', reset)
redis.call('PEXPIRE', KEYS[1], reset - now + 60000)
return {count, tostring(reset)}
`;

export function redisRateLimits(url: string, prefix = 'fleet:limit:'): RateLimitStore {
  const client = new RedisClient(url);
  return {
    async hit(key, now, options) {
      const { windowEnd, lockEnd, lockAt } = windowEnds(now, options);
      const [count, reset] = (await client.send('EVAL', [
        HIT_SCRIPT,
        '1',
        prefix + key,
        String(now.getTime()),
        String(windowEnd.getTime()),
        String(lockEnd.getTime()),
        String(lockAt),
      ])) as [number, string];
      return { count: Number(count), resetAt: new Date(Number(reset)) };
    },
    async peek(key, now) {
      const [count, reset] = (await client.send('HMGET', [prefix + key, 'count', 'reset'])) as [string | null, string | null];
      if (count === null || reset === null || Number(reset) <= now.getTime()) return null;
      return { count: Number(count), resetAt: new Date(Number(reset)) };
    },
    async clear(key) {
      await client.send('DEL', [prefix + key]);
    },
    close() {
      client.close();
    },
  };
}
