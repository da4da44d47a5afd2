import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { forgotPasswordSchema } from '../../../modules/auth/model';
import { useBrand } from '../../brands/BrandProvider';
import { Banner, Field } from '../../components/Form';
import { PublicLayout } from '../../components/PublicLayout';
import { api, errorText, isApiError } from '../../lib/api';
import { setFlash } from '../../lib/flash';
import { currentLanguage } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { check } from '../../lib/validation';

/** Spec §2/§4: request a reset link; success sets the banner flag and goes to /. */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const brand = useBrand();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const parsed = check(forgotPasswordSchema, { subsite_id: brand.subsiteId, email_address: email, lang: currentLanguage() });
    if (!parsed.ok) {
      setError(parsed.errors.email_address ?? null);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await api.post('/api/password/forgot', parsed.data);
      setFlash('resetLinkSent');
      navigate(PATHS.login, { replace: true });
    } catch (caught) {
      const field = isApiError(caught) ? caught.fieldError('email_address') : undefined;
      if (field) setError(field);
      else setFailure(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout title={t('forgot.title')}>
      <form className="auth-form" onSubmit={submit} noValidate>
        <p className="auth-lead">{t('forgot.lead')}</p>
        {failure && <Banner kind="error">{failure}</Banner>}
        <Field label={t('forgot.email')} type="email" value={email} onChange={setEmail} error={error} name="email_address" autoComplete="email" isRequired autoFocus />
        <Button type="submit" className="btn btn-primary btn-block" isDisabled={busy}>
          {t('forgot.submit')}
        </Button>
        <p className="auth-links">
          <Link to={PATHS.login}>{t('common.backToLogin')}</Link>
        </p>
      </form>
    </PublicLayout>
  );
}
