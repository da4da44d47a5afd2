import { type ComponentType, lazy, useState } from 'react';
import { preloadedModule } from './prefetch';

/**
 * `React.lazy` that renders the module at once when `prefetchLiveMap` has already loaded it, without suspending
 * (see `preloadedModule`); otherwise it suspends like `React.lazy`.
 */
export function lazyPreloaded<P extends object>(name: 'LiveMap' | 'MapCanvas', load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  const Lazy = lazy(load);
  // biome-ignore lint/correctness/noComponentHookFactories: called once per island at module level, as React.lazy is.
  return function Preloaded(props: P) {
    // Chosen once per mount: switching to the module's own component on a later render would remount it.
    const [Ready] = useState(() => preloadedModule<{ default: ComponentType<P> }>(name)?.default ?? null);
    return Ready ? <Ready {...props} /> : <Lazy {...props} />;
  };
}
