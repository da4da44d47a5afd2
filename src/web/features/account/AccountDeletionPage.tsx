import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useBrand } from '../../brands/BrandProvider';
import { Banner } from '../../components/Form';
import { PublicLayout } from '../../components/PublicLayout';
import { api, errorText } from '../../lib/api';
import { QueryProvider } from '../../lib/query-client';
import { PATHS } from '../../lib/paths';

interface ContactAddress {
  email: string;
  phonelbl: string;
  address: string;
}

/** Spec §2: the account is tied to a subscription; the provider's contact address and phone per sub-site. */
export function AccountDeletionPage() {
  // Signed out, no frame provides the query client: this page does.
  return (
    <QueryProvider>
      <AccountDeletion />
    </QueryProvider>
  );
}

function AccountDeletion() {
  const { t } = useTranslation();
  const brand = useBrand();
  const contact = useQuery({
    queryKey: ['contact-address', brand.subsiteId],
    queryFn: () => api.get<ContactAddress>('/api/contact-address', { query: { SubsiteID: brand.subsiteId } }),
  });
  return (
    <PublicLayout title={t('deletion.title')}>
      <p>{t('deletion.subscription', { brand: brand.name })}</p>
      <p>{t('deletion.contact')}</p>
      {contact.isPending && <p aria-live="polite">{t('common.loading')}</p>}
      {contact.isError && <Banner kind="error">{errorText(contact.error)}</Banner>}
      {contact.data && (
        <address className="contact-card" data-testid="contact-address">
          <span>{contact.data.address}</span>
          <span>
            {t('deletion.email')}: <a href={`mailto:${contact.data.email}`}>{contact.data.email}</a>
          </span>
          <span>
            {t('deletion.phone')}: <a href={`tel:${contact.data.phonelbl.replace(/\s+/g, '')}`}>{contact.data.phonelbl}</a>
          </span>
        </address>
      )}
      <p className="auth-links">
        <Link to={PATHS.login}>{t('common.backToLogin')}</Link>
      </p>
    </PublicLayout>
  );
}
