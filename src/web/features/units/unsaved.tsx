import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDialogs } from '../../components/Dialogs';
import { holdNavigation } from '../../lib/navigation-guard';
import { getSession } from '../../lib/session';

/**
 * Unsaved changes on the unit edit page: each section reports whether it holds edits that are not saved yet; while
 * any does, leaving the page asks first: any move the app makes (a link, a button that navigates, a redirect) and the
 * browser's back and forward buttons through the app's own dialog, a reload or closing the tab through the browser's.
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

export function UnsavedChangesProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
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
    // Every move goes through the app's history (src/web/lib/navigation-guard.ts), held until answered.
    const release = holdNavigation(() => {
      // Signed out (the session ended, or the user logged out): nothing here can be saved any more.
      if (dirtyRef.current.size === 0 || getSession() === null) return true;
      return ask().then((leave) => {
        if (leave) forget();
        return leave;
      });
    });
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      release();
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [hasChanges, dialogs, t]);

  const value = useMemo(() => ({ dirty, setDirty }), [dirty, setDirty]);
  return <UnsavedContext.Provider value={value}>{children}</UnsavedContext.Provider>;
}
