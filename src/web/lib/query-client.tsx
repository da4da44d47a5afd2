import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { isApiError } from './api';

/**
 * The app's one query client. It loads with the first screen that asks the server through it (the signed-in frame,
 * `Shell`, and the few signed-out pages that do), not with the login page, which has no use for it.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      refetchOnWindowFocus: false,
      // A 4xx will not get better by asking again.
      retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
    },
  },
});

/** Gives the screens below the app's query client: the cache is the same wherever it is provided. */
export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
