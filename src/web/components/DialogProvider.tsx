import { createContext, lazy, type ReactNode, Suspense, useCallback, useContext, useMemo, useRef, useState } from 'react';

/**
 * The app's message dialogs (`useDialogs`): the context is light, the dialog itself (react-aria's modal, focus
 * handling and overlays) is loaded on the first message, so pages that show none (the login page) do not load it.
 */
const MessageDialog = lazy(async () => ({ default: (await import('./Dialogs')).MessageDialog }));

export interface MessageOptions {
  title?: string;
  message: ReactNode;
  /** Shows a Cancel button too; the promise then resolves false on cancel. */
  cancel?: boolean;
  okLabel?: string;
  cancelLabel?: string;
  kind?: 'info' | 'error';
}

export interface DialogContextValue {
  /** The generic message dialog (spec §2): OK, optional Cancel. Resolves true on OK. */
  showMessage(options: MessageOptions): Promise<boolean>;
  /** An API failure: the server's error text in an error dialog. */
  showError(message: ReactNode, title?: string): Promise<boolean>;
}

const DialogContext = createContext<DialogContextValue | null>(null);

export function useDialogs(): DialogContextValue {
  const value = useContext(DialogContext);
  if (!value) throw new Error('useDialogs outside DialogProvider');
  return value;
}

export function DialogProvider({ children }: { children: ReactNode }) {
  const [current, setCurrent] = useState<MessageOptions | null>(null);
  const [opened, setOpened] = useState(false);
  const resolver = useRef<((ok: boolean) => void) | null>(null);

  const close = useCallback((ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    setCurrent(null);
  }, []);

  const showMessage = useCallback((options: MessageOptions) => {
    resolver.current?.(false);
    setOpened(true);
    setCurrent(options);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  const value = useMemo<DialogContextValue>(
    () => ({
      showMessage,
      showError: (message, title) => showMessage({ message, title, kind: 'error' }),
    }),
    [showMessage],
  );

  return (
    <DialogContext.Provider value={value}>
      {children}
      {/* Loaded on the first message, and kept mounted after it (so it can animate and restore focus on close). */}
      {opened && (
        <Suspense fallback={null}>
          <MessageDialog current={current} close={close} />
        </Suspense>
      )}
    </DialogContext.Provider>
  );
}
