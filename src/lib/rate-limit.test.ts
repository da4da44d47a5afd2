import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { RedisClient } from 'bun';
import { createTestDatabase } from '../../tests/support/database';
import { databaseRateLimits, type RateLimitStore, redisRateLimits } from './rate-limit';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const probe = new RedisClient(REDIS_URL, { connectionTimeout: 500, autoReconnect: false });
  try {
    return (await probe.send('PING', [])) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const stores: Array<{ name: string; store: RateLimitStore; close?: () => void }> = [];
beforeAll(async () => {
  database = await createTestDatabase();
  stores.push({ name: 'database', store: databaseRateLimits(database.handle) });
  if (await redisReachable()) {
    const redis = redisRateLimits(REDIS_URL, `test:${crypto.randomUUID()}:`);
    stores.push({ name: 'redis', store: redis, close: () => redis.close() });
  } else if (process.env.CI) {
    throw new Error(`Redis is not reachable at ${REDIS_URL}`);
  }
}, 60_000);
afterAll(async () => {
  for (const { close } of stores) close?.();
  await database?.dispose();
});

const now = new Date('2026-03-02T08:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('rate-limit counters', () => {
  test('parallel hits each get their own count: none is lost', async () => {
    for (const { name, store } of stores) {
      const counts = await Promise.all(Array.from({ length: 100 }, () => store.hit(`parallel:${name}`, now, { windowMs: 60_000 })));
      expect({ name, counts: counts.map((c) => c.count).sort((a, b) => a - b) }).toEqual({ name, counts: Array.from({ length: 100 }, (_, i) => i + 1) });
    }
  });

  test('a window ends and starts again; reaching the lock stretches it; clear forgets', async () => {
    for (const { name, store } of stores) {
      const key = `window:${name}`;
      expect((await store.hit(key, now, { windowMs: 60_000 })).resetAt).toEqual(later(60_000));
      expect((await store.hit(key, later(30_000), { windowMs: 60_000 })).count).toBe(2);
      expect(await store.peek(key, later(30_000))).toEqual({ count: 2, resetAt: later(60_000) });
      expect((await store.hit(key, later(60_000), { windowMs: 60_000 })).count).toBe(1);

      const lock = `lock:${name}`;
      for (let i = 1; i <= 2; i++) await store.hit(lock, now, { windowMs: 60_000, lockAt: 3, lockMs: 3_600_000 });
      const locked = await store.hit(lock, later(1000), { windowMs: 60_000, lockAt: 3, lockMs: 3_600_000 });
      expect(locked).toEqual({ count: 3, resetAt: later(1000 + 3_600_000) });
      await store.clear(lock);
      expect(await store.peek(lock, later(2000))).toBeNull();
    }
  });
});

test('closing a Redis store closes its connection: it counts no more', async () => {
  if (!stores.some((entry) => entry.name === 'redis')) return;
  const store = redisRateLimits(REDIS_URL, `test:${crypto.randomUUID()}:`);
  expect((await store.hit('closing', now, { windowMs: 60_000 })).count).toBe(1);
  store.close();
  await expect(store.hit('closing', now, { windowMs: 60_000 })).rejects.toThrow();
});
