import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createQueryClient } from './app/App';
import { prefetchLiveMap } from './features/map/prefetch';
import { initI18n } from './lib/i18n';
import { restoreSession } from './lib/session';

async function start() {
  const i18n = initI18n();
  await restoreSession();
  prefetchLiveMap();
  const container = document.getElementById('root');
  if (!container) throw new Error('#root missing');
  createRoot(container).render(
    <StrictMode>
      <App i18n={i18n} queryClient={createQueryClient()} />
    </StrictMode>,
  );
}

void start();
