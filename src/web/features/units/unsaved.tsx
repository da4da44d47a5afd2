import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useDialogs } from '../../components/Dialogs';

/**
 * Unsaved changes on the unit edit page: each section reports whether it holds edits that are not saved yet; while
 * any does, leaving the page asks first (a link inside the app through the app's own dialog, a reload or closing the
 * tab through the browser's).
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

/** A link click the app would handle itself (same origin, plain left click, not a new tab or download). */
function inAppLink(event: MouseEvent): URL | null {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null;
  const anchor = (event.target as Element | null)?.closest?.('a[href]');
  if (!(anchor instanceof HTMLAnchorElement) || (anchor.target && anchor.target !== '_self') || anchor.hasAttribute('download')) return null;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin) return null;
  // A jump within the page (the section list's own links) leaves nothing.
  if (url.pathname === window.location.pathname && url.search === window.location.search) return null;
  return url;
}

export function UnsavedChangesProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const navigate = useNavigate();
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
    // Capture phase: seen before the router's own link handler.
    const click = (event: MouseEvent) => {
      const url = inAppLink(event);
      if (!url || dirtyRef.current.size === 0) return;
      event.preventDefault();
      event.stopPropagation();
      void dialogs
        .showMessage({
          title: t('units.unsaved.title'),
          message: t('units.unsaved.message', { count: dirtyRef.current.size }),
          cancel: true,
          okLabel: t('units.unsaved.leave'),
          cancelLabel: t('units.unsaved.stay'),
        })
        .then((leave) => {
          if (!leave) return;
          setDirtySet(new Set());
          dirtyRef.current = new Set();
          navigate(`${url.pathname}${url.search}${url.hash}`);
        });
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [hasChanges, dialogs, navigate, t]);

  const value = useMemo(() => ({ dirty, setDirty }), [dirty, setDirty]);
  return <UnsavedContext.Provider value={value}>{children}</UnsavedContext.Provider>;
}
