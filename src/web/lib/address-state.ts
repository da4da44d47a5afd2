import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';

/**
 * A screen's state that lives in the address too (filters, the unit and period shown), so a reload or a shared link
 * shows the same. The screen keeps it in its own state, read from the address once, and each change is written back
 * (replacing the entry, not adding one): a change is seen at once, also while the router's navigation is still under
 * way, and two changes in one event (a period's start and end) build on each other. `write` gives the address's query
 * for a state, from the query there now (a screen may leave other parameters as they are).
 */
export function useAddressState<T>(
  read: (params: URLSearchParams) => T,
  write: (state: T, current: URLSearchParams) => URLSearchParams,
): [T, Dispatch<SetStateAction<T>>] {
  const [params, setParams] = useSearchParams();
  const [state, setState] = useState<T>(() => read(params));
  const { pathname } = useLocation();
  const writer = useRef(write);
  writer.current = write;
  useEffect(() => {
    // Once the user has left for another screen (still loading, this one still shown), a write here would take them back.
    if (window.location.pathname !== pathname) return;
    const current = new URLSearchParams(window.location.search);
    const next = writer.current(state, new URLSearchParams(current));
    if (next.toString() !== current.toString()) setParams(next, { replace: true });
  }, [state, setParams, pathname]);
  return [state, setState];
}
