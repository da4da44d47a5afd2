import { type FormEvent, useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { type AdminUserRow, userCreateSchema, userUpdateAdminSchema } from '../../../modules/accounts/model';
import type { UnitView } from '../../../modules/units/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { UnitPicker } from '../../components/UnitPicker';
import { api, errorText, isApiError } from '../../lib/api';
import { currentLanguage } from '../../lib/i18n';
import { check, type FieldMessages } from '../../lib/validation';
import { useQuery } from '@tanstack/react-query';
import { useSaveUser, useSaveUserUnits, useUserUnits } from './api';

interface Draft {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  isAdmin: boolean;
  departmentId: string;
  userGroup: string;
  realtimeMap: boolean;
  twoFactor: boolean;
  language: 'sv' | 'en' | 'no';
}

const draftOf = (user: AdminUserRow | null): Draft => ({
  firstName: user?.firstName ?? '',
  lastName: user?.lastName ?? '',
  email: user?.email ?? '',
  phone: user?.phone ?? '',
  isAdmin: user?.isAdmin ?? false,
  departmentId: user?.departmentId ? String(user.departmentId) : '',
  userGroup: user?.userGroup ?? '',
  realtimeMap: user?.realtimeMap ?? true,
  twoFactor: user?.twoFactor ?? false,
  language: user?.language ?? currentLanguage(),
});

const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'isAdmin', 'departmentId', 'userGroup', 'unitIds'] as const;

/**
 * Create or edit a user (spec §3 User, §5): names (together ≤ 50), e-mail, phone, administrator, department (a new
 * one resets the unit access, §6), user group, map and two-factor, language of the invitation, and the units an
 * ordinary user sees. A new user gets an invitation e-mail to set a password.
 */
export function UserDialog({
  user,
  isOpen,
  onClose,
  departments,
}: {
  user: AdminUserRow | null;
  isOpen: boolean;
  onClose: () => void;
  departments: Array<{ id: number; name: string }>;
}) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const save = useSaveUser();
  const saveUnits = useSaveUserUnits();
  const [draft, setDraft] = useState<Draft>(() => draftOf(user));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const access = useUserUnits(user && !user.isAdmin ? user.id : null);
  const unitList = useQuery({ queryKey: ['admin', 'units-for-picker'], queryFn: () => api.get<UnitView[]>('/api/units'), enabled: isOpen && user !== null });
  const [unitIds, setUnitIds] = useState<number[] | null>(null);

  useEffect(() => {
    if (isOpen) {
      setDraft(draftOf(user));
      setErrors({});
      setFailure(null);
      setUnitIds(null);
    }
  }, [isOpen, user]);

  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const chosenUnits = unitIds ?? access.data?.unitIds ?? [];
  const departmentChanged = user !== null && String(user.departmentId ?? '') !== draft.departmentId;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const input = { ...draft, departmentId: draft.departmentId ? Number(draft.departmentId) : null };
    const parsed = user === null ? check(userCreateSchema, input) : check(userUpdateAdminSchema, input);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    try {
      const saved = await save.mutateAsync({ id: user?.id ?? null, input: parsed.data });
      // The department reset clears access on the server; units chosen here after a department change are given anew.
      if (user !== null && !saved.isAdmin && unitIds !== null) await saveUnits.mutateAsync({ userId: user.id, unitIds });
      if (user === null) await dialogs.showMessage({ title: t('admin.users.invited.title'), message: t('admin.users.invited.message', { email: saved.email }) });
      onClose();
    } catch (caught) {
      if (isApiError(caught) && Object.keys(caught.fields).length > 0) {
        const next: FieldMessages = {};
        for (const field of FIELDS) {
          const message = caught.fieldError(field);
          if (message) next[field] = message;
        }
        setErrors(next);
      } else {
        setFailure(errorText(caught));
      }
    }
  }

  return (
    <AppDialog
      isOpen={isOpen}
      onOpenChange={(open) => !open && onClose()}
      title={user ? t('admin.users.edit', { name: user.fullName }) : t('admin.users.create')}
      className="admin-user-dialog"
    >
      <form className="admin-form" onSubmit={submit} noValidate data-testid="user-form">
        {failure && <Banner kind="error">{failure}</Banner>}
        <div className="admin-form-row">
          <Field label={t('admin.users.fields.firstName')} value={draft.firstName} onChange={set('firstName')} error={errors.firstName} isRequired testId="user-first-name" />
          <Field label={t('admin.users.fields.lastName')} value={draft.lastName} onChange={set('lastName')} error={errors.lastName} testId="user-last-name" />
        </div>
        <p className="field-description">{t('admin.users.namesHint')}</p>
        <Field label={t('admin.users.fields.email')} type="email" value={draft.email} onChange={set('email')} error={errors.email} isRequired testId="user-email" />
        <Field
          label={t('admin.users.fields.phone')}
          type="tel"
          inputMode="tel"
          value={draft.phone}
          onChange={set('phone')}
          error={errors.phone}
          description={t('server:validation.phone.hint')}
          testId="user-phone"
        />
        <div className="admin-form-row">
          <SelectField
            label={t('admin.users.fields.department')}
            value={draft.departmentId}
            onChange={set('departmentId')}
            error={errors.departmentId}
            options={[{ value: '', label: t('admin.users.noDepartment') }, ...departments.map((d) => ({ value: String(d.id), label: d.name }))]}
            testId="user-department"
          />
          <Field label={t('admin.users.fields.userGroup')} value={draft.userGroup} onChange={set('userGroup')} error={errors.userGroup} testId="user-group" />
        </div>
        {departmentChanged && (
          <Banner kind="info">
            <span data-testid="department-reset-note">{t('admin.users.departmentResets')}</span>
          </Banner>
        )}
        {user === null && (
          <SelectField
            label={t('admin.users.fields.language')}
            value={draft.language}
            onChange={(value) => set('language')(value as Draft['language'])}
            options={[
              { value: 'sv', label: 'Svenska' },
              { value: 'en', label: 'English' },
              { value: 'no', label: 'Norsk' },
            ]}
            testId="user-language"
          />
        )}
        <CheckboxField isSelected={draft.isAdmin} onChange={set('isAdmin')} error={errors.isAdmin}>
          {t('admin.users.fields.isAdmin')}
        </CheckboxField>
        <CheckboxField isSelected={draft.realtimeMap} onChange={set('realtimeMap')}>
          {t('admin.users.fields.realtimeMap')}
        </CheckboxField>
        <CheckboxField isSelected={draft.twoFactor} onChange={set('twoFactor')}>
          {t('admin.users.fields.twoFactor')}
        </CheckboxField>
        {user !== null && !user.isAdmin && !draft.isAdmin && (
          <div className="admin-units" data-testid="user-units">
            <UnitPicker
              label={t('admin.users.fields.units')}
              units={unitList.data ?? []}
              selectionMode="multiple"
              selected={departmentChanged && unitIds === null ? [] : chosenUnits}
              onChange={setUnitIds}
              presentation="popover"
              testId="user-unit-picker"
            />
            <p className="field-description" data-testid="user-units-count">
              {t('admin.users.unitsChosen', { count: departmentChanged && unitIds === null ? 0 : chosenUnits.length })}
            </p>
          </div>
        )}
        <div className="dialog-actions">
          <Button className="btn btn-secondary" onPress={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" className="btn btn-primary" isDisabled={save.isPending} data-testid="user-save">
            {user ? t('common.save') : t('admin.users.createAndInvite')}
          </Button>
        </div>
      </form>
    </AppDialog>
  );
}
