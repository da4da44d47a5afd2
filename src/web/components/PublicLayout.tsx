import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { BrandLogo, useBrand } from '../brands/BrandProvider';
import { PATHS } from '../lib/paths';
import { LanguagePicker } from './LanguagePicker';

/** The frame of the public pages other than login: logo, language picker, one card, footer. */
export function PublicLayout({ title, children, wide = false }: { title: string; children: ReactNode; wide?: boolean }) {
  const brand = useBrand();
  const { t } = useTranslation();
  return (
    <div className="public-page">
      <header className="public-header">
        <Link to={PATHS.login} className="public-logo-link" aria-label={t('common.toLogin', { brand: brand.name })}>
          <BrandLogo brand={brand} />
        </Link>
        <LanguagePicker />
      </header>
      <main className={`public-card${wide ? ' public-card--wide' : ''}`} aria-labelledby="page-title">
        <h1 id="page-title" className="auth-title">
          {title}
        </h1>
        {children}
      </main>
      <footer className="login-footer">
        {brand.name} © {new Date().getFullYear()}
      </footer>
    </div>
  );
}
