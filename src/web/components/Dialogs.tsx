import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';

/**
 * A modal dialog with a title. react-aria traps focus inside, restores it on close, and closes on Escape
 * unless `dismissable` is false.
 */
export function AppDialog({
  isOpen,
  onOpenChange,
  title,
  children,
  role = 'dialog',
  dismissable = true,
  className,
}: {
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  children: ReactNode;
  role?: 'dialog' | 'alertdialog';
  dismissable?: boolean;
  className?: string;
}) {
  return (
    <ModalOverlay
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      isDismissable={dismissable}
      isKeyboardDismissDisabled={!dismissable}
      className="modal-overlay"
    >
      <Modal className={`modal${className ? ` ${className}` : ''}`}>
        <Dialog role={role} className="dialog">
          <Heading slot="title" className="dialog-title">
            {title}
          </Heading>
          {children}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

export interface MessageOptions {
  title?: string;
  message: ReactNode;
  /** Shows a Cancel button too; the promise then resolves false on cancel. */
  cancel?: boolean;
  okLabel?: string;
  cancelLabel?: string;
  kind?: 'info' | 'error';
}

interface DialogContextValue {
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
  const { t } = useTranslation();
  const [current, setCurrent] = useState<MessageOptions | null>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);

  const close = useCallback((ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    setCurrent(null);
  }, []);

  const showMessage = useCallback((options: MessageOptions) => {
    resolver.current?.(false);
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
      <AppDialog
        isOpen={current !== null}
        onOpenChange={(open) => {
          if (!open) close(false);
        }}
        title={current?.title ?? (current?.kind === 'error' ? t('dialog.errorTitle') : t('dialog.messageTitle'))}
        role={current?.kind === 'error' ? 'alertdialog' : 'dialog'}
      >
        <div className="dialog-body" data-testid="message-dialog-text">
          {current?.message}
        </div>
        <div className="dialog-actions">
          {current?.cancel && (
            <Button className="btn btn-secondary" onPress={() => close(false)}>
              {current.cancelLabel ?? t('common.cancel')}
            </Button>
          )}
          <Button className="btn btn-primary" onPress={() => close(true)} autoFocus>
            {current?.okLabel ?? t('common.ok')}
          </Button>
        </div>
      </AppDialog>
    </DialogContext.Provider>
  );
}
