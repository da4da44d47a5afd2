import { useEffect, useState } from 'react';

/** Runs `run` when the browser is idle (at the latest after `timeoutMs`), or soon where there is no idle callback. */
export function whenIdle(run: () => void, timeoutMs = 1000): () => void {
  if (typeof requestIdleCallback === 'function') {
    const handle = requestIdleCallback(run, { timeout: timeoutMs });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(run, 16);
  return () => clearTimeout(timer);
}

/**
 * False on the first render and true from the first idle moment after it: a part that is costly to start (a map's
 * WebGL context and first frames) starts in a task of its own, after the screen around it has been drawn, instead of
 * lengthening the commit that draws the screen.
 */
export function useIdleStart(timeoutMs = 1000): boolean {
  const [started, setStarted] = useState(false);
  useEffect(() => (started ? undefined : whenIdle(() => setStarted(true), timeoutMs)), [started, timeoutMs]);
  return started;
}
