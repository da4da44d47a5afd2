import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { Brand } from '../modules/brands/model';
import { App } from './app/App';
import { preloadStartScreen } from './app/routes';
import { visitorSubsiteId } from './brands/BrandProvider';
import { chooseLanguage, initI18n, storedLanguage } from './lib/i18n';
import { getSession } from './lib/session';

/**
 * Renders the app (the entry, `main.tsx`, loads this once the session is read; it has asked for the brands already).
 * The starting language is the visitor's own earlier choice, else the brand's default, else the browser's, else
 * Swedish; only that language's texts are loaded before the first render.
 */
export async function startApp(brandsRequest: Promise<Brand[] | null>): Promise<void> {
  const session = getSession();
  const brands = await brandsRequest;
  const subsiteId = session?.user.SubsiteID ?? visitorSubsiteId();
  const brand = brands?.find((b) => b.subsiteId === subsiteId) ?? brands?.[0];
  const language = chooseLanguage({ stored: storedLanguage(), brandDefault: brand?.defaultLanguage, browser: navigator.languages ?? [navigator.language] });
  const [i18n] = await Promise.all([initI18n(language), preloadStartScreen(window.location.pathname, session !== null)]);
  const container = document.getElementById('root');
  if (!container) throw new Error('#root missing');
  createRoot(container).render(
    <StrictMode>
      <App i18n={i18n} brands={brands} />
    </StrictMode>,
  );
}
