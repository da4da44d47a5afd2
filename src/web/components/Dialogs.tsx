import type { ReactNode } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { MessageOptions } from './DialogProvider';

export { DialogProvider, type MessageOptions, useDialogs } from './DialogProvider';

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

/** The generic message dialog of `useDialogs` (rendered by the provider, which loads this module on first use). */
export function MessageDialog({ current, close }: { current: MessageOptions | null; close: (ok: boolean) => void }) {
  const { t } = useTranslation();
  return (
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
  );
}
