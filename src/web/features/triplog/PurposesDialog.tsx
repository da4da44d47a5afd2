import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DefaultPurpose } from '../../../modules/accounts/purposes';
import { PURPOSE_MAX } from '../../../modules/trips/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field } from '../../components/Form';
import { ApiError, errorText } from '../../lib/api';
import { useCreatePurpose, useDeletePurpose, usePurposeSettings, usePurposes, useUpdatePurpose } from './api';

const DESCRIPTION_MAX = 500;

/**
 * Account settings, default purposes (spec §2, §3, §5, §6): the account's purposes; administrators add, rename, describe
 * and delete them and decide whether ordinary users may add; an ordinary user adds only when allowed. Names are unique
 * (server-checked).
 */
export function PurposesDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const catalog = usePurposes();
  const create = useCreatePurpose();
  const remove = useDeletePurpose();
  const settings = usePurposeSettings();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  /** The purpose being renamed or described (administrators), one at a time. */
  const [editing, setEditing] = useState<DefaultPurpose | null>(null);
  const data = catalog.data;

  async function add(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) {
      setNameError(t('triplog.purposes.nameRequired'));
      return;
    }
    try {
      await create.mutateAsync({ name: name.trim(), description: description.trim() });
      setName('');
      setDescription('');
      setNameError(null);
    } catch (error) {
      const field = error instanceof ApiError ? error.fieldError('name') : undefined;
      if (field) setNameError(field);
      else await dialogs.showError(errorText(error));
    }
  }

  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={t('triplog.purposes.title')} className="modal--wide">
      <p className="field-description">{t('triplog.purposes.intro')}</p>
      {data && data.purposes.length === 0 && <p className="triplog-muted">{t('triplog.purposes.empty')}</p>}
      {data && data.purposes.length > 0 && (
        <ul className="triplog-purpose-list" data-testid="purpose-list">
          {data.purposes.map((purpose) =>
            editing?.id === purpose.id ? (
              <li key={purpose.id}>
                <PurposeEditForm purpose={purpose} onDone={() => setEditing(null)} />
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
                      isDisabled={editing !== null}
                      aria-label={t('triplog.purposes.editNamed', { name: purpose.name })}
                      onPress={() => setEditing(purpose)}
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
        <form className="triplog-purpose-form" onSubmit={(event) => void add(event)} noValidate>
          <h3 className="triplog-subtitle">{t('triplog.purposes.add')}</h3>
          <Field label={t('triplog.purposes.name')} value={name} onChange={setName} maxLength={PURPOSE_MAX} error={nameError} isRequired testId="purpose-name" />
          <Field label={t('triplog.purposes.description')} value={description} onChange={setDescription} maxLength={DESCRIPTION_MAX} testId="purpose-description" />
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

      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('triplog.purposes.close')}
        </Button>
      </div>
    </AppDialog>
  );
}

/** An administrator renames or describes a default purpose in place; the same rules as adding (unique name, lengths). */
function PurposeEditForm({ purpose, onDone }: { purpose: DefaultPurpose; onDone: () => void }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const update = useUpdatePurpose();
  const [name, setName] = useState(purpose.name);
  const [description, setDescription] = useState(purpose.description);
  const [nameError, setNameError] = useState<string | null>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) {
      setNameError(t('triplog.purposes.nameRequired'));
      return;
    }
    try {
      await update.mutateAsync({ id: purpose.id, name: name.trim(), description: description.trim() });
      onDone();
    } catch (error) {
      const field = error instanceof ApiError ? error.fieldError('name') : undefined;
      if (field) setNameError(field);
      else await dialogs.showError(errorText(error));
    }
  }

  return (
    <form className="triplog-purpose-form triplog-purpose-edit" onSubmit={(event) => void save(event)} noValidate data-testid={`purpose-edit-${purpose.id}`}>
      <Field label={t('triplog.purposes.name')} value={name} onChange={setName} maxLength={PURPOSE_MAX} error={nameError} isRequired testId="purpose-edit-name" autoFocus />
      <Field label={t('triplog.purposes.description')} value={description} onChange={setDescription} maxLength={DESCRIPTION_MAX} testId="purpose-edit-description" />
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
