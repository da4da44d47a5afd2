import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { BrandLogo, useBrand } from '../brands/BrandProvider';
import { PATHS } from '../lib/paths';
import { landingPath, useSession } from '../lib/session';

function NotFoundBody() {
  const { t } = useTranslation();
  const session = useSession();
  return (
    <section className="not-found" aria-labelledby="not-found-title" data-testid="not-found">
      <p className="not-found-code" aria-hidden="true">
        404
      </p>
      <h1 id="not-found-title">{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <Link className="btn btn-primary" to={session ? landingPath(session.user) : PATHS.login}>
        {session ? t('notFound.back') : t('notFound.toLogin')}
      </Link>
    </section>
  );
}

/** Inside the shell (signed in): just the content. */
export function NotFoundPage() {
  return <NotFoundBody />;
}

/** For anonymous visitors: a page of its own with the brand. */
export function StandaloneNotFoundPage() {
  const brand = useBrand();
  return (
    <div className="standalone-page">
      <header className="standalone-header">
        <BrandLogo brand={brand} />
      </header>
      <main>
        <NotFoundBody />
      </main>
    </div>
  );
}
