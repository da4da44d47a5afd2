import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { resetPasswordSchema } from '../../../modules/auth/model';
import { useBrand } from '../../brands/BrandProvider';
import { NewPasswordForm } from '../../components/NewPasswordForm';
import { PATHS } from '../../lib/paths';

/** Spec §2/§4/§8: reads the code from `_c`; errors (expired, invalid code, password rules) under the fields. */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const brand = useBrand();
  return (
    <NewPasswordForm
      title={t('reset.title')}
      submitLabel={t('reset.submit')}
      schema={resetPasswordSchema}
      body={(fields) => ({ subsite_id: brand.subsiteId, ...fields })}
      endpoint="/api/password/reset"
      codeHint={(error) => (
        <>
          {error || t('server:validation.reset.codeMissing')} <Link to={PATHS.forgotPassword}>{t('reset.requestNew')}</Link>
        </>
      )}
      testIdPrefix="reset"
    />
  );
}
