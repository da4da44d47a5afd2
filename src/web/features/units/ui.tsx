import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { errorText, isApiError } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import type { FieldMessages } from '../../lib/validation';
import { useUnsavedChanges } from './unsaved';
import './units.css';

/** Pieces shared by the unit screens. */

export function formatDateTime(value: string | null, language: string): string {
  if (!value) return '–';
  return new Intl.DateTimeFormat(localeTag(language), { dateStyle: 'short', timeStyle: 'short' }).format(new Date(value));
}

export function formatNumber(value: number | null, language: string, digits = 1): string {
  if (value === null) return '–';
  return new Intl.NumberFormat(localeTag(language), { maximumFractionDigits: digits }).format(value);
}

/** Field errors of a failed save: the server's 422 per field, else one message for the section. */
export function saveErrors(error: unknown): { fields: FieldMessages; message: string | null } {
  if (isApiError(error) && error.status === 422 && Object.keys(error.fields).length > 0) {
    const fields: FieldMessages = {};
    for (const [name, messages] of Object.entries(error.fields)) fields[name] = messages.join(' ');
    return { fields, message: null };
  }
  return { fields: {}, message: errorText(error) };
}

/**
 * One section of the edit page: a titled form with its own Save button; the result is announced
 * (a status message on success, an alert on failure).
 */
export function Section({
  id,
  title,
  description,
  children,
  onSave,
  saving = false,
  saved = false,
  error = null,
  saveLabel,
  canSave = true,
  actions,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  onSave?: () => void;
  saving?: boolean;
  saved?: boolean;
  error?: string | null;
  saveLabel?: string;
  canSave?: boolean;
  actions?: ReactNode;
}) {
  const { t } = useTranslation();
  const titleId = `${id}-title`;
  const formRef = useRef<HTMLFormElement>(null);
  const unsaved = useUnsavedChanges();
  const setDirty = unsaved?.setDirty;
  // An edit in a section that has a Save button is unsaved until the save succeeds (a search filter is no edit).
  useEffect(() => {
    const form = formRef.current;
    if (!form || !setDirty || !onSave) return;
    const edited = (event: Event) => {
      const target = event.target as HTMLInputElement | null;
      if (target?.type === 'search' || target?.type === 'file') return;
      setDirty(id, true);
    };
    form.addEventListener('input', edited);
    form.addEventListener('change', edited);
    return () => {
      form.removeEventListener('input', edited);
      form.removeEventListener('change', edited);
    };
  }, [id, setDirty, onSave]);
  useEffect(() => {
    if (saved) setDirty?.(id, false);
  }, [saved, id, setDirty]);
  useEffect(() => () => setDirty?.(id, false), [id, setDirty]);
  function submit(event: FormEvent) {
    event.preventDefault();
    onSave?.();
  }
  const isDirty = unsaved?.dirty.has(id) === true;
  return (
    <section className={`unit-section${isDirty ? ' unit-section--unsaved' : ''}`} id={id} aria-labelledby={titleId} data-testid={`section-${id}`}>
      <h2 id={titleId} className="unit-section-title">
        {title}
      </h2>
      {description && <p className="unit-section-description">{description}</p>}
      <form onSubmit={submit} noValidate ref={formRef}>
        {children}
        {(onSave || actions) && (
          <div className="unit-section-actions">
            {onSave && (
              <Button type="submit" className="btn btn-primary" isDisabled={saving || !canSave}>
                {saving ? t('units.saving') : (saveLabel ?? t('common.save'))}
              </Button>
            )}
            {actions}
            <span className="unit-section-status" role="status" aria-live="polite">
              {saved && !error ? t('units.saved') : isDirty ? t('units.unsaved.marker') : ''}
            </span>
          </div>
        )}
        {error && (
          <p className="field-error unit-section-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}

/** A native input for dates, times and colours (the browser's own accessible picker), labelled. */
export function NativeField({
  label,
  type,
  value,
  onChange,
  error,
  name,
  isDisabled,
  className,
}: {
  label: ReactNode;
  type: 'date' | 'time' | 'color' | 'number';
  value: string;
  onChange: (value: string) => void;
  error?: string | null;
  name?: string;
  isDisabled?: boolean;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        id={id}
        name={name}
        type={type}
        className={`field-input${type === 'color' ? ' field-color' : ''}`}
        value={value}
        disabled={isDisabled}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A whole number typed as text; '' is "not set". */
export function toInt(value: string): number | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

export function PendingBadge({ status }: { status: 'pending' | 'failed' | 'confirmed' | 'superseded' }) {
  const { t } = useTranslation();
  return (
    <span className={`pending-badge pending-badge--${status}`} data-testid={`pending-${status}`}>
      {status === 'failed' ? t('units.settings.failed') : t('units.settings.pending')}
    </span>
  );
}
