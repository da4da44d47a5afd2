import { type FormEvent, type ReactNode, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { api, errorText, isApiError } from '../lib/api';
import { setFlash } from '../lib/flash';
import { PATHS } from '../lib/paths';
import { check, type FieldMessages } from '../lib/validation';
import { Banner, Field } from './Form';
import { PublicLayout } from './PublicLayout';

export interface NewPasswordFields {
  code: string;
  password: string;
  password_confirmation: string;
}

/**
 * A link with a one-time code (`?_c=`) where someone chooses a password (a password reset, an accepted invitation):
 * the shared schema checks the fields, the server's refusals show under their fields, and success goes to the login
 * page with the "password changed" notice.
 */
export function NewPasswordForm<S extends z.ZodType>(props: {
  title: string;
  intro?: string;
  submitLabel: string;
  /** The body the endpoint takes, from the typed fields; checked with `schema` before it is sent. */
  schema: S;
  body: (fields: NewPasswordFields) => unknown;
  endpoint: string;
  /** What a missing or refused code says (`error` is the server's message), with what the reader can do. */
  codeHint: (error: string | undefined) => ReactNode;
  testIdPrefix?: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const code = params.get('_c') ?? '';
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const testId = (name: string) => (props.testIdPrefix ? `${props.testIdPrefix}-${name}` : undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const parsed = check(props.schema, props.body({ code, password, password_confirmation: confirmation }));
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await api.post(props.endpoint, parsed.data);
      setFlash('passwordChanged');
      navigate(PATHS.login, { replace: true });
    } catch (caught) {
      if (isApiError(caught) && Object.keys(caught.fields).length > 0) {
        setErrors({
          code: caught.fieldError('code') ?? '',
          password: caught.fieldError('password') ?? '',
          password_confirmation: caught.fieldError('password_confirmation') ?? '',
        });
      } else {
        setFailure(errorText(caught));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout title={props.title}>
      <form className="auth-form" onSubmit={submit} noValidate>
        {props.intro && <p>{props.intro}</p>}
        {failure && <Banner kind="error">{failure}</Banner>}
        {(errors.code || !code) && (
          <p className="field-error" role="alert" data-testid={testId('code-error')}>
            {props.codeHint(errors.code || undefined)}
          </p>
        )}
        <Field
          label={t('reset.password')}
          type="password"
          value={password}
          onChange={setPassword}
          error={errors.password}
          name="password"
          autoComplete="new-password"
          description={t('password.rules')}
          testId={testId('password')}
          isRequired
          autoFocus
        />
        <Field
          label={t('reset.confirm')}
          type="password"
          value={confirmation}
          onChange={setConfirmation}
          error={errors.password_confirmation}
          name="password_confirmation"
          autoComplete="new-password"
          testId={testId('confirm')}
          isRequired
        />
        <Button type="submit" className="btn btn-primary btn-block" isDisabled={busy || !code} data-testid={testId('submit')}>
          {props.submitLabel}
        </Button>
        <p className="auth-links">
          <Link to={PATHS.login}>{t('common.backToLogin')}</Link>
        </p>
      </form>
    </PublicLayout>
  );
}
