import type { AnyElysia } from 'elysia';
import type { JobDefinition } from './jobs/scheduler';
import type { EventMap } from './lib/events';
import type { Outbox, OutboxBatchSubscriber, OutboxSubscriber } from './lib/outbox';
import type { Platform } from './lib/platform';

/**
 * A durable-event subscription a module declares: the outbox hands every `type` event to `handle` at least once, in
 * the dispatcher's transaction (`subscriber` names it across releases; deliveries are recorded under it).
 */
export type OutboxSubscription<Events extends object = EventMap> = {
  [K in keyof Events & string]:
    | { type: K; subscriber: string; handle: OutboxSubscriber<Events, K>; handleMany?: undefined }
    | { type: K; subscriber: string; handle?: undefined; handleMany: OutboxBatchSubscriber<Events, K> };
}[keyof Events & string];

/** One subscription, its handler typed from its event type. */
export function subscription<K extends keyof EventMap & string>(type: K, subscriber: string, handle: OutboxSubscriber<EventMap, K>): OutboxSubscription {
  return { type, subscriber, handle } as OutboxSubscription;
}

/** One batch subscription: its handler gets all of a dispatch pass's events of the type at once (`Outbox.subscribeMany`). */
export function batchSubscription<K extends keyof EventMap & string>(
  type: K,
  subscriber: string,
  handleMany: OutboxBatchSubscriber<EventMap, K>,
): OutboxSubscription {
  return { type, subscriber, handleMany } as OutboxSubscription;
}

/**
 * What a module gives the composition root (`src/app.ts`): how to create its service from the platform and the
 * services it needs, its HTTP routes, its scheduled jobs and its durable-event subscriptions. The root lists the
 * modules in dependency order.
 */
export interface ModuleDescriptor<Name extends string, Service, Needs extends object, RouteNeeds extends object> {
  name: Name;
  /** The services `create` is given; each must be listed before this module. */
  needs: ReadonlyArray<keyof Needs & string>;
  create(platform: Platform, needs: Needs): Service | Promise<Service>;
  /** Its routes, once every service exists (most need `auth` for the caller). */
  routes?(service: Service, services: RouteNeeds): AnyElysia;
  jobs?(service: Service, platform: Platform): JobDefinition[];
  /** Its outbox subscribers; the composition root registers them in every process before the outbox starts. */
  subscriptions?(service: Service, platform: Platform): OutboxSubscription[];
  /** Closes what its service holds open outside the database (a client connection) at shutdown. */
  stop?(service: Service): void | Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a list holds descriptors of every service type
type AnyModule = ModuleDescriptor<string, any, any, any>;

/** A descriptor, typed from its parts. */
export function defineModule<Name extends string, Service, Needs extends object = Record<never, never>, RouteNeeds extends object = Record<never, never>>(
  descriptor: ModuleDescriptor<Name, Service, Needs, RouteNeeds>,
): ModuleDescriptor<Name, Service, Needs, RouteNeeds> {
  return descriptor;
}

/** The services of a list of modules, by name. */
export type ServicesOf<Modules extends readonly AnyModule[]> = {
  [Module in Modules[number] as Module['name']]: Awaited<ReturnType<Module['create']>>;
};

/** Creates the modules' services in list order; a module listed before a service it needs is refused. */
export async function createModuleServices<const Modules extends readonly AnyModule[]>(platform: Platform, modules: Modules): Promise<ServicesOf<Modules>> {
  const built: Record<string, unknown> = {};
  for (const module of modules) {
    const missing = module.needs.filter((need) => !(need in built));
    if (missing.length > 0) throw new Error(`module ${module.name} needs ${missing.join(', ')}, which must be listed before it`);
    built[module.name] = await module.create(platform, built);
  }
  return built as ServicesOf<Modules>;
}

/** Every module's routes, in list order. */
export function moduleRoutes(modules: readonly AnyModule[], services: Record<string, unknown>): AnyElysia[] {
  return modules.flatMap((module) => (module.routes ? [module.routes(services[module.name], services)] : []));
}

/** Every module's scheduled jobs. */
export function moduleJobs(modules: readonly AnyModule[], services: Record<string, unknown>, platform: Platform): JobDefinition[] {
  return modules.flatMap((module) => module.jobs?.(services[module.name], platform) ?? []);
}

/** Stops every module that holds something open, in reverse list order (a module after the services it uses). */
export async function stopModules(modules: readonly AnyModule[], services: Record<string, unknown>): Promise<void> {
  for (const module of [...modules].reverse()) await module.stop?.(services[module.name]);
}

/** Every module's outbox subscriptions. */
export function moduleSubscriptions(modules: readonly AnyModule[], services: Record<string, unknown>, platform: Platform): OutboxSubscription[] {
  return modules.flatMap((module) => module.subscriptions?.(services[module.name], platform) ?? []);
}

/** Hands each subscription to the outbox (before `outbox.register()`, which records them for publishers). */
export function subscribeAll<Events extends object>(outbox: Outbox<Events>, subscriptions: readonly OutboxSubscription<Events>[]): void {
  for (const { type, subscriber, handle, handleMany } of subscriptions) {
    if (handleMany) outbox.subscribeMany(type, subscriber, handleMany as OutboxBatchSubscriber<Events, typeof type>);
    else outbox.subscribe(type, subscriber, handle as OutboxSubscriber<Events, typeof type>);
  }
}
