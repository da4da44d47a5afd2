import { afterAll, expect, test } from 'bun:test';
import { createTestDatabase, type TestDatabase } from '../tests/support/database';
import { MODULES } from './app';
import { createModuleServices, defineModule, moduleSubscriptions, stopModules, subscribeAll, subscription } from './composition';
import { ManualClock } from './lib/clock';
import type { Querier } from './lib/db/client';
import type { EventMap } from './lib/events';
import { createLogger } from './lib/log';
import { Outbox } from './lib/outbox';
import type { Platform } from './lib/platform';

const platform = {} as Platform;
const first = defineModule({ name: 'first', needs: [], create: () => ({ value: 1 }) });
const second = defineModule({ name: 'second', needs: ['first'], create: (_platform, { first }: { first: { value: number } }) => ({ value: first.value + 1 }) });

test('services are created in list order, each from the ones before it', async () => {
  const services = await createModuleServices(platform, [first, second]);
  expect(services.second.value).toBe(2);
});

test('a module listed before a service it needs is refused by name', async () => {
  await expect(createModuleServices(platform, [second, first])).rejects.toThrow('module second needs first, which must be listed before it');
});

test("the portal's list names each module once, after everything it needs", () => {
  const names = MODULES.map((module) => module.name);
  expect(new Set(names).size).toBe(names.length);
  MODULES.forEach((module, index) => {
    for (const need of module.needs) expect(names.slice(0, index)).toContain(need);
  });
});

test('shutdown stops each module that holds something open, the later ones first', async () => {
  const stopped: string[] = [];
  const holder = (name: string) => defineModule({ name, needs: [], create: () => ({ name }), stop: async (service: { name: string }) => void stopped.push(service.name) });
  const modules = [holder('client'), defineModule({ name: 'plain', needs: [], create: () => ({}) }), holder('user')] as const;
  await stopModules(modules, await createModuleServices(platform, modules));
  expect(stopped).toEqual(['user', 'client']);
});

let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.dispose();
});

test("a module's declared outbox subscriptions reach its own service: registered by the root, delivered once after the commit", async () => {
  database = await createTestDatabase();
  await database.handle.exec('CREATE TABLE composition_effects (event_id bigint NOT NULL, action text NOT NULL)');
  const outbox = new Outbox<EventMap>({ database: database.handle, clock: new ManualClock('2026-03-02T08:00:00Z'), log: createLogger('silent') });
  const subscriptionPlatform = { database: database.handle, outbox } as unknown as Platform;
  // A module whose service writes the effect, and one that subscribes to nothing.
  const ledger = defineModule({
    name: 'ledger',
    needs: [],
    create: () => ({
      async record(tx: Querier, eventId: number, action: string) {
        await tx('INSERT INTO composition_effects (event_id, action) VALUES ($1, $2)', [eventId, action]);
      },
    }),
    subscriptions: (service) => [subscription('audit.entry', 'ledger.audit', (event, tx) => service.record(tx, event.id, event.payload.action))],
  });
  const quiet = defineModule({ name: 'quiet', needs: [], create: () => ({}) });
  const modules = [quiet, ledger] as const;
  const services = await createModuleServices(subscriptionPlatform, modules);
  const declared = moduleSubscriptions(modules, services, subscriptionPlatform);
  expect(declared.map((entry) => [entry.type, entry.subscriber])).toEqual([['audit.entry', 'ledger.audit']]);

  subscribeAll(outbox, declared);
  await outbox.register();
  const entry = { accountId: 1, actorUserId: null, action: 'settings.updated', target: { kind: 'account', id: 1, label: 'A' }, at: '2026-03-02T08:00:00.000Z' };
  await database.handle.transaction((tx) => outbox.publish(tx, 'audit.entry', entry));
  expect(await outbox.drain()).toBe(1);
  expect(await outbox.drain()).toBe(0);
  const effects = await database.handle.query<{ action: string }>('SELECT action FROM composition_effects');
  expect(effects.map((row) => row.action)).toEqual(['settings.updated']);
  // Declared twice (two modules naming one subscriber for one type) is refused at start, not delivered twice.
  expect(() => subscribeAll(outbox, declared)).toThrow('outbox subscriber ledger.audit is registered twice for audit.entry');
}, 60_000);
