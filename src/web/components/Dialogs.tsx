import type { ReactNode } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { MessageOptions } from './DialogProvider';
import { Banner } from './Form';

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

/**
 * A dialog's form: its failure above the fields (closable), and Cancel and Save under them, Save busy while saving.
 * Test ids: `<testIdPrefix>-error`, `-cancel`, `-save`.
 */
export function DialogForm({
  className,
  onSubmit,
  failure,
  onDismissFailure,
  onCancel,
  saving,
  testIdPrefix,
  children,
}: {
  className: string;
  onSubmit: () => void;
  failure: string | null;
  onDismissFailure: () => void;
  onCancel: () => void;
  saving: boolean;
  testIdPrefix: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <form
      className={className}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {failure && (
        <Banner kind="error" onClose={onDismissFailure} closeLabel={t('common.close')}>
          <span data-testid={`${testIdPrefix}-error`}>{failure}</span>
        </Banner>
      )}
      {children}
      <DialogActions onCancel={onCancel} cancelTestId={`${testIdPrefix}-cancel`} saveTestId={`${testIdPrefix}-save`} isDisabled={saving} busy={saving} />
    </form>
  );
}

/**
 * Cancel and Save under a dialog's fields. Save submits the dialog's form unless `onSave` is given; `busy` shows it
 * working.
 */
export function DialogActions({
  onCancel,
  onSave,
  isDisabled,
  busy = false,
  cancelTestId,
  saveTestId,
}: {
  onCancel: () => void;
  onSave?: () => void;
  isDisabled: boolean;
  busy?: boolean;
  cancelTestId?: string;
  saveTestId: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="dialog-actions">
      <Button className="btn btn-secondary" onPress={onCancel} data-testid={cancelTestId}>
        {t('common.cancel')}
      </Button>
      <Button type={onSave ? 'button' : 'submit'} className="btn btn-primary" onPress={onSave} isDisabled={isDisabled} data-testid={saveTestId}>
        {busy ? t('common.loading') : t('common.save')}
      </Button>
    </div>
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
