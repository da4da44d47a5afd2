import { useTranslation } from 'react-i18next';
import { useBrand } from '../../brands/BrandProvider';
import { usesRegistrationWizard } from '../../brands/rules';
import { PublicLayout } from '../../components/PublicLayout';
import { QueryProvider } from '../../lib/query-client';
import { OldRegistrationForm } from './OldRegistrationForm';
import { RegistrationWizard } from './RegistrationWizard';

/** Spec §2 `/user/register`: the new step-by-step wizard or the old single form, per brand. */
export function RegisterPage() {
  // Signed out, no frame provides the query client: this page does.
  return (
    <QueryProvider>
      <Registration />
    </QueryProvider>
  );
}

function Registration() {
  const { t } = useTranslation();
  const brand = useBrand();
  const wizard = usesRegistrationWizard(brand);
  return (
    <PublicLayout title={t('registration.title')} wide>
      {wizard ? <RegistrationWizard /> : <OldRegistrationForm />}
    </PublicLayout>
  );
}
