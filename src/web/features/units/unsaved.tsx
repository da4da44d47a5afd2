import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { createPath, type Navigator, type To, UNSAFE_NavigationContext } from 'react-router';
import { useDialogs } from '../../components/Dialogs';
import { getSession } from '../../lib/session';

/**
 * Unsaved changes on the unit edit page: each section reports whether it holds edits that are not saved yet; while
 * any does, leaving the page asks first: any move the app makes (a link, a button that navigates, a redirect) through
 * the app's own dialog, a reload or closing the tab through the browser's.
 */
interface UnsavedChanges {
  /** Section ids with edits not saved yet. */
  dirty: ReadonlySet<string>;
  setDirty(sectionId: string, dirty: boolean): void;
}

const UnsavedContext = createContext<UnsavedChanges | null>(null);

/** The page's record of unsaved sections; null outside the unit edit page (a section then tracks nothing). */
export function useUnsavedChanges(): UnsavedChanges | null {
  return useContext(UnsavedContext);
}

/** The router's history (the browser router hands its history object to the app as its navigator). */
type RouterHistory = Navigator & {
  push(to: To, state?: unknown, options?: unknown): void;
  replace(to: To, state?: unknown, options?: unknown): void;
};

/** Whether a move to `to` stays on this page (the same path and query: a jump to a section, say). */
function staysHere(to: To): boolean {
  const path = typeof to === 'string' ? to : createPath(to);
  const url = new URL(path, window.location.href);
  return url.pathname === window.location.pathname && url.search === window.location.search;
}

export function UnsavedChangesProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const history = useContext(UNSAFE_NavigationContext).navigator as RouterHistory;
  const [dirty, setDirtySet] = useState<ReadonlySet<string>>(() => new Set());
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  const setDirty = useCallback((sectionId: string, value: boolean) => {
    setDirtySet((current) => {
      if (current.has(sectionId) === value) return current;
      const next = new Set(current);
      if (value) next.add(sectionId);
      else next.delete(sectionId);
      return next;
    });
  }, []);

  const hasChanges = dirty.size > 0;
  useEffect(() => {
    if (!hasChanges) return;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show their prompt only when a return value is set.
      event.returnValue = '';
    };
    const ask = () =>
      dialogs.showMessage({
        title: t('units.unsaved.title'),
        message: t('units.unsaved.message', { count: dirtyRef.current.size }),
        cancel: true,
        okLabel: t('units.unsaved.leave'),
        cancelLabel: t('units.unsaved.stay'),
      });
    const forget = () => {
      setDirtySet(new Set());
      dirtyRef.current = new Set();
    };
    // Every move the app makes goes through the router's history: a link, a button, a redirect. Held until answered.
    const { push, replace } = history;
    const guarded =
      (move: RouterHistory['push']): RouterHistory['push'] =>
      (to, state, options) => {
        // Signed out (the session ended, or the user logged out): nothing here can be saved any more.
        if (dirtyRef.current.size === 0 || staysHere(to) || getSession() === null) return move.call(history, to, state, options);
        void ask().then((leave) => {
          if (!leave) return;
          forget();
          move.call(history, to, state, options);
        });
      };
    history.push = guarded(push);
    history.replace = guarded(replace);
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      history.push = push;
      history.replace = replace;
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [hasChanges, dialogs, history, t]);

  const value = useMemo(() => ({ dirty, setDirty }), [dirty, setDirty]);
  return <UnsavedContext.Provider value={value}>{children}</UnsavedContext.Provider>;
}
