import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import { I18nextProvider } from 'react-i18next';
import { unstable_HistoryRouter as HistoryRouter } from 'react-router';
import { BrandProvider } from '../brands/BrandProvider';
import { DialogProvider } from '../components/DialogProvider';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { isApiError } from '../lib/api';
import { appHistory } from '../lib/navigation-guard';
import { AppRoutes } from './routes';

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: false,
        // A 4xx will not get better by asking again.
        retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      },
    },
  });
}

export function App({ i18n, queryClient }: { i18n: I18n; queryClient: QueryClient }) {
  return (
    <ErrorBoundary>
      <I18nextProvider i18n={i18n}>
        <QueryClientProvider client={queryClient}>
          {/* The app's own history, so that a screen with unsaved work can hold the browser's back button too. */}
          <HistoryRouter history={appHistory}>
            <BrandProvider>
              <DialogProvider>
                <AppRoutes />
              </DialogProvider>
            </BrandProvider>
          </HistoryRouter>
        </QueryClientProvider>
      </I18nextProvider>
    </ErrorBoundary>
  );
}
