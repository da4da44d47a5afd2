import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DefaultPurpose } from '../../../modules/accounts/model';
import { PURPOSE_MAX } from '../../../modules/trips/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field } from '../../components/Form';
import { ApiError, errorText } from '../../lib/api';
import { useCreatePurpose, useDeletePurpose, usePurposeSettings, usePurposes, useUpdatePurpose } from './api';

const DESCRIPTION_MAX = 500;

/**
 * Account settings, default purposes (spec §2, §3, §5, §6): the account's purposes; administrators add, rename, describe
 * and delete them and decide whether ordinary users may add; an ordinary user adds only when allowed. Names are unique
 * (server-checked). The editor is shown in the trip log's dialog and on the account settings screen.
 */
export function PurposesEditor() {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const catalog = usePurposes();
  const create = useCreatePurpose();
  const remove = useDeletePurpose();
  const settings = usePurposeSettings();
  /** The purpose being renamed or described (administrators), one at a time. */
  const [editingId, setEditingId] = useState<number | null>(null);
  const data = catalog.data;
  const adding = usePurposeForm(null, async (input) => {
    await create.mutateAsync(input);
    adding.reset();
  });

  return (
    <>
      <p className="field-description">{t('triplog.purposes.intro')}</p>
      {data && data.purposes.length === 0 && <p className="triplog-muted">{t('triplog.purposes.empty')}</p>}
      {data && data.purposes.length > 0 && (
        <ul className="triplog-purpose-list" data-testid="purpose-list">
          {data.purposes.map((purpose) =>
            editingId === purpose.id ? (
              <li key={purpose.id}>
                <PurposeEditForm purpose={purpose} onDone={() => setEditingId(null)} />
              </li>
            ) : (
              <li key={purpose.id}>
                <div>
                  <div className="triplog-option-name">{purpose.name}</div>
                  {purpose.description && <div className="triplog-option-description">{purpose.description}</div>}
                </div>
                {data.canManage && (
                  <span className="triplog-purpose-actions">
                    <Button
                      className="btn btn-secondary triplog-small"
                      isDisabled={editingId !== null}
                      aria-label={t('triplog.purposes.editNamed', { name: purpose.name })}
                      onPress={() => setEditingId(purpose.id)}
                    >
                      {t('triplog.purposes.edit')}
                    </Button>
                    <Button
                      className="btn btn-secondary triplog-small"
                      isDisabled={remove.isPending}
                      aria-label={t('triplog.purposes.deleteNamed', { name: purpose.name })}
                      onPress={() =>
                        void dialogs
                          .showMessage({ title: t('triplog.purposes.delete'), message: t('triplog.purposes.confirmDelete', { name: purpose.name }), cancel: true })
                          .then(async (ok) => {
                            if (ok) await remove.mutateAsync(purpose.id);
                          })
                          .catch((error: unknown) => dialogs.showError(errorText(error)))
                      }
                    >
                      {t('triplog.purposes.delete')}
                    </Button>
                  </span>
                )}
              </li>
            ),
          )}
        </ul>
      )}

      {data?.canCreate && (
        <form className="triplog-purpose-form" onSubmit={adding.submit} noValidate>
          <h3 className="triplog-subtitle">{t('triplog.purposes.add')}</h3>
          <PurposeFields form={adding} testId="purpose" />
          <Button type="submit" className="btn btn-primary" isDisabled={create.isPending}>
            {t('triplog.purposes.add')}
          </Button>
        </form>
      )}
      {data && !data.canCreate && <p className="triplog-muted">{t('triplog.purposes.adminOnly')}</p>}

      {data?.canManage && (
        <div className="triplog-purpose-setting">
          <CheckboxField
            isSelected={data.usersMayCreate}
            onChange={(selected) => void settings.mutateAsync(selected).catch((error: unknown) => dialogs.showError(errorText(error)))}
          >
            {t('triplog.purposes.usersMayCreate')}
          </CheckboxField>
        </div>
      )}

    </>
  );
}

export function PurposesDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={t('triplog.purposes.title')} className="modal--wide">
      <PurposesEditor />
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('triplog.purposes.close')}
        </Button>
      </div>
    </AppDialog>
  );
}

/** A default purpose's name and description being written, checked and sent; `run` gets the trimmed values. */
function usePurposeForm(purpose: DefaultPurpose | null, run: (input: { name: string; description: string }) => Promise<void>) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const [name, setName] = useState(purpose?.name ?? '');
  const [description, setDescription] = useState(purpose?.description ?? '');
  const [nameError, setNameError] = useState<string | null>(null);
  const reset = () => {
    setName('');
    setDescription('');
    setNameError(null);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setNameError(t('triplog.purposes.nameRequired'));
      return;
    }
    // A taken name is the server's message under the field; anything else is a dialog.
    run({ name: name.trim(), description: description.trim() }).catch(async (error: unknown) => {
      const field = error instanceof ApiError ? error.fieldError('name') : undefined;
      if (field) setNameError(field);
      else await dialogs.showError(errorText(error));
    });
  };
  return { name, setName, description, setDescription, nameError, reset, submit };
}

function PurposeFields({ form, testId, autoFocus }: { form: ReturnType<typeof usePurposeForm>; testId: string; autoFocus?: boolean }) {
  const { t } = useTranslation();
  return (
    <>
      <Field
        label={t('triplog.purposes.name')}
        value={form.name}
        onChange={form.setName}
        maxLength={PURPOSE_MAX}
        error={form.nameError}
        isRequired
        testId={`${testId}-name`}
        autoFocus={autoFocus}
      />
      <Field label={t('triplog.purposes.description')} value={form.description} onChange={form.setDescription} maxLength={DESCRIPTION_MAX} testId={`${testId}-description`} />
    </>
  );
}

/** An administrator renames or describes a default purpose in place; the same rules as adding (unique name, lengths). */
function PurposeEditForm({ purpose, onDone }: { purpose: DefaultPurpose; onDone: () => void }) {
  const { t } = useTranslation();
  const update = useUpdatePurpose();
  const form = usePurposeForm(purpose, async (input) => {
    await update.mutateAsync({ id: purpose.id, ...input });
    onDone();
  });
  return (
    <form className="triplog-purpose-form triplog-purpose-edit" onSubmit={form.submit} noValidate data-testid={`purpose-edit-${purpose.id}`}>
      <PurposeFields form={form} testId="purpose-edit" autoFocus />
      <div className="triplog-purpose-actions">
        <Button type="submit" className="btn btn-primary" isDisabled={update.isPending}>
          {t('common.save')}
        </Button>
        <Button className="btn btn-secondary" onPress={onDone}>
          {t('common.cancel')}
        </Button>
      </div>
    </form>
  );
}
