import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { resetPasswordSchema } from '../../../modules/auth/model';
import { useBrand } from '../../brands/BrandProvider';
import { Banner, Field } from '../../components/Form';
import { PublicLayout } from '../../components/PublicLayout';
import { api, errorText, isApiError } from '../../lib/api';
import { setFlash } from '../../lib/flash';
import { PATHS } from '../../lib/paths';
import { check, type FieldMessages } from '../../lib/validation';

/** Spec §2/§4/§8: reads the code from `_c`; errors (expired, invalid code, password rules) under the fields. */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const brand = useBrand();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const code = params.get('_c') ?? '';
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const parsed = check(resetPasswordSchema, { subsite_id: brand.subsiteId, code, password, password_confirmation: confirmation });
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await api.post('/api/password/reset', parsed.data);
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
    <PublicLayout title={t('reset.title')}>
      <form className="auth-form" onSubmit={submit} noValidate>
        {failure && <Banner kind="error">{failure}</Banner>}
        {(errors.code || !code) && (
          <p className="field-error" role="alert" data-testid="reset-code-error">
            {errors.code || t('server:validation.reset.codeMissing')}{' '}
            <Link to={PATHS.forgotPassword}>{t('reset.requestNew')}</Link>
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
          isRequired
        />
        <Button type="submit" className="btn btn-primary btn-block" isDisabled={busy || !code}>
          {t('reset.submit')}
        </Button>
        <p className="auth-links">
          <Link to={PATHS.login}>{t('common.backToLogin')}</Link>
        </p>
      </form>
    </PublicLayout>
  );
}
