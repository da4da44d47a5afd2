import type { i18n as I18n } from 'i18next';
import { I18nextProvider } from 'react-i18next';
import { unstable_HistoryRouter as HistoryRouter } from 'react-router';
import type { Brand } from '../../modules/brands/model';
import { BrandProvider } from '../brands/BrandProvider';
import { DialogProvider } from '../components/DialogProvider';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { appHistory } from '../lib/navigation-guard';
import { AppRoutes } from './routes';

/** `brands`: the list the entry asked for at start, else null (the brand provider then asks itself). */
export function App({ i18n, brands }: { i18n: I18n; brands: Brand[] | null }) {
  return (
    <ErrorBoundary>
      <I18nextProvider i18n={i18n}>
        {/* The app's own history, so that a screen with unsaved work can hold the browser's back button too. */}
        <HistoryRouter history={appHistory}>
          <BrandProvider initial={brands}>
            <DialogProvider>
              <AppRoutes />
            </DialogProvider>
          </BrandProvider>
        </HistoryRouter>
      </I18nextProvider>
    </ErrorBoundary>
  );
}
