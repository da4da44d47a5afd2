import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createQueryClient } from './app/App';
import { initI18n } from './lib/i18n';

/** Renders the app (the entry, `main.tsx`, loads this once the session is read). */
export function startApp(): void {
  const i18n = initI18n();
  const container = document.getElementById('root');
  if (!container) throw new Error('#root missing');
  createRoot(container).render(
    <StrictMode>
      <App i18n={i18n} queryClient={createQueryClient()} />
    </StrictMode>,
  );
}
