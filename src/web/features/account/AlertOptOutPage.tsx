import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { alertOptOutSchema } from '../../../modules/auth/model';
import { useBrand } from '../../brands/BrandProvider';
import { Banner, CheckboxField, Field } from '../../components/Form';
import { PublicLayout } from '../../components/PublicLayout';
import { api, errorText } from '../../lib/api';
import { PATHS } from '../../lib/paths';
import { check, type FieldMessages } from '../../lib/validation';

/** Spec §2/§6/§8: an alarm receiver removes themselves with e-mail and password; failure in a red banner. */
export function AlertOptOutPage() {
  const { t } = useTranslation();
  const brand = useBrand();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [removePush, setRemovePush] = useState(true);
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const parsed = check(alertOptOutSchema, { nt_useremail: email, nt_password: password, remove_push: removePush, subsite_id: brand.subsiteId });
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const data = await api.post<{ message: string }>('/api/alerts/opt-out', parsed.data);
      setDone(data.message);
      setPassword('');
    } catch (caught) {
      setFailure(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout title={t('optOut.title')}>
      {done ? (
        <Banner kind="success">{done}</Banner>
      ) : (
        <form className="auth-form" onSubmit={submit} noValidate>
          <p className="auth-lead">{t('optOut.lead')}</p>
          {failure && <Banner kind="error">{failure}</Banner>}
          <Field label={t('optOut.email')} type="email" value={email} onChange={setEmail} error={errors.nt_useremail} name="nt_useremail" autoComplete="email" isRequired autoFocus />
          <Field label={t('optOut.password')} type="password" value={password} onChange={setPassword} error={errors.nt_password} name="nt_password" autoComplete="current-password" isRequired />
          <CheckboxField isSelected={removePush} onChange={setRemovePush} name="remove_push">
            {t('optOut.removePush')}
          </CheckboxField>
          <Button type="submit" className="btn btn-primary btn-block" isDisabled={busy}>
            {t('optOut.submit')}
          </Button>
        </form>
      )}
      <p className="auth-links">
        <Link to={PATHS.login}>{t('common.backToLogin')}</Link>
      </p>
    </PublicLayout>
  );
}
