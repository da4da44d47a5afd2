import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { passwordSchema } from '../../../modules/auth/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { Banner, Field } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import type { SessionUser } from '../../lib/session';
import { translateMessage } from '../../lib/i18n';

/**
 * Spec §4/§5: new password twice; Save only when both are filled and equal; success says so in a dialog.
 * The current password is asked too: the server changes no password on a token alone.
 */
export function ChangePasswordDialog({ user, isOpen, onClose }: { user: SessionUser; isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const [current, setCurrent] = useState('');
  const [currentError, setCurrentError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const canSave = current !== '' && password !== '' && confirmation !== '' && password === confirmation && !busy;

  function reset() {
    setCurrent('');
    setCurrentError(null);
    setPassword('');
    setConfirmation('');
    setError(null);
    setFailure(null);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!canSave) return;
    const parsed = passwordSchema.safeParse(password);
    if (!parsed.success) {
      setError(translateMessage(parsed.error.issues[0]?.message ?? 'validation.invalid'));
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const data = await api.post<{ message: string }>('/api/user/update', {
        userId: user.ID,
        email: user.Email,
        password,
        current_password: current,
      });
      reset();
      onClose();
      await dialogs.showMessage({ message: data.message });
    } catch (caught) {
      const field = isApiError(caught) ? caught.fieldError('password') : undefined;
      const currentField = isApiError(caught) ? caught.fieldError('current_password') : undefined;
      if (currentField) setCurrentError(currentField);
      else if (field) setError(field);
      else setFailure(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AppDialog
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) {
          reset();
          onClose();
        }
      }}
      title={t('changePassword.title')}
    >
      <form onSubmit={save} noValidate className="dialog-form">
        {failure && <Banner kind="error">{failure}</Banner>}
        <Field
          label={t('changePassword.currentPassword')}
          type="password"
          value={current}
          onChange={(value) => {
            setCurrent(value);
            setCurrentError(null);
          }}
          error={currentError}
          autoComplete="current-password"
          autoFocus
        />
        <Field
          label={t('changePassword.newPassword')}
          type="password"
          value={password}
          onChange={(value) => {
            setPassword(value);
            setError(null);
          }}
          error={error}
          autoComplete="new-password"
          description={t('password.rules')}
        />
        <Field
          label={t('changePassword.confirm')}
          type="password"
          value={confirmation}
          onChange={setConfirmation}
          autoComplete="new-password"
          error={confirmation !== '' && password !== confirmation ? t('server:validation.password.mismatch') : null}
        />
        <div className="dialog-actions">
          <Button
            className="btn btn-secondary"
            onPress={() => {
              reset();
              onClose();
            }}
          >
            {t('common.cancel')}
          </Button>
          <Button type="submit" className="btn btn-primary" isDisabled={!canSave}>
            {t('common.save')}
          </Button>
        </div>
      </form>
    </AppDialog>
  );
}
